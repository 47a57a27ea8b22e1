// The typed syntax tree of the HTP optimization rule language (see
// docs/rule-language.md and the grammar in the QNN SDK documentation).
//
// A Rule has three parts: a match pattern (MatchNode tree), a constraint and a
// replacement (both Expr trees). Expr is one tagged node type: `kind` says
// which grammar form it is, `args` are its expression operands in source
// order, and the few non-expression operands (op strings, operand tags, split
// tags, function names, literal values) live in named fields. The enum below
// documents each kind's fields; each kind's spelling, signature and typing are
// its row in form_table.h, its evaluation its row in form_evaluators_internal.h.
//
// Grammar macros are expanded by the parser into core forms, and the root of
// each expansion records the macro's name in Expr::macro:
//   IS_QUINT8(x) ... IS_FLOAT32(x), IS_INT64(x)  -> EQ(DTYPE_OF(x), DType::T)
//   IS_FLOAT(x)                                  -> EQ(DTYPE_OF(x), DType::Float32)
//   IS_FLOAT16_BOTH(a, b)                        -> AND(IS_FLOAT16(a), IS_FLOAT16(b))
//   DIM_BATCHES/HEIGHT/WIDTH/DEPTH(x)            -> DIM_OF(x, 0/1/2/3)
//   DIM_FILTHEIGHT/FILTWIDTH/FILTDEPTH/NFILTS(x) -> DIM_OF(x, 0/1/2/3)
//   DIM_CHANNEL(x)                               -> DIM_OF(x, 4)
//   SAME_SHAPE(x, y)                             -> AND of EQ(DIM_OF(x,d), DIM_OF(y,d)), d=3..0
//   ITER_VAR(t)                                  -> SPLIT_START(t)
//   Operand(t)                                   -> the tag t
//   AUTOSPLIT_SLICE(in, start, size)
//       -> WITH_SIZE(size, WITH_TYPE(in, Op("Slice_shape", in, start, size)))
//   TYPICAL_SLICE(in, t)     -> AUTOSPLIT_SLICE(in, AUTOSPLIT_SHAPEFN_APPLY(simple_split_start,
//                               t, in), AUTOSPLIT_SHAPEFN_APPLY(simple_split_size, t, in))
//   CHANGEDIM_SLICE(in, t, d) -> the same with simpledim_split_start/size and extra operand d
//   OpMultiOut(n, k, "op", inputs...)
//       -> Op("$Out", WITH_MULTI_OUT(n, Op("op", inputs...)), gen_Shape(0, 0, n, k))
// so a later stage only ever sees the core kinds below.
#ifndef EGRET_RULES_AST_H_
#define EGRET_RULES_AST_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "egret/graph/dtype.h"
#include "egret/support/diagnostic.h"
#include "nlohmann/json_fwd.hpp"

