#include "egret/rules/guard.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {
namespace {

absl::Status ErrorAt(const Expr& e, std::string_view msg) { return BadInput(e.loc(), msg); }

bool IsSpecialOp(std::string_view op) { return op == kConstOp || op == kShapeOp; }

// Reads an option converted to the requested kind (see the grammar).
Scalar OptionValue(const Options* options, const std::string& name, ExprKind kind) {
  int64_t iv = 0;
  double fv = 0;
  if (options != nullptr) {
    auto it = options->find(name);
    if (it != options->end()) {
      const egret::OptionValue& v = it->second;
      if (const bool* b = std::get_if<bool>(&v)) {
        iv = *b ? 1 : 0;
        fv = iv;
      } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
        iv = *i;
        fv = static_cast<double>(*i);
      } else if (const double* d = std::get_if<double>(&v)) {
        fv = *d;
        iv = Scalar::Float(*d).AsInt();
      } else if (const std::string* s = std::get_if<std::string>(&v)) {
        iv = s->empty() ? 0 : 1;
        fv = iv;
      }
    }
  }
  switch (kind) {
    case ExprKind::kOptionInt:
      return Scalar::Int(iv);
    case ExprKind::kOptionUint:
      return Scalar::Size(iv);
    case ExprKind::kOptionBool:
      return Scalar::Bool(fv != 0);
    default:
      return Scalar::Float(fv);
  }
}

// Result type of an arithmetic form: the checker's, or promoted from operands.
bool FloatResult(const Expr& e) { return e.type == Type::kFloat; }

struct ConstRead {
  bool ok = false;
  double storage = 0;
  double real = 0;
};

ConstRead ReadConst(const EGraph& g, Id c, int64_t index, std::optional<int64_t> col) {
  ConstRead r;
  c = g.Find(c);
  if (ConstTensorPtr t = g.ConstantOf(c)) {
    int64_t flat = index;
    if (col) {
      const Dims& d = t->type().dims;
      int64_t width = d.empty() ? 1 : d.back();
      if (*col < 0 || *col >= width) return r;
      flat = index * width + *col;
    }
    if (index < 0 || flat < 0 || flat >= t->num_elements()) return r;
    r.ok = true;
    r.storage = t->GetValue(flat);
    r.real = t->GetReal(flat);
    return r;
  }
  // A "$Shape" class: its dims are the value.
  static const Symbol shape = Symbol::Intern(kShapeOp);
  if (!g.ClassNodesWithOp(c, shape).empty()) {
    const Dims& d = g.TypeOf(c).dims;
    if (col || index < 0 || index >= static_cast<int64_t>(d.size())) return r;
    r.ok = true;
    r.storage = r.real = static_cast<double>(d[index]);
  }
  return r;
}

bool FitsInt32(double v) {
  return std::isfinite(v) && v == std::floor(v) && v >= -2147483648.0 && v <= 2147483647.0;
}

class Compiler {
 public:
  explicit Compiler(const ExprEnv& env) : env_(env) {}

