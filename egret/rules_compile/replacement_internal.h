// The replacement compiler's context and the pieces the builder rows
// (evaluators_replacement.cc, form_evaluators_internal.h) share: the state of one
// application, output-type modifiers and adding a typed node. Internal to the
// rules_compile stage; the entry point is CompileReplacement() in
// replacement.h.
#ifndef EGRET_RULES_COMPILE_REPLACEMENT_INTERNAL_H_
#define EGRET_RULES_COMPILE_REPLACEMENT_INTERNAL_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/rules/ast.h"
#include "egret/rules_compile/guard.h"
#include "egret/rules_compile/replacement.h"

namespace egret::rules {

// One application of a replacement.
struct BuildState {
  EGraph* g = nullptr;
  const MatchView* m = nullptr;
  std::vector<SplitContext> splits;
  TensorType default_type;  // the output type of a new op without modifiers
  std::string error;        // set on the first failure

  EvalState Eval() const {
    EvalState s;
    s.g = g;
    s.m = m;
    s.splits = splits.data();
    return s;
  }
  Id Fail(std::string msg) {
    if (error.empty()) error = std::move(msg);
    return kNoId;
  }
};

// A modifier: changes the output type of the op it wraps; false on failure.
using ModFn = std::function<bool(BuildState&, TensorType&)>;
struct ModList {
  const ModList* outer = nullptr;
  const ModFn* fn = nullptr;
  bool relative = false;  // ResizeDim
};

// Builds a value; returns its class, or kNoId with BuildState::error set.
using BuildFn = std::function<Id(BuildState&, const ModList*)>;

// Applies `mods` to `t`: absolute ones outermost first, then relative ones.
bool ApplyMods(BuildState& st, const ModList* mods, TensorType& t);

// Adds a node of `op` with output `type`, checked against op's shape function
// when it is a known op; kNoId with the error in `st` on failure.
Id AddTyped(BuildState& st, Symbol op, Payload payload, absl::Span<const Id> children,
            const TensorType& type);

class ReplCompiler {
 public:
  ReplCompiler(const ExprEnv& env, absl::flat_hash_map<std::string, int>* split_slots,
               std::shared_ptr<RuleLog> log)
      : env_(env), split_slots_(split_slots), log_(std::move(log)) {}

  // Compiles `e` through its row's builder; an error at `e` when its form has
  // none.
  absl::StatusOr<BuildFn> Build(const Expr& e);
  // The operands of `e` from `from` (to `end`) as builders / scalars.
  absl::StatusOr<std::vector<BuildFn>> Builds(const Expr& e, size_t from);
  absl::StatusOr<std::vector<ScalarFn>> Scalars(const Expr& e, size_t from,
                                                size_t end = ~size_t{0});
  // The split slot of an AUTOSPLIT/OP_ITER (assigned on first use), and of a
  // split reference inside one (an error when the tag is not in scope).
  int NewSplit(const Expr& e);
  absl::StatusOr<int> SplitSlot(const Expr& e) const;

  const ExprEnv& env() const { return env_; }
  const std::shared_ptr<RuleLog>& log() const { return log_; }

 private:
  const ExprEnv& env_;
  absl::flat_hash_map<std::string, int>* split_slots_;
  std::shared_ptr<RuleLog> log_;
};

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_REPLACEMENT_INTERNAL_H_
