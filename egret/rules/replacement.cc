#include "egret/rules/replacement.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"
#include "egret/graph/tensor.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

void RuleLog::Note(std::string message) {
  if (messages.size() < kMaxMessages) messages.push_back(std::move(message));
}

namespace {

struct BuildState {
  EGraph* g = nullptr;
  const MatchView* m = nullptr;
  std::vector<SplitContext> splits;
  TensorType default_type;
  std::string error;  // set on the first failure

  EvalState Eval() const {
    EvalState s;
    s.g = g;
    s.m = m;
    s.splits = splits.data();
    return s;
  }
  Id Fail(std::string msg) {
    if (error.empty()) error = std::move(msg);
    return kNoId;
  }
};

// A modifier: changes the output type of the op it wraps; false on failure.
using ModFn = std::function<bool(BuildState&, TensorType&)>;
struct ModList {
  const ModList* outer = nullptr;
  const ModFn* fn = nullptr;
  bool relative = false;  // ResizeDim
};

// Builds a value; returns its class, or kNoId with BuildState::error set.
using BuildFn = std::function<Id(BuildState&, const ModList*)>;

bool ApplyMods(BuildState& st, const ModList* mods, TensorType& t) {
  absl::InlinedVector<const ModList*, 4> chain;  // innermost first
  for (const ModList* m = mods; m != nullptr; m = m->outer) chain.push_back(m);
  for (int pass = 0; pass < 2; ++pass) {
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {  // outermost first
      if ((*it)->relative != (pass == 1)) continue;
      if (!(*(*it)->fn)(st, t)) return false;
    }
  }
  return true;
}

bool IsReplType(Type t) {
  return t == Type::kOpRef || t == Type::kShape || t == Type::kNode || t == Type::kOp;
}

// Checks a new node of a known op against its shape function.
absl::Status CheckShape(const EGraph& g, Symbol op, absl::Span<const Id> children,
                        const TensorType& type) {
  if (type.dtype == DType::kMulti || !IsKnownOp(op.str())) return absl::OkStatus();
  static const Symbol shape_op = Symbol::Intern(kShapeOp);
  std::vector<OperandInfo> infos(children.size());
  std::vector<ConstTensorPtr> keep(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    Id c = g.Find(children[i]);
    const TensorType& t = g.TypeOf(c);
    if (t.dtype == DType::kMulti) return absl::OkStatus();
    infos[i].type = &t;
    keep[i] = g.ConstantOf(c);
    infos[i].value = keep[i].get();
    infos[i].is_shape = !g.ClassNodesWithOp(c, shape_op).empty();
  }
  InferOptions opts;
  opts.declared = absl::Span<const TensorType>(&type, 1);
  absl::StatusOr<std::vector<TensorType>> out = InferOutputTypes(op.str(), infos, opts);
  if (!out.ok()) {
    if (out.status().code() == absl::StatusCode::kUnimplemented) return absl::OkStatus();
    return out.status();
  }
  if (out->size() == 1 && (*out)[0].dims != type.dims) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s built with type %s but its shape function gives %s", op.str(),
                        type.ToString(), (*out)[0].ToString()));
  }
  return absl::OkStatus();
}

Id AddTyped(BuildState& st, Symbol op, Payload payload, absl::Span<const Id> children,
            const TensorType& type) {
  if (absl::Status s = CheckShape(*st.g, op, children, type); !s.ok()) {
    return st.Fail(std::string(s.message()));
  }
  absl::StatusOr<Id> id = st.g->Add(ENodeView{op, payload, children}, type);
  if (!id.ok()) return st.Fail(std::string(id.status().message()));
  return *id;
}

class ReplCompiler {
 public:
  ReplCompiler(const ExprEnv& env, absl::flat_hash_map<std::string, int>* split_slots,
               std::shared_ptr<RuleLog> log)
      : env_(env), split_slots_(split_slots), log_(std::move(log)) {}

