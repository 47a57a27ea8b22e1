// The replacement builder: a rule's replacement compiled, once, into an
// e-graph Applier that adds the replacement's e-nodes for a match and returns
// the class to merge with the matched root.
//
// Output types. A constructed op takes the output type of "*" (inside an
// AUTOSPLIT body: "*"'s type with the split dim set to the piece's size)
// unless modifiers around it set it. Modifiers apply to the op they wrap (not
// to its inputs); absolute ones (WITH_SAME_OUTPUT, WITH_SIZE, WITH_TYPE,
// WITH_OUTPUT_TYPE, WITH_MULTI_OUT) apply outermost first, so an inner one
// wins, and ResizeDim is applied after all of them. WITH_TYPE sets dtype and
// encoding, WITH_SIZE the dims, WITH_SAME_OUTPUT both. A new op of a known op
// (docs/ops.md) is also checked against its shape function: dims that
// disagree, or inputs its shape function rejects, fail that application.
//
// Safety. An application whose result class has another type than the root
// is not merged: the RuleLog counts it and keeps a message naming the rule,
// its location and both types. Failures while building (a refused hash-cons
// hit, a negative gen_Shape value, an external function's error, ...) are
// logged the same way.
#ifndef EGRET_RULES_COMPILE_REPLACEMENT_H_
#define EGRET_RULES_COMPILE_REPLACEMENT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/egraph/rewrite.h"
#include "egret/graph/graph.h"
#include "egret/rules/ast.h"
#include "egret/rules_compile/guard.h"
#include "egret/rules_compile/shape_functions.h"

namespace egret::rules {

// What the applications of one rule did besides merging.
struct RuleLog {
  static constexpr size_t kMaxMessages = 20;
  static constexpr size_t kMaxProvenance = 10000;

  struct Provenance {
    Id cls = kNoId;    // the class the rule built
    Id from = kNoId;   // the operand named by WITH_SAME_ID / WITH_SPLIT_HISTORY
    std::string kind;  // "same_id" or "split_history"
  };

  size_t type_mismatches = 0;         // results whose type differs from the root's
  size_t build_failures = 0;          // applications that could not be built
  std::vector<std::string> messages;  // the first kMaxMessages, one line each
  std::vector<Provenance> provenance;

  void Note(std::string message);
};

// Compiles `rule.replacement`. `label` names the rule in messages (e.g.
// "GRAPH_CLEANUP@file.rules:12"); `bindings` are the match's tags. Errors
// (unknown function, unbound tag) name the place in the rule file.
absl::StatusOr<Applier> CompileReplacement(const Rule& rule, const std::string& label,
                                           const Bindings& bindings, const Options* options,
                                           const FunctionLibrary* functions,
                                           std::shared_ptr<RuleLog> log);

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_REPLACEMENT_H_
