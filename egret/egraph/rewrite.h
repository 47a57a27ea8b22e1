// Rewrites: a compiled left-hand pattern, an optional guard over a match, and
// an applier that builds the right-hand side.
//
// The applier gets the e-graph and the match (root class, the class bound to
// each pattern variable, the matched e-nodes). It may add nodes and union
// classes itself; the class it returns (if any) is merged with the root by the
// runner. Rules compiled from the HTP rule language (issue 5) implement their
// constraints as guards and their replacements as appliers.
#ifndef EGRET_EGRAPH_REWRITE_H_
#define EGRET_EGRAPH_REWRITE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/matcher.h"
#include "egret/egraph/pattern.h"

namespace egret {

// True to apply the rule to the match. Runs during search, on the e-graph of
// the last rebuild plus whatever earlier applications added.
using Guard = std::function<bool(const EGraph&, const MatchView&)>;
// Builds the replacement; returns the class to merge with match.root, or
// nullopt when there is nothing to merge (or the applier merged itself).
using Applier = std::function<std::optional<Id>(EGraph&, const MatchView&)>;

// A builtin rule (builtin_rewrites.h) the runner applies by a direct call to
// BuiltinGuard/BuiltinApply (builtin_apply.h) instead of through the
// Rewrite's std::function guard and applier, which call the same functions:
// the result is the same, the cost per match lower.
struct BuiltinRule {
  enum Kind : uint8_t { kNone, kComm, kAssoc };
  Kind kind = kNone;
  Symbol op;
  bool reverse = false;    // assoc: f(f(a, b), c) => f(a, f(b, c))
  bool broadcast = false;  // assoc: also across numpy broadcasting
};

struct Rewrite {
  std::string name;
  CompiledPattern pattern;
  Guard guard;      // optional
  Applier applier;  // required
  // Whether the BackoffScheduler may ban this rule (per-rule opt-out).
  bool backoff = true;
  // Incremental search: after its first search, a rule is searched only at
  // roots within reach of a class that changed since its last search (created,
  // merged, or a node re-canonicalized): up to depth()-1 parent steps, plus
  // `lookahead` more. That finds every new match when the guard and applier
  // read only the matched nodes and the bound classes' types; a guard that
  // reads a bound class's nodes or constant needs lookahead 1 (the default
  // when there is a guard), a guard that looks deeper needs more, or set
  // `incremental` to false to search the whole e-graph every iteration.
  // With lookahead 0, matches whose e-nodes are all older than the rule's
  // last complete search are skipped as well (semi-naive evaluation): they
  // were applied then, and applying them again adds nothing.
  bool incremental = true;
  int lookahead = 0;
  // What the guard and applier read of the e-graph besides the matched
  // e-nodes and the types of classes: of the match's classes (its root class
  // and the classes bound to its pattern variables) kConstants: only whether
  // they hold a "$Const" or "$Shape" node, and its value; kClassNodes: only
  // their nodes; kMatch: nothing; kAnything: anything, or classes further
  // away. Unless kAnything, a match found again that was found at the rule's
  // last complete search (all its e-nodes are older, and none of its classes
  // changed since: kConstants, changed and holds a constant) is counted but
  // not applied again: the application then made its result equal to the
  // root, and one now would build the same nodes. With kConstants or kMatch,
  // a search after the first looks only where a change it reads can make a
  // new match (the runner's narrow search), so it finds (and counts) a match
  // found again only there.
  enum class Reads : uint8_t { kAnything, kClassNodes, kConstants, kMatch };
  Reads reads = Reads::kAnything;
  // Set by BuiltinRewrites for comm and assoc rules (kind kNone otherwise).
  // When set, the runner calls BuiltinGuard/BuiltinApply, not `guard` and
  // `applier`: set kind to kNone before replacing those.
  BuiltinRule builtin;
};

// A rewrite matching `lhs`; lookahead is 1 when there is a guard.
absl::StatusOr<Rewrite> MakeRewrite(std::string name, const Pattern& lhs, Applier applier,
                                    Guard guard = nullptr);

// An applier that instantiates `rhs`, whose variables must all be bound by
// `lhs`: every new node gets the root class's type (use a custom applier when
// inner nodes have other types). Returns the class of the rhs root.
absl::StatusOr<Applier> PatternApplier(const CompiledPattern& lhs, const Pattern& rhs);

// MakeRewrite(name, lhs, PatternApplier(lhs, rhs), guard) from text patterns.
absl::StatusOr<Rewrite> MakeRewrite(std::string name, std::string_view lhs, std::string_view rhs,
                                    Guard guard = nullptr);

}  // namespace egret

#endif  // EGRET_EGRAPH_REWRITE_H_
