// Private to the graph stage: what a shape function sees (ShapeContext; its
// output-type rule, Out, PerAxisOut and OutOfType, is in shape_inference.cc)
// and the shape functions the op table names in its rows. Each shape
// function is defined beside the rows that name it, in the ops_<family>.cc
// of its op family, and called only through InferOutputTypes, which has
// checked the operand count and types.
#ifndef EGRET_GRAPH_SHAPE_FUNCTIONS_INTERNAL_H_
#define EGRET_GRAPH_SHAPE_FUNCTIONS_INTERNAL_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"
#include "egret/graph/tensor_type.h"

namespace egret::shape_internal {

using Operands = absl::Span<const OperandInfo>;
using Types = std::vector<TensorType>;
using ShapeResult = absl::StatusOr<std::vector<TensorType>>;

inline std::string DimsStr(const Dims& d) { return absl::StrCat("[", absl::StrJoin(d, ","), "]"); }

// Everything one shape function needs, plus error helpers.
struct ShapeContext {
  std::string_view op;  // base op name
  const OpDef& def;     // the op's row
  Operands in;
  const InferOptions& options;

  absl::Status Error(std::string_view msg) const {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s", op, msg));
  }
  int size() const { return static_cast<int>(in.size()); }
  bool Has(int i) const { return i < size(); }
  const TensorType& T(int i) const { return *in[i].type; }
  const Dims& D(int i) const { return in[i].type->dims; }
  std::string What(int i) const { return absl::StrFormat("%s %s", op, def.InputName(i)); }

  absl::StatusOr<std::vector<int64_t>> Ints(int i) const { return ReadIntParam(in[i], What(i)); }
  // An integer vector parameter of exactly n values.
  absl::StatusOr<std::vector<int64_t>> IntsN(int i, size_t n) const {
    auto v = Ints(i);
    if (!v.ok()) return v.status();
    if (v->size() != n) {
      return Error(
          absl::StrFormat("%s must hold %d values, got %d", def.InputName(i), n, v->size()));
    }
    return v;
  }
  absl::StatusOr<int64_t> Int(int i) const { return ReadIntScalarParam(in[i], What(i)); }
  absl::StatusOr<int64_t> IntOr(int i, int64_t dflt) const {
    return Has(i) ? Int(i) : absl::StatusOr<int64_t>(dflt);
  }
  absl::StatusOr<double> Float(int i) const { return ReadFloatScalarParam(in[i], What(i)); }

  absl::Status RequireRank(int i, int rank) const {
    if (T(i).rank() != rank) {
      return Error(
          absl::StrFormat("%s must have rank %d, got %s", def.InputName(i), rank, T(i).ToString()));
    }
    return absl::OkStatus();
  }

  // The output type with `dims` whose encoding comes from declared output k
  // or, by default, from data input `from` (see the header's rule).
  absl::StatusOr<TensorType> Out(Dims dims, int from, size_t k = 0) const;
  // Out for a data input quantized per axis and no declared type.
  absl::StatusOr<TensorType> PerAxisOut(Dims dims, const TensorType& src) const;
  // The output type with `dims` for an output whose dtype is the op's own
  // rather than its input's (Bool comparisons, integer indices): declared
  // output k's dtype when one is declared, which must be in `allowed`, else
  // `dflt`. The encoding is the plain one (zero_offset 0, stepsize 1).
  absl::StatusOr<TensorType> OutOfType(Dims dims, DType dflt, std::initializer_list<DType> allowed,
                                       size_t k = 0) const;
};

// The one output type `t`, or its error.
inline absl::StatusOr<Types> One(absl::StatusOr<TensorType> t) {
  if (!t.ok()) return t.status();
  return Types{*std::move(t)};
}

// Convolutions and matrix products, pooling and resizing (ops_convolution.cc).
ShapeResult InferConv(const ShapeContext& c);  // Conv2d, DepthWiseConv2d, TransposeConv2d
ShapeResult InferFullyConnected(const ShapeContext& c);
ShapeResult InferMatMul(const ShapeContext& c);
ShapeResult InferPool(const ShapeContext& c);    // PoolMax2d, PoolAvg2d
ShapeResult InferResize(const ShapeContext& c);  // Resize, ResizeBilinear, ResizeNearestNeighbor

// Elementwise; comparison, logic and selection (ops_elementwise.cc).
ShapeResult InferBinary(const ShapeContext& c);   // numpy broadcast of a and b
ShapeResult InferUnary(const ShapeContext& c);    // like x; checks float scalar parameters
ShapeResult InferCompare(const ShapeContext& c);  // ElementWiseEqual ..: broadcast, Bool
ShapeResult InferLogical(const ShapeContext& c);  // ElementWiseAnd/Or/Xor/Not: Bool operands
ShapeResult InferSelect(const ShapeContext& c);   // ElementWiseSelect

// Normalization and reductions (ops_normalization.cc).
ShapeResult InferSoftmax(const ShapeContext& c);
ShapeResult InferLayerNorm(const ShapeContext& c);
ShapeResult InferBatchnorm(const ShapeContext& c);
ShapeResult InferLrn(const ShapeContext& c);
ShapeResult InferReduce(const ShapeContext& c);

// Data movement and indexing (ops_data_movement.cc).
ShapeResult InferReshape(const ShapeContext& c);
ShapeResult InferTranspose(const ShapeContext& c);
ShapeResult InferConcat(const ShapeContext& c);
ShapeResult InferSliceShape(const ShapeContext& c);
ShapeResult InferStridedSlice(const ShapeContext& c);
ShapeResult InferSplit(const ShapeContext& c);
ShapeResult InferPad(const ShapeContext& c);
ShapeResult InferTile(const ShapeContext& c);
ShapeResult InferGather(const ShapeContext& c);
ShapeResult InferArgReduce(const ShapeContext& c);  // Argmax, Argmin
ShapeResult InferTopK(const ShapeContext& c);
ShapeResult InferCumulativeSum(const ShapeContext& c);

// Types and quantization (ops_types.cc).
ShapeResult InferConvert(const ShapeContext& c);  // Cast, Quantize, Dequantize

// Special ops (ops_special.cc).
ShapeResult InferOut(const ShapeContext& c);   // $Out
ShapeResult InferLeaf(const ShapeContext& c);  // $Const, $Shape, *Input: the declared type

}  // namespace egret::shape_internal

#endif  // EGRET_GRAPH_SHAPE_FUNCTIONS_INTERNAL_H_
