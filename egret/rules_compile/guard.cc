#include "egret/rules_compile/guard.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_format.h"
#include "egret/rules_compile/form_evaluators_internal.h"
#include "egret/rules_compile/guard_flat.h"
#include "egret/rules_compile/guard_internal.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {
namespace {

bool IsSpecialOp(std::string_view op) { return op == kConstOp || op == kShapeOp; }

}  // namespace

absl::Status ErrorAt(const Expr& e, std::string_view msg) { return BadInput(e.loc(), msg); }

absl::StatusOr<ScalarFn> ExprCompiler::ScalarOf(const Expr& e) {
  // ANDs and comparisons of type properties: one flat evaluator (guard_flat.h).
  if (env_.flat) {
    absl::StatusOr<std::optional<ScalarFn>> flat = CompileFlat(*this, e);
    if (!flat.ok()) return flat.status();
    if (flat->has_value()) return **std::move(flat);
  }
  const GuardEvaluator* ev = GuardEvaluatorOf(e.kind);
  if (ev == nullptr || ev->scalar == nullptr) {
    return ErrorAt(e, absl::StrFormat("%s is not a scalar expression", ExprKindName(e.kind)));
  }
  return ev->scalar(*this, e);
}

absl::StatusOr<RefFn> ExprCompiler::RefOf(const Expr& e) {
  const GuardEvaluator* ev = GuardEvaluatorOf(e.kind);
  if (ev == nullptr || ev->ref == nullptr) {
    return ErrorAt(e, absl::StrFormat("%s is not an operand reference", ExprKindName(e.kind)));
  }
  return ev->ref(*this, e);
}

absl::StatusOr<std::vector<ScalarFn>> ExprCompiler::ScalarArgs(const Expr& e, size_t from,
                                                               size_t end) {
  std::vector<ScalarFn> out;
  for (size_t i = from; i < std::min(end, e.args.size()); ++i) {
    absl::StatusOr<ScalarFn> f = ScalarOf(*e.args[i]);
    if (!f.ok()) return f.status();
    out.push_back(*std::move(f));
  }
  return out;
}

absl::StatusOr<int> ExprCompiler::SplitSlot(const Expr& e) {
  if (env_.split_slots != nullptr) {
    auto it = env_.split_slots->find(e.split_tag);
    if (it != env_.split_slots->end()) return it->second;
  }
  return ErrorAt(e, absl::StrFormat("split tag \"%s\" is not in scope", e.split_tag));
}

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
  return ExprCompiler(env).ScalarOf(e);
}

absl::StatusOr<RefFn> CompileRef(const Expr& e, const ExprEnv& env) {
  return ExprCompiler(env).RefOf(e);
}

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
