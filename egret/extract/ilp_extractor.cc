// The ILP extractor's solving (ilp_extractor.h; the model and the cuts are
// ilp_model.cc and ilp_cycles.cc): CBC runs in a child process killed at the
// deadline or past the memory budget; IlpBuilder::Run prunes, builds the
// model, warm-starts CBC and solves in rounds, reading each solution's chosen
// nodes and cutting its cycles until a solution computes the roots without
// one; ExtractIlp computes the tree costs and the warm start around it.
#include "egret/extract/ilp_extractor.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Cbc_C_Interface.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "egret/extract/critical_path_bound.h"
#include "egret/extract/critical_path_search.h"
#include "egret/extract/dag_extractor.h"
#include "egret/extract/ilp_extractor_internal.h"
#include "egret/extract/validate.h"
#include "egret/support/process_memory.h"

namespace egret::extract {
namespace ilp_internal {
namespace {

// What CBC returned.
struct SolveOutcome {
  bool finished = false;       // CBC returned before the deadline
  bool memory_killed = false;  // the child was killed past the memory budget
  bool proven = false;         // it proved its incumbent optimal
  double bound = -kInf;        // its best possible objective
  std::vector<double> best;    // its best solution's first columns (empty: none)
  // Its work: branch-and-bound nodes and simplex iterations (deterministic,
  // unlike its time).
  int64_t nodes = 0, iterations = 0;
};

// Writes all of `data`; false on error.
bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Runs Cbc_solve and reads back the outcome (in-process).
SolveOutcome SolveHere(Cbc_Model* model, int32_t num_columns) {
  SolveOutcome out;
  Cbc_solve(model);
  out.finished = true;
  out.proven = Cbc_isProvenOptimal(model) != 0;
  out.bound = Cbc_getBestPossibleObjValue(model);
  if (const double* sol = Cbc_bestSolution(model); sol != nullptr) {
    out.best.assign(sol, sol + num_columns);
  }
  out.nodes = Cbc_getNodeCount(model);
  out.iterations = Cbc_getIterationCount(model);
  return out;
}

// Solves `model` and returns by `deadline` at the latest. CBC checks its own
// time limit only during branch and bound, not in its preprocessing and root
// processing, so it runs in a child process that is killed at the deadline;
// the child sends its outcome through a pipe. CBC's own limit is set a little
// before the deadline, so that it normally stops by itself with its best
// solution. If no process can be started, CBC runs here under its own limit.
// With a memory budget (> 0), the child's resident bytes above this
// process's are polled every 50 ms and the child is killed past the budget.
SolveOutcome SolveByDeadline(Cbc_Model* model, int32_t num_columns, Clock::time_point deadline,
                             int64_t memory_budget_bytes) {
  const double remaining = SecondsUntil(deadline);
  Cbc_setMaximumSeconds(model, std::max(0.01, remaining - std::min(0.5, 0.1 * remaining)));
  int fds[2];
  if (pipe(fds) != 0) return SolveHere(model, num_columns);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return SolveHere(model, num_columns);
  }
  if (pid == 0) {  // child: solve, send, exit without running any exit handler
    close(fds[0]);
    SolveOutcome o = SolveHere(model, num_columns);
    const double header[5] = {o.proven ? 1.0 : 0.0, o.bound, o.best.empty() ? 0.0 : 1.0,
                              static_cast<double>(o.nodes), static_cast<double>(o.iterations)};
    bool ok = WriteAll(fds[1], header, sizeof(header));
    if (ok && !o.best.empty()) ok = WriteAll(fds[1], o.best.data(), o.best.size() * sizeof(double));
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  std::string data;
  bool eof = false;
  bool memory_killed = false;
  const int64_t parent_bytes = memory_budget_bytes > 0 ? ResidentBytes() : 0;
  const double max_wait_ms = memory_budget_bytes > 0 ? 50.0 : 60000.0;
  while (!eof) {
    const double left = SecondsUntil(deadline);
    if (left <= 0) break;
    if (memory_budget_bytes > 0 && ResidentBytes(pid) - parent_bytes > memory_budget_bytes) {
      memory_killed = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int ready = poll(&pfd, 1, static_cast<int>(std::min(std::ceil(left * 1000), max_wait_ms)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char buf[65536];
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
    } else {
      data.append(buf, static_cast<size_t>(n));
    }
  }
  close(fds[0]);
  if (!eof) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  SolveOutcome out;
  out.memory_killed = memory_killed;
  const size_t header = 5 * sizeof(double);
  if (!eof || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.size() < header) return out;
  double h[5];
  std::memcpy(h, data.data(), header);
  const size_t want = h[2] != 0 ? static_cast<size_t>(num_columns) : 0;
  if (data.size() != header + want * sizeof(double)) return out;
  out.finished = true;
  out.proven = h[0] != 0;
  out.bound = h[1];
  out.nodes = static_cast<int64_t>(h[3]);
  out.iterations = static_cast<int64_t>(h[4]);
  out.best.resize(want);
  if (want > 0) std::memcpy(out.best.data(), data.data() + header, want * sizeof(double));
  return out;
}

}  // namespace

absl::StatusOr<IlpResult> IlpBuilder::Run(Choice warm, Clock::time_point deadline,
                                          int64_t memory_budget_bytes, bool neighbourhoods) {
  const size_t nc = p_.num_classes();
  // Dominance by necessary classes on the whole program only: the
  // neighbourhood search's sub-problems (TENSAT bert's path) stay as they
  // were measured.
  Prune(/*necessary_dominance=*/neighbourhoods);
  Collapse();
  IlpResult result;
  result.necessary_dominated = necessary_dominated_;
  result.choice = warm;
  result.cost = DagCost(p_, warm);
  result.bound = -kInf;

  // Everything collapses: the roots' exact optimum needs no solver.
  bool all_collapsed = true;
  for (ClassId r : p_.roots()) all_collapsed = all_collapsed && collapsible_[r];
  if (all_collapsed) {
    Choice exact(nc);
    for (ClassId r : p_.roots()) Expand(r, &exact);
    exact = RestrictToReachable(p_, exact);
    double cost = DagCost(p_, exact);
    if (cost <= result.cost) {
      result.choice = std::move(exact);
      result.cost = cost;
    }
    result.bound = result.cost;
    result.optimal = true;
    return result;
  }

  // A max-cut e-graph: the eigenvalue bound, which the relaxation and CBC
  // cannot reach in time (ilp_maxcut_bound.cc). When it meets the warm
  // start's cost, no solver runs.
  if (neighbourhoods) {
    // And a local search for its primal side: the DAG heuristic's cut is
    // not optimal on three of extraction-gym's four sparser maxsat files.
    if (std::optional<Choice> cut = MaxCutLocalSearch(p_, result.choice);
        cut.has_value() && ValidateChoice(p_, *cut).ok() && DagCost(p_, *cut) < result.cost) {
      result.choice = *std::move(cut);
      result.cost = DagCost(p_, result.choice);
      warm = result.choice;
    }
    if (std::optional<double> cut_bound = MaxCutLowerBound(p_); cut_bound.has_value()) {
      result.bound = std::max(result.bound, std::min(*cut_bound, result.cost));
    }
  }

  // The critical-path bound (critical_path_bound.h): when it meets the warm
  // start's cost, no solver runs. On the whole program only, like the
  // max-cut bound: the neighbourhood search's sub-problems stay as measured.
  std::optional<CriticalPathBound> path;
  if (neighbourhoods && critical_path_bound_) {
    path = ComputeCriticalPathBound(p_);
    if (path.has_value()) result.bound = std::max(result.bound, std::min(path->bound, result.cost));
  }
  auto share_of_time_left = [&](double share) {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                              std::max(0.0, share * SecondsUntil(deadline))));
  };
  auto gap_closed = [&] { return result.cost <= result.bound + CostTolerance(result.cost); };
  if (gap_closed()) {
    result.optimal = true;  // a bound above met the warm start: nothing to solve
    return result;
  }
  // Close to it (and its necessary classes computed: an e-graph of at most
  // kCriticalPathMaxNecessaryClasses classes): the branch and bound on that
  // bound (critical_path_search.h) before any program is built.
  if (path.has_value() && path->necessary_classes > 0 &&
      result.cost - path->bound <= kPathSearchGap * result.cost) {
    CriticalPathSearchOptions so;
    so.deadline = share_of_time_left(kPathSearchShare);
    so.max_bounds = kPathSearchMaxBounds;
    CriticalPathSearchResult found = SearchByCriticalPath(p_, &result.choice, result.cost, so);
    result.path_search_bounds = found.bounds;
    // Its proof prunes against what it found: trusted only with a choice
    // that validates and costs what it says (or none found).
    const bool found_one = !found.choice.node.empty();
    const bool trusted = !found_one || (ValidateChoice(p_, found.choice).ok() &&
                                        DagCost(p_, found.choice) == found.cost);
    if (found_one && trusted && found.cost < result.cost) {
      result.choice = std::move(found.choice);
      result.cost = found.cost;
      warm = result.choice;
    }
    if (found.complete && trusted) {
      result.bound = result.cost;
      result.optimal = true;
      return result;
    }
  }

