// The shipped rule library (rules/lib of this source tree) for the benchmark
// programs.
#ifndef EGRET_BENCH_SHIPPED_RULES_H_
#define EGRET_BENCH_SHIPPED_RULES_H_

#include <optional>
#include <string_view>

#include "egret/rules/rule_set.h"

namespace egret {

// Loads rules/lib/*.rules. When a file does not load or has errors, prints
// "<program>: error: the rule library does not load" and the diagnostics to
// stderr and returns nullopt.
std::optional<rules::RuleSet> LoadShippedRules(std::string_view program);

}  // namespace egret

#endif  // EGRET_BENCH_SHIPPED_RULES_H_
