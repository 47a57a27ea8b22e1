// Exact DAG extraction by branch and bound on the critical-path bound
// (critical_path_bound.h), for e-graphs where that bound is close to the
// best choice known but the ILP's relaxation is not (TENSAT resnet50: the
// bound is 0.23 % below the DAG heuristic, the relaxation a fifth of it).
//
// A search node is a set of allowed e-nodes. Its bound is the critical-path
// bound over them (ComputeCriticalPathDetail); it is pruned when that bound
// reaches the best cost known (within the ILP's tolerance) or no valid choice
// is left. Otherwise it branches on a necessary class with more than one
// allowed node with an acyclic term (the fewest such first), one child per
// node, the hint's node first. When every necessary class is down to one
// node, those nodes are a valid choice that computes exactly the necessary
// classes, and the bound is its DAG cost: a leaf. Fixing a node makes its
// child classes necessary, so the bound climbs as the search goes down.
//
// Each bound costs O(E log V) plus the necessary classes' bit sets; the
// search is exponential in the worst case and is stopped by a deadline and
// a budget of bounds. Deterministic: the same problem, hint, incumbent and
// budget give the same result (the deadline aside).
#ifndef EGRET_EXTRACT_CRITICAL_PATH_SEARCH_H_
#define EGRET_EXTRACT_CRITICAL_PATH_SEARCH_H_

#include <chrono>
#include <cstdint>
#include <limits>

#include "egret/extract/choice.h"
#include "egret/extract/problem.h"

namespace egret::extract {

struct CriticalPathSearchOptions {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int64_t max_bounds = 100'000;  // bound evaluations, one per search node
};

struct CriticalPathSearchResult {
  // The cheapest choice found below the incumbent's cost (`cost` then is its
  // DAG cost), or an empty choice (`cost` +inf) when none was.
  Choice choice;
  double cost = std::numeric_limits<double>::infinity();
  // The search ended by itself: no valid choice costs less than
  // min(cost, incumbent) by more than the tolerance, 1e-6 * max(1, |that|).
  bool complete = false;
  int64_t bounds = 0;  // evaluations made
};

// Searches `p` (non-negative costs; otherwise returns at once, incomplete)
// for choices cheaper than `incumbent`. `hint` (a valid choice, or null)
// orders each branch's nodes: its node first.
CriticalPathSearchResult SearchByCriticalPath(const ExtractionProblem& p, const Choice* hint,
                                              double incumbent,
                                              const CriticalPathSearchOptions& options);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_CRITICAL_PATH_SEARCH_H_