  // Per-class child rows on the programs of at most kNeighbourhoodColumns
  // columns, not in the neighbourhood search's sub-problems (see
  // ilp_model.cc).
  BuildModel(/*per_class_child_rows=*/neighbourhoods);
  const int32_t num_binaries = num_binaries_;
  const bool large = neighbourhoods && num_binaries > kNeighbourhoodColumns;
  // Clp runs in this process, so with a memory budget only when a generous
  // estimate of its memory fits the budget (the budget is polled only for
  // CBC's child process).
  auto lp_fits = [&](size_t more_entries) {
    const double bytes = kLpBytesPerElement * static_cast<double>(entries_.size() + more_entries +
                                                                  obj_.size() + row_lb_.size());
    return memory_budget_bytes <= 0 || bytes <= static_cast<double>(memory_budget_bytes);
  };
  // The optimum of a relaxation with valid rows only is a lower bound.
  auto take_relaxation = [&](const LpLoopStats& lp) {
    result.solver_used = result.solver_used || lp.rounds > 0;
    if (std::isfinite(lp.relaxation_after)) {
      result.bound = std::max(result.bound, std::min(lp.relaxation_after, result.cost));
    }
  };
  if (large && !p_.has_negative_costs() && lp_fits(0) &&
      kLargeRelaxationShare * SecondsUntil(deadline) >= kLargeRelaxationMinSeconds) {
    // The plain relaxation first (its optimum is a bound; CBC's root on
    // these programs often returns none): when it reaches the warm start's
    // cost, neither the search nor CBC runs.
    RowPool none;
    take_relaxation(StrengthenByLp(share_of_time_left(kLargeRelaxationShare), none));
  }
  if (large && !gap_closed()) {
    NeighbourhoodStats stats;
    result.choice = ImproveByNeighbourhoods(p_, std::move(result.choice),
                                            share_of_time_left(kNeighbourhoodShare),
                                            memory_budget_bytes, &stats);
    result.cost = DagCost(p_, result.choice);
    result.neighbourhoods = stats.solved;
    result.neighbourhood_improvements = stats.improved;
    result.memory_limit_hit = stats.memory_limit_hit;
    // Not reset: the relaxation above may have run Clp.
    result.solver_used = result.solver_used || stats.solved > 0;
    warm = result.choice;
  }

