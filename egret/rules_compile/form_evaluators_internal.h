// How the rule-language forms are evaluated, one row per form and part, keyed
// by the ExprKind of the form's row in form_table.h (which holds its spelling,
// signature and typing; it is in the rules stage, which does not link the
// e-graph, so the evaluators are rows of their own here):
//  - guard rows (evaluators_constraint.cc): how guard.cc compiles a constraint
//    value (`scalar`) or an operand reference (`ref`) into closures evaluated
//    on e-class data per match;
//  - builder rows (evaluators_replacement.cc): how replacement.cc builds a
//    replacement value into the e-graph.
// A form's FormCategory says which it needs (kConstraint: scalar; kReference:
// ref and a builder; kSelect: all three; kReplacement: a builder);
// tests/rules/form_table_test.cc checks every row has them. Internal to the
// rules_compile stage.
#ifndef EGRET_RULES_COMPILE_FORM_EVALUATORS_INTERNAL_H_
#define EGRET_RULES_COMPILE_FORM_EVALUATORS_INTERNAL_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/rules/ast.h"
#include "egret/rules_compile/guard.h"
#include "egret/rules_compile/guard_internal.h"
#include "egret/rules_compile/replacement_internal.h"

namespace egret::rules {

// Compiles `e` (of the row's kind, checked) with `c` for its operands.
using ScalarEvaluator = absl::StatusOr<ScalarFn> (*)(ExprCompiler& c, const Expr& e);
using RefEvaluator = absl::StatusOr<RefFn> (*)(ExprCompiler& c, const Expr& e);
using Builder = absl::StatusOr<BuildFn> (*)(ReplCompiler& c, const Expr& e);

struct GuardEvaluator {
  ExprKind kind;
  ScalarEvaluator scalar = nullptr;  // a constraint value
  RefEvaluator ref = nullptr;        // an operand reference
};

struct FormBuilder {
  ExprKind kind;
  Builder build = nullptr;
};

// The guard row of `kind`, or nullptr.
const GuardEvaluator* GuardEvaluatorOf(ExprKind kind);
absl::Span<const GuardEvaluator> AllGuardEvaluators();

// The builder of `kind`, or nullptr.
Builder BuilderOf(ExprKind kind);
absl::Span<const FormBuilder> AllFormBuilders();

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_FORM_EVALUATORS_INTERNAL_H_