namespace egret::rules {

// Static types of expressions. The first five are the scalar types of
// constraints; kOpRef is an existing node (an operand tag, INPUT_OF,
// OUTPUT_OF); the last three are values built by a replacement.
enum class Type : uint8_t {
  kInvalid,  // not yet checked, or ill-typed (an error was reported)
  kBool,
  kInt,
  kSize,  // size_t: integer constants with a U suffix, dimensions, ...
  kFloat,
  kDType,
  kOpRef,  // an existing node of the matched graph
  kShape,  // a shape construction: gen_Shape, gen_ShapeOf, *SHAPEFN_APPLY
  kNode,   // another constructed value: gen_Const*, ITER_INPUT_OF, mixed SELECT
  kOp,     // an op construction: Op, WrapOp*, OP_ITER, AUTOSPLIT, modifiers, ...
};

std::string_view TypeName(Type t);

// Every expression form. Fields used (besides loc, type, macro):
enum class ExprKind : uint8_t {
  // --- constants (no args) ---
  kBoolConst,        // OK/true/false: int_value 0 or 1
  kIntConst,         // integer constant without U suffix: int_value
  kSizeConst,        // integer constant with U suffix: int_value
  kFloatConst,       // float constant, INF, NEG_INF: float_value
  kDTypeConst,       // DType::X: dtype
  kCppName,          // a bare identifier egret does not know, in a constraint: name
                     // (a C++ name the package supplies; the rule is kept but not run)
  kLayoutChunkSize,  // LAYOUT_CHUNKSIZE(class, n): name = class, int_value = n
  // --- graph options: name = option name ---
  kOptionInt,
  kOptionUint,
  kOptionBool,
  kOptionFloat,
  // --- one operand ---
  kToUint,   // UINT(x)
  kToInt,    // INT(x)
  kToFloat,  // FLOAT(x)
  kToDType,  // DTYPE(x)
  kNot,
  kNeg,
  kAbs,
  kIsPow2,
  // --- SELECT(cond, a, b), in constraints and replacements ---
  kSelect,
  // --- two integer operands ---
  kRoundUp,
  kCeilDiv,
  kLcm,
  kBitAnd,
  kBitOr,
  // --- reductions, one or more operands ---
  kAnd,
  kOr,
  kXor,
  kAdd,
  kMul,
  kMin,
  kMax,
  // --- binary ---
  kSub,
  kDiv,
  kRem,
  kMod,
  // --- comparisons ---
  kEq,
  kNe,
  kLt,
  kGt,
  kLe,
  kGe,
  // --- operand references ---
  kTag,       // an operand tag (string constant, or Operand("t")): name = tag ("*" = root)
  kInputOf,   // INPUT_OF(opref, i)
  kOutputOf,  // OUTPUT_OF(opref, i)
  // --- properties of an opref's output ---
  kRankOf,
  kDimOf,  // DIM_OF(opref, d)
  kStepsizeOf,
  kZeroOffsetOf,
  kQuantAxisOf,  // egret's: the per-axis quantization axis, -1 per tensor
  kDTypeOf,
  kElementSizeOf,
  kDataSize,  // bytes of the output data: element size x element count
  kInputsOf,
  kOutputsOf,
  // --- predicates on operands ---
  kSameEncoding,  // (opref, opref)
  kSameOp,        // (opref, opref)
  kIsOp,          // IS_OP(opref, "op"): name = op string
  kProducerFor,   // PRODUCER_FOR(opref, "op"): name = op string
  kIsEmpty,       // IS_EMPTY(opref)
  kIsEmptyDim,    // IS_EMPTY_DIM(opref, d)
  // --- Const values: (opref, index) or (opref, index, index) ---
  kConstValInt,
  kConstValIntValid,
  kConstValFloat,
  kConstValFloatValid,
  // --- split variables: split_tag (no args) ---
  kSplitDim,
  kSplitStart,  // also ITER_VAR
  kSplitSize,
  // --- EXTERNAL_CONSTRAINT(fn, "tag", exprs...): name = fn, args = [tag, exprs...] ---
  kExternalConstraint,
  // --- replacement forms ---
  kOp,                  // Op("op", inputs...): name = op string
  kWrapOp,              // WrapOp("op", x): name = op string
  kWrapOpAlways,        // WrapOpAlways("op", x): name = op string
  kGenShape,            // gen_Shape(ints...)
  kGenShapeOf,          // gen_ShapeOf(opref)
  kGenConstScalarF32,   // (value)
  kGenConstScalarI32,   // (value)
  kGenConstArrF32,      // (value, n)
  kGenConstArrI32,      // (value, n)
  kGenConstArrValsI32,  // (ints...)
  kAutoSplit,           // AUTOSPLIT(dim, tag, chunk, body): split_tag, args = [dim, chunk, body]
  kOpIter,       // OP_ITER(init, tag, from, to, body): split_tag, args = [init, from, to, body]
  kIterInputOf,  // ITER_INPUT_OF(opref, tag): split_tag, args = [opref]
  kAutoSplitShapeFnApply,  // (fn, tag, params...): name = fn, split_tag, args = params
  kWithSize,               // (size, op)
  kWithType,               // (opref, op)
  kWithSameOutput,         // (opref, op)
  kWithOutputType,         // (dtype, zero_offset, stepsize, op)
  kWithMultiOut,           // (n, op)
  kResizeDim,              // (dim, value, op)
  kWithSameId,             // (opref, op)
  kWithSplitHistory,       // (opref, op) or (opref, int constant, op)
  kExternalReplace,        // EXTERNAL_REPLACE(fn): name = fn
  kShapeFnApply,           // SHAPEFN_APPLY(fn, params...): name = fn, args = params
};
// The number of kinds: keep it after the last kind above.
inline constexpr size_t kNumExprKinds = static_cast<size_t>(ExprKind::kShapeFnApply) + 1;

// The grammar's spelling of a kind ("DIM_OF", "Op", "WITH_SIZE", "int", ...),
// from its row in form_table.h, where each kind's spelling, operands and
// typing are.
std::string_view ExprKindName(ExprKind k);

// The place a node was written, as diagnostics report it. `loc` is in the
// user's file: where the token was written when that is the file's own text
// (including a macro argument), else, for a token a macro body wrote (a
// macro of the file, of a header or of egret's prelude), where the outermost
// macro was used. When the token came out of a preprocessor macro, `pp_macro`
// names that macro and `macro_loc` is the other end: the macro's use (for an
// argument token) or, when `macro_loc_is_spelling`, where the macro body
// wrote the token.
struct Origin {
  SourceLocation loc;
  std::string pp_macro;
  SourceLocation macro_loc;
  bool macro_loc_is_spelling = false;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::kBoolConst;
  Type type = Type::kInvalid;  // set by CheckRule()
  Origin origin;               // where the form's name (or literal) was written
  std::string name;            // op string, operand tag, option, function, tensor class
  std::string split_tag;       // split context of AUTOSPLIT, OP_ITER, SPLIT_*, ...
  int64_t int_value = 0;
  double float_value = 0;
  DType dtype = DType::kUnknown;
  std::vector<ExprPtr> args;
  // Non-empty on the root of a grammar-macro expansion (see the file comment).
  std::string macro;