  // The branching rows (ilp_branching_rows.cc) and the exclusive-user rows
  // (ilp_exclusive_rows.cc) that the LP relaxation violates
  // (ilp_lp_loop.cc), on programs Clp solves quickly in this
  // process; not with negative costs (not measured there), nor in a
  // sub-problem of the neighbourhood search or on the programs large enough
  // for it (TENSAT bert, measured without them).
  if (neighbourhoods && !p_.has_negative_costs() && !large) {
    RowPool pool;
    AddBranchingRows(share_of_time_left(kBranchingShare), &pool);
    const bool exclusive = PrepareExclusiveRows();
    if ((pool.start.size() > 1 || exclusive) && lp_fits(pool.col.size())) {
      // Stopped when the relaxation reaches the warm start's cost: it is
      // then optimal (see take_relaxation and gap_closed).
      const double stop_at = result.cost - CostTolerance(result.cost);
      const LpLoopStats lp =
          StrengthenByLp(share_of_time_left(kLpLoopShare), pool, exclusive, stop_at);
      branching_rows_ = lp.rows_added;
      take_relaxation(lp);
    }
  }

  // Warm start: the warm choice with dominated nodes replaced by their dominators.
  Choice repaired(nc);
  for (ClassId c : ReachableClasses(p_, warm)) {
    ENodeId n = warm.node[c];
    while (n != kNoENode && !keep_[n] && dominator_[n] != kNoENode) n = dominator_[n];
    repaired.node[c] = n;
  }
  repaired = RestrictToReachable(p_, repaired);
  // The columns of an acyclic choice (it satisfies every cycle cut), or empty
  // when the model cannot express it.
  auto columns_of = [&](const Choice& choice) {
    std::vector<double> values(num_binaries, 0.0);
    if (!ValidateChoice(p_, choice).ok()) return std::vector<double>();
    for (ClassId c : ReachableClasses(p_, choice)) {
      if (!in_model_[c]) continue;
      if (collapsible_[c]) {
        values[class_col_begin_[c]] = 1.0;
      } else if (node_col_[choice.node[c]] >= 0) {
        values[node_col_[choice.node[c]]] = 1.0;
      } else {
        return std::vector<double>();
      }
    }
    return values;
  };
  std::vector<double> start_values = columns_of(repaired);

