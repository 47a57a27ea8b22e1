// Private to the graph stage: the shape functions the op table (op_table.cc)
// names in its rows. Each is defined in shape_inference.cc and called only
// through InferOutputTypes, which has checked the operand count and types.
#ifndef EGRET_GRAPH_SHAPE_FUNCTIONS_INTERNAL_H_
#define EGRET_GRAPH_SHAPE_FUNCTIONS_INTERNAL_H_

#include <vector>

#include "absl/status/statusor.h"
#include "egret/graph/tensor_type.h"

namespace egret::shape_internal {

struct ShapeContext;
using ShapeResult = absl::StatusOr<std::vector<TensorType>>;

ShapeResult InferConv(const ShapeContext& c);  // Conv2d, DepthWiseConv2d, TransposeConv2d
ShapeResult InferFullyConnected(const ShapeContext& c);
ShapeResult InferMatMul(const ShapeContext& c);
ShapeResult InferBinary(const ShapeContext& c);  // numpy broadcast of a and b
ShapeResult InferUnary(const ShapeContext& c);   // like x; checks float scalar parameters
ShapeResult InferSoftmax(const ShapeContext& c);
ShapeResult InferLayerNorm(const ShapeContext& c);
ShapeResult InferBatchnorm(const ShapeContext& c);
ShapeResult InferLrn(const ShapeContext& c);
ShapeResult InferReduce(const ShapeContext& c);
ShapeResult InferReshape(const ShapeContext& c);
ShapeResult InferTranspose(const ShapeContext& c);
ShapeResult InferConcat(const ShapeContext& c);
ShapeResult InferSliceShape(const ShapeContext& c);
ShapeResult InferStridedSlice(const ShapeContext& c);
ShapeResult InferSplit(const ShapeContext& c);
ShapeResult InferPad(const ShapeContext& c);
ShapeResult InferPool(const ShapeContext& c);     // PoolMax2d, PoolAvg2d
ShapeResult InferResize(const ShapeContext& c);   // Resize, ResizeBilinear, ResizeNearestNeighbor
ShapeResult InferConvert(const ShapeContext& c);  // Cast, Quantize, Dequantize
ShapeResult InferCompare(const ShapeContext& c);  // ElementWiseEqual ..: broadcast, Bool
ShapeResult InferLogical(const ShapeContext& c);  // ElementWiseAnd/Or/Xor/Not: Bool operands
ShapeResult InferSelect(const ShapeContext& c);   // ElementWiseSelect
ShapeResult InferTile(const ShapeContext& c);
ShapeResult InferGather(const ShapeContext& c);
ShapeResult InferArgReduce(const ShapeContext& c);  // Argmax, Argmin
ShapeResult InferTopK(const ShapeContext& c);
ShapeResult InferCumulativeSum(const ShapeContext& c);
ShapeResult InferOut(const ShapeContext& c);   // $Out
ShapeResult InferLeaf(const ShapeContext& c);  // $Const, $Shape, *Input: the declared type

}  // namespace egret::shape_internal

#endif  // EGRET_GRAPH_SHAPE_FUNCTIONS_INTERNAL_H_
