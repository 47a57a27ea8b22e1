// Rows of the literal, constraint and operand-reference forms (form_table.h):
// spelling, signature and typing. Their evaluators are the rows of
// evaluators_constraint.cc.
#include <string>

#include "absl/strings/str_cat.h"
#include "egret/rules/checker_internal.h"
#include "egret/rules/form_table.h"
#include "egret/rules/form_table_internal.h"

namespace egret::rules {
namespace {

using R = OperandRule;
constexpr FormCategory kConstraint = FormCategory::kConstraint;
constexpr FormCategory kReference = FormCategory::kReference;

// --- custom typing -----------------------------------------------------------------

Type TypeTag(Checker& c, Expr& e, bool) {
  if (!c.HasTag(e.name)) {
    c.Error(e, absl::StrCat("operand tag \"", e.name, "\" does not appear in the match"));
    return Type::kInvalid;
  }
  return Type::kOpRef;
}

// SELECT(cond, a, b): numbers promote, replacement values join, else a and b
// have one type. The branches of a root SELECT are at the root.
Type TypeSelect(Checker& c, Expr& e, bool at_root) {
  Type cond = c.Check(*e.args[0]);
  c.Want(e, 0, cond, OperandRule::kBool);
  Type a = c.Check(*e.args[1], at_root);
  Type b = c.Check(*e.args[2], at_root);
  if (a == Type::kInvalid || b == Type::kInvalid) return Type::kInvalid;
  if (e.args[1]->kind == ExprKind::kCppName) a = c.AdoptCppName(*e.args[1], b);
  if (e.args[2]->kind == ExprKind::kCppName) b = c.AdoptCppName(*e.args[2], a);
  if (IsNumType(a) && IsNumType(b)) return PromoteTypes(a, b);
  if (a == b) return a;
  if (IsReplacementType(a) && IsReplacementType(b)) {
    if (a == Type::kOp || b == Type::kOp) return Type::kOp;
    return Type::kNode;
  }
  c.Error(e, absl::StrCat("the second and third operands of SELECT have different types (",
                          std::string(TypeName(a)), " and ", std::string(TypeName(b)), ")"));
  return Type::kInvalid;
}

// ROUNDUP: integers, and a constant second operand is a power of 2.
Type TypeRoundUp(Checker& c, Expr& e, bool) {
  Type t = c.TypeByRow(e);
  if (IsIntLiteral(*e.args[1])) {
    int64_t v = e.args[1]->int_value;
    if (v <= 0 || (v & (v - 1)) != 0) {
      c.Error(*e.args[1],
              absl::StrCat("the second operand of ROUNDUP must be a power of 2, not ", v));
    }
  }
  return t;
}

// EQ and NE compare numbers, dtypes or bools; LT, GT, LE, GE numbers.
Type TypeComparison(Checker& c, Expr& e, bool equality) {
  Type a = c.Check(*e.args[0]);
  Type b = c.Check(*e.args[1]);
  if (a == Type::kInvalid || b == Type::kInvalid) return Type::kBool;
  // A C++ name compares with anything of a comparable type.
  if (e.args[0]->kind == ExprKind::kCppName) a = c.AdoptCppName(*e.args[0], b);
  if (e.args[1]->kind == ExprKind::kCppName) b = c.AdoptCppName(*e.args[1], a);
  if (IsNumType(a) && IsNumType(b)) return Type::kBool;
  if (equality && a == b && (a == Type::kDType || a == Type::kBool)) return Type::kBool;
  if (!equality && (a == Type::kDType || b == Type::kDType)) {
    c.Error(e, absl::StrCat("dtype values can only be compared with EQ and NE, not ", FormName(e)));
  } else {
    c.Error(e, absl::StrCat(FormName(e), " cannot compare ", DescribeType(a), " with ",
                            DescribeType(b)));
  }
  return Type::kBool;
}
Type TypeEquality(Checker& c, Expr& e, bool) { return TypeComparison(c, e, true); }
Type TypeOrdering(Checker& c, Expr& e, bool) { return TypeComparison(c, e, false); }

// A C++ name (an identifier egret does not know) stands for a value the
// package's C++ computes. Only a constraint may hold one; its type is that of
// the place it is used in (AdoptCppName): bool until an operand rule or the
// other side of a comparison says otherwise.
Type TypeCppName(Checker& c, Expr& e, bool) {
  if (!c.in_constraint()) {
    c.Error(e, absl::StrCat("unknown name '", e.name, "'"));
    return Type::kInvalid;
  }
  return Type::kBool;
}

Type TypeSplitVariable(Checker& c, Expr& e, bool) { return c.SplitRef(e); }

Type TypeExternalConstraint(Checker& c, Expr& e, bool) {
  c.CheckExternal(e, e.args.size());
  return c.TypeByRow(e);
}

// --- rows ----------------------------------------------------------------------------

constexpr FormRow kConstraintRows[] = {
    // Literals.
    {ExprKind::kBoolConst, "bool", kConstraint, nullptr, nullptr, Returns(Type::kBool)},
    {ExprKind::kIntConst, "int", kConstraint, nullptr, nullptr, Returns(Type::kInt)},
    {ExprKind::kSizeConst, "size", kConstraint, nullptr, nullptr, Returns(Type::kSize)},
    {ExprKind::kFloatConst, "float", kConstraint, nullptr, nullptr, Returns(Type::kFloat)},
    {ExprKind::kDTypeConst, "dtype", kConstraint, nullptr, nullptr, Returns(Type::kDType)},
    {ExprKind::kCppName, "cpp_name", kConstraint, nullptr, nullptr, Custom(TypeCppName)},
    {ExprKind::kTag, "tag", kReference, nullptr, nullptr, Custom(TypeTag)},
    // Layouts and graph options.
    {ExprKind::kLayoutChunkSize, "LAYOUT_CHUNKSIZE", kConstraint, "ni", nullptr,
     Returns(Type::kSize)},
    {ExprKind::kOptionInt, "OPTION_INT", kConstraint, "o", nullptr, Returns(Type::kInt)},
    {ExprKind::kOptionUint, "OPTION_UINT", kConstraint, "o", nullptr, Returns(Type::kSize)},
    {ExprKind::kOptionBool, "OPTION_BOOL", kConstraint, "o", nullptr, Returns(Type::kBool)},
    {ExprKind::kOptionFloat, "OPTION_FLOAT", kConstraint, "o", nullptr, Returns(Type::kFloat)},
    // One operand.
    {ExprKind::kToUint, "UINT", kConstraint, "e", nullptr,
     Returns(Type::kSize, {R::kNumberOrBool})},
    {ExprKind::kToInt, "INT", kConstraint, "e", nullptr, Returns(Type::kInt, {R::kScalarOrDType})},
    {ExprKind::kToFloat, "FLOAT", kConstraint, "e", nullptr,
     Returns(Type::kFloat, {R::kNumberOrBool})},
    {ExprKind::kToDType, "DTYPE", kConstraint, "e", nullptr, Returns(Type::kDType, {R::kInteger})},
    {ExprKind::kNot, "NOT", kConstraint, "e", nullptr, Returns(Type::kBool, {R::kBool})},
    {ExprKind::kNeg, "NEG", kConstraint, "e", nullptr, Promoted({R::kNumber})},
    {ExprKind::kAbs, "ABS", kConstraint, "e", nullptr, Promoted({R::kNumber})},
    {ExprKind::kIsPow2, "IS_POW2", kConstraint, "e", nullptr, Returns(Type::kBool, {R::kInteger})},
    // SELECT: in constraints and replacements.
    {ExprKind::kSelect, "SELECT", FormCategory::kSelect, "eee", nullptr, Custom(TypeSelect)},
    // Two integers.
    {ExprKind::kRoundUp, "ROUNDUP", kConstraint, "ee", nullptr,
     Custom(TypeRoundUp, OperandsFirst(Promoted({R::kInteger})))},
    {ExprKind::kCeilDiv, "CEILDIV", kConstraint, "ee", nullptr,
     OperandsFirst(Promoted({R::kInteger}))},
    {ExprKind::kLcm, "LCM", kConstraint, "ee", nullptr, OperandsFirst(Promoted({R::kInteger}))},
    {ExprKind::kBitAnd, "BIT_AND", kConstraint, "ee", nullptr,
     OperandsFirst(Promoted({R::kInteger}))},
    {ExprKind::kBitOr, "BIT_OR", kConstraint, "ee", nullptr,
     OperandsFirst(Promoted({R::kInteger}))},
    // Reductions.
    {ExprKind::kAnd, "AND", kConstraint, "ee*", nullptr, Returns(Type::kBool, {R::kBool})},
    {ExprKind::kOr, "OR", kConstraint, "ee*", nullptr, Returns(Type::kBool, {R::kBool})},
    {ExprKind::kXor, "XOR", kConstraint, "ee*", nullptr, Returns(Type::kBool, {R::kBool})},
    {ExprKind::kAdd, "ADD", kConstraint, "ee*", nullptr, Promoted({R::kNumber})},
    {ExprKind::kMul, "MUL", kConstraint, "ee*", nullptr, Promoted({R::kNumber})},
    {ExprKind::kMin, "MIN", kConstraint, "ee*", nullptr, Promoted({R::kNumber})},
    {ExprKind::kMax, "MAX", kConstraint, "ee*", nullptr, Promoted({R::kNumber})},
    // Binary.
    {ExprKind::kSub, "SUB", kConstraint, "ee", nullptr, Promoted({R::kNumber})},
    {ExprKind::kDiv, "DIV", kConstraint, "ee", nullptr, Promoted({R::kNumber})},
    {ExprKind::kRem, "REM", kConstraint, "ee", nullptr, Promoted({R::kInteger})},
    {ExprKind::kMod, "MOD", kConstraint, "ee", nullptr, Promoted({R::kInteger})},
    // Comparisons.
    {ExprKind::kEq, "EQ", kConstraint, "ee", nullptr, Custom(TypeEquality)},
    {ExprKind::kNe, "NE", kConstraint, "ee", nullptr, Custom(TypeEquality)},
    {ExprKind::kLt, "LT", kConstraint, "ee", nullptr, Custom(TypeOrdering)},
    {ExprKind::kGt, "GT", kConstraint, "ee", nullptr, Custom(TypeOrdering)},
    {ExprKind::kLe, "LE", kConstraint, "ee", nullptr, Custom(TypeOrdering)},
    {ExprKind::kGe, "GE", kConstraint, "ee", nullptr, Custom(TypeOrdering)},
    // Operand references.
    {ExprKind::kInputOf, "INPUT_OF", kReference, "ee", nullptr,
     OperandsFirst(ReturnsIfValid(Type::kOpRef, {R::kOperandRef, R::kInteger}))},
    {ExprKind::kOutputOf, "OUTPUT_OF", kReference, "ee", nullptr,
     OperandsFirst(ReturnsIfValid(Type::kOpRef, {R::kOperandRef, R::kInteger}))},
    // Properties of an operand's output.
    {ExprKind::kRankOf, "RANK_OF", kConstraint, "e", nullptr,
     Returns(Type::kSize, {R::kOperandRef})},
    {ExprKind::kDimOf, "DIM_OF", kConstraint, "ee", nullptr,
     Returns(Type::kSize, {R::kOperandRef, R::kInteger})},
    {ExprKind::kStepsizeOf, "STEPSIZE_OF", kConstraint, "e", nullptr,
     Returns(Type::kFloat, {R::kOperandRef})},
    {ExprKind::kZeroOffsetOf, "ZERO_OFFSET_OF", kConstraint, "e", nullptr,
     Returns(Type::kInt, {R::kOperandRef})},
    {ExprKind::kQuantAxisOf, "QUANT_AXIS_OF", kConstraint, "e", nullptr,
     Returns(Type::kInt, {R::kOperandRef})},
    {ExprKind::kDTypeOf, "DTYPE_OF", kConstraint, "e", nullptr,
     Returns(Type::kDType, {R::kOperandRef})},
    {ExprKind::kElementSizeOf, "ELEMENTSIZE_OF", kConstraint, "e", nullptr,
     Returns(Type::kSize, {R::kOperandRef})},
    {ExprKind::kDataSize, "DATA_SIZE", kConstraint, "e", nullptr,
     Returns(Type::kSize, {R::kOperandRef})},
    {ExprKind::kInputsOf, "INPUTS_OF", kConstraint, "e", nullptr,
     Returns(Type::kSize, {R::kOperandRef})},
    {ExprKind::kOutputsOf, "OUTPUTS_OF", kConstraint, "e", nullptr,
     Returns(Type::kSize, {R::kOperandRef})},
    // Predicates on operands.
    {ExprKind::kSameEncoding, "SAME_ENCODING", kConstraint, "ee", nullptr,
     Returns(Type::kBool, {R::kOperandRef, R::kOperandRef})},
    {ExprKind::kSameOp, "SAME_OP", kConstraint, "ee", nullptr,
     Returns(Type::kBool, {R::kOperandRef, R::kOperandRef})},
    {ExprKind::kIsOp, "IS_OP", kConstraint, "es", nullptr, Returns(Type::kBool, {R::kOperandRef})},
    {ExprKind::kProducerFor, "PRODUCER_FOR", kConstraint, "es", nullptr,
     Returns(Type::kBool, {R::kOperandRef})},
    {ExprKind::kIsEmpty, "IS_EMPTY", kConstraint, "e", nullptr,
     Returns(Type::kBool, {R::kOperandRef})},
    {ExprKind::kIsEmptyDim, "IS_EMPTY_DIM", kConstraint, "ee", nullptr,
     Returns(Type::kBool, {R::kOperandRef, R::kInteger})},
    // Const values: (opref, index) or (opref, row, column).
    {ExprKind::kConstValInt, "CONSTVAL_INT", kConstraint, "ee", "eee",
     Returns(Type::kInt, {R::kOperandRef, R::kInteger})},
    {ExprKind::kConstValIntValid, "CONSTVAL_INT_VALID", kConstraint, "ee", "eee",
     Returns(Type::kBool, {R::kOperandRef, R::kInteger})},
    {ExprKind::kConstValFloat, "CONSTVAL_FLOAT", kConstraint, "ee", nullptr,
     Returns(Type::kFloat, {R::kOperandRef, R::kInteger})},
    {ExprKind::kConstValFloatValid, "CONSTVAL_FLOAT_VALID", kConstraint, "ee", nullptr,
     Returns(Type::kBool, {R::kOperandRef, R::kInteger})},
    // Split variables.
    {ExprKind::kSplitDim, "SPLIT_DIM", kConstraint, "t", nullptr, Custom(TypeSplitVariable)},
    {ExprKind::kSplitStart, "SPLIT_START", kConstraint, "t", nullptr, Custom(TypeSplitVariable)},
    {ExprKind::kSplitSize, "SPLIT_SIZE", kConstraint, "t", nullptr, Custom(TypeSplitVariable)},
    // EXTERNAL_CONSTRAINT(fn, "tag", scalars...).
    {ExprKind::kExternalConstraint, "EXTERNAL_CONSTRAINT", kConstraint, "nge*", nullptr,
     Custom(TypeExternalConstraint, Returns(Type::kBool, {R::kAny, R::kScalar}))},
};

}  // namespace

absl::Span<const FormRow> ConstraintFormRows() { return kConstraintRows; }

}  // namespace egret::rules
