// Rows of the replacement forms (form_table.h): spelling, signature and
// typing. Their builders are the rows of evaluators_replacement.cc.
#include "absl/strings/str_cat.h"
#include "egret/rules/checker_internal.h"
#include "egret/rules/form_table.h"
#include "egret/rules/form_table_internal.h"

namespace egret::rules {
namespace {

using R = OperandRule;
constexpr FormCategory kReplacement = FormCategory::kReplacement;

// --- custom typing -----------------------------------------------------------------

Type TypeGenShapeOf(Checker& c, Expr& e, bool) {
  Type t = c.Check(*e.args[0]);
  if (t == Type::kShape) {
    c.Warning(e, "gen_ShapeOf of a shape construction is redundant");
  } else {
    c.Want(e, 0, t, OperandRule::kExistingRef);
  }
  return Type::kShape;
}

// The last operand of an AUTOSPLIT or OP_ITER, inside its split scope; true
// when it uses the split tag.
bool CheckSplitBody(Checker& c, Expr& e) {
  c.EnterSplit(e.split_tag);
  c.CheckOperand(e, e.args.size() - 1);
  return c.LeaveSplit();
}

// AUTOSPLIT(dim, tag, chunk, body): at the root; dim and chunk are outside the
// split context; the body uses the tag.
Type TypeAutoSplit(Checker& c, Expr& e, bool at_root) {
  if (!at_root) {
    c.Error(e, "AUTOSPLIT may only be the root of the replacement or in SELECTs at the root");
  }
  c.DeclareSplit(e);
  for (size_t i = 0; i + 1 < e.args.size(); ++i) c.CheckOperand(e, i);
  if (!CheckSplitBody(c, e)) {
    c.Error(e, absl::StrCat("AUTOSPLIT with split tag \"", e.split_tag,
                            "\" does not use the tag in its last operand (e.g. SPLIT_START(\"",
                            e.split_tag, "\") or TYPICAL_SLICE(..., \"", e.split_tag, "\"))"));
  }
  return Type::kOp;
}

// OP_ITER(init, tag, from, to, body): init is Op(...) or an existing operand.
Type TypeOpIter(Checker& c, Expr& e, bool) {
  c.DeclareSplit(e);
  Expr& init = *e.args[0];
  Type t = c.Check(init);
  if (t != Type::kInvalid && init.kind != ExprKind::kOp && t != Type::kOpRef) {
    c.Error(init, absl::StrCat("the first operand of OP_ITER must be Op(...) or an existing "
                               "operand reference, not ",
                               DescribeType(t)));
  }
  for (size_t i = 1; i + 1 < e.args.size(); ++i) c.CheckOperand(e, i);
  CheckSplitBody(c, e);
  return Type::kOp;
}

Type TypeIterInputOf(Checker& c, Expr& e, bool) {
  Type s = c.SplitRef(e);
  c.CheckOperand(e, 0);
  return s == Type::kInvalid ? Type::kInvalid : Type::kNode;
}

Type TypeShapeFnApply(Checker& c, Expr& e, bool) {
  c.CheckExternal(e, e.args.size());
  return c.TypeByRow(e);
}

Type TypeSplitShapeFnApply(Checker& c, Expr& e, bool at_root) {
  Type s = c.SplitRef(e);
  Type t = TypeShapeFnApply(c, e, at_root);
  return s == Type::kInvalid ? Type::kInvalid : t;
}

// WITH_SPLIT_HISTORY(opref, [n,] op): the 3-operand form's n is a constant.
Type TypeWithSplitHistory(Checker& c, Expr& e, bool) {
  c.CheckOperand(e, 0);
  if (e.args.size() == 3) {
    Type s = c.Check(*e.args[1]);
    if (!IsIntLiteral(*e.args[1]) && s != Type::kInvalid) {
      c.Error(*e.args[1],
              "the second operand of a 3-operand WITH_SPLIT_HISTORY must be an integer constant");
    }
  }
  c.CheckOperand(e, e.args.size() - 1);
  return Type::kOp;
}

// WITH_SAME_OUTPUT(x, op): op built with x's output (dtype, encoding, dims).
// The last operand may also be a constructed constant (gen_Const*): its
// values are stored in x's dtype and encoding with x's dims (the element
// counts must agree when the rule is applied); the result is then a
// constructed constant.
Type TypeWithSameOutput(Checker& c, Expr& e, bool) {
  c.CheckOperand(e, 0);
  Type last = c.Check(*e.args[1]);
  if (last == Type::kNode) return Type::kNode;
  c.Want(e, 1, last, OperandRule::kLastOp);
  return last == Type::kInvalid ? Type::kInvalid : Type::kOp;
}

// WITH_OUTPUT_TYPE(dtype, zero_offset, stepsize, op): the three type operands
// are typed before they are held to their rules, then op.
Type TypeWithOutputType(Checker& c, Expr& e, bool) {
  Type t[3];
  for (size_t i = 0; i < 3; ++i) t[i] = c.Check(*e.args[i]);
  for (size_t i = 0; i < 3; ++i) c.Want(e, i, t[i], FormOf(e.kind).typing.Operand(i));
  c.CheckOperand(e, 3);
  return Type::kOp;
}

Type TypeExternalReplace(Checker& c, Expr& e, bool at_root) {
  if (!at_root) {
    c.Error(e,
            "EXTERNAL_REPLACE may only be the root of the replacement or in SELECTs at the root");
  }
  c.CheckExternal(e, 0);
  return Type::kOp;
}

// --- rows ----------------------------------------------------------------------------

constexpr FormRow kReplacementRows[] = {
    {ExprKind::kOp, "Op", kReplacement, "se*", nullptr, Returns(Type::kOp, {R::kValue})},
    {ExprKind::kWrapOp, "WrapOp", kReplacement, "se", nullptr, Returns(Type::kOp, {R::kValue})},
    {ExprKind::kWrapOpAlways, "WrapOpAlways", kReplacement, "se", nullptr,
     Returns(Type::kOp, {R::kValue})},
    {ExprKind::kGenShape, "gen_Shape", kReplacement, "ee*", nullptr,
     Returns(Type::kShape, {R::kInteger})},
    {ExprKind::kGenShapeOf, "gen_ShapeOf", kReplacement, "e", nullptr, Custom(TypeGenShapeOf)},
    {ExprKind::kGenConstScalarF32, "gen_ConstScalar_f32", kReplacement, "e", nullptr,
     Returns(Type::kNode, {R::kNumber})},
    {ExprKind::kGenConstScalarI32, "gen_ConstScalar_i32", kReplacement, "e", nullptr,
     Returns(Type::kNode, {R::kInteger})},
    {ExprKind::kGenConstArrF32, "gen_ConstArr_f32", kReplacement, "ee", nullptr,
     OperandsFirst(Returns(Type::kNode, {R::kNumber, R::kInteger}))},
    {ExprKind::kGenConstArrI32, "gen_ConstArr_i32", kReplacement, "ee", nullptr,
     OperandsFirst(Returns(Type::kNode, {R::kInteger, R::kInteger}))},
    {ExprKind::kGenConstArrValsI32, "gen_ConstArr_vals_i32", kReplacement, "ee*", nullptr,
     Returns(Type::kNode, {R::kInteger})},
    {ExprKind::kAutoSplit, "AUTOSPLIT", kReplacement, "etee", nullptr,
     Custom(TypeAutoSplit, Returns(Type::kOp, {R::kInteger, R::kInteger, R::kValue}))},
    {ExprKind::kOpIter, "OP_ITER", kReplacement, "eteee", nullptr,
     Custom(TypeOpIter, Returns(Type::kOp, {R::kAny, R::kInteger, R::kInteger, R::kValue}))},
    {ExprKind::kIterInputOf, "ITER_INPUT_OF", kReplacement, "et", nullptr,
     Custom(TypeIterInputOf, Returns(Type::kNode, {R::kOperandRef}))},
    {ExprKind::kAutoSplitShapeFnApply, "AUTOSPLIT_SHAPEFN_APPLY", kReplacement, "nte*", nullptr,
     Custom(TypeSplitShapeFnApply, Returns(Type::kShape))},
    // Modifiers: the last operand is the op they apply to.
    {ExprKind::kWithSize, "WITH_SIZE", kReplacement, "ee", nullptr,
     Returns(Type::kOp, {R::kNonOpShape, R::kLastOp})},
    {ExprKind::kWithType, "WITH_TYPE", kReplacement, "ee", nullptr,
     Returns(Type::kOp, {R::kNonOpRef, R::kLastOp})},
    {ExprKind::kWithSameOutput, "WITH_SAME_OUTPUT", kReplacement, "ee", nullptr,
     Custom(TypeWithSameOutput, Returns(Type::kOp, {R::kNonOpRef, R::kLastOp}))},
    {ExprKind::kWithOutputType, "WITH_OUTPUT_TYPE", kReplacement, "eeee", nullptr,
     Custom(TypeWithOutputType,
            Returns(Type::kOp, {R::kDType, R::kZeroOffset, R::kStepSize, R::kLastOp}))},
    {ExprKind::kWithMultiOut, "WITH_MULTI_OUT", kReplacement, "ee", nullptr,
     Returns(Type::kOp, {R::kInteger, R::kLastOp})},
    {ExprKind::kResizeDim, "ResizeDim", kReplacement, "eee", nullptr,
     Returns(Type::kOp, {R::kInteger, R::kInteger, R::kLastOp})},
    {ExprKind::kWithSameId, "WITH_SAME_ID", kReplacement, "ee", nullptr,
     Returns(Type::kOp, {R::kNonOpRef, R::kLastOp})},
    {ExprKind::kWithSplitHistory, "WITH_SPLIT_HISTORY", kReplacement, "ee", "eee",
     Custom(TypeWithSplitHistory, Returns(Type::kOp, {R::kNonOpRef, R::kLastOp}))},
    {ExprKind::kExternalReplace, "EXTERNAL_REPLACE", kReplacement, "n", nullptr,
     Custom(TypeExternalReplace)},
    {ExprKind::kShapeFnApply, "SHAPEFN_APPLY", kReplacement, "ne*", nullptr,
     Custom(TypeShapeFnApply, Returns(Type::kShape))},
};

}  // namespace

absl::Span<const FormRow> ReplacementFormRows() { return kReplacementRows; }

}  // namespace egret::rules
