// The guard and the applier of the builtin commutativity and associativity
// rules (builtin_rewrites.h says what they do) as plain functions of the rule's
// descriptor. The runner calls them directly for a Rewrite whose `builtin` is
// set; the Rewrite's own guard and applier call them too, so both paths give
// the same result.
#ifndef EGRET_EGRAPH_BUILTIN_APPLY_H_
#define EGRET_EGRAPH_BUILTIN_APPLY_H_

#include <optional>

#include "egret/egraph/egraph.h"
#include "egret/egraph/matcher.h"
#include "egret/egraph/rewrite.h"

namespace egret {

// Whether the rule applies to match `m` (commutativity: always). `rule.kind`
// must not be kNone.
bool BuiltinGuard(const BuiltinRule& rule, const EGraph& g, const MatchView& m);

// Builds the rule's right-hand side for match `m` (which passed the guard)
// and returns the class to merge with m.root, or nullopt when the rule does
// not fire (or a merge was refused: recorded in g.conflicts()).
std::optional<Id> BuiltinApply(const BuiltinRule& rule, EGraph& g, const MatchView& m);

}  // namespace egret

#endif  // EGRET_EGRAPH_BUILTIN_APPLY_H_
