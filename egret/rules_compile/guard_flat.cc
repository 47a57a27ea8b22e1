#include "egret/rules_compile/guard_flat.h"

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "egret/rules_compile/type_properties_internal.h"

namespace egret::rules {
namespace {

// Distinct operands one flat conjunction reads; a conjunct that would need
// more is compiled as a closure.
constexpr int kMaxOperands = 8;

// One side of a comparison: a literal or a property of an operand.
struct Side {
  ExprKind kind = ExprKind::kIntConst;  // kIntConst: `literal` (of any type); else the property
  int operand = 0;                      // index in FlatConjunction::operands_
  int index = 0;                        // DIM_OF's dim
  Scalar literal;
};

struct Conjunct {
  // kSameDims: SAME_DIMS(a, b) as its macro expands (egret_macros.h), five
  // kCompareInt conjuncts fused: EQ(RANK_OF(a), RANK_OF(b)), then
  // EQ(DIM_OF(a, d), DIM_OF(b, d)) for d = 3..0.
  enum Kind : uint8_t { kCompare, kCompareInt, kSameDims, kSameEncoding, kSameOp, kClosure };
  Kind kind = kClosure;
  ExprKind cmp = ExprKind::kEq;  // kCompare*: which comparison
  bool fl = false;               // kCompare: an operand is statically float
  Side a, b;                     // kCompare*; kSame*: a.operand and b.operand
  int closure = -1;              // kClosure: index in FlatConjunction::closures_
};

// An operand: a tag (`base` < 0: match variable `var`, -1 for the root, and
// the slot of its matched node, -1 for none), or input `input` of the node
// of operand `base` (INPUT_OF with a literal index).
struct Operand {
  int var = -1;
  int node = -1;
  int base = -1;
  int64_t input = 0;
  bool operator==(const Operand&) const = default;
};

// What one evaluation knows of an operand, resolved on first use.
struct Resolved {
  enum State : uint8_t { kUnknown = 0, kPresent, kMissing };
  State state = kUnknown;
  Id cls = kNoId;
  NodeIdx node = kNoNodeIdx;
  const TensorType* type = nullptr;
};

bool IsComparison(ExprKind k) {
  return k == ExprKind::kEq || k == ExprKind::kNe || k == ExprKind::kLt || k == ExprKind::kGt ||
         k == ExprKind::kLe || k == ExprKind::kGe;
}

class FlatConjunction {
 public:
  Scalar operator()(EvalState& s) const {
    std::array<Resolved, kMaxOperands> ops;
    // Operand `o` resolved (InputRef's failures set s.failed); null when
    // missing.
    auto resolve = [&](auto& self, int o) -> const Resolved* {
      Resolved& r = ops[o];
      if (r.state == Resolved::kUnknown) {
        const Operand& op = operands_[o];
        Id c = kNoId;
        r.state = Resolved::kMissing;
        if (op.base < 0) {
          if (op.var < 0) {
            c = s.m->root;
            r.node = s.m->nodes.empty() ? kNoNodeIdx : s.m->nodes[0];
          } else {
            c = s.m->subst[op.var];
            r.node = op.node < 0 ? kNoNodeIdx : s.m->nodes[op.node];
          }
        } else {
          const Resolved* b = self(self, op.base);
          if (b == nullptr) return nullptr;
          NodeIdx n = b->node != kNoNodeIdx ? b->node : RepresentativeNode(*s.g, b->cls);
          if (n == kNoNodeIdx) {
            s.failed = true;
            return nullptr;
          }
          ENodeView v = s.g->Node(n);
          if (op.input < 0 || op.input >= static_cast<int64_t>(v.children.size())) {
            s.failed = true;
            return nullptr;
          }
          c = v.children[op.input];
        }
        if (c == kNoId) return nullptr;
        r.cls = s.g->Find(c);
        r.type = &s.g->TypeOf(r.cls);
        r.state = Resolved::kPresent;
      }
      return r.state == Resolved::kPresent ? &r : nullptr;
    };
    auto type_of = [&](int o) -> const TensorType* {
      if (ops[o].state == Resolved::kPresent) return ops[o].type;  // the usual case
      const Resolved* r = resolve(resolve, o);
      return r != nullptr ? r->type : nullptr;
    };
    auto side = [&](const Side& x) -> Scalar {
      if (x.kind == ExprKind::kIntConst) return x.literal;
      const TensorType* t = type_of(x.operand);
      if (t == nullptr) {
        s.failed = true;
        return x.kind == ExprKind::kStepsizeOf ? Scalar::Float(0) : Scalar::Int(0);
      }
      return TypeProperty(x.kind, x.index, *t);
    };
    // An integer side: 0 when its operand is missing (s.failed set), as
    // Property's rows read it.
    auto int_side = [&](const Side& x) -> int64_t {
      if (x.kind == ExprKind::kIntConst) return x.literal.i;
      const TensorType* t = type_of(x.operand);
      if (t == nullptr) {
        s.failed = true;
        return 0;
      }
      return TypeProperty(x.kind, x.index, *t).i;
    };
    for (const Conjunct& k : conjuncts_) {
      bool v;
      switch (k.kind) {
        case Conjunct::kCompareInt: {
          // Both sides are evaluated, as Compare does (each may fail).
          const int64_t x = int_side(k.a), y = int_side(k.b);
          v = ComparisonHolds(k.cmp, (x > y) - (x < y));
          break;
        }
        case Conjunct::kSameDims: {
          const TensorType* ta = type_of(k.a.operand);
          const TensorType* tb = type_of(k.b.operand);
          if (ta == nullptr || tb == nullptr) {
            s.failed = true;
            return Scalar::Bool(false);
          }
          v = ta->rank() == tb->rank() && ta->dim(3) == tb->dim(3) && ta->dim(2) == tb->dim(2) &&
              ta->dim(1) == tb->dim(1) && ta->dim(0) == tb->dim(0);
          break;
        }
        case Conjunct::kCompare: {
          Scalar x = side(k.a), y = side(k.b);
          v = ComparisonHolds(k.cmp, ScalarOrder(k.fl, x, y));
          break;
        }
        case Conjunct::kSameEncoding:
        case Conjunct::kSameOp: {
          const Resolved* ra = resolve(resolve, k.a.operand);
          const Resolved* rb = resolve(resolve, k.b.operand);
          if (ra == nullptr || rb == nullptr) {
            v = false;
          } else if (k.kind == Conjunct::kSameOp) {
            v = ra->cls == rb->cls;
          } else {
            v = ra->type->SameEncoding(*rb->type);
          }
          break;
        }
        default:
          v = closures_[k.closure](s).AsBool();
      }
      // A lone comparison's value is Compare's, even when it failed.
      if (!and_) return Scalar::Bool(v);
      if (s.failed || !v) return Scalar::Bool(false);
    }
    return Scalar::Bool(true);
  }

