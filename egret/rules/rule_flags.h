// What the rule flags of DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS (ast.h:
// RuleFlag) mean when egret optimizes, and which rules a run leaves out.
//
// On the HTP a rule flag either gates the rule on an overall switch of the
// graph's preparation, or asks for a clean-up step after the pass that holds
// the rule. egret keeps the first kind and has no use for the second:
//
//   relaxed_precision_flag  gating: the rule runs only when relaxed precision
//                           is asked for (`--flag relaxed_precision`,
//                           OptimizeOptions::rule_flags). Such rules trade
//                           Float32 for Float16 arithmetic, which changes the
//                           computed values, so they must be opted into.
//   fold_relu_flag          gating: runs only with `--flag fold_relu` (the
//                           HTP's overall switch for folding activations).
//   cse_after_always,       no effect: the HTP runs common-subexpression
//   cse_after_if            elimination after the pass (always, or if the rule
//                           fired); an e-graph is hash-consed, so equal nodes
//                           are always one node and CSE happens on every
//                           insertion.
//   cp_after_always,        no effect: the HTP runs constant propagation after
//   cp_after_if             the pass; egret's constant folding is a rewrite of
//                           every phase and iteration (pipeline/
//                           constant_fold.h), so it already runs after every
//                           rule application (unless folding is turned off,
//                           and then these flags do not turn it back on).
//   explicit_autosplit_flag no effect: it marks an AUTOSPLIT rule that runs
//                           whether or not the HTP's central tiler is on;
//                           egret has no central tiler that would skip the
//                           other AUTOSPLIT rules, so every such rule runs.
//
// A flag name egret does not know is a parse warning and does not gate the
// rule. docs/rule-language.md says the same for rule authors.
#ifndef EGRET_RULES_RULE_FLAGS_H_
#define EGRET_RULES_RULE_FLAGS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/rules/ast.h"
#include "egret/rules/rule_set.h"

namespace egret::rules {

// The rule flags that gate a rule on a switch of the run.
inline constexpr uint32_t kGatingRuleFlags = kRelaxedPrecision | kFoldRelu;

// A switch a run can turn on (`--flag NAME`).
struct RunFlag {
  std::string_view name;       // "relaxed_precision"
  std::string_view rule_flag;  // the rule flag it enables: "relaxed_precision_flag"
  uint32_t bit;                // its RuleFlag bit
};

// Every run switch, in the order help texts list them.
absl::Span<const RunFlag> RunFlags();

// "relaxed_precision, fold_relu".
std::string RunFlagNames();

// The RuleFlag bits of `names`, each a RunFlag's name or its rule flag's
// spelling ("relaxed_precision" or "relaxed_precision_flag"). An unknown
// name is kInvalidArgument: "unknown rule flag 'x' (known: relaxed_precision,
// fold_relu)".
absl::StatusOr<uint32_t> ParseRunFlags(absl::Span<const std::string> names);

// Whether `rule` runs when the switches `enabled` (RuleFlag bits) are on:
// every gating flag it carries is enabled.
bool RuleRuns(const Rule& rule, uint32_t enabled);

// The valid rules of a set a run leaves out because a switch is off.
struct LeftOutRules {
  size_t count = 0;
  // The switches that would bring them in ("relaxed_precision"), in
  // RunFlags() order.
  std::vector<std::string> needed;
  // Rules of device-lowering passes (pass_groups.h) left out of a run that
  // writes a graph for other runtimes (not in `count`).
  size_t device_lowering = 0;

  // "" when nothing is left out, else "3 rules left out (they need --flag
  // relaxed_precision)" and/or "9 device-lowering rules left out (TILING,
  // ...: the output is for other runtimes)".
  std::string ToString() const;
};
// `device_lowering` false: the run leaves out the device-lowering passes.
LeftOutRules RulesLeftOut(const RuleSet& set, uint32_t enabled, bool device_lowering = true);

}  // namespace egret::rules

#endif  // EGRET_RULES_RULE_FLAGS_H_
