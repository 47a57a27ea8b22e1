// Builder rows (form_evaluators_internal.h): how each replacement value is built into
// the e-graph. replacement.h states the semantics (output types, modifiers);
// form_table.h has the spelling and typing of each form.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/tensor.h"
#include "egret/rules_compile/form_evaluators_internal.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {
namespace {

// --- existing operands and SELECT ----------------------------------------------------

// An operand reference (a tag, INPUT_OF, OUTPUT_OF, ITER_INPUT_OF): its class.
absl::StatusOr<BuildFn> Reference(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> r = CompileRef(e, c.env());
  if (!r.ok()) return r.status();
  return BuildFn([r = *std::move(r)](BuildState& st, const ModList*) -> Id {
    EvalState s = st.Eval();
    OperandRef x = r(s);
    if (x.cls == kNoId || s.failed) return st.Fail("an operand reference does not exist");
    return st.g->Find(x.cls);
  });
}

absl::StatusOr<BuildFn> Select(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<ScalarFn> cond = CompileScalar(*e.args[0], c.env());
  absl::StatusOr<BuildFn> a = c.Build(*e.args[1]);
  absl::StatusOr<BuildFn> b = c.Build(*e.args[2]);
  if (!cond.ok()) return cond.status();
  if (!a.ok()) return a.status();
  if (!b.ok()) return b.status();
  return BuildFn([c = *std::move(cond), a = *std::move(a), b = *std::move(b)](
                     BuildState& st, const ModList* mods) -> Id {
    EvalState s = st.Eval();
    bool v = c(s).AsBool();
    if (s.failed) return st.Fail("SELECT condition failed to evaluate");
    return v ? a(st, mods) : b(st, mods);
  });
}

// --- ops -----------------------------------------------------------------------------

absl::StatusOr<BuildFn> NewOp(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<std::vector<BuildFn>> ins = c.Builds(e, 0);
  if (!ins.ok()) return ins.status();
  Symbol op = Symbol::Intern(e.name);
  return BuildFn([ins = *std::move(ins), op](BuildState& st, const ModList* mods) -> Id {
    TensorType t = st.default_type;
    if (!ApplyMods(st, mods, t)) return kNoId;
    // A modifier sets the output of every Op() in its last operand: the ops
    // this one's operands construct inherit its type (not the root's) unless
    // a modifier of their own says otherwise. So in
    //   WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, Op("Relu", WITH_SIZE("In", Op("Cast", "In"))))
    // the Cast converts In to Float16.
    const TensorType outer = std::exchange(st.default_type, t);
    absl::InlinedVector<Id, 6> ch;
    for (const BuildFn& f : ins) {
      Id c = f(st, nullptr);
      if (c == kNoId) {
        st.default_type = outer;
        return kNoId;
      }
      ch.push_back(c);
    }
    st.default_type = outer;
    return AddTyped(st, op, kNoPayload, ch, t);
  });
}

// WrapOp("op", x) adds op(x) unless x's class has an "op" node already;
// WrapOpAlways adds it anyway. The new node has x's type (and the modifiers).
template <bool kAlways>
absl::StatusOr<BuildFn> WrapOp(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<BuildFn> x = c.Build(*e.args[0]);
  if (!x.ok()) return x.status();
  Symbol op = Symbol::Intern(e.name);
  return BuildFn([x = *std::move(x), op](BuildState& st, const ModList* mods) -> Id {
    Id c = x(st, nullptr);
    if (c == kNoId) return kNoId;
    c = st.g->Find(c);
    if (!kAlways && !st.g->ClassNodesWithOp(c, op).empty()) return c;
    TensorType t = st.g->TypeOf(c);
    if (!ApplyMods(st, mods, t)) return kNoId;
    Id ch[1] = {c};
    return AddTyped(st, op, kNoPayload, ch, t);
  });
}

// --- shapes and constants ------------------------------------------------------------

absl::StatusOr<BuildFn> GenShape(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<std::vector<ScalarFn>> vals = c.Scalars(e, 0);
  if (!vals.ok()) return vals.status();
  return BuildFn([vals = *std::move(vals)](BuildState& st, const ModList*) -> Id {
    EvalState s = st.Eval();
    Dims d;
    for (const ScalarFn& f : vals) {
      int64_t v = f(s).AsInt();
      if (v < 0) return st.Fail(absl::StrCat("gen_Shape value ", v, " is negative"));
      d.push_back(v);
    }
    if (s.failed) return st.Fail("gen_Shape operand failed to evaluate");
    return st.g->AddShape(d);
  });
}

absl::StatusOr<BuildFn> GenShapeOf(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<BuildFn> x = c.Build(*e.args[0]);
  if (!x.ok()) return x.status();
  bool is_shape = e.args[0]->type == Type::kShape;
  return BuildFn([x = *std::move(x), is_shape](BuildState& st, const ModList*) -> Id {
    Id c = x(st, nullptr);
    if (c == kNoId || is_shape) return c;
    return st.g->AddShape(st.g->TypeOf(st.g->Find(c)).dims);
  });
}

// gen_Const*: a [1, 1, 1, n] constant of `kDType` (Float32 or Int32). kFill:
// (value, n) repeats the value n times; otherwise every operand is a value.
template <DType kDType, bool kFill>
absl::StatusOr<BuildFn> GenConst(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<std::vector<ScalarFn>> vals = c.Scalars(e, 0);
  if (!vals.ok()) return vals.status();
  return BuildFn([vals = *std::move(vals)](BuildState& st, const ModList* mods) -> Id {
    EvalState s = st.Eval();
    auto value = [](Scalar v) {
      return kDType == DType::kFloat32 ? v.AsFloat() : static_cast<double>(v.AsInt());
    };
    std::vector<double> data;
    if (kFill) {
      Scalar v = vals[0](s);
      int64_t n = vals[1](s).AsInt();
      if (n < 0 || n > (int64_t{1} << 24)) {
        return st.Fail(absl::StrCat("gen_ConstArr length ", n, " is out of range"));
      }
      data.assign(static_cast<size_t>(n), value(v));
    } else {
      for (const ScalarFn& f : vals) data.push_back(value(f(s)));
    }
    if (s.failed) return st.Fail("a gen_Const operand failed to evaluate");
    TensorType t(kDType, Dims{1, 1, 1, static_cast<int64_t>(data.size())});
    if (mods != nullptr) {  // WITH_SAME_OUTPUT(x, gen_Const...): x's type and dims
      if (!ApplyMods(st, mods, t)) return kNoId;
      if (t.num_elements() != static_cast<int64_t>(data.size())) {
        return st.Fail(absl::StrCat("a constant of ", data.size(), " values cannot take the type ",
                                    t.ToString()));
      }
    }
    auto tensor = std::make_shared<const Tensor>(Tensor::FromValues(t, data));
    return st.g->AddConstant(tensor);
  });
}

// --- iteration -----------------------------------------------------------------------

// AUTOSPLIT(dim, tag, chunk, body): one body per chunk of the root's dim,
// joined by a Concat on that dim.
absl::StatusOr<BuildFn> AutoSplit(ReplCompiler& c, const Expr& e) {
  const int slot = c.NewSplit(e);
  absl::StatusOr<ScalarFn> dim = CompileScalar(*e.args[0], c.env());
  absl::StatusOr<ScalarFn> chunk = CompileScalar(*e.args[1], c.env());
  if (!dim.ok()) return dim.status();
  if (!chunk.ok()) return chunk.status();
  absl::StatusOr<BuildFn> body = c.Build(*e.args[2]);
  if (!body.ok()) return body.status();
  static const Symbol concat = Symbol::Intern("Concat");
  return BuildFn([sl = slot, dim = *std::move(dim), chunk = *std::move(chunk),
                  body = *std::move(body)](BuildState& st, const ModList*) -> Id {
    EvalState s = st.Eval();
    int64_t d = dim(s).AsInt();
    int64_t c = chunk(s).AsInt();
    if (s.failed) return st.Fail("AUTOSPLIT operand failed to evaluate");
    const TensorType outer = st.default_type;
    if (d < 0 || d >= outer.rank()) {
      return st.Fail(
          absl::StrCat("AUTOSPLIT dim ", d, " is outside the rank of ", outer.ToString()));
    }
    if (c <= 0) return st.Fail(absl::StrCat("AUTOSPLIT chunk ", c, " is not positive"));
    const int64_t total = outer.dims[d];
    if (total > c * 4096) return st.Fail("AUTOSPLIT would make more than 4096 pieces");
    absl::InlinedVector<Id, 8> pieces;
    pieces.push_back(st.g->AddShape(Dims{d}));  // Concat's axis (input 0)
    SplitContext saved = st.splits[sl];
    for (int64_t start = 0; start < total; start += c) {
      int64_t size = std::min(c, total - start);
      st.splits[sl] = SplitContext{static_cast<int>(d), start, size};
      st.default_type = outer;
      st.default_type.dims[d] = size;
      Id piece = body(st, nullptr);
      st.default_type = outer;
      if (piece == kNoId) return kNoId;
      pieces.push_back(piece);
    }
    st.splits[sl] = saved;
    if (pieces.size() == 2) return pieces[1];  // one piece: no join
    return AddTyped(st, concat, kNoPayload, pieces, outer);
  });
}

// OP_ITER(init, tag, from, to, body): init's op and inputs plus one body per
// i in [from, to).
absl::StatusOr<BuildFn> OpIter(ReplCompiler& c, const Expr& e) {
  const int slot = c.NewSplit(e);
  const Expr& init = *e.args[0];
  Symbol init_op;
  std::vector<BuildFn> init_ins;
  RefFn init_ref;
  if (init.kind == ExprKind::kOp) {
    init_op = Symbol::Intern(init.name);
    absl::StatusOr<std::vector<BuildFn>> ins = c.Builds(init, 0);
    if (!ins.ok()) return ins.status();
    init_ins = *std::move(ins);
  } else {
    absl::StatusOr<RefFn> r = CompileRef(init, c.env());
    if (!r.ok()) return r.status();
    init_ref = *std::move(r);
  }
  absl::StatusOr<ScalarFn> from = CompileScalar(*e.args[1], c.env());
  absl::StatusOr<ScalarFn> to = CompileScalar(*e.args[2], c.env());
  if (!from.ok()) return from.status();
  if (!to.ok()) return to.status();
  absl::StatusOr<BuildFn> body = c.Build(*e.args[3]);
  if (!body.ok()) return body.status();
  return BuildFn([sl = slot, init_op, init_ins = std::move(init_ins), init_ref,
                  from = *std::move(from), to = *std::move(to),
                  body = *std::move(body)](BuildState& st, const ModList* mods) -> Id {
    Symbol op = init_op;
    Payload payload = kNoPayload;
    absl::InlinedVector<Id, 8> ch;
    if (init_ref) {
      EvalState s = st.Eval();
      OperandRef r = init_ref(s);
      if (r.cls == kNoId || s.failed) return st.Fail("OP_ITER operand does not exist");
      NodeIdx n = r.node != kNoNodeIdx ? r.node : RepresentativeNode(*st.g, r.cls);
      if (n == kNoNodeIdx) return st.Fail("OP_ITER operand has no node");
      ENodeView v = st.g->Node(n);
      op = v.op;
      payload = v.payload;
      ch.assign(v.children.begin(), v.children.end());
    } else {
      for (const BuildFn& f : init_ins) {
        Id c = f(st, nullptr);
        if (c == kNoId) return kNoId;
        ch.push_back(c);
      }
    }
    EvalState s = st.Eval();
    int64_t lo = from(s).AsInt(), hi = to(s).AsInt();
    if (s.failed) return st.Fail("OP_ITER bounds failed to evaluate");
    if (hi - lo > 65536) return st.Fail("OP_ITER would iterate more than 65536 times");
    SplitContext saved = st.splits[sl];
    for (int64_t i = lo; i < hi; ++i) {
      st.splits[sl] = SplitContext{0, i, 1};
      Id c = body(st, nullptr);
      if (c == kNoId) return kNoId;
      ch.push_back(c);
    }
    st.splits[sl] = saved;
    TensorType t = st.default_type;
    if (!ApplyMods(st, mods, t)) return kNoId;
    return AddTyped(st, op, payload, ch, t);
  });
}

// --- modifiers -----------------------------------------------------------------------

// Compiles the type change of a modifier (its operands but the last).
using ModMaker = absl::StatusOr<ModFn> (*)(ReplCompiler& c, const Expr& e);

// A modifier: builds its last operand with the type change added to the
// modifiers in effect (kRelative: applied after the absolute ones).
template <ModMaker kMake, bool kRelative = false>
absl::StatusOr<BuildFn> Modifier(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<BuildFn> inner = c.Build(*e.args.back());
  if (!inner.ok()) return inner.status();
  absl::StatusOr<ModFn> mod = kMake(c, e);
  if (!mod.ok()) return mod.status();
  return BuildFn([inner = *std::move(inner), mod = *std::move(mod)](BuildState& st,
                                                                    const ModList* mods) -> Id {
    ModList here{mods, &mod, kRelative};
    return inner(st, &here);
  });
}

// WITH_SIZE(size, op): the dims of `size`'s class.
absl::StatusOr<ModFn> SizeMod(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<BuildFn> size = c.Build(*e.args[0]);
  if (!size.ok()) return size.status();
  return ModFn([size = *std::move(size)](BuildState& st, TensorType& t) {
    Id c = size(st, nullptr);
    if (c == kNoId) return false;
    t.dims = st.g->TypeOf(st.g->Find(c)).dims;
    return true;
  });
}

// WITH_TYPE(x, op): x's dtype and encoding; WITH_SAME_OUTPUT(x, op) also its dims.
template <bool kDims>
absl::StatusOr<ModFn> TypeMod(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> r = CompileRef(*e.args[0], c.env());
  if (!r.ok()) return r.status();
  return ModFn([r = *std::move(r)](BuildState& st, TensorType& t) {
    EvalState s = st.Eval();
    OperandRef x = r(s);
    if (x.cls == kNoId || s.failed) {
      st.Fail("modifier operand does not exist");
      return false;
    }
    const TensorType& src = st.g->TypeOf(st.g->Find(x.cls));
    Dims keep = t.dims;
    t = src;
    if (!kDims) t.dims = keep;
    return true;
  });
}

absl::StatusOr<ModFn> OutputTypeMod(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<std::vector<ScalarFn>> v = c.Scalars(e, 0, 3);
  if (!v.ok()) return v.status();
  return ModFn([v = *std::move(v)](BuildState& st, TensorType& t) {
    EvalState s = st.Eval();
    int64_t dt = v[0](s).AsInt();
    int64_t zo = v[1](s).AsInt();
    double ss = v[2](s).AsFloat();
    std::optional<DType> d = DTypeFromValue(static_cast<int>(dt));
    if (!d || s.failed) {
      st.Fail(absl::StrCat("WITH_OUTPUT_TYPE: ", dt, " is not a dtype"));
      return false;
    }
    t.dtype = *d;
    t.zero_offset = static_cast<int32_t>(zo);
    t.stepsize = static_cast<float>(ss);
    t.per_axis.reset();
    return true;
  });
}

absl::StatusOr<ModFn> MultiOutMod(ReplCompiler&, const Expr&) {
  return ModFn([](BuildState&, TensorType& t) {
    t.dtype = DType::kMulti;
    t.dims.clear();
    t.ClearQuantization();
    return true;
  });
}

absl::StatusOr<ModFn> ResizeDimMod(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<ScalarFn> d = CompileScalar(*e.args[0], c.env());
  absl::StatusOr<ScalarFn> val = CompileScalar(*e.args[1], c.env());
  if (!d.ok()) return d.status();
  if (!val.ok()) return val.status();
  return ModFn([d = *std::move(d), val = *std::move(val)](BuildState& st, TensorType& t) {
    EvalState s = st.Eval();
    int64_t dim = d(s).AsInt(), v = val(s).AsInt();
    if (s.failed || dim < 0 || dim >= t.rank() || v < 0) {
      st.Fail(absl::StrCat("ResizeDim(", dim, ", ", v, ") does not fit ", t.ToString()));
      return false;
    }
    t.dims[dim] = v;
    return true;
  });
}

// WITH_SAME_ID / WITH_SPLIT_HISTORY(x, ..., op): builds op and records in the
// rule log that it comes from x (provenance `kind`).
template <const char* kKind>
absl::StatusOr<BuildFn> Provenance(ReplCompiler& c, const Expr& e) {
  absl::StatusOr<RefFn> from = CompileRef(*e.args[0], c.env());
  absl::StatusOr<BuildFn> inner = c.Build(*e.args.back());
  if (!from.ok()) return from.status();
  if (!inner.ok()) return inner.status();
  return BuildFn([from = *std::move(from), inner = *std::move(inner), log = c.log()](
                     BuildState& st, const ModList* mods) -> Id {
    Id c = inner(st, mods);
    if (c == kNoId) return c;
    EvalState s = st.Eval();
    OperandRef f = from(s);
    if (f.cls != kNoId && log->provenance.size() < RuleLog::kMaxProvenance) {
      log->provenance.push_back({st.g->Find(c), st.g->Find(f.cls), kKind});
    }
    return c;
  });
}
constexpr char kSameId[] = "same_id";
constexpr char kSplitHistory[] = "split_history";

// --- external functions --------------------------------------------------------------

bool IsReplType(Type t) {
  return t == Type::kOpRef || t == Type::kShape || t == Type::kNode || t == Type::kOp;
}

// SHAPEFN_APPLY(fn, params...) and, kSplit, AUTOSPLIT_SHAPEFN_APPLY(fn, tag,
// params...): the library function applied to the built operands and the
// scalar values (and the split context).
template <bool kSplit>
absl::StatusOr<BuildFn> ShapeFnApply(ReplCompiler& c, const Expr& e) {
  int slot = -1;
  if (kSplit) {
    absl::StatusOr<int> s = c.SplitSlot(e);
    if (!s.ok()) return s.status();
    slot = *s;
  }
  const FunctionLibrary* lib = c.env().functions;
  const ShapeFn* fn = nullptr;
  const AutoSplitShapeFn* sfn = nullptr;
  if (lib != nullptr) {
    if (kSplit) {
      sfn = lib->FindAutoSplitShapeFn(e.name);
    } else {
      fn = lib->FindShapeFn(e.name);
    }
  }
  if (fn == nullptr && sfn == nullptr) {
    return BadInput(e.loc(), absl::StrFormat("%s function '%s' has no implementation "
                                             "registered in the function library",
                                             ExprKindName(e.kind), e.name));
  }
  struct Param {
    BuildFn build;
    ScalarFn scalar;
  };
  std::vector<Param> params;
  for (const ExprPtr& a : e.args) {
    Param p;
    if (IsReplType(a->type) || a->kind == ExprKind::kTag) {
      absl::StatusOr<BuildFn> b = c.Build(*a);
      if (!b.ok()) return b.status();
      p.build = *std::move(b);
    } else {
      absl::StatusOr<ScalarFn> s = CompileScalar(*a, c.env());
      if (!s.ok()) return s.status();
      p.scalar = *std::move(s);
    }
    params.push_back(std::move(p));
  }
  ShapeFn f = fn ? *fn : ShapeFn();
  AutoSplitShapeFn sf = sfn ? *sfn : AutoSplitShapeFn();
  return BuildFn([params = std::move(params), f, sf, slot, name = e.name](BuildState& st,
                                                                          const ModList*) -> Id {
    std::vector<FnArg> args;
    for (const Param& p : params) {
      FnArg a;
      if (p.build) {
        Id c = p.build(st, nullptr);
        if (c == kNoId) return kNoId;
        a.is_operand = true;
        a.operand = c;
      } else {
        EvalState s = st.Eval();
        a.scalar = p.scalar(s);
        if (s.failed) return st.Fail(absl::StrCat(name, ": an argument failed to evaluate"));
      }
      args.push_back(a);
    }
    absl::StatusOr<Id> r = sf ? sf(*st.g, st.splits[slot], args) : f(*st.g, args);
    if (!r.ok()) return st.Fail(absl::StrCat(name, ": ", r.status().message()));
    return *r;
  });
}

absl::StatusOr<BuildFn> ExternalReplace(ReplCompiler& c, const Expr& e) {
  const ReplaceFn* fn =
      c.env().functions != nullptr ? c.env().functions->FindReplace(e.name) : nullptr;
  if (fn == nullptr) {
    return BadInput(e.loc(), absl::StrFormat("EXTERNAL_REPLACE function '%s' has no "
                                             "implementation registered in the function "
                                             "library",
                                             e.name));
  }
  return BuildFn([fn = *fn, name = e.name](BuildState& st, const ModList*) -> Id {
    ReplaceContext ctx;
    ctx.match = st.m;
    ctx.root = st.g->Find(st.m->root);
    ctx.root_type = st.g->TypeOf(ctx.root);
    absl::StatusOr<std::optional<Id>> r = fn(*st.g, ctx);
    if (!r.ok()) return st.Fail(absl::StrCat(name, ": ", r.status().message()));
    if (!r->has_value()) return ctx.root;  // leave the graph unchanged
    return **r;
  });
}

// --- rows ----------------------------------------------------------------------------

constexpr FormBuilder kFormBuilders[] = {
    // Existing operands (form_table.h: kReference) and SELECT.
    {ExprKind::kTag, Reference},
    {ExprKind::kInputOf, Reference},
    {ExprKind::kOutputOf, Reference},
    {ExprKind::kSelect, Select},
    // Replacement forms.
    {ExprKind::kOp, NewOp},
    {ExprKind::kWrapOp, WrapOp<false>},
    {ExprKind::kWrapOpAlways, WrapOp<true>},
    {ExprKind::kGenShape, GenShape},
    {ExprKind::kGenShapeOf, GenShapeOf},
    {ExprKind::kGenConstScalarF32, GenConst<DType::kFloat32, false>},
    {ExprKind::kGenConstScalarI32, GenConst<DType::kInt32, false>},
    {ExprKind::kGenConstArrF32, GenConst<DType::kFloat32, true>},
    {ExprKind::kGenConstArrI32, GenConst<DType::kInt32, true>},
    {ExprKind::kGenConstArrValsI32, GenConst<DType::kInt32, false>},
    {ExprKind::kAutoSplit, AutoSplit},
    {ExprKind::kOpIter, OpIter},
    {ExprKind::kIterInputOf, Reference},
    {ExprKind::kAutoSplitShapeFnApply, ShapeFnApply<true>},
    {ExprKind::kWithSize, Modifier<SizeMod>},
    {ExprKind::kWithType, Modifier<TypeMod<false>>},
    {ExprKind::kWithSameOutput, Modifier<TypeMod<true>>},
    {ExprKind::kWithOutputType, Modifier<OutputTypeMod>},
    {ExprKind::kWithMultiOut, Modifier<MultiOutMod>},
    {ExprKind::kResizeDim, Modifier<ResizeDimMod, true>},
    {ExprKind::kWithSameId, Provenance<kSameId>},
    {ExprKind::kWithSplitHistory, Provenance<kSplitHistory>},
    {ExprKind::kExternalReplace, ExternalReplace},
    {ExprKind::kShapeFnApply, ShapeFnApply<false>},
};

}  // namespace

Builder BuilderOf(ExprKind kind) {
  static const std::array<Builder, kNumExprKinds> kByKind = [] {
    std::array<Builder, kNumExprKinds> a{};
    for (const FormBuilder& r : kFormBuilders) a[static_cast<size_t>(r.kind)] = r.build;
    return a;
  }();
  return kByKind[static_cast<size_t>(kind)];
}

absl::Span<const FormBuilder> AllFormBuilders() { return kFormBuilders; }

}  // namespace egret::rules
