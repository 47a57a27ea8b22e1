// The constraint compiler's context, which the evaluator rows
// (evaluators_constraint.cc, form_evaluators_internal.h) compile their operands
// through. Internal to the rules_compile stage; the entry points are
// CompileScalar/CompileRef/CompileGuard in guard.h.
#ifndef EGRET_RULES_COMPILE_GUARD_INTERNAL_H_
#define EGRET_RULES_COMPILE_GUARD_INTERNAL_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "egret/rules/ast.h"
#include "egret/rules_compile/guard.h"

namespace egret::rules {

class ExprCompiler {
 public:
  explicit ExprCompiler(const ExprEnv& env) : env_(env) {}

  // Compiles `e` through its row's scalar (reference) evaluator; an error at
  // `e` when its form has none.
  absl::StatusOr<ScalarFn> ScalarOf(const Expr& e);
  absl::StatusOr<RefFn> RefOf(const Expr& e);
  // The scalar operands of `e` from `from` (to `end`).
  absl::StatusOr<std::vector<ScalarFn>> ScalarArgs(const Expr& e, size_t from = 0,
                                                   size_t end = ~size_t{0});
  // The slot of e.split_tag in EvalState::splits, or an error when the tag is
  // not in scope.
  absl::StatusOr<int> SplitSlot(const Expr& e);

  const ExprEnv& env() const { return env_; }

 private:
  const ExprEnv& env_;
};

// A kInvalidArgument "file:line:col: error: msg" at `e`.
absl::Status ErrorAt(const Expr& e, std::string_view msg);

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_GUARD_INTERNAL_H_