  absl::StatusOr<RefFn> Ref(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kTag: {
        if (e.name == "*") {
          return RefFn([](EvalState& s) {
            return OperandRef{s.m->root, s.m->nodes.empty() ? kNoNodeIdx : s.m->nodes[0]};
          });
        }
        auto it = env_.bindings->find(e.name);
        if (it == env_.bindings->end()) {
          return ErrorAt(e,
                         absl::StrFormat("operand tag \"%s\" is not bound by the match", e.name));
        }
        TagSlot slot = it->second;
        if (slot.var < 0) {
          return RefFn([](EvalState& s) {
            return OperandRef{s.m->root, s.m->nodes.empty() ? kNoNodeIdx : s.m->nodes[0]};
          });
        }
        if (slot.node >= 0) {
          return RefFn([slot](EvalState& s) {
            return OperandRef{s.m->subst[slot.var], s.m->nodes[slot.node]};
          });
        }
        return RefFn([v = slot.var](EvalState& s) {
          return OperandRef{s.m->subst[v], kNoNodeIdx};
        });
      }
      case ExprKind::kInputOf:
      case ExprKind::kIterInputOf: {
        absl::StatusOr<RefFn> base = Ref(*e.args[0]);
        if (!base.ok()) return base.status();
        ScalarFn index;
        if (e.kind == ExprKind::kIterInputOf) {
          absl::StatusOr<int> slot = SplitSlot(e);
          if (!slot.ok()) return slot.status();
          index = [sl = *slot](EvalState& s) { return Scalar::Int(s.splits[sl].start); };
        } else {
          absl::StatusOr<ScalarFn> i = Scalar_(*e.args[1]);
          if (!i.ok()) return i.status();
          index = *std::move(i);
        }
        return RefFn([b = *std::move(base), index](EvalState& s) -> OperandRef {
          OperandRef r = b(s);
          if (r.cls == kNoId) return r;
          int64_t i = index(s).AsInt();
          NodeIdx n = r.node != kNoNodeIdx ? r.node : RepresentativeNode(*s.g, r.cls);
          if (n == kNoNodeIdx) {
            s.failed = true;
            return OperandRef{};
          }
          ENodeView v = s.g->Node(n);
          if (i < 0 || i >= static_cast<int64_t>(v.children.size())) {
            s.failed = true;
            return OperandRef{};
          }
          return OperandRef{s.g->Find(v.children[i]), kNoNodeIdx};
        });
      }
      case ExprKind::kOutputOf: {
        absl::StatusOr<RefFn> base = Ref(*e.args[0]);
        absl::StatusOr<ScalarFn> index = Scalar_(*e.args[1]);
        if (!base.ok()) return base.status();
        if (!index.ok()) return index.status();
        return RefFn([b = *std::move(base), i = *std::move(index)](EvalState& s) -> OperandRef {
          OperandRef r = b(s);
          if (r.cls == kNoId) return r;
          Id out = OutputClass(*s.g, r.cls, i(s).AsInt());
          if (out == kNoId) {
            s.failed = true;
            return OperandRef{};
          }
          return OperandRef{out, out == s.g->Find(r.cls) ? r.node : kNoNodeIdx};
        });
      }
      case ExprKind::kSelect: {
        absl::StatusOr<ScalarFn> c = Scalar_(*e.args[0]);
        absl::StatusOr<RefFn> a = Ref(*e.args[1]);
        absl::StatusOr<RefFn> b = Ref(*e.args[2]);
        if (!c.ok()) return c.status();
        if (!a.ok()) return a.status();
        if (!b.ok()) return b.status();
        return RefFn([c = *std::move(c), a = *std::move(a), b = *std::move(b)](EvalState& s) {
          return c(s).AsBool() ? a(s) : b(s);
        });
      }
      default:
        return ErrorAt(e, absl::StrFormat("%s is not an operand reference", ExprKindName(e.kind)));
    }
  }

  absl::StatusOr<ScalarFn> Scalar_(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kBoolConst:
        return Const(Scalar::Bool(e.int_value != 0));
      case ExprKind::kIntConst:
        return Const(Scalar::Int(e.int_value));
      case ExprKind::kSizeConst:
        return Const(Scalar::Size(e.int_value));
      case ExprKind::kFloatConst:
        return Const(Scalar::Float(e.float_value));
      case ExprKind::kDTypeConst:
        return Const(Scalar::OfDType(e.dtype));
      case ExprKind::kLayoutChunkSize: {
        // egret has one layout per tensor class name containing "Crouton"
        // (1x8x8x32 chunks); every other class is flat (chunk 1).
        static constexpr int64_t kCrouton[4] = {1, 8, 8, 32};
        bool crouton = e.name.find("routon") != std::string::npos;
        int64_t d = e.int_value;
        return Const(Scalar::Size(crouton && d >= 0 && d < 4 ? kCrouton[d] : 1));
      }
      case ExprKind::kOptionInt:
      case ExprKind::kOptionUint:
      case ExprKind::kOptionBool:
      case ExprKind::kOptionFloat:
        return Const(OptionValue(env_.options, e.name, e.kind));
      case ExprKind::kToUint:
      case ExprKind::kToInt:
      case ExprKind::kToFloat:
      case ExprKind::kToDType:
      case ExprKind::kNot:
      case ExprKind::kNeg:
      case ExprKind::kAbs:
      case ExprKind::kIsPow2:
        return Unary(e);
      case ExprKind::kSelect: {
        absl::StatusOr<ScalarFn> c = Scalar_(*e.args[0]);
        absl::StatusOr<ScalarFn> a = Scalar_(*e.args[1]);
        absl::StatusOr<ScalarFn> b = Scalar_(*e.args[2]);
        if (!c.ok()) return c.status();
        if (!a.ok()) return a.status();
        if (!b.ok()) return b.status();
        bool fl = FloatResult(e);
        return ScalarFn(
            [c = *std::move(c), a = *std::move(a), b = *std::move(b), fl](EvalState& s) {
              Scalar v = c(s).AsBool() ? a(s) : b(s);
              return fl && !v.is_float() ? Scalar::Float(v.AsFloat()) : v;
            });
      }
      case ExprKind::kAnd:
      case ExprKind::kOr:
        return ShortCircuit(e);
      case ExprKind::kXor:
      case ExprKind::kAdd:
      case ExprKind::kMul:
      case ExprKind::kMin:
      case ExprKind::kMax:
      case ExprKind::kRoundUp:
      case ExprKind::kCeilDiv:
      case ExprKind::kLcm:
      case ExprKind::kBitAnd:
      case ExprKind::kBitOr:
      case ExprKind::kSub:
      case ExprKind::kDiv:
      case ExprKind::kRem:
      case ExprKind::kMod:
        return Arith(e);
      case ExprKind::kEq:
      case ExprKind::kNe:
      case ExprKind::kLt:
      case ExprKind::kGt:
      case ExprKind::kLe:
      case ExprKind::kGe:
        return Compare(e);
      case ExprKind::kRankOf:
      case ExprKind::kDimOf:
      case ExprKind::kStepsizeOf:
      case ExprKind::kZeroOffsetOf:
      case ExprKind::kDTypeOf:
      case ExprKind::kElementSizeOf:
      case ExprKind::kInputsOf:
      case ExprKind::kOutputsOf:
      case ExprKind::kIsOp:
      case ExprKind::kProducerFor:
      case ExprKind::kIsEmpty:
      case ExprKind::kIsEmptyDim:
        return Property(e);
      case ExprKind::kSameEncoding:
      case ExprKind::kSameOp: {
        absl::StatusOr<RefFn> a = Ref(*e.args[0]);
        absl::StatusOr<RefFn> b = Ref(*e.args[1]);
        if (!a.ok()) return a.status();
        if (!b.ok()) return b.status();
        bool same_op = e.kind == ExprKind::kSameOp;
        return ScalarFn([a = *std::move(a), b = *std::move(b), same_op](EvalState& s) {
          OperandRef x = a(s), y = b(s);
          if (x.cls == kNoId || y.cls == kNoId) return Scalar::Bool(false);
          Id cx = s.g->Find(x.cls), cy = s.g->Find(y.cls);
          if (same_op) return Scalar::Bool(cx == cy);
          return Scalar::Bool(s.g->TypeOf(cx).SameEncoding(s.g->TypeOf(cy)));
        });
      }
      case ExprKind::kConstValInt:
      case ExprKind::kConstValIntValid:
      case ExprKind::kConstValFloat:
      case ExprKind::kConstValFloatValid:
        return ConstVal(e);
      case ExprKind::kSplitDim:
      case ExprKind::kSplitStart:
      case ExprKind::kSplitSize: {
        absl::StatusOr<int> slot = SplitSlot(e);
        if (!slot.ok()) return slot.status();
        ExprKind k = e.kind;
        return ScalarFn([sl = *slot, k](EvalState& s) {
          const SplitContext& c = s.splits[sl];
          return Scalar::Int(k == ExprKind::kSplitDim     ? c.dim
                             : k == ExprKind::kSplitStart ? c.start
                                                          : c.size);
        });
      }
      case ExprKind::kExternalConstraint:
        return External(e);
      default:
        return ErrorAt(e, absl::StrFormat("%s is not a scalar expression", ExprKindName(e.kind)));
    }
  }

 private:
  static ScalarFn Const(Scalar v) {
    return [v](EvalState&) { return v; };
  }

  absl::StatusOr<int> SplitSlot(const Expr& e) {
    if (env_.split_slots != nullptr) {
      auto it = env_.split_slots->find(e.split_tag);
      if (it != env_.split_slots->end()) return it->second;
    }
    return ErrorAt(e, absl::StrFormat("split tag \"%s\" is not in scope", e.split_tag));
  }

  absl::StatusOr<std::vector<ScalarFn>> Args(const Expr& e, size_t from = 0) {
    std::vector<ScalarFn> out;
    for (size_t i = from; i < e.args.size(); ++i) {
      absl::StatusOr<ScalarFn> f = Scalar_(*e.args[i]);
      if (!f.ok()) return f.status();
      out.push_back(*std::move(f));
    }
    return out;
  }

  absl::StatusOr<ScalarFn> Unary(const Expr& e) {
    absl::StatusOr<ScalarFn> a = Scalar_(*e.args[0]);
    if (!a.ok()) return a.status();
    ScalarFn f = *std::move(a);
    switch (e.kind) {
      case ExprKind::kToUint:
        return ScalarFn([f](EvalState& s) { return Scalar::Size(f(s).AsInt()); });
      case ExprKind::kToInt:
        return ScalarFn([f](EvalState& s) { return Scalar::Int(f(s).AsInt()); });
      case ExprKind::kToFloat:
        return ScalarFn([f](EvalState& s) { return Scalar::Float(f(s).AsFloat()); });
      case ExprKind::kToDType:
        return ScalarFn([f](EvalState& s) { return Scalar{Type::kDType, f(s).AsInt(), 0}; });
      case ExprKind::kNot:
        return ScalarFn([f](EvalState& s) { return Scalar::Bool(!f(s).AsBool()); });
      case ExprKind::kNeg:
        return ScalarFn([f](EvalState& s) {
          Scalar v = f(s);
          if (v.is_float()) return Scalar::Float(-v.f);
          v.i = -v.i;
          if (v.type == Type::kBool) v.type = Type::kInt;
          return v;
        });
      case ExprKind::kAbs:
        return ScalarFn([f](EvalState& s) {
          Scalar v = f(s);
          if (v.is_float()) return Scalar::Float(std::fabs(v.f));
          v.i = v.i < 0 ? -v.i : v.i;
          return v;
        });
      default:  // kIsPow2
        return ScalarFn([f](EvalState& s) {
          int64_t v = f(s).AsInt();
          return Scalar::Bool(v > 0 && (v & (v - 1)) == 0);
        });
    }
  }

  absl::StatusOr<ScalarFn> ShortCircuit(const Expr& e) {
    absl::StatusOr<std::vector<ScalarFn>> args = Args(e);
    if (!args.ok()) return args.status();
    bool is_and = e.kind == ExprKind::kAnd;
    return ScalarFn([fs = *std::move(args), is_and](EvalState& s) {
      for (const ScalarFn& f : fs) {
        bool v = f(s).AsBool();
        if (s.failed) return Scalar::Bool(false);
        if (v != is_and) return Scalar::Bool(v);
      }
      return Scalar::Bool(is_and);
    });
  }

  absl::StatusOr<ScalarFn> Arith(const Expr& e) {
    absl::StatusOr<std::vector<ScalarFn>> args = Args(e);
    if (!args.ok()) return args.status();
    const bool fl = FloatResult(e);
    const ExprKind k = e.kind;
    const Type t = e.type;
    if (k == ExprKind::kXor) {
      bool boolean = t == Type::kBool;
      return ScalarFn([fs = *std::move(args), boolean](EvalState& s) {
        int64_t acc = 0;
        for (const ScalarFn& f : fs) {
          Scalar v = f(s);
          acc = boolean ? (acc ^ (v.AsBool() ? 1 : 0)) : (acc ^ v.AsInt());
        }
        return boolean ? Scalar::Bool(acc != 0) : Scalar::Int(acc);
      });
    }
    return ScalarFn([fs = *std::move(args), fl, k, t](EvalState& s) -> Scalar {
      auto num = [t](int64_t i) { return t == Type::kSize ? Scalar::Size(i) : Scalar::Int(i); };
      if (fl) {
        double acc = fs[0](s).AsFloat();
        for (size_t j = 1; j < fs.size(); ++j) {
          double b = fs[j](s).AsFloat();
          switch (k) {
            case ExprKind::kAdd:
              acc += b;
              break;
            case ExprKind::kMul:
              acc *= b;
              break;
            case ExprKind::kMin:
              acc = std::min(acc, b);
              break;
            case ExprKind::kMax:
              acc = std::max(acc, b);
              break;
            case ExprKind::kSub:
              acc -= b;
              break;
            case ExprKind::kDiv:
              acc /= b;
              break;
            case ExprKind::kRem:
              acc = std::fmod(acc, b);
              break;
            case ExprKind::kMod: {
              double r = std::fmod(acc, b);
              if (r != 0 && ((r < 0) != (b < 0))) r += b;
              acc = r;
              break;
            }
            default:
              s.failed = true;
              return Scalar::Float(0);
          }
        }
        return Scalar::Float(acc);
      }
      int64_t acc = fs[0](s).AsInt();
      for (size_t j = 1; j < fs.size(); ++j) {
        int64_t b = fs[j](s).AsInt();
        switch (k) {
          case ExprKind::kAdd:
            acc += b;
            break;
          case ExprKind::kMul:
            acc *= b;
            break;
          case ExprKind::kMin:
            acc = std::min(acc, b);
            break;
          case ExprKind::kMax:
            acc = std::max(acc, b);
            break;
          case ExprKind::kSub:
            acc -= b;
            break;
          case ExprKind::kBitAnd:
            acc &= b;
            break;
          case ExprKind::kBitOr:
            acc |= b;
            break;
          case ExprKind::kLcm:
            acc = (acc == 0 || b == 0) ? 0 : std::lcm(acc, b);
            break;
          case ExprKind::kRoundUp:
          case ExprKind::kCeilDiv:
          case ExprKind::kDiv:
          case ExprKind::kRem:
          case ExprKind::kMod: {
            if (b == 0) {
              s.failed = true;
              return num(0);
            }
            if (k == ExprKind::kDiv) {
              acc /= b;  // truncates toward zero, as C
            } else if (k == ExprKind::kRem) {
              acc %= b;  // sign of the dividend
            } else if (k == ExprKind::kMod) {
              int64_t r = acc % b;
              if (r != 0 && ((r < 0) != (b < 0))) r += b;  // sign of the divisor
              acc = r;
            } else {
              int64_t q = acc / b;
              if ((acc % b != 0) && ((acc < 0) == (b < 0))) ++q;  // ceiling
              acc = k == ExprKind::kCeilDiv ? q : q * b;
            }
            break;
          }
          default:
            s.failed = true;
            return num(0);
        }
      }
      return num(acc);
    });
  }

  absl::StatusOr<ScalarFn> Compare(const Expr& e) {
    absl::StatusOr<std::vector<ScalarFn>> args = Args(e);
    if (!args.ok()) return args.status();
    const bool fl = e.args[0]->type == Type::kFloat || e.args[1]->type == Type::kFloat;
    const ExprKind k = e.kind;
    return ScalarFn([a = (*args)[0], b = (*args)[1], fl, k](EvalState& s) {
      Scalar x = a(s), y = b(s);
      int c;
      if (fl || x.is_float() || y.is_float()) {
        double p = x.AsFloat(), q = y.AsFloat();
        if (std::isnan(p) || std::isnan(q)) return Scalar::Bool(k == ExprKind::kNe);
        c = p < q ? -1 : (p > q ? 1 : 0);
      } else {
        c = x.i < y.i ? -1 : (x.i > y.i ? 1 : 0);
      }
      switch (k) {
        case ExprKind::kEq:
          return Scalar::Bool(c == 0);
        case ExprKind::kNe:
          return Scalar::Bool(c != 0);
        case ExprKind::kLt:
          return Scalar::Bool(c < 0);
        case ExprKind::kGt:
          return Scalar::Bool(c > 0);
        case ExprKind::kLe:
          return Scalar::Bool(c <= 0);
        default:
          return Scalar::Bool(c >= 0);
      }
    });
  }

  absl::StatusOr<ScalarFn> Property(const Expr& e) {
    absl::StatusOr<RefFn> ref = Ref(*e.args[0]);
    if (!ref.ok()) return ref.status();
    ScalarFn extra;
    if (e.args.size() > 1) {
      absl::StatusOr<ScalarFn> x = Scalar_(*e.args[1]);
      if (!x.ok()) return x.status();
      extra = *std::move(x);
    }
    const ExprKind k = e.kind;
    Symbol op = Symbol::Intern(e.name);
    return ScalarFn([r = *std::move(ref), extra, k, op](EvalState& s) -> Scalar {
      OperandRef x = r(s);
      if (x.cls == kNoId) {
        s.failed = true;
        return k == ExprKind::kStepsizeOf ? Scalar::Float(0) : Scalar::Int(0);
      }
      const EGraph& g = *s.g;
      Id c = g.Find(x.cls);
      const TensorType& t = g.TypeOf(c);
      switch (k) {
        case ExprKind::kRankOf:
          return Scalar::Size(t.rank());
        case ExprKind::kDimOf:
          return Scalar::Size(t.dim(static_cast<int>(extra(s).AsInt())));
        case ExprKind::kStepsizeOf:
          return Scalar::Float(t.stepsize);
        case ExprKind::kZeroOffsetOf:
          return Scalar::Int(t.zero_offset);
        case ExprKind::kDTypeOf:
          return Scalar::OfDType(t.dtype);
        case ExprKind::kElementSizeOf:
          return Scalar::Size(ElementSize(t.dtype));
        case ExprKind::kOutputsOf:
          return Scalar::Size(OutputCount(g, c));
        case ExprKind::kIsEmpty:
          return Scalar::Bool(t.num_elements() == 0);
        case ExprKind::kIsEmptyDim:
          return Scalar::Bool(t.dim(static_cast<int>(extra(s).AsInt())) == 0);
        case ExprKind::kInputsOf: {
          NodeIdx n = x.node != kNoNodeIdx ? x.node : RepresentativeNode(g, c);
          if (n == kNoNodeIdx) return Scalar::Size(0);
          return Scalar::Size(static_cast<int64_t>(g.Node(n).children.size()));
        }
        default: {  // IS_OP, PRODUCER_FOR: the matched node's op, else any node of the class
          if (x.node != kNoNodeIdx) return Scalar::Bool(g.NodeOp(x.node) == op);
          return Scalar::Bool(!g.ClassNodesWithOp(c, op).empty());
        }
      }
    });
  }

  absl::StatusOr<ScalarFn> ConstVal(const Expr& e) {
    absl::StatusOr<RefFn> ref = Ref(*e.args[0]);
    if (!ref.ok()) return ref.status();
    absl::StatusOr<std::vector<ScalarFn>> idx = Args(e, 1);
    if (!idx.ok()) return idx.status();
    const ExprKind k = e.kind;
    return ScalarFn([r = *std::move(ref), idx = *std::move(idx), k](EvalState& s) -> Scalar {
      OperandRef x = r(s);
      ConstRead v;
      if (x.cls != kNoId) {
        int64_t i = idx[0](s).AsInt();
        std::optional<int64_t> j;
        if (idx.size() > 1) j = idx[1](s).AsInt();
        v = ReadConst(*s.g, x.cls, i, j);
      }
      switch (k) {
        case ExprKind::kConstValInt:
          return Scalar::Int(v.ok && FitsInt32(v.storage) ? static_cast<int64_t>(v.storage)
                                                          : kConstValIntFailure);
        case ExprKind::kConstValIntValid:
          return Scalar::Bool(v.ok && FitsInt32(v.storage));
        case ExprKind::kConstValFloat:
          return Scalar::Float(v.ok ? v.real : std::numeric_limits<double>::quiet_NaN());
        default:
          return Scalar::Bool(v.ok);
      }
    });
  }

  absl::StatusOr<ScalarFn> External(const Expr& e) {
    const ConstraintFn* fn =
        env_.functions != nullptr ? env_.functions->FindConstraint(e.name) : nullptr;
    if (fn == nullptr) {
      return ErrorAt(
          e, absl::StrFormat("EXTERNAL_CONSTRAINT function '%s' has no implementation registered "
                             "in the function library",
                             e.name));
    }
    absl::StatusOr<RefFn> ref = Ref(*e.args[0]);
    if (!ref.ok()) return ref.status();
    absl::StatusOr<std::vector<ScalarFn>> args = Args(e, 1);
    if (!args.ok()) return args.status();
    return ScalarFn([fn = *fn, r = *std::move(ref), args = *std::move(args)](EvalState& s) {
      OperandRef x = r(s);
      if (x.cls == kNoId) {
        s.failed = true;
        return Scalar::Bool(false);
      }
      std::vector<Scalar> vals;
      vals.reserve(args.size());
      for (const ScalarFn& a : args) vals.push_back(a(s));
      return Scalar::Bool(fn(*s.g, s.g->Find(x.cls), vals));
    });
  }

  const ExprEnv& env_;
};

}  // namespace

