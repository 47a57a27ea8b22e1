// The equivalences the op table implies (what makes CSE semantic):
//   comm-<op>       f(a, b) => f(b, a)                      (commutative)
//   assoc-<op>      f(a, f(b, c)) => f(f(a, b), c)          (associative)
//   assoc-rev-<op>  f(f(a, b), c) => f(a, f(b, c))          (associative, not commutative)
//   idem-<op>       f(a, a) => a                            (idempotent)
//   invol-<op>      f(f(a)) => a                            (involution)
// New nodes keep the payload of the matched node. Associativity fires only
// when a, b, c, f(b, c) and the root all have one identical TensorType (so the
// new f(a, b) has that type) and both matched nodes have the same payload;
// idempotence and involution only when a has the root's type. Commutativity
// always applies.
#ifndef EGRET_EGRAPH_BUILTIN_REWRITES_H_
#define EGRET_EGRAPH_BUILTIN_REWRITES_H_

#include <vector>

#include "egret/egraph/op_traits.h"
#include "egret/egraph/rewrite.h"

namespace egret {

std::vector<Rewrite> BuiltinRewrites(const OpTable& ops);

}  // namespace egret

#endif  // EGRET_EGRAPH_BUILTIN_REWRITES_H_