  absl::StatusOr<BuildFn> Build(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kTag:
      case ExprKind::kInputOf:
      case ExprKind::kOutputOf:
      case ExprKind::kIterInputOf: {
        absl::StatusOr<RefFn> r = CompileRef(e, env_);
        if (!r.ok()) return r.status();
        return BuildFn([r = *std::move(r)](BuildState& st, const ModList*) -> Id {
          EvalState s = st.Eval();
          OperandRef x = r(s);
          if (x.cls == kNoId || s.failed) return st.Fail("an operand reference does not exist");
          return st.g->Find(x.cls);
        });
      }
      case ExprKind::kSelect: {
        absl::StatusOr<ScalarFn> c = CompileScalar(*e.args[0], env_);
        absl::StatusOr<BuildFn> a = Build(*e.args[1]);
        absl::StatusOr<BuildFn> b = Build(*e.args[2]);
        if (!c.ok()) return c.status();
        if (!a.ok()) return a.status();
        if (!b.ok()) return b.status();
        return BuildFn([c = *std::move(c), a = *std::move(a), b = *std::move(b)](
                           BuildState& st, const ModList* mods) -> Id {
          EvalState s = st.Eval();
          bool v = c(s).AsBool();
          if (s.failed) return st.Fail("SELECT condition failed to evaluate");
          return v ? a(st, mods) : b(st, mods);
        });
      }
      case ExprKind::kOp:
        return OpBuild(e);
      case ExprKind::kWrapOp:
      case ExprKind::kWrapOpAlways: {
        absl::StatusOr<BuildFn> x = Build(*e.args[0]);
        if (!x.ok()) return x.status();
        Symbol op = Symbol::Intern(e.name);
        bool always = e.kind == ExprKind::kWrapOpAlways;
        return BuildFn([x = *std::move(x), op, always](BuildState& st, const ModList* mods) -> Id {
          Id c = x(st, nullptr);
          if (c == kNoId) return kNoId;
          c = st.g->Find(c);
          if (!always && !st.g->ClassNodesWithOp(c, op).empty()) return c;
          TensorType t = st.g->TypeOf(c);
          if (!ApplyMods(st, mods, t)) return kNoId;
          Id ch[1] = {c};
          return AddTyped(st, op, kNoPayload, ch, t);
        });
      }
      case ExprKind::kGenShape: {
        absl::StatusOr<std::vector<ScalarFn>> vals = Scalars(e, 0);
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
      case ExprKind::kGenShapeOf: {
        absl::StatusOr<BuildFn> x = Build(*e.args[0]);
        if (!x.ok()) return x.status();
        bool is_shape = e.args[0]->type == Type::kShape;
        return BuildFn([x = *std::move(x), is_shape](BuildState& st, const ModList*) -> Id {
          Id c = x(st, nullptr);
          if (c == kNoId || is_shape) return c;
          return st.g->AddShape(st.g->TypeOf(st.g->Find(c)).dims);
        });
      }
      case ExprKind::kGenConstScalarF32:
      case ExprKind::kGenConstScalarI32:
      case ExprKind::kGenConstArrF32:
      case ExprKind::kGenConstArrI32:
      case ExprKind::kGenConstArrValsI32:
        return ConstBuild(e);
      case ExprKind::kAutoSplit:
        return AutoSplit(e);
      case ExprKind::kOpIter:
        return OpIter(e);
      case ExprKind::kWithSize:
      case ExprKind::kWithType:
      case ExprKind::kWithSameOutput:
      case ExprKind::kWithOutputType:
      case ExprKind::kWithMultiOut:
      case ExprKind::kResizeDim:
        return Modifier(e);
      case ExprKind::kWithSameId:
      case ExprKind::kWithSplitHistory: {
        absl::StatusOr<RefFn> from = CompileRef(*e.args[0], env_);
        absl::StatusOr<BuildFn> inner = Build(*e.args.back());
        if (!from.ok()) return from.status();
        if (!inner.ok()) return inner.status();
        std::string kind = e.kind == ExprKind::kWithSameId ? "same_id" : "split_history";
        return BuildFn([from = *std::move(from), inner = *std::move(inner), kind, log = log_](
                           BuildState& st, const ModList* mods) -> Id {
          Id c = inner(st, mods);
          if (c == kNoId) return c;
          EvalState s = st.Eval();
          OperandRef f = from(s);
          if (f.cls != kNoId && log->provenance.size() < RuleLog::kMaxProvenance) {
            log->provenance.push_back({st.g->Find(c), st.g->Find(f.cls), kind});
          }
          return c;
        });
      }
      case ExprKind::kShapeFnApply:
      case ExprKind::kAutoSplitShapeFnApply:
        return Apply(e);
      case ExprKind::kExternalReplace: {
        const ReplaceFn* fn =
            env_.functions != nullptr ? env_.functions->FindReplace(e.name) : nullptr;
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
      default:
        return BadInput(
            e.loc(), absl::StrFormat("%s cannot be used in a replacement", ExprKindName(e.kind)));
    }
  }

 private:
  absl::StatusOr<std::vector<ScalarFn>> Scalars(const Expr& e, size_t from,
                                                size_t end = ~size_t{0}) {
    std::vector<ScalarFn> out;
    for (size_t i = from; i < std::min(end, e.args.size()); ++i) {
      absl::StatusOr<ScalarFn> f = CompileScalar(*e.args[i], env_);
      if (!f.ok()) return f.status();
      out.push_back(*std::move(f));
    }
    return out;
  }

  absl::StatusOr<std::vector<BuildFn>> Builds(const Expr& e, size_t from) {
    std::vector<BuildFn> out;
    for (size_t i = from; i < e.args.size(); ++i) {
      absl::StatusOr<BuildFn> f = Build(*e.args[i]);
      if (!f.ok()) return f.status();
      out.push_back(*std::move(f));
    }
    return out;
  }

  absl::StatusOr<BuildFn> OpBuild(const Expr& e) {
    absl::StatusOr<std::vector<BuildFn>> ins = Builds(e, 0);
    if (!ins.ok()) return ins.status();
    Symbol op = Symbol::Intern(e.name);
    return BuildFn([ins = *std::move(ins), op](BuildState& st, const ModList* mods) -> Id {
      absl::InlinedVector<Id, 6> ch;
      for (const BuildFn& f : ins) {
        Id c = f(st, nullptr);
        if (c == kNoId) return kNoId;
        ch.push_back(c);
      }
      TensorType t = st.default_type;
      if (!ApplyMods(st, mods, t)) return kNoId;
      return AddTyped(st, op, kNoPayload, ch, t);
    });
  }

  absl::StatusOr<BuildFn> ConstBuild(const Expr& e) {
    absl::StatusOr<std::vector<ScalarFn>> vals = Scalars(e, 0);
    if (!vals.ok()) return vals.status();
    const ExprKind k = e.kind;
    return BuildFn([vals = *std::move(vals), k](BuildState& st, const ModList*) -> Id {
      EvalState s = st.Eval();
      std::vector<double> data;
      DType dt = (k == ExprKind::kGenConstScalarF32 || k == ExprKind::kGenConstArrF32)
                     ? DType::kFloat32
                     : DType::kInt32;
      if (k == ExprKind::kGenConstArrF32 || k == ExprKind::kGenConstArrI32) {
        Scalar v = vals[0](s);
        int64_t n = vals[1](s).AsInt();
        if (n < 0 || n > (int64_t{1} << 24)) {
          return st.Fail(absl::StrCat("gen_ConstArr length ", n, " is out of range"));
        }
        data.assign(static_cast<size_t>(n),
                    dt == DType::kFloat32 ? v.AsFloat() : static_cast<double>(v.AsInt()));
      } else {
        for (const ScalarFn& f : vals) {
          Scalar v = f(s);
          data.push_back(dt == DType::kFloat32 ? v.AsFloat() : static_cast<double>(v.AsInt()));
        }
      }
      if (s.failed) return st.Fail("a gen_Const operand failed to evaluate");
      TensorType t(dt, Dims{1, 1, 1, static_cast<int64_t>(data.size())});
      auto tensor = std::make_shared<const Tensor>(Tensor::FromValues(t, data));
      return st.g->AddConstant(tensor);
    });
  }

  absl::StatusOr<int> NewSplit(const Expr& e) {
    auto [it, inserted] =
        split_slots_->try_emplace(e.split_tag, static_cast<int>(split_slots_->size()));
    (void)inserted;
    return it->second;
  }

  absl::StatusOr<BuildFn> AutoSplit(const Expr& e) {
    absl::StatusOr<int> slot = NewSplit(e);
    absl::StatusOr<ScalarFn> dim = CompileScalar(*e.args[0], env_);
    absl::StatusOr<ScalarFn> chunk = CompileScalar(*e.args[1], env_);
    if (!dim.ok()) return dim.status();
    if (!chunk.ok()) return chunk.status();
    absl::StatusOr<BuildFn> body = Build(*e.args[2]);
    if (!body.ok()) return body.status();
    static const Symbol concat = Symbol::Intern("Concat");
    return BuildFn([sl = *slot, dim = *std::move(dim), chunk = *std::move(chunk),
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

  absl::StatusOr<BuildFn> OpIter(const Expr& e) {
    absl::StatusOr<int> slot = NewSplit(e);
    const Expr& init = *e.args[0];
    Symbol init_op;
    std::vector<BuildFn> init_ins;
    RefFn init_ref;
    if (init.kind == ExprKind::kOp) {
      init_op = Symbol::Intern(init.name);
      absl::StatusOr<std::vector<BuildFn>> ins = Builds(init, 0);
      if (!ins.ok()) return ins.status();
      init_ins = *std::move(ins);
    } else {
      absl::StatusOr<RefFn> r = CompileRef(init, env_);
      if (!r.ok()) return r.status();
      init_ref = *std::move(r);
    }
    absl::StatusOr<ScalarFn> from = CompileScalar(*e.args[1], env_);
    absl::StatusOr<ScalarFn> to = CompileScalar(*e.args[2], env_);
    if (!from.ok()) return from.status();
    if (!to.ok()) return to.status();
    absl::StatusOr<BuildFn> body = Build(*e.args[3]);
    if (!body.ok()) return body.status();
    return BuildFn([sl = *slot, init_op, init_ins = std::move(init_ins), init_ref,
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

  absl::StatusOr<BuildFn> Modifier(const Expr& e) {
    absl::StatusOr<BuildFn> inner = Build(*e.args.back());
    if (!inner.ok()) return inner.status();
    ModFn mod;
    bool relative = false;
    switch (e.kind) {
      case ExprKind::kWithSize: {
        absl::StatusOr<BuildFn> size = Build(*e.args[0]);
        if (!size.ok()) return size.status();
        mod = [size = *std::move(size)](BuildState& st, TensorType& t) {
          Id c = size(st, nullptr);
          if (c == kNoId) return false;
          t.dims = st.g->TypeOf(st.g->Find(c)).dims;
          return true;
        };
        break;
      }
      case ExprKind::kWithType:
      case ExprKind::kWithSameOutput: {
        absl::StatusOr<RefFn> r = CompileRef(*e.args[0], env_);
        if (!r.ok()) return r.status();
        bool dims = e.kind == ExprKind::kWithSameOutput;
        mod = [r = *std::move(r), dims](BuildState& st, TensorType& t) {
          EvalState s = st.Eval();
          OperandRef x = r(s);
          if (x.cls == kNoId || s.failed) {
            st.Fail("modifier operand does not exist");
            return false;
          }
          const TensorType& src = st.g->TypeOf(st.g->Find(x.cls));
          Dims keep = t.dims;
          t = src;
          if (!dims) t.dims = keep;
          return true;
        };
        break;
      }
      case ExprKind::kWithOutputType: {
        absl::StatusOr<std::vector<ScalarFn>> v = Scalars(e, 0, 3);
        if (!v.ok()) return v.status();
        mod = [v = *std::move(v)](BuildState& st, TensorType& t) {
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
          return true;
        };
        break;
      }
      case ExprKind::kWithMultiOut: {
        mod = [](BuildState&, TensorType& t) {
          t.dtype = DType::kMulti;
          t.dims.clear();
          t.zero_offset = 0;
          t.stepsize = 1.0f;
          return true;
        };
        break;
      }
      default: {  // ResizeDim
        absl::StatusOr<ScalarFn> d = CompileScalar(*e.args[0], env_);
        absl::StatusOr<ScalarFn> val = CompileScalar(*e.args[1], env_);
        if (!d.ok()) return d.status();
        if (!val.ok()) return val.status();
        relative = true;
        mod = [d = *std::move(d), val = *std::move(val)](BuildState& st, TensorType& t) {
          EvalState s = st.Eval();
          int64_t dim = d(s).AsInt(), v = val(s).AsInt();
          if (s.failed || dim < 0 || dim >= t.rank() || v < 0) {
            st.Fail(absl::StrCat("ResizeDim(", dim, ", ", v, ") does not fit ", t.ToString()));
            return false;
          }
          t.dims[dim] = v;
          return true;
        };
        break;
      }
    }
    return BuildFn([inner = *std::move(inner), mod = std::move(mod), relative](
                       BuildState& st, const ModList* mods) -> Id {
      ModList here{mods, &mod, relative};
      return inner(st, &here);
    });
  }

  absl::StatusOr<BuildFn> Apply(const Expr& e) {
    const bool split = e.kind == ExprKind::kAutoSplitShapeFnApply;
    int slot = -1;
    if (split) {
      auto it = split_slots_->find(e.split_tag);
      if (it == split_slots_->end()) {
        return BadInput(e.loc(), absl::StrFormat("split tag \"%s\" is not in scope", e.split_tag));
      }
      slot = it->second;
    }
    const ShapeFn* fn = nullptr;
    const AutoSplitShapeFn* sfn = nullptr;
    if (env_.functions != nullptr) {
      if (split) {
        sfn = env_.functions->FindAutoSplitShapeFn(e.name);
      } else {
        fn = env_.functions->FindShapeFn(e.name);
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
        absl::StatusOr<BuildFn> b = Build(*a);
        if (!b.ok()) return b.status();
        p.build = *std::move(b);
      } else {
        absl::StatusOr<ScalarFn> s = CompileScalar(*a, env_);
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

  const ExprEnv& env_;
  absl::flat_hash_map<std::string, int>* split_slots_;
  std::shared_ptr<RuleLog> log_;
};

}  // namespace

absl::StatusOr<Applier> CompileReplacement(const Rule& rule, const std::string& label,
                                           const Bindings& bindings, const Options* options,
                                           const FunctionLibrary* functions,
                                           std::shared_ptr<RuleLog> log) {
  if (rule.replacement == nullptr) {
    return BadInput(rule.loc(), "rule has no replacement");
  }
  // Split slots are assigned while compiling (AUTOSPLIT/OP_ITER before their
  // bodies), and the scalar compiler reads them through ExprEnv.
  auto split_slots = std::make_shared<absl::flat_hash_map<std::string, int>>();
  ExprEnv env;
  env.bindings = &bindings;
  env.options = options;
  env.functions = functions;
  env.split_slots = split_slots.get();
  ReplCompiler c(env, split_slots.get(), log);
  absl::StatusOr<BuildFn> build = c.Build(*rule.replacement);
  if (!build.ok()) return build.status();
  const size_t num_splits = split_slots->size();
  std::string where = rule.loc().ToString();
  return Applier([build = *std::move(build), num_splits, log, label, where, split_slots](
                     EGraph& g, const MatchView& m) -> std::optional<Id> {
    BuildState st;
    st.g = &g;
    st.m = &m;
    st.splits.resize(num_splits);
    const Id root = g.Find(m.root);
    st.default_type = g.TypeOf(root);
    Id r = build(st, nullptr);
    if (r == kNoId) {
      ++log->build_failures;
      log->Note(absl::StrFormat("rule '%s' (%s): application at class %d skipped: %s", label, where,
                                root, st.error));
      return std::nullopt;
    }
    r = g.Find(r);
    const Id root_now = g.Find(root);
    if (r == root_now) return std::nullopt;
    if (g.TypeIdOf(r) != g.TypeIdOf(root_now)) {
      ++log->type_mismatches;
      log->Note(absl::StrFormat(
          "rule '%s' (%s): replacement type %s differs from the root's type %s (class %d); "
          "application skipped",
          label, where, g.TypeOf(r).ToString(), g.TypeOf(root_now).ToString(), root_now));
      return std::nullopt;
    }
    return r;
  });
}

}  // namespace egret::rules
