// Step 1 of the DAG extractor (dag_extractor.h): the greedy cost-set pass.
// Internal to the extract stage (not installed).
//
// Each class keeps the set of classes of its cheapest known sub-DAG ("cost
// set": for every class of it, the node chosen when the set was made) and a
// node is priced as its own cost plus the costs of the union of its
// children's sets. The sets grow with the DAG's depth, so on a long chain the
// pass reads a quadratic number of entries; the limits bound that work, the
// bytes the sets hold and the time.
//
// The sets are persistent: the set made for node n is [n] ++ (its first
// child's set, shared, not copied) ++ (the entries of its other children's
// sets not already in it), so each set costs only what it adds over its
// first child's (a few entries on a chain instead of the whole depth). A set
// is walked in the order the flat list [n] ++ first child's ++ additions
// would have, so every sum adds the same costs in the same order as a flat
// representation: the choices are the same.
#ifndef EGRET_EXTRACT_DAG_EXTRACTOR_COST_SETS_H_
#define EGRET_EXTRACT_DAG_EXTRACTOR_COST_SETS_H_

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>

#include "egret/extract/choice.h"
#include "egret/extract/dag_extractor.h"
#include "egret/extract/problem.h"

namespace egret::extract {

struct CostSetLimits {
  // Set entries read (per priced node: the sizes of its children's sets) and
  // made (per new set: its size), as a flat representation would read and
  // copy them; past it the pass gives up. Deterministic.
  int64_t max_work = std::numeric_limits<int64_t>::max();
  // Bytes the persistent sets may hold at once (0: no bound).
  int64_t max_bytes = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// The cost-set choice for every class it can compute, or nullopt when a limit
// stopped it (said in `report`, which may be null). With a work bound, gives
// up exactly when the whole run would pass it, as soon as the work done plus
// a lower bound on the work still to come (dag_extractor_work_bound.h)
// does: before making any set when the bound alone does. (And, as before,
// when the work so far, projected to every node, passes it.)
std::optional<Choice> GreedyCostSets(const ExtractionProblem& p, const CostSetLimits& limits = {},
                                     DagOptions::Report* report = nullptr);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_DAG_EXTRACTOR_COST_SETS_H_
