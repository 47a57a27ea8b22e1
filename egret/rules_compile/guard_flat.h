// Flat guards: a constraint's conjunctions compiled to one evaluator each
// instead of a tree of closures. Internal to the rules_compile stage.
//
// The shipped rules' guards are mostly ANDs of comparisons of type properties
// (SAME_DIMS expands to EQ(RANK_OF(a), RANK_OF(b)) and four
// EQ(DIM_OF(a, d), DIM_OF(b, d)); IS_FLOAT32(x) to EQ(DTYPE_OF(x), Float32);
// IS_SCALAR to four EQ(DIM_OF(x, d), 1)). Compiled as closures, each
// comparison is a closure call, two property closures, two tag closures, two
// literal-index closures, two Finds and two type-table lookups. Compiled flat,
// an AND (its nested ANDs flattened into it) is one closure that runs its
// conjuncts in order from a small table, resolving each operand (its class,
// node and type) once per evaluation. A conjunct is
//  - a comparison (EQ, NE, LT, GT, LE, GE) of two sides, each a literal
//    (bool, int, size, float, dtype) or RANK_OF / DIM_OF(x, literal) /
//    DTYPE_OF / ZERO_OFFSET_OF / STEPSIZE_OF / QUANT_AXIS_OF /
//    ELEMENT_SIZE_OF of an operand;
//  - SAME_ENCODING or SAME_OP of two operands;
//  - anything else: its ordinary compiled closure;
// where an operand is a tag, "*", or INPUT_OF(operand, literal index).
// Comparisons whose sides cannot be floats compare the integers directly,
// and SAME_DIMS's five (rank and dims 3..0) are fused into one conjunct.
// The value, and whether the evaluation failed (EvalState::failed), are
// exactly those of the closure tree (guard.h's semantics): conjuncts run in
// source order, the first false or failed one ends the AND with false; a
// lone comparison has Compare's value, failed or not.
#ifndef EGRET_RULES_COMPILE_GUARD_FLAT_H_
#define EGRET_RULES_COMPILE_GUARD_FLAT_H_

#include <optional>

#include "absl/status/statusor.h"
#include "egret/rules/ast.h"
#include "egret/rules_compile/guard.h"
#include "egret/rules_compile/guard_internal.h"

namespace egret::rules {

// `e` compiled flat when it is an AND, or a comparison whose two sides are
// flat reads (above); nullopt for any other form (compile it as usual).
// Errors are those of compiling `e`'s operands.
absl::StatusOr<std::optional<ScalarFn>> CompileFlat(ExprCompiler& c, const Expr& e);

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_GUARD_FLAT_H_
