#include "egret/rules_compile/read_scope.h"

#include <algorithm>

namespace egret::rules {
namespace {

// The wider of two read sets (Rewrite::Reads runs from the widest).
Reads Max(Reads a, Reads b) { return std::min(a, b); }

// An operand reference: what it reads, and whether it carries the e-node the
// match bound (the root "*", a LET tag), so that reading its op and inputs
// reads the match only. `type_only`: a class beyond the match of which only
// the type (which never changes) may be read within `scope`; reading more of
// it reads anything.
struct RefReads {
  Reads scope = Reads::kAnything;
  bool has_node = false;
  bool type_only = false;
};

Reads ScalarReads(const Expr& e, const Bindings& b);

RefReads Ref(const Expr& e, const Bindings& b) {
  switch (e.kind) {
    case ExprKind::kTag: {
      if (e.name == "*") return {Reads::kMatch, true};
      auto it = b.find(e.name);
      if (it == b.end()) return {};
      return {Reads::kMatch, it->second.var < 0 || it->second.node >= 0};
    }
    case ExprKind::kSelect: {
      if (e.args.size() != 3) return {};
      RefReads x = Ref(*e.args[1], b), y = Ref(*e.args[2], b);
      return {Max(ScalarReads(*e.args[0], b), Max(x.scope, y.scope)), x.has_node && y.has_node,
              x.type_only || y.type_only};
    }
    // An input of an e-node the match bound: the node is the match's, and so
    // is the class of each of its inputs, whose type is fixed.
    case ExprKind::kInputOf: {
      if (e.args.size() != 2) return {};
      const RefReads base = Ref(*e.args[0], b);
      if (!base.has_node || base.type_only) return {};
      return {Max(base.scope, ScalarReads(*e.args[1], b)), false, true};
    }
    default:  // OUTPUT_OF, ITER_INPUT_OF: classes beyond the match
      return {};
  }
}

Reads Args(const Expr& e, const Bindings& b, size_t from) {
  Reads s = Reads::kMatch;
  for (size_t i = from; i < e.args.size(); ++i) s = Max(s, ScalarReads(*e.args[i], b));
  return s;
}

// A property of args[0] (a reference) with scalar operands after it; `node`
// is what reading it costs when the reference bound no e-node.
Reads Property(const Expr& e, const Bindings& b, Reads node) {
  if (e.args.empty()) return Reads::kAnything;
  RefReads r = Ref(*e.args[0], b);
  if (r.type_only && node != Reads::kMatch) return Reads::kAnything;
  Reads s = Max(r.scope, Args(e, b, 1));
  return r.has_node ? s : Max(s, node);
}

Reads ScalarReads(const Expr& e, const Bindings& b) {
  switch (e.kind) {
    case ExprKind::kBoolConst:
    case ExprKind::kIntConst:
    case ExprKind::kSizeConst:
    case ExprKind::kFloatConst:
    case ExprKind::kDTypeConst:
    case ExprKind::kLayoutChunkSize:
    case ExprKind::kOptionInt:
    case ExprKind::kOptionUint:
    case ExprKind::kOptionBool:
    case ExprKind::kOptionFloat:
    case ExprKind::kSplitDim:
    case ExprKind::kSplitStart:
    case ExprKind::kSplitSize:
      return Reads::kMatch;
    case ExprKind::kToUint:
    case ExprKind::kToInt:
    case ExprKind::kToFloat:
    case ExprKind::kToDType:
    case ExprKind::kNot:
    case ExprKind::kNeg:
    case ExprKind::kAbs:
    case ExprKind::kIsPow2:
    case ExprKind::kSelect:
    case ExprKind::kRoundUp:
    case ExprKind::kCeilDiv:
    case ExprKind::kLcm:
    case ExprKind::kBitAnd:
    case ExprKind::kBitOr:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kXor:
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kMin:
    case ExprKind::kMax:
    case ExprKind::kSub:
    case ExprKind::kDiv:
    case ExprKind::kRem:
    case ExprKind::kMod:
    case ExprKind::kEq:
    case ExprKind::kNe:
    case ExprKind::kLt:
    case ExprKind::kGt:
    case ExprKind::kLe:
    case ExprKind::kGe:
      return Args(e, b, 0);
    // The type of the reference's class.
    case ExprKind::kRankOf:
    case ExprKind::kDimOf:
    case ExprKind::kStepsizeOf:
    case ExprKind::kZeroOffsetOf:
    case ExprKind::kQuantAxisOf:
    case ExprKind::kDTypeOf:
    case ExprKind::kElementSizeOf:
    case ExprKind::kDataSize:
    case ExprKind::kIsEmpty:
    case ExprKind::kIsEmptyDim:
      return Property(e, b, Reads::kMatch);
    case ExprKind::kSameEncoding:
      if (e.args.size() != 2) return Reads::kAnything;
      return Max(Ref(*e.args[0], b).scope, Ref(*e.args[1], b).scope);
    // Whether two classes are one changes when they merge: the root's class
    // may merge without a matched node changing.
    case ExprKind::kSameOp: {
      if (e.args.size() != 2) return Reads::kAnything;
      const RefReads x = Ref(*e.args[0], b), y = Ref(*e.args[1], b);
      if (x.type_only || y.type_only) return Reads::kAnything;
      return Max(Reads::kClassNodes, Max(x.scope, y.scope));
    }
    // The matched node's op and inputs, else the class's nodes.
    case ExprKind::kInputsOf:
    case ExprKind::kIsOp:
    case ExprKind::kProducerFor:
      return Property(e, b, Reads::kClassNodes);
    case ExprKind::kConstValInt:
    case ExprKind::kConstValIntValid:
    case ExprKind::kConstValFloat:
    case ExprKind::kConstValFloatValid:
      return Max(Reads::kConstants, Property(e, b, Reads::kConstants));
    default:  // OUTPUTS_OF (parents), external constraints, C++ names
      return Reads::kAnything;
  }
}

Reads BuildReads(const Expr& e, const Bindings& b) {
  auto builds = [&](size_t from, size_t end) {
    Reads s = Reads::kMatch;
    for (size_t i = from; i < std::min(end, e.args.size()); ++i)
      s = Max(s, BuildReads(*e.args[i], b));
    return s;
  };
  // The last operand is built, the others are scalars (modifiers).
  auto last_built = [&] {
    if (e.args.empty()) return Reads::kAnything;
    Reads s = BuildReads(*e.args.back(), b);
    for (size_t i = 0; i + 1 < e.args.size(); ++i) s = Max(s, ScalarReads(*e.args[i], b));
    return s;
  };
  switch (e.kind) {
    case ExprKind::kTag:
      return Ref(e, b).scope;
    case ExprKind::kSelect:
      if (e.args.size() != 3) return Reads::kAnything;
      return Max(ScalarReads(*e.args[0], b), builds(1, 3));
    // A new node: its shape check reads its operands' constants.
    case ExprKind::kOp:
    case ExprKind::kWrapOpAlways:
      return Max(Reads::kConstants, builds(0, e.args.size()));
    // WrapOp tests the class for a node of the op.
    case ExprKind::kWrapOp:
      return Max(Reads::kClassNodes, builds(0, e.args.size()));
    case ExprKind::kGenShape:
    case ExprKind::kGenConstScalarF32:
    case ExprKind::kGenConstScalarI32:
    case ExprKind::kGenConstArrF32:
    case ExprKind::kGenConstArrI32:
    case ExprKind::kGenConstArrValsI32:
      return Args(e, b, 0);
    case ExprKind::kGenShapeOf:
      return builds(0, 1);
    // AUTOSPLIT(dim, chunk, body): pieces joined by a new Concat.
    case ExprKind::kAutoSplit:
      if (e.args.size() != 3) return Reads::kAnything;
      return Max(Max(Reads::kConstants, ScalarReads(*e.args[0], b)),
                 Max(ScalarReads(*e.args[1], b), BuildReads(*e.args[2], b)));
    // OP_ITER(init, from, to, body): init is a new op, or an existing class
    // whose node (matched, else its representative) is copied.
    case ExprKind::kOpIter: {
      if (e.args.size() != 4) return Reads::kAnything;
      const Expr& init = *e.args[0];
      Reads s = Reads::kConstants;
      if (init.kind == ExprKind::kOp) {
        for (const ExprPtr& a : init.args) s = Max(s, BuildReads(*a, b));
      } else {
        RefReads r = Ref(init, b);
        if (r.type_only) return Reads::kAnything;
        s = Max(s, r.has_node ? r.scope : Max(r.scope, Reads::kClassNodes));
      }
      s = Max(s, Max(ScalarReads(*e.args[1], b), ScalarReads(*e.args[2], b)));
      return Max(s, BuildReads(*e.args[3], b));
    }
    case ExprKind::kWithSize:
      if (e.args.size() != 2) return Reads::kAnything;
      return Max(BuildReads(*e.args[0], b), BuildReads(*e.args[1], b));
    case ExprKind::kWithType:
    case ExprKind::kWithSameOutput:
      if (e.args.size() != 2) return Reads::kAnything;
      return Max(Ref(*e.args[0], b).scope, BuildReads(*e.args[1], b));
    case ExprKind::kWithOutputType:
    case ExprKind::kWithMultiOut:
    case ExprKind::kResizeDim:
      return last_built();
    default:  // navigation, provenance, external and shape functions
      return Reads::kAnything;
  }
}

}  // namespace

Reads ConstraintReads(const Expr& e, const Bindings& bindings) { return ScalarReads(e, bindings); }

Reads ReplacementReads(const Expr& e, const Bindings& bindings) { return BuildReads(e, bindings); }

}  // namespace egret::rules
