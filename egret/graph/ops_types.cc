// The types and quantization family of the op table (Cast, QNN_Cast,
// Quantize, Dequantize): its rows, and the shape function they name. Which
// dtype and encoding the result has is ShapeContext::Out's rule
// (shape_inference.cc), shared with every op that keeps its input's type.
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/graph/op_rows_internal.h"
#include "egret/graph/shape_functions_internal.h"

namespace egret::shape_internal {

ShapeResult InferConvert(const ShapeContext& c) {
  DType in = c.T(0).dtype;
  if (c.op == "Quantize" && !IsFloat(in) && !IsQuantized(in)) {
    return c.Error(absl::StrFormat("x must be float or quantized, got %s", DTypeName(in)));
  }
  if (c.op == "Dequantize" && !IsQuantized(in)) {
    return c.Error(absl::StrFormat("x must be quantized, got %s", DTypeName(in)));
  }
  return One(c.Out(c.D(0), 0));
}

// Types and quantization (OpGroup::kTypes).
std::vector<OpDef> TypesRows() {
  using G = OpGroup;
  const std::vector<OperandDef> unary = {Data("x")};
  return {
      // --- Types and quantization.
      {.name = "Cast",
       .group = G::kTypes,
       .doc = "converts the stored numbers to the declared dtype",
       .operands = unary,
       .results = "the declared dtype (required), dims of x",
       .shape_fn = InferConvert,
       .onnx = "Cast"},
      {.name = "QNN_Cast",
       .group = G::kTypes,
       .doc = "keeps the real value, stored in the declared type: rounded to nearest, "
              "saturated (the cast of the rules' CAST_TO_DTYPE)",
       .operands = unary,
       .results = "the declared type (required), dims of x",
       .shape_fn = InferConvert,
       .onnx = "none"},
      {.name = "Quantize",
       .group = G::kTypes,
       .doc = "keeps the real value, stored in the declared quantized encoding",
       .operands = {Data("x", "float or quantized")},
       .results = "the declared quantized type (required)",
       .shape_fn = InferConvert,
       .onnx = "none"},
      {.name = "Dequantize",
       .group = G::kTypes,
       .doc = "the real values of a quantized tensor",
       .operands = {Data("x", "quantized")},
       .results = "Float32, or a declared float type",
       .shape_fn = InferConvert,
       .onnx = "none"},
  };
}

}  // namespace egret::shape_internal
