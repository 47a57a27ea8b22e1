// A lower bound on the DAG cost of every valid choice, computed without a
// solver: the roots' necessary classes plus the heaviest path.
//
// With non-negative costs, a valid choice is acyclic, so along any path of
// chosen nodes from a root down to a leaf the classes are distinct and each
// is paid once: its DAG cost is at least its heaviest path. The least
// heaviest path over all choices is L(root), where
//   L(c) = min over nodes n of c of cost(n) + max over child classes d of L(d),
// a least fixpoint that Knuth's generalisation of Dijkstra's algorithm
// computes in O(E log V) (cost(n) + max(...) never falls below an argument,
// so classes settle in increasing L; a node is only ever evaluated with all
// of its children settled, so a cycle never supports itself).
//
// Stronger, when the necessary classes can be afforded: every valid choice
// computes the classes N(roots) that every acyclic term of a root contains
// (the greatest fixpoint of N(c) = {c} + the intersection over c's nodes
// with an acyclic term of the union of N(d) over their child classes d;
// valid for any fixpoint, by induction over a term's height), and pays at
// least its cheapest node in each. Paying those minima apart, what is left
// of every node's cost in those classes (its cost less the class's minimum)
// is still non-negative, and the heaviest path over these reduced costs
// bounds the rest: bound = sum of the minima + L'(root).
//
// Why: on a network's e-graph most of the cost lies on one chain of layers,
// and the LP relaxation of the ILP (ilp_extractor.h) spreads a cyclic
// e-graph's activity over many alternatives, paying a fraction of each:
// on TENSAT vgg its bound after CBC's cuts was 1.424 against the optimum
// 4.851, which this bound reaches exactly (docs/history/extraction-rounds.md, "The
// critical-path bound").
#ifndef EGRET_EXTRACT_CRITICAL_PATH_BOUND_H_
#define EGRET_EXTRACT_CRITICAL_PATH_BOUND_H_

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "egret/extract/problem.h"

namespace egret::extract {

struct CriticalPathBound {
  double bound = 0;  // max(necessary_cost + path, plain_path)
  // Sum over the roots' necessary classes of their cheapest node, and how
  // many classes that is (0 when they were not computed: more classes than
  // the limit below, or the work limit reached).
  double necessary_cost = 0;
  size_t necessary_classes = 0;
  double path = 0;        // heaviest path on the reduced costs
  double plain_path = 0;  // heaviest path on the costs themselves
};

// Necessary classes are computed for problems of at most this many classes
// (a bit set of them per class: 8 MB at the limit) and this many word
// operations.
inline constexpr size_t kCriticalPathMaxNecessaryClasses = 8192;
inline constexpr double kCriticalPathMaxNecessaryWork = 2e8;

// nullopt with negative costs (a path then bounds nothing) or when a root
// has no acyclic term.
std::optional<CriticalPathBound> ComputeCriticalPathBound(const ExtractionProblem& p);

// The bound over the nodes n with allowed[n] only (the others taken out of
// the e-graph; empty: every node), and what a search over choices needs of
// it (critical_path_search.h). Fails like ComputeCriticalPathBound, and when
// no valid choice uses only allowed nodes.
struct CriticalPathDetail {
  CriticalPathBound bound;
  // Per class: computed by every valid choice of allowed nodes (empty when
  // the necessary classes were not computed, as above).
  std::vector<char> necessary;
  // Per node: allowed, and each of its child classes has an acyclic term.
  std::vector<char> acyclic;
};
std::optional<CriticalPathDetail> ComputeCriticalPathDetail(const ExtractionProblem& p,
                                                            std::span<const char> allowed);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_CRITICAL_PATH_BOUND_H_
