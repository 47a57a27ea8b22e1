#include "cli/limit_options.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace egret::cli {
namespace {

constexpr double kNoTimeLimitSeconds = 1e9;

bool Fail(std::string_view command, std::string_view option, std::string_view what,
          std::string_view text) {
  std::fprintf(stderr, "egret %s: error: %s must be %s or 'none', not '%s'\n",
               std::string(command).c_str(), std::string(option).c_str(), std::string(what).c_str(),
               std::string(text).c_str());
  return false;
}

bool ParseCount(std::string_view command, std::string_view option, std::string_view text,
                size_t* out) {
  if (text == "none") {
    *out = std::numeric_limits<size_t>::max();
    return true;
  }
  uint64_t v = 0;
  // SimpleAtoi into an unsigned type rejects a leading '-'.
  if (text.empty() || text[0] == '-' || text[0] == '+' ||
      !absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &v) || v == 0) {
    return Fail(command, option, "a positive integer", text);
  }
  *out = static_cast<size_t>(v);
  return true;
}

}  // namespace

void AddLimitOptions(CLI::App* cmd, LimitFlags* flags, std::string_view scope) {
  const std::string s(scope);
  cmd->add_option("--iter-limit", flags->iterations,
                  s + "iterations per phase (default 30; 'none': no limit)");
  cmd->add_option("--node-limit", flags->nodes, s + "most e-nodes (default 100000; 'none')");
  cmd->add_option("--time-limit", flags->seconds,
                  s + "seconds for the whole optimization, saturation and extraction (default "
                      "30; 'none')");
  cmd->add_option("--memory-limit", flags->memory,
                  s + "most memory (resident set), bytes with K/M/G/T suffix (default 75% of "
                      "physical memory; 'none')");
}

size_t DefaultMemoryLimitBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<size_t>(static_cast<double>(pages) * static_cast<double>(page) * 0.75);
}

std::optional<size_t> ParseByteSize(std::string_view text) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
  int shift = 0;
  switch (absl::ascii_toupper(static_cast<unsigned char>(text.back()))) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    case 'T':
      shift = 40;
      break;
    default:
      break;
  }
  if (shift != 0) text.remove_suffix(1);
  uint64_t v = 0;
  if (text.empty() || !absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &v) || v == 0)
    return std::nullopt;
  if (v > (std::numeric_limits<uint64_t>::max() >> shift)) return std::nullopt;
  return static_cast<size_t>(v << shift);
}

std::optional<size_t> ParseMemoryLimit(std::string_view command, const std::string& text) {
  if (text.empty()) return DefaultMemoryLimitBytes();
  if (text == "none") return 0;
  if (std::optional<size_t> b = ParseByteSize(text)) return *b;
  Fail(command, "--memory-limit", "a positive number of bytes (K, M, G, T suffixes)", text);
  return std::nullopt;
}

std::optional<RunnerLimits> ParseLimitFlags(std::string_view command, const LimitFlags& flags) {
  RunnerLimits limits;
  if (!ParseCount(command, "--iter-limit", flags.iterations, &limits.iterations) ||
      !ParseCount(command, "--node-limit", flags.nodes, &limits.nodes)) {
    return std::nullopt;
  }
  if (flags.seconds == "none") {
    limits.seconds = kNoTimeLimitSeconds;
  } else {
    double s = 0;
    if (flags.seconds.empty() || !absl::SimpleAtod(flags.seconds, &s) || !std::isfinite(s) ||
        !(s > 0)) {
      Fail(command, "--time-limit", "a positive number of seconds", flags.seconds);
      return std::nullopt;
    }
    limits.seconds = std::min(s, kNoTimeLimitSeconds);
  }
  std::optional<size_t> memory = ParseMemoryLimit(command, flags.memory);
  if (!memory) return std::nullopt;
  limits.memory_bytes = *memory;
  limits.memory_from_rss = true;
  return limits;
}

}  // namespace egret::cli
