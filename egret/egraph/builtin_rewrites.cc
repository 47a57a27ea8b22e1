#include "egret/egraph/builtin_rewrites.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "egret/graph/shape_inference.h"

namespace egret {
namespace {

Rewrite MustMake(std::string name, const Pattern& lhs, Applier applier, Guard guard) {
  absl::StatusOr<Rewrite> r = MakeRewrite(std::move(name), lhs, std::move(applier), guard);
  // Built-in patterns are well formed by construction.
  return *std::move(r);
}

std::optional<Id> AddOrNothing(EGraph& g, Symbol op, Payload payload, Id x, Id y, TypeId type) {
  Id ch[2] = {x, y};
  absl::StatusOr<Id> id = g.Add(ENodeView{op, payload, ch}, type);
  if (!id.ok()) return std::nullopt;  // recorded in g.conflicts()
  return *id;
}

// op(x, y) added as a member of class `root` (the match's root, which it
// equals): no class is made for it when it is new.
std::optional<Id> AddToRoot(EGraph& g, Symbol op, Payload payload, Id x, Id y, Id root) {
  Id ch[2] = {x, y};
  absl::StatusOr<Id> id = g.AddToClass(ENodeView{op, payload, ch}, root);
  if (!id.ok()) return std::nullopt;  // recorded in g.conflicts()
  return *id;
}

Rewrite Commutativity(Symbol op) {
  Rewrite r = MustMake(
      std::string("comm-").append(op.str()),
      Pattern::Op(op.str(), {Pattern::Var("a"), Pattern::Var("b")}),
      [op](EGraph& g, const MatchView& m) -> std::optional<Id> {
        if (m[0] == m[1]) return std::nullopt;
        return AddToRoot(g, op, g.Node(m.nodes[0]).payload, m[1], m[0], m.root);
      },
      nullptr);
  r.prefetch_vars[0] = 1;  // op(b, a)
  r.prefetch_vars[1] = 0;
  return r;
}

// Whether `t` is `root` but for its dims: one dtype and one encoding (a
// per-axis encoding only when the whole type is the same, which the caller
// checks first).
bool SameButDims(const TensorType& t, const TensorType& root) {
  return t.dtype == root.dtype && t.zero_offset == root.zero_offset &&
         t.stepsize == root.stepsize && !t.per_axis && !root.per_axis;
}

// The type of the new inner node op(x, y) of a reassociation whose outer
// node reads it and `other` and has type `root`: `root` itself when x and y
// have it, else `root` with x's and y's dims broadcast (numpy), when that
// broadcasts with `other`'s dims back to root's; nullopt otherwise.
std::optional<TypeId> InnerType(EGraph& g, TypeId root, Id x, Id y, Id other) {
  if (g.TypeIdOf(x) == root && g.TypeIdOf(y) == root) return root;
  const TensorType& r = g.Type(root);
  absl::StatusOr<Dims> dims = BroadcastDims(g.Type(g.TypeIdOf(x)).dims, g.Type(g.TypeIdOf(y)).dims);
  if (!dims.ok()) return std::nullopt;
  absl::StatusOr<Dims> all = BroadcastDims(*dims, g.Type(g.TypeIdOf(other)).dims);
  if (!all.ok() || *all != r.dims) return std::nullopt;
  TensorType t = r;
  t.dims = *std::move(dims);
  return g.InternType(t);
}

// f(a, f(b, c)) => f(f(a, b), c), or with `reverse` f(f(a, b), c) => f(a, f(b, c)).
// With `broadcast`, also when a, b and c differ in dims.
Rewrite Associativity(Symbol op, bool reverse, bool broadcast) {
  Pattern a = Pattern::Var("a"), b = Pattern::Var("b"), c = Pattern::Var("c");
  Pattern lhs = reverse ? Pattern::Op(op.str(), {Pattern::Op(op.str(), {a, b}), c})
                        : Pattern::Op(op.str(), {a, Pattern::Op(op.str(), {b, c})});
  Guard one_kind = [reverse, broadcast](const EGraph& g, const MatchView& m) {
    // Types are per class and never change, so no Find is needed.
    ENodeView outer = g.Node(m.nodes[0]);
    if (g.Node(m.nodes[1]).payload != outer.payload) return false;
    const TypeId t = g.TypeIdOf(m.root);
    const Id classes[4] = {outer.children[reverse ? 0 : 1], m[0], m[1], m[2]};
    bool same = true;
    for (Id c : classes) same = same && g.TypeIdOf(c) == t;
    if (same || !broadcast) return same;
    // Across broadcasting: the same dtype and encoding, dims free.
    for (Id c : classes) {
      if (!SameButDims(g.Type(g.TypeIdOf(c)), g.Type(t))) return false;
    }
    return true;
  };
  Rewrite r = MustMake(
      std::string(reverse ? "assoc-rev-" : "assoc-").append(op.str()), lhs,
      [op, reverse](EGraph& g, const MatchView& m) -> std::optional<Id> {
        const TypeId t = g.TypeIdOf(m.root);
        const Payload payload = g.Node(m.nodes[0]).payload;
        // The new inner node would combine two constants: constant folding
        // would turn it into a new "$Const", which associativity combines
        // again, without end (c, c*c, c*c*c, ... when a class holds both c and
        // a product with c). Reassociate constants only into nodes that exist.
        Id x = reverse ? m[1] : m[0], y = reverse ? m[2] : m[1];
        if (g.ConstantOf(g.Find(x)) != nullptr && g.ConstantOf(g.Find(y)) != nullptr) {
          Id ch[2] = {x, y};
          if (!g.Lookup(ENodeView{op, payload, ch}).has_value()) return std::nullopt;
        }
        const std::optional<TypeId> inner = InnerType(g, t, x, y, reverse ? m[0] : m[2]);
        if (!inner) return std::nullopt;
        if (reverse) {
          std::optional<Id> bc = AddOrNothing(g, op, payload, m[1], m[2], *inner);
          if (!bc) return std::nullopt;
          return AddToRoot(g, op, payload, m[0], *bc, m.root);
        }
        std::optional<Id> ab = AddOrNothing(g, op, payload, m[0], m[1], *inner);
        if (!ab) return std::nullopt;
        return AddToRoot(g, op, payload, *ab, m[2], m.root);
      },
      one_kind);
  r.lookahead = 0;  // the guard reads only types, which never change
  // The applier looks up the new inner node first: op(b, c), or op(a, b).
  r.prefetch_vars[0] = reverse ? 1 : 0;
  r.prefetch_vars[1] = reverse ? 2 : 1;
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
