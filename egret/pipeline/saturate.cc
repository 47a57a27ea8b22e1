#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/egraph/runner.h"
#include "egret/pipeline/saturate_internal.h"
#include "egret/rules/pass_groups.h"

namespace egret {
namespace {

using Clock = std::chrono::steady_clock;

// "EARLY", or "EARLY+10" for a priority 10 above the group's value, or the
// number when no group is at or below it.
std::string PhaseName(int64_t priority) {
  std::string_view base = rules::PassGroupAt(priority);
  if (base.empty()) return absl::StrCat(priority);
  std::optional<int64_t> v = rules::PassGroupValue(base);
  if (v && *v == priority) return std::string(base);
  return absl::StrCat(std::string(base), "+", priority - v.value_or(0));
}

// Per-rule totals over phase `p`'s iterations, one per distinct rule name in
// the phase's rule order.
std::vector<RuleActivity> RuleActivityOf(const Phase& phase, size_t p, const RunReport& rep) {
  std::vector<RuleActivity> out;
  absl::flat_hash_map<std::string, size_t> index;
  for (const Rewrite* r : phase.rules) {
    if (index.try_emplace(r->name, out.size()).second) out.push_back(RuleActivity{r->name});
  }
  for (const IterationReport& it : rep.iterations) {
    if (it.phase != p) continue;
    // it.rules[k] is phase.rules[k]'s (unnamed when a limit stopped the
    // iteration before it).
    for (size_t k = 0; k < it.rules.size(); ++k) {
      RuleActivity& a = out[index.at(phase.rules[k]->name)];
      a.matches += it.rules[k].matches;
      a.applications += it.rules[k].applications;
      a.roots += it.rules[k].roots;
      a.search_ms += it.rules[k].search_seconds * 1e3;
      a.apply_ms += it.rules[k].apply_seconds * 1e3;
    }
  }
  return out;
}

PhaseSummary SummarizePhase(const PhaseReport& pr, int64_t priority, const Phase& phase,
                            const RunReport& rep) {
  PhaseSummary ps;
  ps.priority = priority;
  ps.pass = pr.name;
  ps.stop_reason = pr.stop_reason;
  ps.iterations = pr.iterations;
  ps.skipped = pr.skipped;
  if (pr.skipped) return ps;
  ps.rules = RuleActivityOf(phase, pr.index, rep);
  for (const RuleActivity& a : ps.rules) {
    ps.matches += a.matches;
    ps.applications += a.applications;
  }
  ps.enodes = pr.nodes;
  ps.eclasses = pr.classes;
  ps.time_ms = pr.seconds * 1e3;
  return ps;
}

}  // namespace

absl::StatusOr<Saturated> Saturate(Seeded& s, const SaturateRequest& request) {
  const OptimizeOptions& options = *request.options;
  std::vector<std::pair<int64_t, std::vector<size_t>>> groups =
      rules::GroupByPriority(*request.rules);
  if (groups.empty()) groups.push_back({0, {}});  // built-ins and folding only
  std::vector<Phase> phases(groups.size());
  for (size_t p = 0; p < groups.size(); ++p) {
    phases[p].name = PhaseName(groups[p].first);
    for (size_t i : groups[p].second) phases[p].rules.push_back(&(*request.rules)[i].rewrite);
    for (const Rewrite& r : request.extra) phases[p].rules.push_back(&r);
  }

  Saturated out;
  absl::flat_hash_map<size_t, double> reseed_cost;  // by phase
  RunnerOptions ro;
  ro.limits = options.limits;
  ro.limits.seconds = request.seconds;
  if (options.progress) {
    // One line per iteration as it ends, so a long phase shows progress.
    ro.on_iteration = [&](const IterationReport& it) {
      size_t m = 0, a = 0;
      for (const RuleStats& rs : it.rules) {
        m += rs.matches;
        a += rs.applications;
      }
      options.progress(absl::StrFormat(
          "phase %d/%d %s (priority %d) iteration %d: matches=%d applied=%d enodes=%d "
          "eclasses=%d",
          it.phase + 1, groups.size(), phases[it.phase].name, groups[it.phase].first,
          it.iteration + 1, m, a, it.nodes, it.classes));
    };
  }
  ro.on_phase_end = [&](const PhaseReport& pr, bool more) -> absl::Status {
    if (options.progress) {
      options.progress(absl::StrFormat(
          "phase %d/%d %s (priority %d): %s after %d iterations, enodes=%d eclasses=%d",
          pr.index + 1, groups.size(), pr.name, groups[pr.index].first,
          StopReasonName(pr.stop_reason), pr.iterations, pr.nodes, pr.classes));
    }
    if (!more || options.phase_mode != PhaseMode::kReseed) return absl::OkStatus();
    const Clock::time_point t0 = Clock::now();
    absl::StatusOr<double> cost = request.reseed(s);
    if (!cost.ok()) return cost.status();
    reseed_cost[pr.index] = *cost;
    out.reseed_ms += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return absl::OkStatus();
  };

  // Only re-seeding changes the e-graph between phases.
  ro.phase_hook_keeps_egraph = options.phase_mode != PhaseMode::kReseed;
  SaturationSummary& sum = out.summary;
  sum.phase_mode = options.phase_mode;
  sum.peak_enodes = s.eg.num_nodes();
  // s.eg stays the same object when re-seeding replaces its contents.
  const RunReport rep = Runner(s.eg, ro).Run(phases);
  if (!rep.hook_error.ok()) return rep.hook_error;
  for (const PhaseReport& pr : rep.phases) {
    PhaseSummary ps = SummarizePhase(pr, groups[pr.index].first, phases[pr.index], rep);
    if (auto it = reseed_cost.find(pr.index); it != reseed_cost.end()) {
      ps.reseed_dag_cost = it->second;
    }
    sum.peak_enodes = std::max(sum.peak_enodes, ps.enodes);
    sum.phases.push_back(std::move(ps));
  }
  sum.enodes = s.eg.num_nodes();
  sum.eclasses = s.eg.num_classes();
  sum.iterations = rep.iterations.size();
  sum.stop_reason = rep.stop_reason;
  sum.merge_conflicts = rep.conflicts;
  out.saturate_ms = (rep.seconds - rep.hook_seconds) * 1e3;
  return out;
}

}  // namespace egret
