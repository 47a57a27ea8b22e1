// The equivalences the op table implies (what makes CSE semantic):
//   comm-<op>       f(a, b) => f(b, a)                      (commutative)
//   assoc-<op>      f(a, f(b, c)) => f(f(a, b), c)          (associative)
//   assoc-rev-<op>  f(f(a, b), c) => f(a, f(b, c))          (associative, not commutative)
//   idem-<op>       f(a, a) => a                            (idempotent)
//   invol-<op>      f(f(a)) => a                            (involution)
// New nodes keep the payload of the matched node. Associativity fires when
// both matched nodes have the same payload and a, b, c, f(b, c) and the root
// have one TensorType; for an op whose traits say broadcast_associative, also
// across numpy broadcasting (one dtype and encoding, dims free): (x * c) * z
// and x * (c * z) are one value for a scalar or per-channel c. The new
// f(a, b) then has the root's type with a's and b's dims broadcast; dims that
// do not broadcast back to the root's, and a per-axis encoding on operands of
// different dims, keep the rewrite from firing. Idempotence and involution
// fire only when a has the root's type. Commutativity always applies.
#ifndef EGRET_EGRAPH_BUILTIN_REWRITES_H_
#define EGRET_EGRAPH_BUILTIN_REWRITES_H_

#include <vector>

#include "egret/egraph/op_traits.h"
#include "egret/egraph/rewrite.h"

namespace egret {

std::vector<Rewrite> BuiltinRewrites(const OpTable& ops);

}  // namespace egret

#endif  // EGRET_EGRAPH_BUILTIN_REWRITES_H_
