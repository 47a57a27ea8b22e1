#include "egret/graph/op_table.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "egret/graph/shape_functions_internal.h"

namespace egret {
namespace {

using namespace shape_internal;  // NOLINT: the Infer* functions the rows name

// Operand constructors, so that a row reads like its signature.
OperandDef Data(std::string_view name, std::string_view constraint = "") {
  return OperandDef{.name = name, .constraint = constraint};
}
OperandDef Param(std::string_view name, std::string_view constraint) {
  return OperandDef{.name = name, .param = true, .constraint = constraint};
}
// A parameter holding a list of integers (canonically a "$Shape").
OperandDef Ints(std::string_view name, std::string_view constraint) {
  return OperandDef{
      .name = name, .param = true, .constraint = constraint, .form = ParamForm::kInts};
}
// A parameter holding a set of axes of operand 0.
OperandDef Axes(std::string_view name, std::string_view constraint) {
  return OperandDef{
      .name = name, .param = true, .constraint = constraint, .form = ParamForm::kAxes};
}
OperandDef Optional(OperandDef o, std::string_view default_value = "") {
  o.optional = true;
  o.default_value = default_value;
  return o;
}
OperandDef Variadic(OperandDef o) {
  o.variadic = true;
  return o;
}

constexpr OpAlgebra kCommAssoc{.commutative = true, .associative = true};
constexpr OpAlgebra kCommAssocBroadcast{
    .commutative = true, .associative = true, .broadcast_associative = true};
constexpr OpAlgebra kLattice{.commutative = true, .associative = true, .idempotent = true};
constexpr OpAlgebra kLatticeBroadcast{
    .commutative = true, .associative = true, .broadcast_associative = true, .idempotent = true};
constexpr OpAlgebra kInvolution{.involution = true};
constexpr OpAlgebra kCommutative{.commutative = true};

// The rows, in the order of docs/ops.md. Every op name of egret is written
// here once; other stages refer to the row by name.
std::vector<OpDef> MakeRows() {
  using G = OpGroup;
  const std::vector<OperandDef> unary = {Data("x")};
  const std::vector<OperandDef> binary = {Data("a"), Data("b", "broadcasts with a")};
  const OperandDef stride = Ints("stride", "ints [1,sh,sw,1]");
  const OperandDef pads = Ints("pads", "ints [top,bottom,left,right]");
  const OperandDef dilation = Optional(Ints("dilation", "ints [1,dh,dw,1]"), "all 1");
  const OperandDef act_min = Optional(Param("act_min", "float, given with act_max"), "-inf");
  const OperandDef act_max = Optional(Param("act_max", "float >= act_min"), "inf");
  const std::vector<OperandDef> reduce = {Data("x"),
                                          Axes("axes", "ints, distinct; empty: every axis"),
                                          Optional(Param("keep_dims", "int 0 or 1"), "1")};
  const std::vector<OperandDef> pool = {Data("x", "[b,h,w,c]"), Ints("window", "ints [1,fh,fw,1]"),
                                        stride, pads};
  const OperandDef resize_size = Ints("size", "ints [b,oh,ow,c]");
  const OperandDef transform = Optional(Param("transform", "int 0-3"), "0");
  const OperandDef nearest_mode = Optional(Param("nearest_mode", "int 0-3"), "0");
  const std::vector<OperandDef> logical = {Data("a", "Bool"), Data("b", "Bool, broadcasts with a")};
  const std::vector<OperandDef> arg_reduce = {Data("x", "rank >= 1"), Param("axis", "int"),
                                              Optional(Param("keep_dims", "int 0 or 1"), "1"),
                                              Optional(Param("select_last", "int 0 or 1"), "0")};
  auto with = [](std::vector<OperandDef> ops, std::initializer_list<OperandDef> more) {
    ops.insert(ops.end(), more.begin(), more.end());
    return ops;
  };

  return {
      // --- Convolution and matrix products.
      {.name = "Conv2d",
       .group = G::kConvolution,
       .doc = "2-D convolution, groups = cin / filter in-depth, optional fused clamp",
       .operands = {Data("in", "[b,h,w,cin]"), Data("filter", "[fh,fw,cin/g,cout]"),
                    Data("bias", "[cout]"), stride, pads, dilation, act_min, act_max},
       .results = "[b,oh,ow,cout]",
       .shape_fn = InferConv,
       .onnx = "Conv"},
      {.name = "DepthWiseConv2d",
       .group = G::kConvolution,
       .doc = "depthwise 2-D convolution: output channel o reads input channel o / m",
       .operands = {Data("in", "[b,h,w,cin]"), Data("filter", "[fh,fw,1,cout], cout = cin*m"),
                    Data("bias", "[cout]"), stride, pads, dilation, act_min, act_max},
       .results = "[b,oh,ow,cout]",
       .shape_fn = InferConv,
       .onnx = "Conv"},
      {.name = "TransposeConv2d",
       .group = G::kConvolution,
       .doc = "transposed 2-D convolution, the adjoint of Conv2d",
       .operands = {Data("in", "[b,h,w,cin]"), Data("filter", "[fh,fw,cin/g,cout]"),
                    Data("bias", "[cout]"), stride, pads, dilation,
                    Optional(Ints("output_padding", "ints [0,ph,pw,0]"), "0")},
       .results = "[b,oh,ow,cout]",
       .shape_fn = InferConv,
       .onnx = "ConvTranspose"},
      {.name = "FullyConnected",
       .group = G::kConvolution,
       .doc = "out[n,u] = bias[u] + sum_k in[n,k] * weights[u,k], optional fused clamp",
       .operands = {Data("in", "[..., k]"), Data("weights", "[units, k]"),
                    Optional(Data("bias", "[units]"), "0"),
                    Optional(Param("act_min", "float, given with act_max and bias"), "-inf"),
                    act_max},
       .results = "[..., units]",
       .shape_fn = InferFullyConnected,
       .onnx = "Gemm MatMul"},
      {.name = "MatMul",
       .group = G::kConvolution,
       .doc = "numpy matmul; batch dims broadcast",
       .operands = {Data("a", "[..., m, k], rank >= 2"), Data("b", "[..., k, n], rank >= 2")},
       .results = "[..., m, n]",
       .shape_fn = InferMatMul,
       .onnx = "MatMul Einsum"},

      // --- Binary elementwise, with numpy broadcasting.
      {.name = "ElementWiseAdd",
       .group = G::kElementwise,
       .doc = "a + b",
       .operands = binary,
       .results = "broadcast of a and b",
       .shape_fn = InferBinary,
       .algebra = kCommAssoc,
       .onnx = "Add Sum Mean Gemm BatchNormalization Range"},
      {.name = "ElementWiseSubtract",
       .group = G::kElementwise,
       .doc = "a - b",
       .operands = binary,
       .results = "broadcast of a and b",
       .shape_fn = InferBinary,
       .onnx = "Sub"},
      {.name = "ElementWiseMultiply",
       .group = G::kElementwise,
       .doc = "a * b",
       .operands = binary,
       .results = "broadcast of a and b",
       .shape_fn = InferBinary,
       .algebra = kCommAssocBroadcast,
       .onnx = "Mul LeakyRelu BatchNormalization Range"},
      {.name = "ElementWiseDivide",
       .group = G::kElementwise,
       .doc = "a / b (integer division truncates toward zero)",
       .operands = binary,
       .results = "broadcast of a and b",
       .shape_fn = InferBinary,
       .onnx = "Div Mean Reciprocal"},
      {.name = "ElementWiseMaximum",
       .group = G::kElementwise,
       .doc = "max(a, b)",
       .operands = binary,
       .results = "broadcast of a and b",
       .shape_fn = InferBinary,
       .algebra = kLatticeBroadcast,
       .onnx = "Max LeakyRelu"},
      {.name = "ElementWiseMinimum",
       .group = G::kElementwise,
       .doc = "min(a, b)",
       .operands = binary,
       .results = "broadcast of a and b",
       .shape_fn = InferBinary,
       .algebra = kLatticeBroadcast,
       .onnx = "Min"},
      {.name = "ElementWisePower",
       .group = G::kElementwise,
       .doc = "a^b",
       .operands = binary,
       .results = "broadcast of a and b",
       .shape_fn = InferBinary,
       .onnx = "Pow"},

      // --- Unary elementwise.
      {.name = "Relu",
       .group = G::kElementwise,
       .doc = "max(x, 0)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Relu Clip"},
      {.name = "Relu1",
       .group = G::kElementwise,
       .doc = "clamp(x, -1, 1)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "none"},
      {.name = "Relu6",
       .group = G::kElementwise,
       .doc = "clamp(x, 0, 6)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "none"},
      {.name = "ReluX",
       .group = G::kElementwise,
       .doc = "clamp(x, 0, max)",
       .operands = {Data("x"), Param("max", "float")},
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "none"},
      {.name = "ReluMinMax",
       .group = G::kElementwise,
       .doc = "clamp(x, min, max)",
       .operands = {Data("x"), Param("min", "float"), Param("max", "float >= min")},
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Clip"},
      {.name = "Sigmoid",
       .group = G::kElementwise,
       .doc = "1 / (1 + e^-x)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Sigmoid"},
      {.name = "Tanh",
       .group = G::kElementwise,
       .doc = "tanh(x)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Tanh"},
      {.name = "HardSigmoid",
       .group = G::kElementwise,
       .doc = "clamp(alpha*x + beta, 0, 1)",
       .operands = {Data("x"), Param("alpha", "float"), Param("beta", "float")},
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "HardSigmoid"},
      {.name = "HardSwish",
       .group = G::kElementwise,
       .doc = "x * clamp(x + 3, 0, 6) / 6",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "HardSwish"},
      {.name = "Gelu",
       .group = G::kElementwise,
       .doc = "0.5 * x * (1 + erf(x / sqrt 2)); approximate 1: 0.5 * x * (1 + tanh(sqrt(2 / pi) * "
              "(x + 0.044715 * x^3))) (QNN's Gelu has only the erf form)",
       .operands = {Data("x"), Optional(Param("approximate", "int 0 (erf) or 1 (tanh)"), "0")},
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Gelu"},
      {.name = "Swish",
       .group = G::kElementwise,
       .doc =
           "x * sigmoid(x) (SiLU); not a QNN OpDef op: a QNN graph writes Sigmoid and "
           "ElementWiseMultiply, which the HTP backend optimizes as one Swish (QNN release notes)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "none"},
      {.name = "Erf",
       .group = G::kElementwise,
       .doc = "erf(x)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Erf"},
      {.name = "Exp",
       .group = G::kElementwise,
       .doc = "e^x",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Exp"},
      {.name = "ElementWiseSin",
       .group = G::kElementwise,
       .doc = "sin(x)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Sin"},
      {.name = "ElementWiseCos",
       .group = G::kElementwise,
       .doc = "cos(x)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Cos"},
      {.name = "Log",
       .group = G::kElementwise,
       .doc = "natural logarithm",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Log LogSoftmax"},
      {.name = "Sqrt",
       .group = G::kElementwise,
       .doc = "square root",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Sqrt"},
      {.name = "ElementWiseRsqrt",
       .group = G::kElementwise,
       .doc = "1 / sqrt(x) (QNN's ElementWiseRsqrt)",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "none"},
      {.name = "Neg",
       .group = G::kElementwise,
       .doc = "-x",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .algebra = kInvolution,
       .onnx = "Neg"},
      {.name = "Abs",
       .group = G::kElementwise,
       .doc = "absolute value",
       .operands = unary,
       .results = "like x",
       .shape_fn = InferUnary,
       .onnx = "Abs"},

      // --- Normalization and reductions.
      {.name = "Softmax",
       .group = G::kNormalization,
       .doc = "exp(x - max) / sum exp(x - max) along axis",
       .operands = {Data("x", "rank >= 1"), Optional(Param("axis", "int"), "-1")},
       .results = "like x",
       .shape_fn = InferSoftmax,
       .onnx = "Softmax LogSoftmax"},
      {.name = "LayerNorm",
       .group = G::kNormalization,
       .doc = "(x - mean) / sqrt(var + epsilon) * gamma + beta over dims axis..end",
       .operands = {Data("x", "rank >= 1"), Data("gamma", "broadcasts to x.dims[axis:]"),
                    Data("beta", "broadcasts to x.dims[axis:]"), Param("epsilon", "float"),
                    Optional(Param("axis", "int"), "-1")},
       .results = "like x",
       .shape_fn = InferLayerNorm,
       .onnx = "LayerNormalization"},
      {.name = "RmsNorm",
       .group = G::kNormalization,
       .doc = "x / sqrt(mean(x^2) + epsilon) * gamma + beta over dims axis..end (QNN's RmsNorm "
              "over the axes axis..end)",
       .operands = {Data("x", "rank >= 1"), Data("gamma", "broadcasts to x.dims[axis:]"),
                    Data("beta", "broadcasts to x.dims[axis:]"), Param("epsilon", "float"),
                    Optional(Param("axis", "int"), "-1")},
       .results = "like x",
       .shape_fn = InferLayerNorm,
       .onnx = "RMSNormalization"},
      {.name = "Batchnorm",
       .group = G::kNormalization,
       .doc = "x * scale[c] + offset[c] over the last dim (QNN's folded form)",
       .operands = {Data("x", "[..., c]"), Data("scale", "[c]"), Data("offset", "[c]")},
       .results = "like x",
       .shape_fn = InferBatchnorm,
       .onnx = "BatchNormalization"},
      {.name = "LRN",
       .group = G::kNormalization,
       .doc = "local response normalization across channels",
       .operands = {Data("x", "[b,h,w,c]"), Param("size", "int"), Param("alpha", "float"),
                    Param("beta", "float"), Param("bias", "float")},
       .results = "like x",
       .shape_fn = InferLrn,
       .onnx = "LRN"},
      {.name = "ReduceMean",
       .group = G::kNormalization,
       .doc = "mean over axes",
       .operands = reduce,
       .results = "x without (or with 1 on) the reduced axes",
       .shape_fn = InferReduce,
       .onnx = "ReduceMean"},
      {.name = "ReduceSum",
       .group = G::kNormalization,
       .doc = "sum over axes",
       .operands = reduce,
       .results = "x without (or with 1 on) the reduced axes",
       .shape_fn = InferReduce,
       .onnx = "ReduceSum Einsum"},
      {.name = "ReduceMax",
       .group = G::kNormalization,
       .doc = "maximum over axes",
       .operands = reduce,
       .results = "x without (or with 1 on) the reduced axes",
       .shape_fn = InferReduce,
       .onnx = "ReduceMax"},

      // --- Data movement.
      {.name = "Reshape",
       .group = G::kDataMovement,
       .doc = "the same elements in row-major order, with new dims",
       .operands = {Data("x"), Ints("shape", "ints, at most one -1 (inferred)")},
       .results = "shape",
       .shape_fn = InferReshape,
       .onnx = "Reshape Flatten Squeeze Unsqueeze Gather MatMul Expand Einsum"},
      {.name = "Transpose",
       .group = G::kDataMovement,
       .doc = "permutes the dims",
       .operands = {Data("x"), Ints("perm", "ints, a permutation of 0..rank-1")},
       .results = "out.dims[i] = x.dims[perm[i]]",
       .shape_fn = InferTranspose,
       .onnx = "Transpose Einsum"},
      {.name = "Concat",
       .group = G::kDataMovement,
       .doc = "joins its x operands along axis",
       .operands = {Param("axis", "int"), Variadic(Data("x", "equal dims except on axis"))},
       .results = "sum of the x along axis",
       .shape_fn = InferConcat,
       .onnx = "Concat"},
      {.name = "Slice_shape",
       .group = G::kDataMovement,
       .doc = "out[i] = x[start + i] (what AUTOSPLIT_SLICE builds)",
       .operands = {Data("x"), Ints("start", "ints, one per dim"),
                    Ints("size", "ints, one per dim; start + size <= dims")},
       .results = "size",
       .shape_fn = InferSliceShape,
       .onnx = "none"},
      {.name = "StridedSlice",
       .group = G::kDataMovement,
       .doc = "Python slicing per dim",
       .operands = {Data("x"), Ints("begin", "ints, one per dim"), Ints("end", "ints, one per dim"),
                    Ints("strides", "ints, one per dim, non-zero")},
       .results = "ceil((end - begin) / stride) or 0 per dim",
       .shape_fn = InferStridedSlice,
       .onnx = "Slice Gather"},
      {.name = "Split",
       .group = G::kDataMovement,
       .doc = "cuts x along axis into pieces of the given sizes",
       .operands = {Data("x"), Param("axis", "int"),
                    Ints("sizes", "ints adding up to x.dims[axis]")},
       .num_results = kVariadic,
       .results = "one per size (or one Multi value)",
       .shape_fn = InferSplit,
       .onnx = "Split"},
      {.name = "Pad",
       .group = G::kDataMovement,
       .doc = "pads every dim: mode 0 constant, 1 symmetric, 2 reflect, 3 edge",
       .operands = {Data("x"), Ints("pads", "ints [before0,after0,before1,...] >= 0"),
                    Optional(Param("mode", "int 0-3"), "0"),
                    Optional(Param("value", "float"), "0")},
       .results = "dims[i] + before + after",
       .shape_fn = InferPad,
       .onnx = "Pad"},

      // --- Pooling and resizing (NHWC).
      {.name = "PoolMax2d",
       .group = G::kPooling,
       .doc = "maximum over each window",
       .operands = pool,
       .results = "[b,oh,ow,c]",
       .shape_fn = InferPool,
       .onnx = "MaxPool GlobalMaxPool"},
      {.name = "PoolAvg2d",
       .group = G::kPooling,
       .doc = "average over each window",
       .operands = with(pool, {Optional(Param("count_pad", "int 0 or 1"), "0")}),
       .results = "[b,oh,ow,c]",
       .shape_fn = InferPool,
       .onnx = "AveragePool GlobalAveragePool"},
      {.name = "Resize",
       .group = G::kPooling,
       .doc = "resizes height and width",
       .operands = {Data("x", "[b,h,w,c]"), resize_size,
                    Param("mode", "int: 0 nearest, 1 bilinear"), transform, nearest_mode},
       .results = "size",
       .shape_fn = InferResize,
       .onnx = "Resize Upsample"},
      {.name = "ResizeBilinear",
       .group = G::kPooling,
       .doc = "Resize with mode 1 (QNN's name)",
       .operands = {Data("x", "[b,h,w,c]"), resize_size, transform},
       .results = "size",
       .shape_fn = InferResize,
       .onnx = "none"},
      {.name = "ResizeNearestNeighbor",
       .group = G::kPooling,
       .doc = "Resize with mode 0 (QNN's name)",
       .operands = {Data("x", "[b,h,w,c]"), resize_size, transform, nearest_mode},
       .results = "size",
       .shape_fn = InferResize,
       .onnx = "none"},

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

      // --- Comparison, logic and selection: Bool results, numpy broadcasting.
      {.name = "ElementWiseEqual",
       .group = G::kLogic,
       .doc = "a == b",
       .operands = binary,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferCompare,
       .algebra = kCommutative,
       .onnx = "Equal"},
      {.name = "ElementWiseNotEqual",
       .group = G::kLogic,
       .doc = "a != b",
       .operands = binary,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferCompare,
       .algebra = kCommutative,
       .onnx = "none"},
      {.name = "ElementWiseLess",
       .group = G::kLogic,
       .doc = "a < b",
       .operands = binary,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferCompare,
       .onnx = "Less"},
      {.name = "ElementWiseLessEqual",
       .group = G::kLogic,
       .doc = "a <= b",
       .operands = binary,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferCompare,
       .onnx = "LessOrEqual"},
      {.name = "ElementWiseGreater",
       .group = G::kLogic,
       .doc = "a > b",
       .operands = binary,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferCompare,
       .onnx = "Greater"},
      {.name = "ElementWiseGreaterEqual",
       .group = G::kLogic,
       .doc = "a >= b",
       .operands = binary,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferCompare,
       .onnx = "GreaterOrEqual"},
      {.name = "ElementWiseAnd",
       .group = G::kLogic,
       .doc = "a and b",
       .operands = logical,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferLogical,
       .algebra = kLattice,
       .onnx = "And"},
      {.name = "ElementWiseOr",
       .group = G::kLogic,
       .doc = "a or b",
       .operands = logical,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferLogical,
       .algebra = kLattice,
       .onnx = "Or"},
      {.name = "ElementWiseXor",
       .group = G::kLogic,
       .doc = "a != b on Bools",
       .operands = logical,
       .results = "Bool, broadcast of a and b",
       .shape_fn = InferLogical,
       .algebra = kCommAssoc,
       .onnx = "Xor"},
      {.name = "ElementWiseNot",
       .group = G::kLogic,
       .doc = "not x",
       .operands = {Data("x", "Bool")},
       .results = "Bool, like x",
       .shape_fn = InferLogical,
       .algebra = kInvolution,
       .onnx = "Not"},
      {.name = "ElementWiseSelect",
       .group = G::kLogic,
       .doc = "condition ? a : b, elementwise",
       .operands = {Data("condition", "Bool"), Data("a", "broadcasts with condition and b"),
                    Data("b", "broadcasts with condition and a")},
       .results = "the type of a, broadcast of all three",
       .shape_fn = InferSelect,
       .onnx = "Where"},

      // --- Indexing: tiles, gathers, arg-reductions, top-k, scans.
      {.name = "Tile",
       .group = G::kIndexing,
       .doc = "repeats x multiples[i] times along each dim i",
       .operands = {Data("x"), Ints("multiples", "ints >= 0, one per dim")},
       .results = "dims[i] * multiples[i]",
       .shape_fn = InferTile,
       .onnx = "Tile Expand"},
      {.name = "Gather",
       .group = G::kIndexing,
       .doc = "takes the slices of data along axis that indices name",
       .operands = {Data("data", "rank >= 1"), Data("indices", "Int32 or Int64, in [-dim, dim)"),
                    Optional(Param("axis", "int"), "0")},
       .results = "data.dims[:axis] + indices.dims + data.dims[axis+1:]",
       .shape_fn = InferGather,
       .onnx = "Gather"},
      {.name = "Argmax",
       .group = G::kIndexing,
       .doc = "the index of the largest element along axis (the first, or the last, of equals)",
       .operands = arg_reduce,
       .results = "Int32 (or declared Int64), x with dim axis 1 (or removed)",
       .shape_fn = InferArgReduce,
       .onnx = "ArgMax"},
      {.name = "Argmin",
       .group = G::kIndexing,
       .doc = "the index of the smallest element along axis (the first, or the last, of equals)",
       .operands = arg_reduce,
       .results = "Int32 (or declared Int64), x with dim axis 1 (or removed)",
       .shape_fn = InferArgReduce,
       .onnx = "ArgMin"},
      {.name = "TopK",
       .group = G::kIndexing,
       .doc = "the k largest (or smallest) elements along axis, sorted, and their indices",
       .operands = {Data("x", "rank >= 1"), Param("k", "int in [0, dims[axis]]"),
                    Optional(Param("axis", "int"), "-1"),
                    Optional(Param("largest", "int 0 or 1"), "1")},
       .num_results = 2,
       .results = "values (like x), indices (Int32 or declared Int64); dim axis is k",
       .shape_fn = InferTopK,
       .onnx = "TopK"},
      {.name = "CumulativeSum",
       .group = G::kIndexing,
       .doc = "running sums along axis (exclusive: without the element; reverse: from the end)",
       .operands = {Data("x", "rank >= 1"), Param("axis", "int"),
                    Optional(Param("exclusive", "int 0 or 1"), "0"),
                    Optional(Param("reverse", "int 0 or 1"), "0")},
       .results = "like x",
       .shape_fn = InferCumulativeSum,
       .onnx = "CumSum"},

      // --- Special ops: graph structure, never HVX ops.
      {.name = "$Const",
       .group = G::kSpecial,
       .doc = "a constant tensor: the node's data",
       .results = "the type of its data",
       .shape_fn = InferLeaf,
       .off_htp = true,
       .onnx = "Constant ConstantOfShape"},
      {.name = "$Shape",
       .group = G::kSpecial,
       .doc = "a parameter value held in its type's dims; no data, no memory",
       .results = "Int32 whose dims are the value",
       .shape_fn = InferLeaf,
       .off_htp = true,
       .onnx = "none"},
      {.name = "*Input",
       .group = G::kSpecial,
       .doc = "a graph input",
       .results = "its declared type",
       .shape_fn = InferLeaf,
       .off_htp = true,
       .onnx = "none"},
      {.name = "$Out",
       .group = G::kSpecial,
       .doc = "selects one output of a multi-output producer",
       .operands = {Data("multi", "a Multi value"), Ints("selector", "ints [0,0,n_out,k]")},
       .results = "output k of the producer",
       .shape_fn = InferOut,
       .off_htp = true,
       .onnx = "none"},
  };
}

const std::vector<OpDef>& Rows() {
  static const std::vector<OpDef>* const kRows = new std::vector<OpDef>(MakeRows());
  return *kRows;
}

}  // namespace

int OpDef::min_inputs() const {
  int n = 0;
  for (const OperandDef& o : operands) n += o.optional ? 0 : 1;
  return n;
}

int OpDef::max_inputs() const {
  if (!operands.empty() && operands.back().variadic) return kVariadic;
  return static_cast<int>(operands.size());
}

std::string OpDef::InputCountText() const {
  const int lo = min_inputs(), hi = max_inputs();
  if (hi == kVariadic) return absl::StrCat(lo, " or more");
  return lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, " to ", hi);
}

bool OpDef::IsParam(int input) const {
  if (input < 0 || operands.empty()) return false;
  if (input < static_cast<int>(operands.size())) return operands[input].param;
  return operands.back().variadic && operands.back().param;
}

ParamForm OpDef::FormOf(int input) const {
  if (!IsParam(input)) return ParamForm::kScalar;
  return input < static_cast<int>(operands.size()) ? operands[input].form : operands.back().form;
}

std::string_view OpDef::InputName(int input) const {
  if (input < 0 || operands.empty()) return {};
  if (input < static_cast<int>(operands.size())) return operands[input].name;
  return operands.back().variadic ? operands.back().name : std::string_view();
}

std::string OpDef::InputNames() const {
  return absl::StrJoin(operands, " ", [](std::string* out, const OperandDef& o) {
    out->append(o.name.data(), o.name.size());
  });
}

std::vector<std::string_view> OpDef::OnnxOps() const {
  std::vector<std::string_view> out;
  if (onnx == "none") return out;
  for (absl::string_view w :
       absl::StrSplit(absl::string_view(onnx.data(), onnx.size()), ' ', absl::SkipEmpty())) {
    out.emplace_back(w.data(), w.size());
  }
  return out;
}

std::string_view BaseOpName(std::string_view op) {
  if (op.empty() || op.front() == '$' || op.front() == '*') return op;
  size_t dot = op.find('.');
  return dot == std::string_view::npos ? op : op.substr(0, dot);
}

const OpDef* FindOpDef(std::string_view op) {
  static const auto* const kByName = [] {
    auto* m = new absl::flat_hash_map<std::string_view, const OpDef*>();
    for (const OpDef& d : Rows()) m->emplace(d.name, &d);
    return m;
  }();
  auto it = kByName->find(BaseOpName(op));
  return it == kByName->end() ? nullptr : it->second;
}

bool IsKnownOp(std::string_view op) { return FindOpDef(op) != nullptr; }

absl::Span<const OpDef> AllOpDefs() { return Rows(); }

}  // namespace egret
