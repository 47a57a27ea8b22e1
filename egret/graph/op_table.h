// The op table: egret's op vocabulary as one declarative record per op (in the
// spirit of MLIR's ODS). A row names the op and gives its operands, results,
// shape function, algebraic traits, documentation, HTP status and the ONNX ops
// that map onto it; the rest of egret is derived from or checked against it:
//   - shape inference (shape_inference.h) checks operand counts and calls the
//     row's shape function;
//   - the e-graph's built-in equivalences (egraph/op_traits.h,
//     OpTable::Default) come from the rows' traits;
//   - docs/ops.md is generated from it (op_table_markdown.h, `egret ops
//     --markdown`);
//   - reference kernels (backend/kernels) and HVX costs (rules/lib/
//     hvx_ops.rules) stay in their stages, keyed by the row's name, and
//     tests/lib/op_table_consistency_test.cc fails on a row without them.
//
// Operands are positional. Data operands come first and parameters after them,
// except for the variadic Concat, whose parameter (the axis) is operand 0.
// Optional operands are only ever trailing; a variadic operand is the last one
// and is given one or more times. A parameter operand is produced by a
// "$Shape" node (its Int32 output dims are the value) or a "$Const" node (its
// data are the value); see ReadIntParam in shape_inference.h. egret's ops have
// no attributes: every parameter is an operand, so rules can see it.
//
// An op name with a dotted implementation suffix ("Relu.fp16", "Conv2d.opt.x")
// names an implementation of its base op and has the base op's row.
#ifndef EGRET_GRAPH_OP_TABLE_H_
#define EGRET_GRAPH_OP_TABLE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/tensor_type.h"

namespace egret {

namespace shape_internal {
struct ShapeContext;  // what a shape function sees (shape_functions_internal.h)
}  // namespace shape_internal

// A shape function (see shape_inference.h for the dtype rule). Call it through
// InferOutputTypes, which checks the operand count and types first.
using ShapeFn =
    absl::StatusOr<std::vector<TensorType>> (*)(const shape_internal::ShapeContext& context);

inline constexpr int kVariadic = -1;

// How a parameter operand is held in canonical form (graph/canonical_params.h).
// Rules bind an integer list as Op("$Shape") and read a number with
// CONSTVAL_*, so a graph that gives a list as a "$Const" is rewritten to the
// "$Shape" form before rules see it.
enum class ParamForm : uint8_t {
  kScalar,  // one number, or not a parameter: kept as given
  kInts,    // a list of integers: a "$Shape" when every value is >= 0
  kAxes,    // a set of axes of operand 0: a "$Shape" of distinct axes in
            // [0, rank), ascending (negative axes counted from the end)
};

// One operand (input) of an op.
struct OperandDef {
  std::string_view name = {};  // "in", "filter", ...; used in error messages
  bool param = false;          // a parameter ($Shape or $Const) rather than data
  bool optional = false;       // may be left out (with every operand after it)
  bool variadic = false;       // the last operand, given one or more times
  // What an optional operand means when left out ("-1", "all 1"); "" when it
  // has no single default (e.g. a fused clamp that is simply absent).
  std::string_view default_value = {};
  // A short constraint for docs: "[b,h,w,cin]", "ints [1,sh,sw,1]", "int".
  std::string_view constraint = {};
  ParamForm form = ParamForm::kScalar;  // for a parameter: its canonical form
};

// The algebraic traits the e-graph turns into built-in equivalences
// (egraph/builtin_rewrites.h). Binary traits need exactly two operands and
// involution exactly one; the consistency test checks it.
struct OpAlgebra {
  bool commutative = false;  // f(a, b) = f(b, a)
  bool associative = false;  // f(a, f(b, c)) = f(f(a, b), c)
  // Associative also across numpy broadcasting (a, b, c of different dims).
  // Multiply, Maximum and Minimum; not Add: a network's residual chain
  // x + (f(x) + bias) then becomes one associative sum of every block's
  // terms and biases, whose e-graph grows exponentially with depth (PP-OCRv4
  // rec: 18,753 e-nodes and 1.6 s of saturation with Add across broadcasting,
  // 2,253 and 14 ms without; the same extracted cost).
  bool broadcast_associative = false;
  bool idempotent = false;  // f(a, a) = a
  bool involution = false;  // f(f(a)) = a

  bool any() const { return commutative || associative || idempotent || involution; }
};

// The sections of docs/ops.md, in order.
enum class OpGroup : uint8_t {
  kConvolution,    // convolution and matrix products
  kElementwise,    // binary and unary elementwise
  kNormalization,  // normalization and reductions
  kDataMovement,   // reshape, transpose, concat, slices, split, pad
  kPooling,        // pooling and resizing (NHWC)
  kTypes,          // types and quantization
  kLogic,          // comparison, logic and selection
  kIndexing,       // tiles, gathers, arg-reductions, top-k, scans
  kSpecial,        // $Const, $Shape, *Input, $Out
};

// One op.
struct OpDef {
  std::string_view name = {};
  OpGroup group = OpGroup::kSpecial;
  std::string_view doc = {};  // one line: what the op computes
  std::vector<OperandDef> operands = {};
  int num_results = 1;            // or kVariadic when the parameters decide (Split)
  std::string_view results = {};  // the result's dims or type, for docs
  ShapeFn shape_fn = nullptr;
  OpAlgebra algebra = {};
  // True for an op the HTP never runs as an HVX op (the special ops): it
  // needs no cost in rules/lib/hvx_ops.rules, and must not have one.
  bool off_htp = false;
  // The ONNX op types the importer (onnx/onnx_reader.h) maps onto this op,
  // space-separated, or "none". "" (unset) is a defect the consistency test
  // reports.
  std::string_view onnx = {};

  // Operand counts the op accepts.
  int min_inputs() const;
  int max_inputs() const;  // kVariadic: no upper bound
  bool AcceptsInputCount(int n) const {
    return n >= min_inputs() && (max_inputs() == kVariadic || n <= max_inputs());
  }
  // The accepted counts in words, for messages: "1", "5 to 8", "2 or more".
  std::string InputCountText() const;
  // Operand i is a parameter (the variadic operand repeats past the end).
  bool IsParam(int input) const;
  // The canonical form of operand i (kScalar for data and past the end).
  ParamForm FormOf(int input) const;
  // The name of operand i ("in", "filter", ...), or "" past the end.
  std::string_view InputName(int input) const;
  // Every operand name, space-separated ("x axes keep_dims"), for messages.
  std::string InputNames() const;
  // The ONNX op types of `onnx` (empty for "none" or unset).
  std::vector<std::string_view> OnnxOps() const;
};

// The op without a dotted implementation suffix: "Relu.fp16" -> "Relu". Names
// starting with '$' or '*' are returned unchanged.
std::string_view BaseOpName(std::string_view op);

// The row of `op` (after BaseOpName), or nullptr for an op egret does not know
// (an opaque imported op). Covers the special ops "$Const", "$Shape", "$Out"
// and "*Input".
const OpDef* FindOpDef(std::string_view op);

// FindOpDef(op) != nullptr.
bool IsKnownOp(std::string_view op);

// Every row, in the order of docs/ops.md.
absl::Span<const OpDef> AllOpDefs();

}  // namespace egret

#endif  // EGRET_GRAPH_OP_TABLE_H_