NodeIdx RepresentativeNode(const EGraph& g, Id cls) {
  cls = g.Find(cls);
  NodeIdx best = kNoNodeIdx, best_any = kNoNodeIdx;
  for (NodeIdx n : g.ClassNodes(cls)) {
    if (!g.IsLive(n)) continue;
    best_any = std::min(best_any, n);
    if (!IsSpecialOp(g.NodeOp(n).str())) best = std::min(best, n);
  }
  return best != kNoNodeIdx ? best : best_any;
}

namespace {
// The (n, k) of a "$Out" node's selector class.
bool OutSelector(const EGraph& g, Id selector, int64_t* n, int64_t* k) {
  const Dims& d = g.TypeOf(g.Find(selector)).dims;
  if (d.empty()) return false;
  *k = d.back();
  *n = d.size() >= 2 ? d[d.size() - 2] : -1;
  return true;
}
}  // namespace

Id OutputClass(const EGraph& g, Id multi, int64_t k) {
  multi = g.Find(multi);
  if (g.TypeOf(multi).dtype != DType::kMulti) return k == 0 ? multi : kNoId;
  static const Symbol out = Symbol::Intern(kOutOp);
  for (NodeIdx p : g.ClassParents(multi)) {
    if (!g.IsLive(p) || g.NodeOp(p) != out) continue;
    ENodeView v = g.Node(p);
    if (v.children.size() != 2 || g.Find(v.children[0]) != multi) continue;
    int64_t n = 0, kk = 0;
    if (OutSelector(g, v.children[1], &n, &kk) && kk == k) return g.NodeClass(p);
  }
  return kNoId;
}

