// Where a rule text comes from: a file on disk, or text held in memory under a
// pseudo file name (what a compiler that generates its rules passes).
#ifndef EGRET_RULES_RULE_SOURCE_H_
#define EGRET_RULES_RULE_SOURCE_H_

#include <optional>
#include <string>
#include <utility>

namespace egret::rules {

struct RuleSource {
  // The file's path; for text, the name diagnostics give it (e.g.
  // "<my rules>") and the base of its relative #include "..." searches.
  std::string name;
  // Set: the text itself (no file named `name` is opened); unset: read `name`.
  std::optional<std::string> text;

  static RuleSource File(std::string path) { return RuleSource{std::move(path), std::nullopt}; }
  static RuleSource Text(std::string name, std::string text) {
    return RuleSource{std::move(name), std::move(text)};
  }
};

}  // namespace egret::rules

#endif  // EGRET_RULES_RULE_SOURCE_H_
