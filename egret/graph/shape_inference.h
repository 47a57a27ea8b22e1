// One shape function per op (docs/ops.md), shared by the e-graph analysis, the
// importers and the reference executor.
//
// The shape function computes output dims from the input types and, for
// parameter inputs, their values. The output dtype and quantization encoding
// follow one rule for every op:
//   - when the caller declares an output type (InferOptions::declared, e.g.
//     the node's type in a graph file or the type a rule gives), its dtype and
//     encoding are used, provided they are in the same family as the data
//     input (float with float, quantized with quantized, an integer type with
//     itself); Cast accepts any concrete dtype, Quantize a quantized one and
//     Dequantize a float one;
//   - otherwise the output takes the dtype and encoding of the first data
//     input (for ElementWiseSelect, `a`, after the condition), except
//     Dequantize (Float32); Cast and Quantize have no default and fail
//     without a declared type;
//   - outputs whose dtype is the op's own ignore the data input: comparisons
//     and logic ops give Bool; the indices of Argmax, Argmin and TopK are
//     Int32, or Int64 when declared so (ONNX's index type).
// Dims are always computed, never taken from the declared type.
#ifndef EGRET_GRAPH_SHAPE_INFERENCE_H_
#define EGRET_GRAPH_SHAPE_INFERENCE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/graph.h"
#include "egret/graph/op_table.h"
#include "egret/graph/tensor.h"
#include "egret/graph/tensor_type.h"

namespace egret {

// What a shape function may know about one input.
struct OperandInfo {
  // The input's type; never null. For a "$Shape" producer, its dims are the value.
  const TensorType* type = nullptr;
  // The input's data when known: a "$Const" producer's tensor (the executor
  // passes every value). nullptr otherwise.
  const Tensor* value = nullptr;
  // The producer is a "$Shape" node: type->dims is the value.
  bool is_shape = false;
  // For an input of dtype Multi: the output types of its multi-output
  // producer (what "$Out" selects from).
  absl::Span<const TensorType> multi;
};

struct InferOptions {
  // The output types the node declares; only their dtype and encoding are
  // read (see the file comment). Empty, or a single Multi type for a
  // multi-output op, means "use the defaults".
  absl::Span<const TensorType> declared;
};

// The output types of `op` (BaseOpName is applied) applied to `inputs`.
// Errors are kInvalidArgument with a message naming the op and input, e.g.
// "Conv2d: filter in-depth 4 does not divide input depth 6"; an op egret does
// not know is kUnimplemented ("unknown op 'Foo'"). Parameter inputs must be
// known (value or is_shape); otherwise the error says which one is not.
absl::StatusOr<std::vector<TensorType>> InferOutputTypes(std::string_view op,
                                                         absl::Span<const OperandInfo> inputs,
                                                         const InferOptions& options = {});

// InferOutputTypes for node `id` of `g`, from its producers' declared types
// ("$Const" data and "$Shape" flags are passed along; a Multi producer's
// output types are inferred first). options.declared is the node's outputs.
absl::StatusOr<std::vector<TensorType>> InferNodeOutputTypes(const Graph& g, NodeId id);

// The integer vector a parameter holds: a "$Shape"'s dims or the elements of a
// constant of an integer (or integral float) dtype. `what` names the parameter
// in errors ("Reshape: shape ...").
absl::StatusOr<std::vector<int64_t>> ReadIntParam(const OperandInfo& param, std::string_view what);
// A parameter holding exactly one integer.
absl::StatusOr<int64_t> ReadIntScalarParam(const OperandInfo& param, std::string_view what);
// A constant holding exactly one number (its real value).
absl::StatusOr<double> ReadFloatScalarParam(const OperandInfo& param, std::string_view what);

// numpy broadcasting of two shapes; fails naming both shapes.
absl::StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b);

// Python slicing of one dim: begin/end may be negative (counted from the end)
// and are clamped; stride must not be 0. Sets the first index taken and the
// number of elements. Returns false when stride is 0.
bool NormalizeStridedRange(int64_t dim, int64_t begin, int64_t end, int64_t stride, int64_t* first,
                           int64_t* count);

// An axis in [-rank, rank) made non-negative; fails when out of range.
absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank, std::string_view what);

}  // namespace egret

#endif  // EGRET_GRAPH_SHAPE_INFERENCE_H_
