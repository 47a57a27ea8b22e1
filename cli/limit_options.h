// The saturation limits of the commands that optimize (`egret optimize`,
// `egret compare`): --iter-limit N, --node-limit N, --time-limit S and
// --memory-limit BYTES. Each takes a positive value or the word `none` (no
// limit); zero, a negative number or anything else is an error. Memory is
// bytes with an optional K, M, G or T suffix (powers of 1024; "512M"); its
// default is 75% of the machine's physical memory.
#ifndef EGRET_CLI_LIMIT_OPTIONS_H_
#define EGRET_CLI_LIMIT_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "egret/egraph/runner.h"

namespace egret::cli {

// The options as given (strings, parsed by ParseLimitFlags).
struct LimitFlags {
  std::string iterations = "30";
  std::string nodes = "100000";
  std::string seconds = "30";
  std::string memory;  // "" = the default, DefaultMemoryLimitBytes()
};

// Adds the four options to `cmd`; `scope` prefixes their help ("eqsat: ").
void AddLimitOptions(CLI::App* cmd, LimitFlags* flags, std::string_view scope = "");

// 75% of physical memory (sysconf), or 0 (no limit) when unknown.
size_t DefaultMemoryLimitBytes();

// "123", "64K", "512M", "2G", "1T" -> bytes; nullopt for anything else
// (zero, negative, fractional, overflowing, unknown suffix).
std::optional<size_t> ParseByteSize(std::string_view text);

// --memory-limit's value: "" -> DefaultMemoryLimitBytes(), "none" -> 0 (no
// limit), else ParseByteSize; otherwise prints the one-line error (as below)
// and returns nullopt.
std::optional<size_t> ParseMemoryLimit(std::string_view command, const std::string& text);

// The runner limits for `flags`: iterations per phase, nodes, seconds (`none`:
// 1e9 s, about 31 years) and memory (measured as the process's resident set
// size). Otherwise prints "egret COMMAND: error: --node-limit must be a
// positive integer or 'none', not '-1'" on stderr and returns nullopt (the
// caller exits with kExitBadInput).
std::optional<RunnerLimits> ParseLimitFlags(std::string_view command, const LimitFlags& flags);

}  // namespace egret::cli

#endif  // EGRET_CLI_LIMIT_OPTIONS_H_