int64_t OutputCount(const EGraph& g, Id c) {
  c = g.Find(c);
  if (g.TypeOf(c).dtype != DType::kMulti) return 1;
  static const Symbol out = Symbol::Intern(kOutOp);
  int64_t count = 0;
  for (NodeIdx p : g.ClassParents(c)) {
    if (!g.IsLive(p) || g.NodeOp(p) != out) continue;
    ENodeView v = g.Node(p);
    int64_t n = 0, k = 0;
    if (v.children.size() == 2 && OutSelector(g, v.children[1], &n, &k)) {
      count = std::max(count, n > 0 ? n : k + 1);
    }
  }
  return count;
}

absl::StatusOr<ScalarFn> CompileScalar(const Expr& e, const ExprEnv& env) {
  return Compiler(env).Scalar_(e);
}

absl::StatusOr<RefFn> CompileRef(const Expr& e, const ExprEnv& env) { return Compiler(env).Ref(e); }

absl::StatusOr<Guard> CompileGuard(const Expr& constraint, const ExprEnv& env) {
  if (constraint.kind == ExprKind::kBoolConst && constraint.int_value != 0) return Guard(nullptr);
  absl::StatusOr<ScalarFn> f = CompileScalar(constraint, env);
  if (!f.ok()) return f.status();
  return Guard([f = *std::move(f)](const EGraph& g, const MatchView& m) {
    EvalState s;
    s.g = &g;
    s.m = &m;
    bool v = f(s).AsBool();
    return v && !s.failed;
  });
}

int NavigationDepth(const Expr& e) {
  int d = 0;
  for (const ExprPtr& a : e.args) d = std::max(d, NavigationDepth(*a));
  if (e.kind == ExprKind::kInputOf || e.kind == ExprKind::kOutputOf ||
      e.kind == ExprKind::kIterInputOf) {
    ++d;
  }
  return d;
}

}  // namespace egret::rules
