// Exact DAG-cost extraction as a 0-1 integer program solved by COIN-OR CBC.
//
// Formulation: a binary per e-node; each root class needs a chosen node; the
// chosen nodes of a class that use a child class need a chosen node there,
// one row per class and child class (sum(nodes of c using d) <= sum(nodes
// of d): stronger in the relaxation than a row per node, which let
// alternatives at a fraction each pay a child they share at the largest
// fraction only; on programs of more than 12,000 columns and in the
// search's sub-problems below, one row per node). With negative costs,
// classes also need a chosen user and at most one node each. Cycles are
// forbidden on strongly connected parts of the class graph only, by cycle
// inequalities lifted to classes: for a cycle of classes c_1 -> ... -> c_k ->
// c_1, at most k - 1 of them choose a node that uses the next one. Every
// cycle of at most 5 classes gets its row from the start; when a solution's
// chosen nodes can only compute the roots through a longer cycle, each such
// cycle becomes a row and the program is solved again. A solve's
// proven optimum is a lower bound throughout, so the result's `bound` is
// strong even when the time limit stops the rounds; a solution that computes
// the roots without a cycle is optimal. When every term of a class c computes
// a class d, sum(nodes of d) >= sum(nodes of c) (otherwise the LP relaxation
// pays half of what two alternatives share, once per layer of alternatives).
// When every term of c needs m classes none of which reaches another, the
// chosen nodes below c that reach them have at least m - 1 more child
// classes than nodes (a tree with m leaves); otherwise the relaxation spreads
// a sum over all its bracketings and pays a fraction of each addition.
//
// Before anything is built, the critical-path bound (critical_path_bound.h:
// the roots' necessary classes plus the heaviest path) is compared with the
// warm start's cost; when it meets it, the warm start is optimal and no
// solver runs; when it is within 1 % of it, a branch and bound on that
// bound (critical_path_search.h) runs first, for at most 30 % of the time,
// and returns the optimum when it finishes. Before solving, what cannot matter is pruned: classes
// unreachable from the roots, nodes without an acyclic term, nodes dominated by a node of the same
// class with the same (or, costs being non-negative, a subset of the) child
// classes and no higher cost, nodes dominated by a node of the same class,
// no costlier, whose child classes the dominated node's choice computes
// anyway (non-negative costs; ilp_dominance.cc), and cycle-free parts where
// every class has a single user, which are solved exactly bottom-up and
// enter the program as one variable. An e-graph that encodes a maximum cut
// gets an eigenvalue bound and a local search for its cut (ilp_maxcut_bound.cc). CBC is
// warm-started from the DAG heuristic; its console output is silenced. A program of more than
// 12,000 columns (where CBC's root alone can outlast the limit) first gets most of the time for a
// fix-and-optimize search: sub-problems in which only the classes around one class of the incumbent
// are free, each solved by this same extractor, improve the warm start; the full program is solved
// afterwards from the result. That search is sized by work (e-graph nodes per neighbourhood, CBC's
// branch-and-bound nodes per sub-problem), not by time: its sequence of sub-problems is the same
// under any load, and the time limit only decides how far along it the result is. With non-negative
// costs, the LP relaxation is solved first in Clp (in this process): on smaller programs with the
// branching rows it violates, added in rounds, on larger ones plain. Its optimum is a bound, and
// when it reaches the warm start's cost the result is optimal without CBC (or the search). Clp's
// limit is in wall-clock seconds, like the call's.
//
// The time limit covers the whole call: tree costs, the warm start, pruning
// and building the model are paid from it, and CBC gets what is left. CBC
// checks its limit only in branch and bound, so it runs in a child process
// that is killed at the deadline if it has not returned by then (the result is
// then the warm start, or CBC's incumbent if it stopped by itself, with
// optimal = false).
#ifndef EGRET_EXTRACT_ILP_EXTRACTOR_H_
#define EGRET_EXTRACT_ILP_EXTRACTOR_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "egret/extract/choice.h"
#include "egret/extract/problem.h"

namespace egret::extract {

struct IlpOptions {
  // Wall-clock limit for the whole extraction, seconds.
  double time_limit_seconds = 10.0;
  // Warm start (a valid choice); when absent, ExtractDag's choice is used.
  std::optional<Choice> warm_start;
  // Bytes the extraction may allocate beyond what the process holds when it
  // starts (0: no bound). Checked where memory grows: the warm start's cost
  // sets (DagOptions::memory_budget_bytes), the model's size before it is
  // handed to CBC, the LP relaxation in Clp (in this process: not solved
  // unless 256 bytes per matrix element, column and row fit the budget), and
  // the solver's child process, whose resident memory above the parent's is
  // polled and which is killed past the budget. The
  // result is then the best choice so far, with memory_limit_hit.
  int64_t memory_budget_bytes = 0;
  // The critical-path bound (critical_path_bound.h) first: when it meets the
  // warm start's cost, the result is optimal and no program is built. Off
  // for side-by-side measurements and for tests of the program's rows.
  bool critical_path_bound = true;
};

struct IlpResult {
  Choice choice;     // the best choice found (never worse than the warm start)
  double cost = 0;   // its DAG cost
  double bound = 0;  // proven lower bound on the DAG cost (-inf if none)
  bool optimal = false;
  // Nodes pruned as dominated by necessary classes (a node of the same
  // class, no costlier, whose child classes the pruned node's children
  // compute anyway; see ilp_dominance.cc).
  int64_t necessary_dominated = 0;
  // Bounds evaluated by the critical-path search (0: it did not run).
  int64_t path_search_bounds = 0;
  // What the pruning left for the solver.
  int64_t model_columns = 0;
  int64_t model_rows = 0;  // with the cycle cuts
  // Solves run (each after adding the cycle cuts of the one before) and the
  // cycle cuts added.
  int rounds = 0;
  int64_t cycle_cuts = 0;
  // CBC's work in those solves (that returned): branch-and-bound nodes and
  // simplex iterations, summed.
  int64_t cbc_nodes = 0;
  int64_t cbc_iterations = 0;
  // Rows sum(d) >= sum(c) for a class d that every term of class c computes
  // (they tighten the LP relaxation; see ilp_model.cc).
  int64_t necessary_rows = 0;
  // Branching rows added (a class whose every term needs m classes, none of
  // which reaches another, has chosen nodes below it combining m branches;
  // only those the LP relaxation violates; see ilp_branching_rows.cc).
  int64_t branching_rows = 0;
  bool solver_used = false;  // CBC, or Clp in the LP loop, ran
  // Sub-problems solved by the neighbourhood search (large programs only),
  // and how many of them improved the incumbent.
  int neighbourhoods = 0;
  int neighbourhood_improvements = 0;
  // The memory budget cut the extraction short (see IlpOptions).
  bool memory_limit_hit = false;
  // The time limit cut it short: CBC was stopped, or never started.
  bool time_limit_hit = false;
};

// Fails like ExtractTree when a root cannot be computed, or kInternal if CBC
// misbehaves.
absl::StatusOr<IlpResult> ExtractIlp(const ExtractionProblem& p, const IlpOptions& options = {});

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_ILP_EXTRACTOR_H_
