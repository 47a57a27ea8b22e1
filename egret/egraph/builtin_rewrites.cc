#include "egret/egraph/builtin_rewrites.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "egret/egraph/builtin_apply.h"

namespace egret {
namespace {

Rewrite MustMake(std::string name, const Pattern& lhs, Applier applier, Guard guard) {
  absl::StatusOr<Rewrite> r = MakeRewrite(std::move(name), lhs, std::move(applier), guard);
  // Built-in patterns are well formed by construction.
  return *std::move(r);
}

Rewrite Commutativity(Symbol op) {
  BuiltinRule rule;
  rule.kind = BuiltinRule::kComm;
  rule.op = op;
  Rewrite r = MustMake(
      std::string("comm-").append(op.str()),
      Pattern::Op(op.str(), {Pattern::Var("a"), Pattern::Var("b")}),
      [rule](EGraph& g, const MatchView& m) { return BuiltinApply(rule, g, m); }, nullptr);
  r.builtin = rule;
  return r;
}

// f(a, f(b, c)) => f(f(a, b), c), or with `reverse` f(f(a, b), c) => f(a, f(b, c)).
// With `broadcast`, also when a, b and c differ in dims.
Rewrite Associativity(Symbol op, bool reverse, bool broadcast) {
  Pattern a = Pattern::Var("a"), b = Pattern::Var("b"), c = Pattern::Var("c");
  Pattern lhs = reverse ? Pattern::Op(op.str(), {Pattern::Op(op.str(), {a, b}), c})
                        : Pattern::Op(op.str(), {a, Pattern::Op(op.str(), {b, c})});
  BuiltinRule rule;
  rule.kind = BuiltinRule::kAssoc;
  rule.op = op;
  rule.reverse = reverse;
  rule.broadcast = broadcast;
  Rewrite r = MustMake(
      std::string(reverse ? "assoc-rev-" : "assoc-").append(op.str()), lhs,
      [rule](EGraph& g, const MatchView& m) { return BuiltinApply(rule, g, m); },
      [rule](const EGraph& g, const MatchView& m) { return BuiltinGuard(rule, g, m); });
  r.lookahead = 0;  // the guard reads only types, which never change
  r.builtin = rule;
  return r;
}

Rewrite Idempotence(Symbol op) {
  Rewrite r = MustMake(
      std::string("idem-").append(op.str()),
      Pattern::Op(op.str(), {Pattern::Var("a"), Pattern::Var("a")}),
      [](EGraph&, const MatchView& m) -> std::optional<Id> { return m[0]; },
      [](const EGraph& g, const MatchView& m) { return g.TypeIdOf(m[0]) == g.TypeIdOf(m.root); });
  r.lookahead = 0;
  return r;
}

Rewrite Involution(Symbol op) {
  Rewrite r = MustMake(
      std::string("invol-").append(op.str()),
      Pattern::Op(op.str(), {Pattern::Op(op.str(), {Pattern::Var("a")})}),
      [](EGraph&, const MatchView& m) -> std::optional<Id> { return m[0]; },
      [](const EGraph& g, const MatchView& m) { return g.TypeIdOf(m[0]) == g.TypeIdOf(m.root); });
  r.lookahead = 0;
  return r;
}

}  // namespace

std::vector<Rewrite> BuiltinRewrites(const OpTable& ops) {
  std::vector<Rewrite> out;
  for (const auto& [op, t] : ops.Entries()) {
    if (t.commutative) out.push_back(Commutativity(op));
    if (t.associative) {
      out.push_back(Associativity(op, false, t.broadcast_associative));
      if (!t.commutative) out.push_back(Associativity(op, true, t.broadcast_associative));
    }
    if (t.idempotent) out.push_back(Idempotence(op));
    if (t.involution) out.push_back(Involution(op));
  }
  return out;
}

}  // namespace egret
