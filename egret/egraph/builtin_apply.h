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

// Software pipelining of BuiltinApply over a buffer of matches: the caller
// calls BuiltinPrefetch(rule, g, m_{i + kBuiltinPrefetchDistance}) before
// BuiltinApply(rule, g, m_i), so that the cache misses of the applications'
// first pair-table probes overlap. An application probes the pair table of
// rule.op once (commutativity: the swapped node) or twice (associativity: the
// new inner node, then the outer node, whose key holds the inner node's
// class); only the first probe is hinted. Hinting the second too would need
// the first's answer ahead of time: a second lookup per application, which
// cost more than it saved (docs/history/engine-vs-egg.md, round 6). A hint only: the
// e-graph and what every call returns are unchanged, whatever the
// applications in between do.
void BuiltinPrefetch(const BuiltinRule& rule, EGraph& g, const MatchView& m);

inline constexpr size_t kBuiltinPrefetchDistance = 4;

}  // namespace egret

#endif  // EGRET_EGRAPH_BUILTIN_APPLY_H_
