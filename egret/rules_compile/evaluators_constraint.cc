// Guard rows (form_evaluators_internal.h): how each literal, constraint form and
// operand reference is evaluated on e-class data. guard.h states the
// semantics; form_table.h has the spelling and typing of each form.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "absl/strings/str_format.h"
#include "egret/rules_compile/form_evaluators_internal.h"
#include "egret/rules_compile/type_properties_internal.h"

namespace egret::rules {
namespace {

ScalarFn Const(Scalar v) {
  return [v](EvalState&) { return v; };
}

// --- literals and options ------------------------------------------------------------

absl::StatusOr<ScalarFn> BoolConst(ExprCompiler&, const Expr& e) {
  return Const(Scalar::Bool(e.int_value != 0));
}
// Rules with a C++ name are left out before compiling (function_binding.h).
absl::StatusOr<ScalarFn> CppName(ExprCompiler&, const Expr& e) {
  return ErrorAt(e, absl::StrFormat("'%s' is a C++ name egret cannot evaluate", e.name));
}
absl::StatusOr<ScalarFn> IntConst(ExprCompiler&, const Expr& e) {
  return Const(Scalar::Int(e.int_value));
}
absl::StatusOr<ScalarFn> SizeConst(ExprCompiler&, const Expr& e) {
  return Const(Scalar::Size(e.int_value));
}
absl::StatusOr<ScalarFn> FloatConst(ExprCompiler&, const Expr& e) {
  return Const(Scalar::Float(e.float_value));
}
absl::StatusOr<ScalarFn> DTypeConst(ExprCompiler&, const Expr& e) {
  return Const(Scalar::OfDType(e.dtype));
}

// egret has one layout per tensor class name containing "Crouton" (1x8x8x32
// chunks); every other class is flat (chunk 1).
absl::StatusOr<ScalarFn> LayoutChunkSize(ExprCompiler&, const Expr& e) {
  static constexpr int64_t kCrouton[4] = {1, 8, 8, 32};
  bool crouton = e.name.find("routon") != std::string::npos;
  int64_t d = e.int_value;
  return Const(Scalar::Size(crouton && d >= 0 && d < 4 ? kCrouton[d] : 1));
}

// An option as an integer and as a float (a missing option is 0).
struct OptionRead {
  int64_t i = 0;
  double f = 0;
};

OptionRead ReadOption(const Options* options, const std::string& name) {
  OptionRead r;
  if (options == nullptr) return r;
  auto it = options->find(name);
  if (it == options->end()) return r;
  const egret::OptionValue& v = it->second;
  if (const bool* b = std::get_if<bool>(&v)) {
    r.i = *b ? 1 : 0;
    r.f = r.i;
  } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
    r.i = *i;
    r.f = static_cast<double>(*i);
  } else if (const double* d = std::get_if<double>(&v)) {
    r.f = *d;
    r.i = Scalar::Float(*d).AsInt();
  } else if (const std::string* s = std::get_if<std::string>(&v)) {
    r.i = s->empty() ? 0 : 1;
    r.f = r.i;
  }
  return r;
}

template <Scalar (*Convert)(const OptionRead&)>
absl::StatusOr<ScalarFn> Option(ExprCompiler& c, const Expr& e) {
  return Const(Convert(ReadOption(c.env().options, e.name)));
}
Scalar OptionInt(const OptionRead& r) { return Scalar::Int(r.i); }
Scalar OptionUint(const OptionRead& r) { return Scalar::Size(r.i); }
Scalar OptionBool(const OptionRead& r) { return Scalar::Bool(r.f != 0); }
Scalar OptionFloat(const OptionRead& r) { return Scalar::Float(r.f); }

// --- one operand ---------------------------------------------------------------------

template <Scalar (*F)(Scalar)>
absl::StatusOr<ScalarFn> Unary(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<ScalarFn> a = c.ScalarOf(*e.args[0]);
  if (!a.ok()) return a.status();
  return ScalarFn([f = *std::move(a)](EvalState& s) { return F(f(s)); });
}
Scalar ToUint(Scalar v) { return Scalar::Size(v.AsInt()); }
Scalar ToInt(Scalar v) { return Scalar::Int(v.AsInt()); }
Scalar ToFloat(Scalar v) { return Scalar::Float(v.AsFloat()); }
Scalar ToDType(Scalar v) { return Scalar{Type::kDType, v.AsInt(), 0}; }
Scalar Not(Scalar v) { return Scalar::Bool(!v.AsBool()); }
Scalar Neg(Scalar v) {
  if (v.is_float()) return Scalar::Float(-v.f);
  v.i = -v.i;
  if (v.type == Type::kBool) v.type = Type::kInt;
  return v;
}
Scalar Abs(Scalar v) {
  if (v.is_float()) return Scalar::Float(std::fabs(v.f));
  v.i = v.i < 0 ? -v.i : v.i;
  return v;
}
Scalar IsPow2(Scalar v) {
  int64_t i = v.AsInt();
  return Scalar::Bool(i > 0 && (i & (i - 1)) == 0);
}

// --- SELECT --------------------------------------------------------------------------

absl::StatusOr<ScalarFn> SelectScalar(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<ScalarFn> cond = c.ScalarOf(*e.args[0]);
  absl::StatusOr<ScalarFn> a = c.ScalarOf(*e.args[1]);
  absl::StatusOr<ScalarFn> b = c.ScalarOf(*e.args[2]);
  if (!cond.ok()) return cond.status();
  if (!a.ok()) return a.status();
  if (!b.ok()) return b.status();
  bool fl = e.type == Type::kFloat;
  return ScalarFn([c = *std::move(cond), a = *std::move(a), b = *std::move(b), fl](EvalState& s) {
    Scalar v = c(s).AsBool() ? a(s) : b(s);
    return fl && !v.is_float() ? Scalar::Float(v.AsFloat()) : v;
  });
}

absl::StatusOr<RefFn> SelectRef(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<ScalarFn> cond = c.ScalarOf(*e.args[0]);
  absl::StatusOr<RefFn> a = c.RefOf(*e.args[1]);
  absl::StatusOr<RefFn> b = c.RefOf(*e.args[2]);
  if (!cond.ok()) return cond.status();
  if (!a.ok()) return a.status();
  if (!b.ok()) return b.status();
  return RefFn([c = *std::move(cond), a = *std::move(a), b = *std::move(b)](EvalState& s) {
    return c(s).AsBool() ? a(s) : b(s);
  });
}

// --- reductions and arithmetic -------------------------------------------------------

// AND, OR: short-circuit; a failed operand makes the result false.
template <bool kIsAnd>
absl::StatusOr<ScalarFn> ShortCircuit(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<std::vector<ScalarFn>> args = c.ScalarArgs(e);
  if (!args.ok()) return args.status();
  return ScalarFn([fs = *std::move(args)](EvalState& s) {
    for (const ScalarFn& f : fs) {
      bool v = f(s).AsBool();
      if (s.failed) return Scalar::Bool(false);
      if (v != kIsAnd) return Scalar::Bool(v);
    }
    return Scalar::Bool(kIsAnd);
  });
}

// XOR of bools, or bitwise of integers.
absl::StatusOr<ScalarFn> Xor(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<std::vector<ScalarFn>> args = c.ScalarArgs(e);
  if (!args.ok()) return args.status();
  bool boolean = e.type == Type::kBool;
  return ScalarFn([fs = *std::move(args), boolean](EvalState& s) {
    int64_t acc = 0;
    for (const ScalarFn& f : fs) {
      Scalar v = f(s);
      acc = boolean ? (acc ^ (v.AsBool() ? 1 : 0)) : (acc ^ v.AsInt());
    }
    return boolean ? Scalar::Bool(acc != 0) : Scalar::Int(acc);
  });
}

// One step of a left fold: acc = acc op b; false when it fails (an integer
// division by zero, or NoFloat: a form without a float meaning).
using IntStep = bool (*)(int64_t& acc, int64_t b);
using FloatStep = bool (*)(double& acc, double b);

// Folds the operands left to right in the checked result type: floats when it
// is float, else integers (size or int).
template <IntStep kInt, FloatStep kFloat>
absl::StatusOr<ScalarFn> Fold(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<std::vector<ScalarFn>> args = c.ScalarArgs(e);
  if (!args.ok()) return args.status();
  const Type t = e.type;
  return ScalarFn([fs = *std::move(args), t](EvalState& s) -> Scalar {
    if (t == Type::kFloat) {
      double acc = fs[0](s).AsFloat();
      for (size_t j = 1; j < fs.size(); ++j) {
        if (!kFloat(acc, fs[j](s).AsFloat())) {
          s.failed = true;
          return Scalar::Float(0);
        }
      }
      return Scalar::Float(acc);
    }
    auto num = [t](int64_t i) { return t == Type::kSize ? Scalar::Size(i) : Scalar::Int(i); };
    int64_t acc = fs[0](s).AsInt();
    for (size_t j = 1; j < fs.size(); ++j) {
      if (!kInt(acc, fs[j](s).AsInt())) {
        s.failed = true;
        return num(0);
      }
    }
    return num(acc);
  });
}

bool AddInt(int64_t& a, int64_t b) { return a += b, true; }
bool MulInt(int64_t& a, int64_t b) { return a *= b, true; }
bool MinInt(int64_t& a, int64_t b) { return a = std::min(a, b), true; }
bool MaxInt(int64_t& a, int64_t b) { return a = std::max(a, b), true; }
bool SubInt(int64_t& a, int64_t b) { return a -= b, true; }
bool BitAndInt(int64_t& a, int64_t b) { return a &= b, true; }
bool BitOrInt(int64_t& a, int64_t b) { return a |= b, true; }
bool LcmInt(int64_t& a, int64_t b) { return a = (a == 0 || b == 0) ? 0 : std::lcm(a, b), true; }
bool DivInt(int64_t& a, int64_t b) {  // truncates toward zero, as C
  if (b == 0) return false;
  a /= b;
  return true;
}
bool RemInt(int64_t& a, int64_t b) {  // the sign of the dividend
  if (b == 0) return false;
  a %= b;
  return true;
}
bool ModInt(int64_t& a, int64_t b) {  // the sign of the divisor
  if (b == 0) return false;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  a = r;
  return true;
}
bool CeilDivInt(int64_t& a, int64_t b) {
  if (b == 0) return false;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  a = q;
  return true;
}
bool RoundUpInt(int64_t& a, int64_t b) {
  if (b == 0) return false;
  int64_t m = a;
  CeilDivInt(m, b);
  a = m * b;
  return true;
}

bool AddFloat(double& a, double b) { return a += b, true; }
bool MulFloat(double& a, double b) { return a *= b, true; }
bool MinFloat(double& a, double b) { return a = std::min(a, b), true; }
bool MaxFloat(double& a, double b) { return a = std::max(a, b), true; }
bool SubFloat(double& a, double b) { return a -= b, true; }
bool DivFloat(double& a, double b) { return a /= b, true; }
bool RemFloat(double& a, double b) { return a = std::fmod(a, b), true; }
bool ModFloat(double& a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  a = r;
  return true;
}
bool NoFloat(double&, double) { return false; }

// --- comparisons ---------------------------------------------------------------------

// Compares as floats when either side is float (NaN: only NE holds), else as
// integers (type_properties_internal.h).
template <ExprKind kCmp>
absl::StatusOr<ScalarFn> Compare(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<std::vector<ScalarFn>> args = c.ScalarArgs(e);
  if (!args.ok()) return args.status();
  const bool fl = e.args[0]->type == Type::kFloat || e.args[1]->type == Type::kFloat;
  return ScalarFn([a = (*args)[0], b = (*args)[1], fl](EvalState& s) {
    Scalar x = a(s), y = b(s);
    return Scalar::Bool(ComparisonHolds(kCmp, ScalarOrder(fl, x, y)));
  });
}

// --- operand references --------------------------------------------------------------

OperandRef Root(EvalState& s) {
  return OperandRef{s.m->root, s.m->nodes.empty() ? kNoNodeIdx : s.m->nodes[0]};
}

absl::StatusOr<RefFn> TagRef(ExprCompiler& c, const Expr& e) {
  if (e.name == "*") return RefFn(Root);
  auto it = c.env().bindings->find(e.name);
  if (it == c.env().bindings->end()) {
    return ErrorAt(e, absl::StrFormat("operand tag \"%s\" is not bound by the match", e.name));
  }
  TagSlot slot = it->second;
  if (slot.var < 0) return RefFn(Root);
  if (slot.node >= 0) {
    return RefFn([slot](EvalState& s) {
      return OperandRef{s.m->subst[slot.var], s.m->nodes[slot.node]};
    });
  }
  return RefFn([v = slot.var](EvalState& s) { return OperandRef{s.m->subst[v], kNoNodeIdx}; });
}

// Input `index` of the node of `base` (its matched node, else the class's
// representative node).
RefFn InputRef(RefFn base, ScalarFn index) {
  return RefFn([b = std::move(base), index = std::move(index)](EvalState& s) -> OperandRef {
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

absl::StatusOr<RefFn> InputOfRef(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> base = c.RefOf(*e.args[0]);
  if (!base.ok()) return base.status();
  absl::StatusOr<ScalarFn> index = c.ScalarOf(*e.args[1]);
  if (!index.ok()) return index.status();
  return InputRef(*std::move(base), *std::move(index));
}

// ITER_INPUT_OF(x, tag): input SPLIT_START(tag) of x.
absl::StatusOr<RefFn> IterInputOfRef(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> base = c.RefOf(*e.args[0]);
  if (!base.ok()) return base.status();
  absl::StatusOr<int> slot = c.SplitSlot(e);
  if (!slot.ok()) return slot.status();
  return InputRef(*std::move(base),
                  [sl = *slot](EvalState& s) { return Scalar::Int(s.splits[sl].start); });
}

absl::StatusOr<RefFn> OutputOfRef(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> base = c.RefOf(*e.args[0]);
  absl::StatusOr<ScalarFn> index = c.ScalarOf(*e.args[1]);
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

// --- properties of an operand --------------------------------------------------------

// What a property reads: the operand's class, type and node (kNoNodeIdx when
// it bound none), the second operand's value (DIM_OF's d) and the op string.
struct PropertyInput {
  const EGraph& g;
  Id cls;
  const TensorType& type;
  NodeIdx node;
  int64_t extra;
  Symbol op;
};

// A property of the operand's class; a missing operand fails with 0 (a float
// 0 when kFloatResult).
template <Scalar (*Read)(const PropertyInput&), bool kFloatResult = false>
absl::StatusOr<ScalarFn> Property(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> ref = c.RefOf(*e.args[0]);
  if (!ref.ok()) return ref.status();
  ScalarFn extra;
  if (e.args.size() > 1) {
    absl::StatusOr<ScalarFn> x = c.ScalarOf(*e.args[1]);
    if (!x.ok()) return x.status();
    extra = *std::move(x);
  }
  Symbol op = Symbol::Intern(e.name);
  return ScalarFn([r = *std::move(ref), extra, op](EvalState& s) -> Scalar {
    OperandRef x = r(s);
    if (x.cls == kNoId) {
      s.failed = true;
      return kFloatResult ? Scalar::Float(0) : Scalar::Int(0);
    }
    Id c = s.g->Find(x.cls);
    return Read(PropertyInput{*s.g, c, s.g->TypeOf(c), x.node, extra ? extra(s).AsInt() : 0, op});
  });
}

// The type properties (type_properties_internal.h).
template <ExprKind kKind>
Scalar TypePropertyOf(const PropertyInput& p) {
  return TypeProperty(kKind, static_cast<int>(p.extra), p.type);
}
Scalar DataSize(const PropertyInput& p) {
  return Scalar::Size(p.type.num_elements() * ElementSize(p.type.dtype));
}
Scalar OutputsOf(const PropertyInput& p) { return Scalar::Size(OutputCount(p.g, p.cls)); }
Scalar IsEmpty(const PropertyInput& p) { return Scalar::Bool(p.type.num_elements() == 0); }
Scalar IsEmptyDim(const PropertyInput& p) {
  return Scalar::Bool(p.type.dim(static_cast<int>(p.extra)) == 0);
}
Scalar InputsOf(const PropertyInput& p) {
  NodeIdx n = p.node != kNoNodeIdx ? p.node : RepresentativeNode(p.g, p.cls);
  if (n == kNoNodeIdx) return Scalar::Size(0);
  return Scalar::Size(static_cast<int64_t>(p.g.Node(n).children.size()));
}
// IS_OP, PRODUCER_FOR: the matched node's op, else any node of the class.
Scalar HasOp(const PropertyInput& p) {
  if (p.node != kNoNodeIdx) return Scalar::Bool(p.g.NodeOp(p.node) == p.op);
  return Scalar::Bool(!p.g.ClassNodesWithOp(p.cls, p.op).empty());
}

// SAME_OP, SAME_ENCODING: false when either operand is missing.
template <bool (*Same)(const EGraph& g, Id a, Id b)>
absl::StatusOr<ScalarFn> SameAs(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> a = c.RefOf(*e.args[0]);
  absl::StatusOr<RefFn> b = c.RefOf(*e.args[1]);
  if (!a.ok()) return a.status();
  if (!b.ok()) return b.status();
  return ScalarFn([a = *std::move(a), b = *std::move(b)](EvalState& s) {
    OperandRef x = a(s), y = b(s);
    if (x.cls == kNoId || y.cls == kNoId) return Scalar::Bool(false);
    return Scalar::Bool(Same(*s.g, s.g->Find(x.cls), s.g->Find(y.cls)));
  });
}
bool SameClass(const EGraph&, Id a, Id b) { return a == b; }
bool SameEncoding(const EGraph& g, Id a, Id b) { return g.TypeOf(a).SameEncoding(g.TypeOf(b)); }

// --- Const values --------------------------------------------------------------------

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

// CONSTVAL_*(x, i[, j]): `Result` reads the element (not ok when x holds no
// constant or the index is out of range).
template <Scalar (*Result)(const ConstRead&)>
absl::StatusOr<ScalarFn> ConstVal(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> ref = c.RefOf(*e.args[0]);
  if (!ref.ok()) return ref.status();
  absl::StatusOr<std::vector<ScalarFn>> idx = c.ScalarArgs(e, 1);
  if (!idx.ok()) return idx.status();
  return ScalarFn([r = *std::move(ref), idx = *std::move(idx)](EvalState& s) -> Scalar {
    OperandRef x = r(s);
    ConstRead v;
    if (x.cls != kNoId) {
      int64_t i = idx[0](s).AsInt();
      std::optional<int64_t> j;
      if (idx.size() > 1) j = idx[1](s).AsInt();
      v = ReadConst(*s.g, x.cls, i, j);
    }
    return Result(v);
  });
}
Scalar ConstValInt(const ConstRead& v) {
  return Scalar::Int(v.ok && FitsInt32(v.storage) ? static_cast<int64_t>(v.storage)
                                                  : kConstValIntFailure);
}
Scalar ConstValIntValid(const ConstRead& v) { return Scalar::Bool(v.ok && FitsInt32(v.storage)); }
Scalar ConstValFloat(const ConstRead& v) {
  return Scalar::Float(v.ok ? v.real : std::numeric_limits<double>::quiet_NaN());
}
Scalar ConstValFloatValid(const ConstRead& v) { return Scalar::Bool(v.ok); }

// --- split variables and external constraints ----------------------------------------

template <int64_t (*Field)(const SplitContext&)>
absl::StatusOr<ScalarFn> SplitVariable(ExprCompiler& c, const Expr& e) {
  absl::StatusOr<int> slot = c.SplitSlot(e);
  if (!slot.ok()) return slot.status();
  return ScalarFn([sl = *slot](EvalState& s) { return Scalar::Int(Field(s.splits[sl])); });
}
int64_t SplitDim(const SplitContext& c) { return c.dim; }
int64_t SplitStart(const SplitContext& c) { return c.start; }
int64_t SplitSize(const SplitContext& c) { return c.size; }

absl::StatusOr<ScalarFn> ExternalConstraint(ExprCompiler& c, const Expr& e) {
  const ConstraintFn* fn =
      c.env().functions != nullptr ? c.env().functions->FindConstraint(e.name) : nullptr;
  if (fn == nullptr) {
    return ErrorAt(
        e, absl::StrFormat("EXTERNAL_CONSTRAINT function '%s' has no implementation registered "
                           "in the function library",
                           e.name));
  }
  absl::StatusOr<RefFn> ref = c.RefOf(*e.args[0]);
  if (!ref.ok()) return ref.status();
  absl::StatusOr<std::vector<ScalarFn>> args = c.ScalarArgs(e, 1);
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

// --- rows ----------------------------------------------------------------------------

constexpr GuardEvaluator kGuardEvaluators[] = {
    {ExprKind::kBoolConst, BoolConst},
    {ExprKind::kIntConst, IntConst},
    {ExprKind::kSizeConst, SizeConst},
    {ExprKind::kFloatConst, FloatConst},
    {ExprKind::kDTypeConst, DTypeConst},
    {ExprKind::kCppName, CppName},
    {ExprKind::kTag, nullptr, TagRef},
    {ExprKind::kLayoutChunkSize, LayoutChunkSize},
    {ExprKind::kOptionInt, Option<OptionInt>},
    {ExprKind::kOptionUint, Option<OptionUint>},
    {ExprKind::kOptionBool, Option<OptionBool>},
    {ExprKind::kOptionFloat, Option<OptionFloat>},
    {ExprKind::kToUint, Unary<ToUint>},
    {ExprKind::kToInt, Unary<ToInt>},
    {ExprKind::kToFloat, Unary<ToFloat>},
    {ExprKind::kToDType, Unary<ToDType>},
    {ExprKind::kNot, Unary<Not>},
    {ExprKind::kNeg, Unary<Neg>},
    {ExprKind::kAbs, Unary<Abs>},
    {ExprKind::kIsPow2, Unary<IsPow2>},
    {ExprKind::kSelect, SelectScalar, SelectRef},
    {ExprKind::kRoundUp, Fold<RoundUpInt, NoFloat>},
    {ExprKind::kCeilDiv, Fold<CeilDivInt, NoFloat>},
    {ExprKind::kLcm, Fold<LcmInt, NoFloat>},
    {ExprKind::kBitAnd, Fold<BitAndInt, NoFloat>},
    {ExprKind::kBitOr, Fold<BitOrInt, NoFloat>},
    {ExprKind::kAnd, ShortCircuit<true>},
    {ExprKind::kOr, ShortCircuit<false>},
    {ExprKind::kXor, Xor},
    {ExprKind::kAdd, Fold<AddInt, AddFloat>},
    {ExprKind::kMul, Fold<MulInt, MulFloat>},
    {ExprKind::kMin, Fold<MinInt, MinFloat>},
    {ExprKind::kMax, Fold<MaxInt, MaxFloat>},
    {ExprKind::kSub, Fold<SubInt, SubFloat>},
    {ExprKind::kDiv, Fold<DivInt, DivFloat>},
    {ExprKind::kRem, Fold<RemInt, RemFloat>},
    {ExprKind::kMod, Fold<ModInt, ModFloat>},
    {ExprKind::kEq, Compare<ExprKind::kEq>},
    {ExprKind::kNe, Compare<ExprKind::kNe>},
    {ExprKind::kLt, Compare<ExprKind::kLt>},
    {ExprKind::kGt, Compare<ExprKind::kGt>},
    {ExprKind::kLe, Compare<ExprKind::kLe>},
    {ExprKind::kGe, Compare<ExprKind::kGe>},
    {ExprKind::kInputOf, nullptr, InputOfRef},
    {ExprKind::kOutputOf, nullptr, OutputOfRef},
    {ExprKind::kRankOf, Property<TypePropertyOf<ExprKind::kRankOf>>},
    {ExprKind::kDimOf, Property<TypePropertyOf<ExprKind::kDimOf>>},
    {ExprKind::kStepsizeOf, Property<TypePropertyOf<ExprKind::kStepsizeOf>, true>},
    {ExprKind::kZeroOffsetOf, Property<TypePropertyOf<ExprKind::kZeroOffsetOf>>},
    {ExprKind::kQuantAxisOf, Property<TypePropertyOf<ExprKind::kQuantAxisOf>>},
    {ExprKind::kDTypeOf, Property<TypePropertyOf<ExprKind::kDTypeOf>>},
    {ExprKind::kElementSizeOf, Property<TypePropertyOf<ExprKind::kElementSizeOf>>},
    {ExprKind::kDataSize, Property<DataSize>},
    {ExprKind::kInputsOf, Property<InputsOf>},
    {ExprKind::kOutputsOf, Property<OutputsOf>},
    {ExprKind::kSameEncoding, SameAs<SameEncoding>},
    {ExprKind::kSameOp, SameAs<SameClass>},
    {ExprKind::kIsOp, Property<HasOp>},
    {ExprKind::kProducerFor, Property<HasOp>},
    {ExprKind::kIsEmpty, Property<IsEmpty>},
    {ExprKind::kIsEmptyDim, Property<IsEmptyDim>},
    {ExprKind::kConstValInt, ConstVal<ConstValInt>},
    {ExprKind::kConstValIntValid, ConstVal<ConstValIntValid>},
    {ExprKind::kConstValFloat, ConstVal<ConstValFloat>},
    {ExprKind::kConstValFloatValid, ConstVal<ConstValFloatValid>},
    {ExprKind::kSplitDim, SplitVariable<SplitDim>},
    {ExprKind::kSplitStart, SplitVariable<SplitStart>},
    {ExprKind::kSplitSize, SplitVariable<SplitSize>},
    {ExprKind::kExternalConstraint, ExternalConstraint},
    // A replacement form that names an existing node.
    {ExprKind::kIterInputOf, nullptr, IterInputOfRef},
};

}  // namespace

const GuardEvaluator* GuardEvaluatorOf(ExprKind kind) {
  static const std::array<const GuardEvaluator*, kNumExprKinds> kByKind = [] {
    std::array<const GuardEvaluator*, kNumExprKinds> a{};
    for (const GuardEvaluator& r : kGuardEvaluators) a[static_cast<size_t>(r.kind)] = &r;
    return a;
  }();
  return kByKind[static_cast<size_t>(kind)];
}

absl::Span<const GuardEvaluator> AllGuardEvaluators() { return kGuardEvaluators; }

}  // namespace egret::rules