  const SourceLocation& loc() const { return origin.loc; }
  ExprPtr Clone() const;
};

// A node of `kind` written at `origin`, with no operands.
ExprPtr NewExpr(ExprKind kind, const Origin& origin);

// Match patterns.
enum class MatchKind : uint8_t {
  kOp,       // Op("op", operands...): exactly these inputs
  kOpVarIn,  // OpVarIn("op", operands...): at least these inputs
  kTag,      // an operand tag: any node; repeated tags denote the same node
  kLet,      // LET("tag", Op/OpVarIn): operands[0], its output bound to tag
};

struct MatchNode {
  MatchKind kind = MatchKind::kTag;
  Origin origin;
  std::string op;   // kOp, kOpVarIn
  std::string tag;  // kTag, kLet
  std::vector<MatchNode> operands;

  const SourceLocation& loc() const { return origin.loc; }
};

// Rule flags of DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS (bit values are egret's).
enum RuleFlag : uint32_t {
  kRelaxedPrecision = 1u << 0,   // relaxed_precision_flag
  kCseAfterAlways = 1u << 1,     // cse_after_always
  kCseAfterIf = 1u << 2,         // cse_after_if
  kCpAfterAlways = 1u << 3,      // cp_after_always
  kCpAfterIf = 1u << 4,          // cp_after_if
  kFoldRelu = 1u << 5,           // fold_relu_flag
  kExplicitAutosplit = 1u << 6,  // explicit_autosplit_flag
};
// The bit of a known flag name, or 0.
uint32_t RuleFlagBit(std::string_view name);

struct Rule {
  Origin origin;     // the DEF_PACKAGE_OPTIMIZATION token
  std::string form;  // "DEF_PACKAGE_OPTIMIZATION" or "..._WITH_FLAGS"
  std::string pass_name;
  int64_t pass_offset = 0;
  bool has_offset = false;
  int64_t priority = 0;  // pass group value + offset
  Origin pass_origin;
  std::vector<std::string> flags;  // flag names as written (known or not)
  uint32_t flag_bits = 0;          // RuleFlag bits of the known ones
  MatchNode match;                 // root: kOp or kOpVarIn
  ExprPtr constraint;              // bool
  ExprPtr replacement;

  const SourceLocation& loc() const { return origin.loc; }
  // "NAME" or "NAME+N".
  std::string PassSpec() const;
};

// JSON views of the tree (for `egret rules dump --json` and tests). Locations
// are "file:line:col" strings.
nlohmann::json ToJson(const Expr& e);
nlohmann::json ToJson(const MatchNode& m);
nlohmann::json ToJson(const Rule& r);

// Compact one-line rendering in the grammar's syntax, e.g.
// `AND(EQ(DTYPE_OF("x"),DType::QUInt8),GT(DIM_OF("x",3),16))`.
std::string ToString(const Expr& e);
std::string ToString(const MatchNode& m);

}  // namespace egret::rules

#endif  // EGRET_RULES_AST_H_
