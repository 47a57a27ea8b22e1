#include "egret/egraph/builtin_apply.h"

#include "egret/graph/shape_inference.h"

namespace egret {
namespace {

// op(x, y) of type `type`; `payload` is that of the matched node, of type
// `root`: it is the one stored for op(x, y) when type == root (EGraph::AddPair).
[[gnu::always_inline]] inline std::optional<Id> AddOrNothing(EGraph& g, Symbol op, Payload payload,
                                                             Id x, Id y, TypeId type, TypeId root) {
  Id ch[2] = {x, y};
  absl::StatusOr<Id> id =
      type == root ? g.AddPair(op, payload, x, y, type) : g.Add(ENodeView{op, payload, ch}, type);
  if (!id.ok()) return std::nullopt;  // recorded in g.conflicts()
  return *id;
}

// op(x, y) added as a member of class `root` (the match's root, which it
// equals): no class is made for it when it is new. `payload` is that of the
// matched node, a node of op `op` in class `root`.
[[gnu::always_inline]] inline std::optional<Id> AddToRoot(EGraph& g, Symbol op, Payload payload,
                                                          Id x, Id y, Id root) {
  absl::StatusOr<Id> id = g.AddPairToClass(op, payload, x, y, root);
  if (!id.ok()) return std::nullopt;  // recorded in g.conflicts()
  return *id;
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

bool AssocGuard(const BuiltinRule& rule, const EGraph& g, const MatchView& m) {
  // Types are per class and never change, so no Find is needed.
  const ENodeView outer = g.Node(m.nodes[0]);
  if (g.Node(m.nodes[1]).payload != outer.payload) return false;
  const TypeId t = g.TypeIdOf(m.root);
  const Id classes[4] = {outer.children[rule.reverse ? 0 : 1], m[0], m[1], m[2]};
  // One test of all four (the common case: one type throughout), without
  // a branch per class.
  const bool same = ((g.TypeIdOf(classes[0]) ^ t) | (g.TypeIdOf(classes[1]) ^ t) |
                     (g.TypeIdOf(classes[2]) ^ t) | (g.TypeIdOf(classes[3]) ^ t)) == 0;
  if (same || !rule.broadcast) return same;
  // Across broadcasting: the same dtype and encoding, dims free.
  for (Id c : classes) {
    if (!SameButDims(g.Type(g.TypeIdOf(c)), g.Type(t))) return false;
  }
  return true;
}

std::optional<Id> AssocApply(const BuiltinRule& rule, EGraph& g, const MatchView& m) {
  const Symbol op = rule.op;
  const bool reverse = rule.reverse;
  const TypeId t = g.TypeIdOf(m.root);
  const Payload payload = g.Node(m.nodes[0]).payload;
  // The new inner node would combine two constants: constant folding would
  // turn it into a new "$Const", which associativity combines again, without
  // end (c, c*c, c*c*c, ... when a class holds both c and a product with c).
  // Reassociate constants only into nodes that exist.
  Id x = reverse ? m[1] : m[0], y = reverse ? m[2] : m[1];
  if (g.HasConstant(g.Find(x)) && g.HasConstant(g.Find(y))) {
    Id ch[2] = {x, y};
    if (!g.Lookup(ENodeView{op, payload, ch}).has_value()) return std::nullopt;
  }
  const std::optional<TypeId> inner = InnerType(g, t, x, y, reverse ? m[0] : m[2]);
  if (!inner) return std::nullopt;
  if (reverse) {
    std::optional<Id> bc = AddOrNothing(g, op, payload, m[1], m[2], *inner, t);
    if (!bc) return std::nullopt;
    return AddToRoot(g, op, payload, m[0], *bc, m.root);
  }
  std::optional<Id> ab = AddOrNothing(g, op, payload, m[0], m[1], *inner, t);
  if (!ab) return std::nullopt;
  return AddToRoot(g, op, payload, *ab, m[2], m.root);
}

}  // namespace

bool BuiltinGuard(const BuiltinRule& rule, const EGraph& g, const MatchView& m) {
  return rule.kind == BuiltinRule::kComm || AssocGuard(rule, g, m);
}

void BuiltinPrefetch(const BuiltinRule& rule, EGraph& g, const MatchView& m) {
  const Payload payload = g.Node(m.nodes[0]).payload;
  if (rule.kind == BuiltinRule::kComm) {
    g.PrefetchPair(rule.op, payload, m[1], m[0]);
  } else if (rule.reverse) {
    g.PrefetchPair(rule.op, payload, m[1], m[2]);  // AssocApply's inner node
  } else {
    g.PrefetchPair(rule.op, payload, m[0], m[1]);
  }
}

std::optional<Id> BuiltinApply(const BuiltinRule& rule, EGraph& g, const MatchView& m) {
  if (rule.kind == BuiltinRule::kAssoc) return AssocApply(rule, g, m);
  if (m[0] == m[1]) return std::nullopt;
  return AddToRoot(g, rule.op, g.Node(m.nodes[0]).payload, m[1], m[0], m.root);
}

}  // namespace egret
