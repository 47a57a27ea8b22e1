#include "egret/rules_compile/replacement.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_format.h"
#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"
#include "egret/rules_compile/form_evaluators_internal.h"
#include "egret/rules_compile/guard_internal.h"
#include "egret/rules_compile/replacement_internal.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

void RuleLog::Note(std::string message) {
  if (messages.size() < kMaxMessages) messages.push_back(std::move(message));
}

namespace {

// IsKnownOp(op.str()), remembered by symbol (per thread: Symbol::str() takes
// the symbol table's lock, and IsKnownOp searches the op table by name).
bool IsKnownOpSymbol(Symbol op) {
  thread_local std::vector<int8_t> known;  // by symbol id: -1 not looked up
  if (op.id() >= known.size()) known.resize(op.id() + 1, -1);
  int8_t& k = known[op.id()];
  if (k < 0) k = IsKnownOp(op.str()) ? 1 : 0;
  return k == 1;
}

// Checks a new node of a known op against its shape function.
absl::Status CheckShape(const EGraph& g, Symbol op, absl::Span<const Id> children,
                        const TensorType& type) {
  if (type.dtype == DType::kMulti || !IsKnownOpSymbol(op)) return absl::OkStatus();
  static const Symbol shape_op = Symbol::Intern(kShapeOp);
  absl::InlinedVector<OperandInfo, 4> infos(children.size());
  absl::InlinedVector<ConstTensorPtr, 4> keep(children.size());
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

}  // namespace

Id AddTyped(BuildState& st, Symbol op, Payload payload, absl::Span<const Id> children,
            const TensorType& type) {
  if (absl::Status s = CheckShape(*st.g, op, children, type); !s.ok()) {
    return st.Fail(std::string(s.message()));
  }
  absl::StatusOr<Id> id = st.g->Add(ENodeView{op, payload, children}, type);
  if (!id.ok()) return st.Fail(std::string(id.status().message()));
  return *id;
}

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

absl::StatusOr<BuildFn> ReplCompiler::Build(const Expr& e) {
  Builder build = BuilderOf(e.kind);
  if (build == nullptr) {
    return BadInput(e.loc(),
                    absl::StrFormat("%s cannot be used in a replacement", ExprKindName(e.kind)));
  }
  return build(*this, e);
}

absl::StatusOr<std::vector<BuildFn>> ReplCompiler::Builds(const Expr& e, size_t from) {
  std::vector<BuildFn> out;
  for (size_t i = from; i < e.args.size(); ++i) {
    absl::StatusOr<BuildFn> f = Build(*e.args[i]);
    if (!f.ok()) return f.status();
    out.push_back(*std::move(f));
  }
  return out;
}

absl::StatusOr<std::vector<ScalarFn>> ReplCompiler::Scalars(const Expr& e, size_t from,
                                                            size_t end) {
  return ExprCompiler(env_).ScalarArgs(e, from, end);
}

int ReplCompiler::NewSplit(const Expr& e) {
  return split_slots_->try_emplace(e.split_tag, static_cast<int>(split_slots_->size()))
      .first->second;
}

absl::StatusOr<int> ReplCompiler::SplitSlot(const Expr& e) const {
  auto it = split_slots_->find(e.split_tag);
  if (it == split_slots_->end()) {
    return BadInput(e.loc(), absl::StrFormat("split tag \"%s\" is not in scope", e.split_tag));
  }
  return it->second;
}

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
