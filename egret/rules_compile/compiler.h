// The rule compiler: each rules::Rule (ast.h) becomes an egret::Rewrite.
//
//   match        Op("x", ...) -> an e-matching pattern node with exactly those
//                operands; OpVarIn -> at least those; LET(tag, op) binds the
//                inner node's class (and the matched e-node) to tag; a
//                repeated tag is the same class; "*" is the root class.
//   constraint   the guard (guard.h), compiled once per rule.
//   replacement  the applier (replacement.h), compiled once per rule.
//
// Rules are grouped into phases by numeric priority (each distinct value is a
// phase, run in ascending order by the optimize pipeline); see
// docs/rewrite-semantics.md.
#ifndef EGRET_RULES_COMPILE_COMPILER_H_
#define EGRET_RULES_COMPILE_COMPILER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/egraph/pattern.h"
#include "egret/egraph/rewrite.h"
#include "egret/graph/graph.h"
#include "egret/rules/ast.h"
#include "egret/rules/rule_set.h"
#include "egret/rules_compile/function_binding.h"
#include "egret/rules_compile/replacement.h"
#include "egret/rules_compile/shape_functions.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

struct CompileOptions {
  // Values OPTION_* read: the graph's options overridden by `--option`s.
  Options options;
  // Implementations of external functions; null means the built-ins only.
  const FunctionLibrary* functions = nullptr;
  // The run's switches (rule_flags.h: RuleFlag bits of RunFlags()): a rule
  // carrying a gating flag that is not among them is left out.
  uint32_t rule_flags = 0;
  // False leaves out the rules of the device-lowering passes
  // (pass_groups.h, IsDeviceLoweringPass): a graph for other runtimes.
  bool device_lowering = true;
};

struct CompiledRule {
  Rewrite rewrite;       // rewrite.name is `label`
  int64_t priority = 0;  // the rule's pass priority
  std::string label;     // "PASS_SPEC@file:line"
  SourceLocation loc;
  std::shared_ptr<RuleLog> log;  // filled by the applier as it runs
};

// The e-matching pattern of a match and where it binds each tag.
struct CompiledMatch {
  Pattern pattern;
  Bindings bindings;
};
absl::StatusOr<CompiledMatch> CompileMatch(const MatchNode& match);

// A rule's label in reports: "PASS_SPEC@file:line".
std::string RuleLabel(const Rule& rule);

// Compiles one rule. Errors are "file:line:col: error: ..." messages (a call
// of an external function the library does not implement is one).
absl::StatusOr<CompiledRule> CompileRule(const Rule& rule, const CompileOptions& options);

// Every valid rule of `set` that runs with options.rule_flags (rule_flags.h:
// RuleRuns), in file order; a rule that fails to compile is reported in
// `diags` (as an error) and left out. A rule that calls an external function
// options.functions does not implement (function_binding.h) is left out too,
// without a diagnostic, and listed in `skipped` (may be null).
std::vector<CompiledRule> CompileRules(const RuleSet& set, const CompileOptions& options,
                                       DiagnosticList* diags,
                                       std::vector<SkippedRule>* skipped = nullptr);

// The rules grouped by priority, ascending: (priority, indices into rules).
std::vector<std::pair<int64_t, std::vector<size_t>>> GroupByPriority(
    const std::vector<CompiledRule>& rules);

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_COMPILER_H_