  // Adds `e` as conjuncts (an AND's operands, recursively).
  absl::Status Add(ExprCompiler& c, const Expr& e) {
    if (e.kind == ExprKind::kAnd) {
      and_ = true;
      for (const ExprPtr& a : e.args) {
        absl::Status st = Add(c, *a);
        if (!st.ok()) return st;
      }
      return absl::OkStatus();
    }
    if (AddFlat(c, e)) return absl::OkStatus();
    absl::StatusOr<ScalarFn> f = c.ScalarOf(e);
    if (!f.ok()) return f.status();
    Conjunct k;
    k.closure = static_cast<int>(closures_.size());
    closures_.push_back(*std::move(f));
    conjuncts_.push_back(k);
    return absl::OkStatus();
  }

  // Adds `e` as one flat conjunct when it is one (true); else adds nothing.
  bool AddFlat(ExprCompiler& c, const Expr& e) {
    std::optional<Conjunct> k = Flat(c, e);
    if (!k) return false;
    conjuncts_.push_back(*k);
    FuseSameDims();
    return true;
  }

 private:
  // `e` as one flat conjunct, or nullopt. Operands it would add are kept
  // only when it is flat.
  std::optional<Conjunct> Flat(ExprCompiler& c, const Expr& e) {
    const size_t operands_before = operands_.size();
    Conjunct k;
    bool ok = false;
    if (IsComparison(e.kind) && e.args.size() == 2) {
      k.kind = Conjunct::kCompare;
      k.cmp = e.kind;
      k.fl = e.args[0]->type == Type::kFloat || e.args[1]->type == Type::kFloat;
      ok = SideOf(c, *e.args[0], &k.a) && SideOf(c, *e.args[1], &k.b);
      // Neither side can be a float: compare the integers directly.
      if (ok && !k.fl && IsIntSide(k.a) && IsIntSide(k.b)) k.kind = Conjunct::kCompareInt;
    } else if ((e.kind == ExprKind::kSameEncoding || e.kind == ExprKind::kSameOp) &&
               e.args.size() == 2) {
      k.kind = e.kind == ExprKind::kSameOp ? Conjunct::kSameOp : Conjunct::kSameEncoding;
      ok = OperandOf(c, *e.args[0], &k.a.operand) && OperandOf(c, *e.args[1], &k.b.operand);
    }
    if (!ok) {
      operands_.resize(operands_before);
      return std::nullopt;
    }
    return k;
  }

