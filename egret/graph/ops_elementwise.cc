// The elementwise families of the op table: binary arithmetic with numpy
// broadcasting, unary math, and comparison, logic and selection (Bool
// results, broadcasting): their rows, and the shape functions those rows
// name, beside them.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/op_rows_internal.h"
#include "egret/graph/shape_functions_internal.h"
#include "egret/support/status_macros.h"

namespace egret::shape_internal {

ShapeResult InferBinary(const ShapeContext& c) {
  auto d = BroadcastDims(c.D(0), c.D(1));
  if (!d.ok()) return c.Error(std::string(d.status().message()));
  return One(c.Out(*std::move(d), 0));
}

ShapeResult InferUnary(const ShapeContext& c) {
  // Scalar parameters are checked here so that a bad graph fails early.
  if (c.op == "ReluX") {
    EGRET_RETURN_IF_ERROR(c.Float(1).status());
  } else if (c.op == "ReluMinMax") {
    EGRET_ASSIGN_OR_RETURN(auto lo, c.Float(1));
    EGRET_ASSIGN_OR_RETURN(auto hi, c.Float(2));
    if (lo > hi) return c.Error(absl::StrCat("min ", lo, " is greater than max ", hi));
  } else if (c.op == "HardSigmoid") {
    EGRET_RETURN_IF_ERROR(c.Float(1).status());
    EGRET_RETURN_IF_ERROR(c.Float(2).status());
  } else if (c.op == "Gelu") {
    EGRET_ASSIGN_OR_RETURN(auto approximate, c.IntOr(1, 0));
    if (approximate != 0 && approximate != 1) {
      return c.Error(absl::StrCat("approximate must be 0 (erf) or 1 (tanh), got ", approximate));
    }
  }
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferCompare(const ShapeContext& c) {
  auto d = BroadcastDims(c.D(0), c.D(1));
  if (!d.ok()) return c.Error(std::string(d.status().message()));
  return One(c.OutOfType(*std::move(d), DType::kBool, {DType::kBool}));
}

ShapeResult InferLogical(const ShapeContext& c) {
  // Bool operands only, so that the algebraic traits (And(a, a) = a,
  // Not(Not(a)) = a) keep the type.
  for (int i = 0; i < c.size(); ++i) {
    if (c.T(i).dtype != DType::kBool) {
      return c.Error(
          absl::StrFormat("%s must be Bool, got %s", c.def.InputName(i), c.T(i).ToString()));
    }
  }
  if (c.size() == 1) return One(c.OutOfType(c.D(0), DType::kBool, {DType::kBool}));
  return InferCompare(c);
}

ShapeResult InferSelect(const ShapeContext& c) {
  if (c.T(0).dtype != DType::kBool) {
    return c.Error(absl::StrFormat("condition must be Bool, got %s", c.T(0).ToString()));
  }
  auto ab = BroadcastDims(c.D(1), c.D(2));
  if (!ab.ok()) return c.Error(std::string(ab.status().message()));
  auto d = BroadcastDims(c.D(0), *ab);
  if (!d.ok()) return c.Error(std::string(d.status().message()));
  return One(c.Out(*std::move(d), 1));
}

// Binary and unary elementwise ops (OpGroup::kElementwise).
std::vector<OpDef> ElementwiseRows() {
  using G = OpGroup;
  const std::vector<OperandDef> unary = {Data("x")};
  const std::vector<OperandDef> binary = {Data("a"), Data("b", "broadcasts with a")};
  return {
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
  };
}

// Comparison, logic and selection (OpGroup::kLogic).
std::vector<OpDef> LogicRows() {
  using G = OpGroup;
  const std::vector<OperandDef> binary = {Data("a"), Data("b", "broadcasts with a")};
  const std::vector<OperandDef> logical = {Data("a", "Bool"), Data("b", "Bool, broadcasts with a")};
  return {
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
  };
}

}  // namespace egret::shape_internal
