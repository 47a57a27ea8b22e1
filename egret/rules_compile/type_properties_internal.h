// The rule language's type properties and comparisons, as values: what both
// the constraint evaluators' closures (evaluators_constraint.cc) and the flat
// guards (guard_flat.cc) compute, defined once so the two cannot drift.
// Internal to the rules_compile stage.
#ifndef EGRET_RULES_COMPILE_TYPE_PROPERTIES_INTERNAL_H_
#define EGRET_RULES_COMPILE_TYPE_PROPERTIES_INTERNAL_H_

#include <cmath>
#include <cstdint>
#include <optional>

#include "egret/graph/dtype.h"
#include "egret/graph/tensor_type.h"
#include "egret/rules/ast.h"
#include "egret/rules_compile/shape_functions.h"

namespace egret::rules {

// True for the properties TypeProperty reads: RANK_OF, DIM_OF, STEPSIZE_OF,
// ZERO_OFFSET_OF, QUANT_AXIS_OF, DTYPE_OF and ELEMENT_SIZE_OF.
inline bool IsTypeProperty(ExprKind kind) {
  switch (kind) {
    case ExprKind::kRankOf:
    case ExprKind::kDimOf:
    case ExprKind::kStepsizeOf:
    case ExprKind::kZeroOffsetOf:
    case ExprKind::kQuantAxisOf:
    case ExprKind::kDTypeOf:
    case ExprKind::kElementSizeOf:
      return true;
    default:
      return false;
  }
}

// The property `kind` (IsTypeProperty) of a class of type `t`; `dim` is
// DIM_OF's index. Every one but STEPSIZE_OF (a float) is an integer: its
// Scalar's `i`.
inline Scalar TypeProperty(ExprKind kind, int dim, const TensorType& t) {
  switch (kind) {
    case ExprKind::kRankOf:
      return Scalar::Size(t.rank());
    case ExprKind::kDimOf:
      return Scalar::Size(t.dim(dim));
    case ExprKind::kStepsizeOf:
      return Scalar::Float(t.stepsize);
    case ExprKind::kZeroOffsetOf:
      return Scalar::Int(t.zero_offset);
    case ExprKind::kQuantAxisOf:
      return Scalar::Int(t.per_axis ? t.per_axis->axis : -1);
    case ExprKind::kDTypeOf:
      return Scalar::OfDType(t.dtype);
    default:  // kElementSizeOf
      return Scalar::Size(ElementSize(t.dtype));
  }
}

// The three-way order of x and y (-1, 0, 1): as floats when `fl` or either is
// a float, else as integers; nullopt when a float is NaN (unordered).
inline std::optional<int> ScalarOrder(bool fl, const Scalar& x, const Scalar& y) {
  if (fl || x.is_float() || y.is_float()) {
    const double p = x.AsFloat(), q = y.AsFloat();
    if (std::isnan(p) || std::isnan(q)) return std::nullopt;
    return p < q ? -1 : (p > q ? 1 : 0);
  }
  return x.i < y.i ? -1 : (x.i > y.i ? 1 : 0);
}

// Whether the comparison `cmp` (EQ, NE, LT, GT, LE, GE) holds for the order
// `order`; of unordered operands (ScalarOrder's nullopt) only NE holds.
inline bool ComparisonHolds(ExprKind cmp, std::optional<int> order) {
  if (!order) return cmp == ExprKind::kNe;
  switch (cmp) {
    case ExprKind::kEq:
      return *order == 0;
    case ExprKind::kNe:
      return *order != 0;
    case ExprKind::kLt:
      return *order < 0;
    case ExprKind::kGt:
      return *order > 0;
    case ExprKind::kLe:
      return *order <= 0;
    default:  // kGe
      return *order >= 0;
  }
}

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_TYPE_PROPERTIES_INTERNAL_H_
