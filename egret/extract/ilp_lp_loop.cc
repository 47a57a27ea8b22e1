// The ILP extractor's LP loop (ilp_extractor_internal.h): before the first
// solve, the LP relaxation is solved in Clp (in this process), and the rows
// of a pool that its solution violates join the model, and when none does,
// the exclusive-user rows it violates (ilp_exclusive_rows.cc, separated
// from the solution); repeated until none is violated, the optimum reaches
// the warm start's cost or the time share is spent. With an empty pool and
// no exclusive-user rows (the programs
// above kNeighbourhoodColumns), one solve: the plain relaxation's optimum. Adding every branching
// row instead (ilp_branching_rows.cc) made CBC slower where they do not bind (eggcc-bril
// range_check: 19 rows, none violated, 0.72 -> 1.0 s of CPU), and on rover fir_8_tap_5 CBC gave no
// bound at all with 1,325 of them; the 12 that its relaxation violates raise it from 545 to 4,658
// as all do.
#include <algorithm>
#include <chrono>
#include <vector>

#include "ClpSimplex.hpp"
#include "egret/extract/ilp_extractor_internal.h"

namespace egret::extract::ilp_internal {
namespace {

// A row is violated when its activity is this far below 0.
constexpr double kViolation = 1e-3;

}  // namespace

LpLoopStats IlpBuilder::StrengthenByLp(Clock::time_point until, RowPool& pool, bool exclusive_rows,
                                       double stop_at) {
  LpLoopStats stats;
  const int32_t ncols = static_cast<int32_t>(obj_.size());
  // The LP relaxation in Clp, column-major.
  const ColumnMajor cm = EntriesByColumn();
  const std::vector<CoinBigIndex>& start = cm.start;
  const std::vector<int>& index = cm.index;
  const std::vector<double>& value = cm.value;
  const double big = 1e30;  // Clp's infinity
  std::vector<double> col_ub(col_ub_), row_lb(row_lb_), row_ub(row_ub_);
  for (double& v : col_ub) v = std::min(v, big);
  for (double& v : row_lb) v = std::max(v, -big);
  for (double& v : row_ub) v = std::min(v, big);
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.loadProblem(ncols, static_cast<int>(row_lb.size()), start.data(), index.data(), value.data(),
                 col_lb_.data(), col_ub.data(), obj_.data(), row_lb.data(), row_ub.data());

  pool.used.assign(pool.start.size() - 1, 0);
  std::vector<double> lbs, ubs, coefs;
  std::vector<CoinBigIndex> row_start;
  std::vector<int> cols;
  RowPool fresh;  // the exclusive-user rows of a round
  // Row r (>= 0) of `p` joins the model and this round's batch for Clp.
  auto add_row = [&](const RowPool& p, int64_t r) {
    const int32_t row = AddRow(0, kInf);
    for (int64_t k = p.start[r]; k < p.start[r + 1]; ++k) {
      entries_.push_back({row, p.col[k], p.coef[k]});
      cols.push_back(p.col[k]);
      coefs.push_back(p.coef[k]);
    }
    lbs.push_back(0);
    ubs.push_back(big);
    row_start.push_back(static_cast<CoinBigIndex>(cols.size()));
  };
  for (bool first = true;; first = false) {
    const double left = std::chrono::duration<double>(until - Clock::now()).count();
    if (left <= 0) break;
    // Wall-clock seconds: Clp's maximumSeconds counts this process's CPU
    // time, which under load is a fraction of the wall time the limit is
    // about (TENSAT bert took 20 s at --time-limit 10 at load 10; see
    // docs/history/extraction-rounds.md, "Dominance by necessary classes").
    lp.setMaximumSeconds(-1.0);
    lp.setMaximumWallSeconds(left);
    if (first) {
      lp.initialSolve();
    } else {
      lp.dual(0);  // warm: only rows were added
    }
    if (!lp.isProvenOptimal()) break;
    if (first) stats.relaxation_before = lp.objectiveValue();
    stats.relaxation_after = lp.objectiveValue();
    ++stats.rounds;
    if (stats.relaxation_after >= stop_at) break;
    const double* x = lp.getColSolution();
    lbs.clear();
    ubs.clear();
    coefs.clear();
    cols.clear();
    row_start.assign(1, 0);
    for (size_t r = 0; r + 1 < pool.start.size(); ++r) {
      if (pool.used[r]) continue;
      double activity = 0;
      for (int64_t k = pool.start[r]; k < pool.start[r + 1]; ++k) {
        activity += pool.coef[k] * x[pool.col[k]];
      }
      if (activity >= -kViolation) continue;
      pool.used[r] = 1;
      add_row(pool, static_cast<int64_t>(r));
      ++stats.rows_added;
    }
    // The exclusive-user rows once the pool has none left to add: the
    // branching rows alone close egg math_associate_adds in a few rounds.
    if (exclusive_rows && lbs.empty()) {
      fresh.start.assign(1, 0);
      fresh.col.clear();
      fresh.coef.clear();
      const int64_t found = SeparateExclusiveRows(x, until, &fresh);
      for (int64_t r = 0; r < found; ++r) add_row(fresh, r);
      stats.exclusive_rows += found;
    }
    if (lbs.empty()) break;
    lp.addRows(static_cast<int>(lbs.size()), lbs.data(), ubs.data(), row_start.data(), cols.data(),
               coefs.data());
  }
  return stats;
}

}  // namespace egret::extract::ilp_internal
