// Rows of the grammar macros (form_table.h): spelling, signature and the
// core-form tree each expands to (ast.h lists the expansions); the slice
// macros also type their expansion as a whole.
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "egret/rules/checker_internal.h"
#include "egret/rules/form_table.h"
#include "egret/rules/form_table_internal.h"

namespace egret::rules {
namespace {

ExprPtr NewInt(int64_t v, const Origin& origin) {
  ExprPtr e = NewExpr(ExprKind::kIntConst, origin);
  e->int_value = v;
  return e;
}

ExprPtr NewBinary(ExprKind kind, const Origin& origin, ExprPtr a, ExprPtr b) {
  ExprPtr e = NewExpr(kind, origin);
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

// EQ(DTYPE_OF(x), DType::t)
ExprPtr IsDType(ExprPtr x, DType t, const Origin& o) {
  ExprPtr dt = NewExpr(ExprKind::kDTypeConst, o);
  dt->dtype = t;
  ExprPtr dtype_of = NewExpr(ExprKind::kDTypeOf, o);
  dtype_of->args.push_back(std::move(x));
  return NewBinary(ExprKind::kEq, o, std::move(dtype_of), std::move(dt));
}

// WITH_SIZE(size, WITH_TYPE(in, Op("Slice_shape", in, start, size)))
ExprPtr AutosplitSlice(ExprPtr in, ExprPtr start, ExprPtr size, const Origin& o) {
  ExprPtr op = NewExpr(ExprKind::kOp, o);
  op->name = "Slice_shape";
  op->args.push_back(in->Clone());
  op->args.push_back(std::move(start));
  op->args.push_back(size->Clone());
  ExprPtr with_type = NewBinary(ExprKind::kWithType, o, std::move(in), std::move(op));
  return NewBinary(ExprKind::kWithSize, o, std::move(size), std::move(with_type));
}

// --- expansions ----------------------------------------------------------------------

ExprPtr ExpandIsDType(const MacroRow& row, MacroCall& c) {
  return IsDType(std::move(c.args[0]), row.dtype, c.origin);
}

ExprPtr ExpandIsFloat16Both(const MacroRow&, MacroCall& c) {
  ExprPtr x = IsDType(std::move(c.args[0]), DType::kFloat16, c.origin);
  ExprPtr y = IsDType(std::move(c.args[1]), DType::kFloat16, c.origin);
  x->macro = y->macro = "IS_FLOAT16";
  return NewBinary(ExprKind::kAnd, c.origin, std::move(x), std::move(y));
}

ExprPtr ExpandDim(const MacroRow& row, MacroCall& c) {
  return NewBinary(ExprKind::kDimOf, c.origin, std::move(c.args[0]), NewInt(row.dim, c.origin));
}

ExprPtr ExpandSameShape(const MacroRow&, MacroCall& c) {
  const Origin& o = c.origin;
  ExprPtr e = NewExpr(ExprKind::kAnd, o);
  for (int d = 3; d >= 0; --d) {
    e->args.push_back(NewBinary(ExprKind::kEq, o,
                                NewBinary(ExprKind::kDimOf, o, c.args[0]->Clone(), NewInt(d, o)),
                                NewBinary(ExprKind::kDimOf, o, c.args[1]->Clone(), NewInt(d, o))));
  }
  return e;
}

ExprPtr ExpandIterVar(const MacroRow&, MacroCall& c) {
  ExprPtr e = NewExpr(ExprKind::kSplitStart, c.origin);
  e->split_tag = c.split_tag;
  return e;
}

ExprPtr ExpandOperand(const MacroRow&, MacroCall& c) { return std::move(c.args[0]); }

ExprPtr ExpandAutosplitSlice(const MacroRow&, MacroCall& c) {
  return AutosplitSlice(std::move(c.args[0]), std::move(c.args[1]), std::move(c.args[2]), c.origin);
}

// TYPICAL_SLICE(in, t) and CHANGEDIM_SLICE(in, t, d): AUTOSPLIT_SLICE with the
// start and size of the simple(dim)_split_* shape functions.
ExprPtr ExpandSlice(MacroCall& c, bool dim) {
  auto apply = [&](const char* fn) {
    ExprPtr x = NewExpr(ExprKind::kAutoSplitShapeFnApply, c.origin);
    x->name = fn;
    x->split_tag = c.split_tag;
    x->args.push_back(c.args[0]->Clone());
    if (dim) x->args.push_back(c.args[1]->Clone());
    return x;
  };
  ExprPtr start = apply(dim ? "simpledim_split_start" : "simple_split_start");
  ExprPtr size = apply(dim ? "simpledim_split_size" : "simple_split_size");
  return AutosplitSlice(std::move(c.args[0]), std::move(start), std::move(size), c.origin);
}
ExprPtr ExpandTypicalSlice(const MacroRow&, MacroCall& c) { return ExpandSlice(c, false); }
ExprPtr ExpandChangedimSlice(const MacroRow&, MacroCall& c) { return ExpandSlice(c, true); }

// OpMultiOut(n, k, "op", inputs...)
//   -> Op("$Out", WITH_MULTI_OUT(n, Op("op", inputs...)), gen_Shape(0, 0, n, k))
ExprPtr ExpandOpMultiOut(const MacroRow&, MacroCall& c) {
  const Origin& o = c.origin;
  ExprPtr inner = NewExpr(ExprKind::kOp, o);
  inner->name = c.name;
  for (size_t k = 2; k < c.args.size(); ++k) inner->args.push_back(std::move(c.args[k]));
  ExprPtr shape = NewExpr(ExprKind::kGenShape, o);
  shape->args.push_back(NewInt(0, o));
  shape->args.push_back(NewInt(0, o));
  shape->args.push_back(c.args[0]->Clone());
  shape->args.push_back(std::move(c.args[1]));
  ExprPtr e = NewExpr(ExprKind::kOp, o);
  e->name = "$Out";
  e->args.push_back(NewBinary(ExprKind::kWithMultiOut, o, std::move(c.args[0]), std::move(inner)));
  e->args.push_back(std::move(shape));
  return e;
}

// --- typing of the slice macros ------------------------------------------------------

bool YieldsOpRefOrShape(const Expr& e) {
  if (e.kind == ExprKind::kSelect) {
    return YieldsOpRefOrShape(*e.args[1]) && YieldsOpRefOrShape(*e.args[2]);
  }
  return e.type == Type::kOpRef || e.type == Type::kShape;
}

// WITH_SIZE(size, WITH_TYPE(in, Op("Slice_shape", in, start, size))): `in` is
// an existing operand; AUTOSPLIT_SLICE's start and size are operands or shapes.
Type TypeSlice(Checker& c, Expr& e, bool) {
  Expr& size = *e.args[0];
  Expr& wt = *e.args[1];
  Expr& in = *wt.args[0];
  Expr& op = *wt.args[1];
  Expr& start = *op.args[1];
  Type tin = c.Check(in);
  c.Check(*op.args[0]);
  Type tstart = c.Check(start);
  Type tsize = c.Check(size);
  c.Check(*op.args[2]);
  const std::string& m = e.macro;
  if (tin != Type::kInvalid && tin != Type::kOpRef) {
    c.Error(in, absl::StrCat("the first operand of ", m,
                             " must be an existing operand reference, "
                             "not ",
                             DescribeType(tin)));
  }
  if (m == "AUTOSPLIT_SLICE") {
    for (auto [x, t, which] : {std::tuple<Expr*, Type, const char*>{&start, tstart, "second"},
                               {&size, tsize, "third"}}) {
      if (t != Type::kInvalid && !YieldsOpRefOrShape(*x)) {
        c.Error(*x, absl::StrCat("the ", which,
                                 " operand of AUTOSPLIT_SLICE must be an existing "
                                 "operand reference or a shape construction, not ",
                                 DescribeType(t)));
      }
    }
  }
  op.type = wt.type = Type::kOp;
  return Type::kOp;
}

// --- rows ----------------------------------------------------------------------------

constexpr MacroRow IsDTypeRow(std::string_view spelling, DType t) {
  return {spelling, "e", ExpandIsDType, t};
}
constexpr MacroRow DimRow(std::string_view spelling, int dim) {
  return {spelling, "e", ExpandDim, DType::kUnknown, dim};
}

constexpr MacroRow kMacroRows[] = {
    IsDTypeRow("IS_QUINT8", DType::kQUInt8),
    IsDTypeRow("IS_QINT8", DType::kQInt8),
    IsDTypeRow("IS_QUINT16", DType::kQUInt16),
    IsDTypeRow("IS_QINT16", DType::kQInt16),
    IsDTypeRow("IS_QINT32", DType::kQInt32),
    IsDTypeRow("IS_INT32", DType::kInt32),
    IsDTypeRow("IS_INT64", DType::kInt64),
    IsDTypeRow("IS_FLOAT16", DType::kFloat16),
    IsDTypeRow("IS_FLOAT32", DType::kFloat32),
    IsDTypeRow("IS_FLOAT", DType::kFloat32),
    {"IS_FLOAT16_BOTH", "ee", ExpandIsFloat16Both},
    DimRow("DIM_BATCHES", 0),
    DimRow("DIM_HEIGHT", 1),
    DimRow("DIM_WIDTH", 2),
    DimRow("DIM_DEPTH", 3),
    DimRow("DIM_CHANNEL", 4),
    DimRow("DIM_FILTHEIGHT", 0),
    DimRow("DIM_FILTWIDTH", 1),
    DimRow("DIM_FILTDEPTH", 2),
    DimRow("DIM_NFILTS", 3),
    {"SAME_SHAPE", "ee", ExpandSameShape},
    {"ITER_VAR", "t", ExpandIterVar},
    {"Operand", "g", ExpandOperand},
    {"AUTOSPLIT_SLICE", "eee", ExpandAutosplitSlice, DType::kUnknown, 0, TypeSlice},
    {"TYPICAL_SLICE", "et", ExpandTypicalSlice, DType::kUnknown, 0, TypeSlice},
    {"CHANGEDIM_SLICE", "ete", ExpandChangedimSlice, DType::kUnknown, 0, TypeSlice},
    {"OpMultiOut", "eese*", ExpandOpMultiOut},
};

}  // namespace

absl::Span<const MacroRow> MacroRows() { return kMacroRows; }

}  // namespace egret::rules