  // Rounds: solve; a solution whose chosen nodes compute the roots without a
  // cycle is optimal when CBC proved it; otherwise every cycle among its chosen
  // nodes becomes a cut (not all of a cycle's nodes can be chosen) and the
  // model is solved again, from the best acyclic choice so far. Each round's
  // proven optimum (or CBC's bound) is a lower bound: the cuts only remove
  // cyclic solutions.
  std::vector<char> ready(nc, 0);
  std::vector<ENodeId> ready_node(nc, kNoENode);
  // A sub-problem already went past the memory budget: so would this one.
  // The relaxation's optimum may already reach the warm start's cost: then
  // it is optimal, and CBC has nothing to prove.
  const bool closed = gap_closed();
  while (!result.memory_limit_hit && !closed) {
    if (SecondsUntil(deadline) <= 0) break;  // pruning, building and earlier rounds count too
    Cbc_Model* model = NewModel();
    Cbc_setLogLevel(model, 0);
    Cbc_setParameter(model, "timeMode", "elapsed");
    Cbc_setAllowableGap(model, 1e-7);
    Cbc_setAllowableFractionGap(model, 0.0);
    // No Gomory cuts: measured on the 99 extraction-gym files at 10 s
    // (docs/history/extraction-rounds.md, "CBC's cut generators"), 76 are proven without
    // them instead of 73, none is lost and no cost changes. Turning off
    // every cut, or probing, clique or zero-half cuts instead, proved fewer
    // files or lost some.
    Cbc_setParameter(model, "gomoryCuts", "off");
    if (max_nodes_ >= 0) {
      // A sub-problem of the neighbourhood search: limited in work, not
      // time, so that the search does not depend on the machine's load;
      // without CBC's preprocessing, which took about a third of its CPU
      // time on TENSAT bert's sub-problems and proved no more of them
      // (docs/history/extraction-rounds.md, "Neighbourhoods sized by work").
      Cbc_setMaximumNodes(model, max_nodes_);
      Cbc_setParameter(model, "preprocess", "off");
    }
    if (!start_values.empty()) {
      std::vector<int> idx(num_binaries);
      for (int32_t j = 0; j < num_binaries; ++j) idx[j] = j;
      Cbc_setMIPStartI(model, num_binaries, idx.data(), start_values.data());
    }
    const SolveOutcome solved = SolveByDeadline(model, num_binaries, deadline, memory_budget_bytes);
    Cbc_deleteModel(model);
    result.solver_used = true;
    ++result.rounds;
    result.cbc_nodes += solved.nodes;
    result.cbc_iterations += solved.iterations;
    result.memory_limit_hit = solved.memory_killed;
    const bool proven = solved.finished && solved.proven;
    if (std::isfinite(solved.bound) && solved.bound > -1e29) {
      result.bound = std::max(result.bound, std::min(solved.bound, result.cost));
    }
    if (solved.best.empty()) break;
    const double* sol = solved.best.data();
    double objective = 0;  // of the relaxation's solution
    for (int32_t j = 0; j < num_binaries; ++j) objective += sol[j] > 0.5 ? obj_[j] : 0.0;
    // The chosen nodes, and which classes they compute without a cycle.
    std::vector<std::vector<ENodeId>> chosen(nc);
    std::vector<char> collapsed_chosen(nc, 0);
    for (int32_t j = 0; j < num_binaries; ++j) {
      if (sol[j] <= 0.5) continue;
      if (col_node_[j] == kNoENode) {
        collapsed_chosen[col_class_[j]] = 1;
      } else {
        chosen[col_class_[j]].push_back(col_node_[j]);
      }
    }
    MarkReady(chosen, collapsed_chosen, ready, ready_node);
    bool roots_ready = true;
    for (ClassId r : p_.roots()) roots_ready = roots_ready && ready[r];
    if (roots_ready) {
      Choice found(nc);
      std::vector<ClassId> stack(p_.roots().begin(), p_.roots().end());
      while (!stack.empty()) {
        const ClassId c = stack.back();
        stack.pop_back();
        if (found.node[c] != kNoENode) continue;
        if (ready_node[c] == kNoENode) {
          Expand(c, &found);
          continue;
        }
        found.node[c] = ready_node[c];
        for (ClassId ch : p_.children(ready_node[c])) stack.push_back(ch);
      }
      found = RestrictToReachable(p_, found);
      if (ValidateChoice(p_, found).ok()) {
        const double cost = DagCost(p_, found);
        if (cost < result.cost) {
          result.choice = std::move(found);
          result.cost = cost;
          start_values = columns_of(result.choice);
        }
      }
      if (proven) {
        // An acyclic choice within the optimum of a relaxation: optimal (up
        // to rounding; with negative costs it may drop a chosen node).
        const double tol = CostTolerance(result.cost);
        result.bound = std::min(result.cost, std::max(result.bound, objective));
        result.optimal = result.cost <= objective + tol;
        if (result.optimal) result.bound = std::max(result.bound, result.cost - tol);
      }
      if (result.optimal || !proven) break;
    }
    const int cuts = AddCycleCuts(chosen, ready);
    result.cycle_cuts += cuts;
    if (cuts == 0) break;  // nothing to cut: keep the best so far
  }
  result.model_columns = static_cast<int64_t>(obj_.size());
  result.model_rows = static_cast<int64_t>(row_lb_.size());
  result.necessary_rows = necessary_rows_;
  result.branching_rows = branching_rows_;
  // Without a proof, the result is the best acyclic choice found, at most
  // its cost above the bound.
  const double tol = CostTolerance(result.cost);
  if (!result.optimal && result.cost <= result.bound + tol) result.optimal = true;
  result.time_limit_hit = !result.optimal && !result.memory_limit_hit;
  return result;
}

}  // namespace ilp_internal

using ilp_internal::Clock;
using ilp_internal::IlpBuilder;

absl::StatusOr<IlpResult> ExtractIlp(const ExtractionProblem& p, const IlpOptions& options) {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                         std::clamp(options.time_limit_seconds, 0.0, 1e9)));
  absl::StatusOr<TreeCosts> tree = ComputeTreeCosts(p);
  if (!tree.ok()) return tree.status();
  for (ClassId r : p.roots()) {
    if (std::isinf(tree->cost[r])) return UncomputableRootError(p, tree->cost, r);
  }
  Choice warm;
  DagOptions::Report warm_report;
  if (options.warm_start.has_value() && ValidateChoice(p, *options.warm_start).ok()) {
    warm = RestrictToReachable(p, *options.warm_start);
  } else {
    DagOptions dag_options;
    dag_options.deadline = deadline;  // the warm start is paid from the time limit too
    dag_options.memory_budget_bytes = options.memory_budget_bytes;
    dag_options.report = &warm_report;
    absl::StatusOr<Choice> dag = ExtractDag(p, dag_options);
    if (!dag.ok()) return dag.status();
    warm = *std::move(dag);
  }
  IlpBuilder builder(p, *tree);
  builder.set_critical_path_bound(options.critical_path_bound);
  absl::StatusOr<IlpResult> result =
      builder.Run(std::move(warm), deadline, options.memory_budget_bytes);
  if (result.ok()) {
    result->memory_limit_hit |= warm_report.memory_limit_hit;
    result->time_limit_hit |= warm_report.time_limit_hit;
    if (absl::Status s = ValidateChoice(p, result->choice); !s.ok()) {
      return absl::InternalError(
          absl::StrCat("ILP extractor produced an invalid choice: ", std::string(s.message())));
    }
  }
  return result;
}

}  // namespace egret::extract
