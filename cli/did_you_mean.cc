#include "cli/did_you_mean.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace egret::cli {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The subcommand being parsed: the deepest one selected on the command line.
const CLI::App* Current(const CLI::App& app) {
  const CLI::App* cur = &app;
  while (!cur->get_subcommands().empty()) cur = cur->get_subcommands().front();
  return cur;
}

}  // namespace

std::string ClosestName(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string w = absl::AsciiStrToLower(std::string(word));
  std::string best;
  size_t best_distance = std::max<size_t>(1, w.size() / 4) + 1;
  for (const std::string& c : candidates) {
    const std::string lc = absl::AsciiStrToLower(c);
    if (w.size() >= 3 && lc.size() > w.size() && lc.starts_with(w)) return c;
    const size_t d = EditDistance(w, lc);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string DidYouMean(const CLI::App& app, const CLI::Error& error) {
  // The words that were not understood: those the error names ("The
  // following arguments were not expected: ..."), or, when it names none
  // ("A subcommand is required"), what the parse left over.
  const std::string what = error.what();
  const CLI::App* cur = Current(app);
  std::vector<std::string> words;
  if (const size_t at = what.find("not expected: "); at != std::string::npos) {
    for (absl::string_view w :
         absl::StrSplit(absl::string_view(what).substr(at + 14), ' ', absl::SkipEmpty())) {
      words.emplace_back(w);
    }
  } else {
    words = cur->remaining();
  }
  std::vector<std::string> names;
  for (const CLI::App* sub : cur->get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  for (const CLI::Option* o : cur->get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  }
  for (std::string_view w : words) {
    if (const size_t eq = w.find('='); w.starts_with("--") && eq != std::string_view::npos) {
      w = w.substr(0, eq);
    }
    const std::string best = ClosestName(w, names);
    if (!best.empty()) return absl::StrFormat(" (did you mean '%s'?)", best);
  }
  return "";
}

}  // namespace egret::cli
