// DAG-aware extraction heuristic: minimises DAG cost (each chosen class paid
// once, however many users it has).
//
// Three steps: (1) a greedy bottom-up pass where each class keeps the set of
// classes of its cheapest known sub-DAG ("cost sets") and a node is priced as
// its own cost plus the union of its children's sets; (2) the tree-optimal
// choice as a second candidate; (3) a local-improvement pass on both that
// switches one class's node at a time and keeps the switch when the true DAG
// cost drops (reference-counted, so a switch costs only the part of the DAG
// it changes). The better result is returned, so the DAG cost is never worse
// than the tree extractor's. Cost sets grow with the DAG's depth (quadratic
// work on a long chain of blocks; persistent, so their memory grows only with
// what each set adds to its first child's, dag_extractor_cost_sets.h): step 1
// gives up past a work bound, a memory budget or the deadline, leaving the
// tree choice and the local search. It gives up as soon as its work so far
// plus a lower bound on the work still to come passes the work bound
// (dag_extractor_work_bound.h), before making any set when the bound alone
// does: the same result as giving up at the bound, without the work or the
// sets' memory.
#ifndef EGRET_EXTRACT_DAG_EXTRACTOR_H_
#define EGRET_EXTRACT_DAG_EXTRACTOR_H_

#include <chrono>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "egret/extract/choice.h"
#include "egret/extract/problem.h"

namespace egret::extract {

struct DagOptions {
  // Run the local-improvement pass.
  bool local_search = true;
  // Upper bound on the local search's elementary steps per candidate, as a
  // multiple of (nodes + child edges). Deterministic (no clock involved).
  int64_t work_factor = 200;
  // Upper bound on step 1's cost-set entries read and written, as a multiple
  // of (nodes + child edges), plus 2^20. Deterministic. Step 1 gives up as
  // soon as its work so far plus a lower bound on the work still to come
  // passes it (exactly the runs that would pass it), and when its work so
  // far, projected to every node, does.
  int64_t cost_set_work_factor = 64;
  // When set, step 1 gives up at this time and the local search stops at it
  // (keeping what it has improved so far).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Bytes step 1's cost sets may hold at once (0: no bound); past it step 1
  // gives up. The sets are persistent (a set shares its first child's), so
  // they hold about what each set adds: a few entries a class on a chain,
  // more where a node joins large disjoint sub-DAGs; everything else is a few
  // arrays of one entry per class or node.
  int64_t memory_budget_bytes = 0;
  // When set, filled in: which limit, if any, cut a step short.
  struct Report {
    bool cost_sets_gave_up = false;  // step 1 was abandoned (for any reason below)
    bool memory_limit_hit = false;   // ... because of memory_budget_bytes
    bool time_limit_hit = false;     // step 1 or the local search stopped at the deadline
  }* report = nullptr;
};

// The greedy cost-set choice alone (step 1), restricted to the classes
// reachable from the roots. Fails like ExtractTree when a root cannot be
// computed.
absl::StatusOr<Choice> ExtractGreedyDag(const ExtractionProblem& p);

// The full heuristic. Fails like ExtractTree when a root cannot be computed.
absl::StatusOr<Choice> ExtractDag(const ExtractionProblem& p, const DagOptions& options = {});

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_DAG_EXTRACTOR_H_
