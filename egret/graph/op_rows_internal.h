// Private to the graph stage: what the op table's rows are written with. The
// rows live in one file per op family, beside the shape functions they name
// (ops_<family>.cc); op_table.cc assembles them, family by family, in the
// order of docs/ops.md. Here: the operand constructors and algebra traits a
// row is written with, and the families' row functions (in shape_internal,
// beside the shape functions the rows name).
#ifndef EGRET_GRAPH_OP_ROWS_INTERNAL_H_
#define EGRET_GRAPH_OP_ROWS_INTERNAL_H_

#include <string_view>
#include <vector>

#include "egret/graph/op_table.h"

namespace egret::shape_internal {

// Operand constructors, so that a row reads like its signature.
inline OperandDef Data(std::string_view name, std::string_view constraint = "") {
  return OperandDef{.name = name, .constraint = constraint};
}
inline OperandDef Param(std::string_view name, std::string_view constraint) {
  return OperandDef{.name = name, .param = true, .constraint = constraint};
}
// A parameter holding a list of integers (canonically a "$Shape").
inline OperandDef Ints(std::string_view name, std::string_view constraint) {
  return OperandDef{
      .name = name, .param = true, .constraint = constraint, .form = ParamForm::kInts};
}
// A parameter holding a set of axes of operand 0.
inline OperandDef Axes(std::string_view name, std::string_view constraint) {
  return OperandDef{
      .name = name, .param = true, .constraint = constraint, .form = ParamForm::kAxes};
}
inline OperandDef Optional(OperandDef o, std::string_view default_value = "") {
  o.optional = true;
  o.default_value = default_value;
  return o;
}
inline OperandDef Variadic(OperandDef o) {
  o.variadic = true;
  return o;
}

inline constexpr OpAlgebra kCommAssoc{.commutative = true, .associative = true};
inline constexpr OpAlgebra kCommAssocBroadcast{
    .commutative = true, .associative = true, .broadcast_associative = true};
inline constexpr OpAlgebra kLattice{.commutative = true, .associative = true, .idempotent = true};
inline constexpr OpAlgebra kLatticeBroadcast{
    .commutative = true, .associative = true, .broadcast_associative = true, .idempotent = true};
inline constexpr OpAlgebra kInvolution{.involution = true};
inline constexpr OpAlgebra kCommutative{.commutative = true};

// The rows of each family (OpGroup), in the order of docs/ops.md.
std::vector<OpDef> ConvolutionRows();    // ops_convolution.cc
std::vector<OpDef> ElementwiseRows();    // ops_elementwise.cc
std::vector<OpDef> NormalizationRows();  // ops_normalization.cc
std::vector<OpDef> DataMovementRows();   // ops_data_movement.cc
std::vector<OpDef> PoolingRows();        // ops_convolution.cc
std::vector<OpDef> TypesRows();          // ops_types.cc
std::vector<OpDef> LogicRows();          // ops_elementwise.cc
std::vector<OpDef> IndexingRows();       // ops_data_movement.cc
std::vector<OpDef> SpecialRows();        // ops_special.cc

}  // namespace egret::shape_internal

#endif  // EGRET_GRAPH_OP_ROWS_INTERNAL_H_