  // Replaces the last five conjuncts by one kSameDims when they are
  // SAME_DIMS's expansion (the same result and failure: the first of them
  // reads both operands, and the others read nothing else).
  void FuseSameDims() {
    if (conjuncts_.size() < 5) return;
    const size_t first = conjuncts_.size() - 5;
    auto is_eq = [&](size_t i, ExprKind prop, int index) {
      const Conjunct& k = conjuncts_[i];
      return k.kind == Conjunct::kCompareInt && k.cmp == ExprKind::kEq && k.a.kind == prop &&
             k.b.kind == prop &&
             (prop != ExprKind::kDimOf || (k.a.index == index && k.b.index == index)) &&
             k.a.operand == conjuncts_[first].a.operand &&
             k.b.operand == conjuncts_[first].b.operand;
    };
    if (!is_eq(first, ExprKind::kRankOf, 0)) return;
    for (int d = 3; d >= 0; --d) {
      if (!is_eq(first + 4 - d, ExprKind::kDimOf, d)) return;
    }
    Conjunct fused = conjuncts_[first];
    fused.kind = Conjunct::kSameDims;
    conjuncts_.resize(first);
    conjuncts_.push_back(fused);
  }

  static bool IsIntSide(const Side& x) {
    return x.kind == ExprKind::kIntConst ? !x.literal.is_float() : x.kind != ExprKind::kStepsizeOf;
  }

  // A tag, "*" or INPUT_OF(operand, integer literal): its operand index
  // (added when new).
  bool OperandOf(ExprCompiler& c, const Expr& e, int* operand) {
    Operand op;
    if (e.kind == ExprKind::kInputOf && e.args.size() == 2) {
      const Expr& i = *e.args[1];
      if (i.kind != ExprKind::kIntConst && i.kind != ExprKind::kSizeConst) return false;
      if (!OperandOf(c, *e.args[0], &op.base)) return false;
      op.input = i.int_value;
    } else if (e.kind == ExprKind::kTag) {
      if (e.name != "*") {
        auto it = c.env().bindings->find(e.name);
        if (it == c.env().bindings->end()) return false;  // the closure reports it
        if (it->second.var >= 0) {
          op.var = it->second.var;
          op.node = it->second.node;
        }
      }
    } else {
      return false;
    }
    for (size_t i = 0; i < operands_.size(); ++i) {
      if (operands_[i] == op) {
        *operand = static_cast<int>(i);
        return true;
      }
    }
    if (operands_.size() >= kMaxOperands) return false;
    operands_.push_back(op);
    *operand = static_cast<int>(operands_.size()) - 1;
    return true;
  }

  bool SideOf(ExprCompiler& c, const Expr& e, Side* side) {
    switch (e.kind) {
      case ExprKind::kBoolConst:
        side->literal = Scalar::Bool(e.int_value != 0);
        return true;
      case ExprKind::kIntConst:
        side->literal = Scalar::Int(e.int_value);
        return true;
      case ExprKind::kSizeConst:
        side->literal = Scalar::Size(e.int_value);
        return true;
      case ExprKind::kFloatConst:
        side->literal = Scalar::Float(e.float_value);
        return true;
      case ExprKind::kDTypeConst:
        side->literal = Scalar::OfDType(e.dtype);
        return true;
      case ExprKind::kDimOf: {
        if (e.args.size() != 2) return false;
        const Expr& d = *e.args[1];
        if (d.kind != ExprKind::kIntConst && d.kind != ExprKind::kSizeConst) return false;
        side->kind = e.kind;
        // Property reads DIM_OF's index as static_cast<int>(AsInt()).
        side->index = static_cast<int>(d.int_value);
        return OperandOf(c, *e.args[0], &side->operand);
      }
      default:  // the other type properties, of one operand
        if (!IsTypeProperty(e.kind) || e.args.size() != 1) return false;
        side->kind = e.kind;
        return OperandOf(c, *e.args[0], &side->operand);
    }
  }

  bool and_ = false;  // an AND; else one comparison
  std::vector<Operand> operands_;
  std::vector<Conjunct> conjuncts_;
  std::vector<ScalarFn> closures_;
};

}  // namespace

absl::StatusOr<std::optional<ScalarFn>> CompileFlat(ExprCompiler& c, const Expr& e) {
  FlatConjunction flat;
  if (e.kind == ExprKind::kAnd) {
    absl::Status st = flat.Add(c, e);
    if (!st.ok()) return st;
    return std::optional<ScalarFn>(ScalarFn(std::move(flat)));
  }
  if (!IsComparison(e.kind) || !flat.AddFlat(c, e)) return std::optional<ScalarFn>();
  return std::optional<ScalarFn>(ScalarFn(std::move(flat)));
}

}  // namespace egret::rules
