#include "egret/pipeline/optimize.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/backend/lower.h"
#include "egret/egraph/builtin_rewrites.h"
#include "egret/egraph/graph_import.h"
#include "egret/pipeline/costs.h"
#include "egret/pipeline/seed_internal.h"
#include "egret/rules/compiler.h"
#include "egret/rules/pass_groups.h"
#include "egret/support/enum_names.h"

namespace egret {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

nlohmann::json CostJson(double c) {
  if (!std::isfinite(c)) return nullptr;
  return c;
}

struct Extracted {
  Graph graph;
  double dag_cost = 0;
  double tree_cost = 0;
};

absl::StatusOr<Extracted> ExtractGraph(const Seeded& s, const extract::HvxCostModel& model,
                                       const OptimizeOptions& options, bool annotate) {
  absl::StatusOr<EGraphProblem> p =
      BuildProblem(s.eg, model, s.Roots(), [&s](NodeIdx n) { return DescribeENode(s, n); });
  if (!p.ok()) return p.status();
  extract::ExtractOptions eo;
  eo.kind = options.extractor;
  eo.ilp_time_limit_seconds = options.ilp_time_limit_seconds;
  absl::StatusOr<extract::ExtractResult> r = extract::Extract(p->problem, eo);
  if (!r.ok()) return r.status();
  absl::flat_hash_map<Id, NodeIdx> choice;
  for (extract::ClassId c = 0; c < p->problem.num_classes(); ++c) {
    extract::ENodeId n = r->choice[c];
    if (n != extract::kNoENode) choice[p->class_of[c]] = p->node_of[n];
  }
  absl::StatusOr<Graph> g = LowerSeeded(s, std::move(choice), annotate ? &model : nullptr);
  if (!g.ok()) return g.status();
  Extracted out;
  out.graph = *std::move(g);
  out.dag_cost = r->dag_cost;
  out.tree_cost = r->tree_cost;
  return out;
}

nlohmann::json OpsJson(const Graph& before, const Graph& after) {
  std::map<std::string, std::pair<int64_t, int64_t>> counts;
  for (const auto& [op, n] : ComputingOpCounts(before)) counts[op].first = n;
  for (const auto& [op, n] : ComputingOpCounts(after)) counts[op].second = n;
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [op, c] : counts) j[op] = {{"before", c.first}, {"after", c.second}};
  return j;
}

// "provenance": {"rewritten_nodes", "merged_input_nodes", "by_rule": {rule:
// nodes}, "nodes": [{"node", "op", "from", "rules"}]}, listing the nodes that
// rules built or that compute more than their own input node.
nlohmann::json ProvenanceJson(const Graph& g) {
  nlohmann::json nodes = nlohmann::json::array();
  std::map<std::string, int64_t> by_rule;
  int64_t merged = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    const Provenance& p = n.provenance;
    const bool identity = p.rules.empty() && p.from.size() == 1 && p.from[0] == n.name;
    if (p.empty() || identity) continue;
    for (const std::string& r : p.rules) ++by_rule[r];
    if (p.from.size() > 1) merged += static_cast<int64_t>(p.from.size());
    nodes.push_back({{"node", n.name}, {"op", n.op}, {"from", p.from}, {"rules", p.rules}});
  }
  return {{"rewritten_nodes", nodes.size()},
          {"merged_input_nodes", merged},
          {"by_rule", by_rule},
          {"nodes", std::move(nodes)}};
}

std::string PhaseName(int64_t priority) {
  std::string_view base = rules::PassGroupAt(priority);
  if (base.empty()) return absl::StrCat(priority);
  std::optional<int64_t> v = rules::PassGroupValue(base);
  if (v && *v == priority) return std::string(base);
  return absl::StrCat(std::string(base), "+", priority - v.value_or(0));
}

}  // namespace

Options EffectiveOptions(const Graph& input, const OptimizeOptions& options) {
  Options out = input.options();
  for (const auto& [k, v] : options.option_overrides) out[k] = v;
  return out;
}

absl::StatusOr<std::vector<rules::CompiledRule>> CompileForGraph(const Graph& input,
                                                                 const rules::RuleSet& rule_set,
                                                                 const OptimizeOptions& options,
                                                                 DiagnosticList* diags) {
  rules::CompileOptions co;
  co.options = EffectiveOptions(input, options);
  co.functions = options.functions;
  const int errors_before = diags->error_count();
  std::vector<rules::CompiledRule> compiled = rules::CompileRules(rule_set, co, diags);
  if (diags->error_count() > errors_before) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%d rule(s) failed to compile", diags->error_count() - errors_before));
  }
  return compiled;
}

namespace {

constexpr auto kPhaseModeNames = MakeEnumNames<PhaseMode>({
    {PhaseMode::kKeep, "keep"},
    {PhaseMode::kReseed, "reseed"},
});

}  // namespace

std::optional<PhaseMode> ParsePhaseMode(std::string_view name) {
  return kPhaseModeNames.Parse(name);
}

std::string_view PhaseModeName(PhaseMode mode) { return kPhaseModeNames.Name(mode, "reseed"); }

bool ResetPeakRss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

size_t PeakRssBytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  size_t kb = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmHWM: %zu kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb * 1024;
}

absl::StatusOr<OptimizeResult> Optimize(const Graph& input, const rules::RuleSet& rule_set,
                                        const OptimizeOptions& options, DiagnosticList* diags) {
  const Clock::time_point t_start = Clock::now();
  nlohmann::json report;
  nlohmann::json time_ms = nlohmann::json::object();

  // 1. Compile.
  absl::StatusOr<std::vector<rules::CompiledRule>> compiled_or =
      CompileForGraph(input, rule_set, options, diags);
  if (!compiled_or.ok()) return compiled_or.status();
  std::vector<rules::CompiledRule> compiled = *std::move(compiled_or);
  std::vector<Rewrite> extra;
  if (options.builtin_rewrites) extra = BuiltinRewrites(OpTable::Default());
  if (options.constant_folding) {
    absl::StatusOr<Rewrite> fold = ConstantFoldRewrite(options.fold_max_elements);
    if (!fold.ok()) return fold.status();
    extra.push_back(*std::move(fold));
  }
  const extract::HvxCostModel model =
      MakeCostModel(rule_set.ops, options.cost_overrides, EffectiveOptions(input, options), diags);
  const Clock::time_point t_compiled = Clock::now();
  time_ms["compile"] = Ms(t_start, t_compiled);

  // 2. Import.
  std::string missing;
  OptimizeResult result;
  result.input_cost = GraphCost(input, model, &missing);
  absl::StatusOr<Seeded> seeded = Seed(input);
  if (!seeded.ok()) return seeded.status();
  Seeded s = *std::move(seeded);
  const Clock::time_point t_imported = Clock::now();
  time_ms["import"] = Ms(t_compiled, t_imported);

  // 3. Saturate, phase by phase.
  std::vector<std::pair<int64_t, std::vector<size_t>>> groups = rules::GroupByPriority(compiled);
  if (groups.empty()) groups.push_back({0, {}});  // built-ins and folding only
  nlohmann::json phases = nlohmann::json::array();
  std::optional<StopReason> global_stop;
  bool hit_iteration_limit = false;
  size_t total_iterations = 0, conflicts = 0, peak_enodes = s.eg.num_nodes();
  double extract_ms = 0, saturate_ms = 0;
  for (size_t p = 0; p < groups.size(); ++p) {
    const auto& [priority, members] = groups[p];
    Phase phase;
    phase.name = PhaseName(priority);
    for (size_t i : members) phase.rules.push_back(&compiled[i].rewrite);
    for (const Rewrite& r : extra) phase.rules.push_back(&r);
    RunnerOptions ro;
    ro.limits = options.limits;
    const double elapsed = std::chrono::duration<double>(Clock::now() - t_start).count();
    ro.limits.seconds = options.limits.seconds - elapsed;
    nlohmann::json pj;
    pj["priority"] = priority;
    pj["pass"] = phase.name;
    if (ro.limits.seconds <= 0) {
      global_stop = StopReason::kTimeLimit;
      pj["iterations"] = 0;
      pj["stop_reason"] = StopReasonName(StopReason::kTimeLimit);
      pj["skipped"] = true;
      phases.push_back(std::move(pj));
      continue;
    }
    const Clock::time_point t0 = Clock::now();
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
            p + 1, groups.size(), phase.name, priority, it.iteration + 1, m, a, it.nodes,
            it.classes));
      };
    }
    Runner runner(s.eg, ro);
    RunReport rep = runner.Run(absl::Span<const Phase>(&phase, 1));
    saturate_ms += Ms(t0, Clock::now());
    total_iterations += rep.iterations.size();
    conflicts += rep.conflicts;
    peak_enodes = std::max(peak_enodes, s.eg.num_nodes());
    // Per-rule totals over the phase's iterations, in rule order.
    std::vector<std::string> order;
    std::map<std::string, std::pair<size_t, size_t>> per_rule;
    for (const Rewrite* r : phase.rules) {
      if (per_rule.try_emplace(r->name, 0, 0).second) order.push_back(r->name);
    }
    for (const IterationReport& it : rep.iterations) {
      for (const RuleStats& rs : it.rules) {
        per_rule[rs.name].first += rs.matches;
        per_rule[rs.name].second += rs.applications;
      }
    }
    nlohmann::json rj = nlohmann::json::array();
    size_t phase_matches = 0, phase_apps = 0;
    for (const std::string& name : order) {
      const auto& [m, a] = per_rule[name];
      phase_matches += m;
      phase_apps += a;
      rj.push_back({{"rule", name}, {"matches", m}, {"applications", a}});
    }
    const PhaseReport& pr = rep.phases.empty() ? PhaseReport{} : rep.phases[0];
    pj["iterations"] = rep.iterations.size();
    pj["stop_reason"] = StopReasonName(pr.stop_reason);
    pj["matches"] = phase_matches;
    pj["applications"] = phase_apps;
    pj["enodes"] = s.eg.num_nodes();
    pj["eclasses"] = s.eg.num_classes();
    pj["time_ms"] = Ms(t0, Clock::now());
    pj["rules"] = std::move(rj);
    if (options.progress) {
      options.progress(absl::StrFormat(
          "phase %d/%d %s (priority %d): %s after %d iterations, enodes=%d eclasses=%d", p + 1,
          groups.size(), phase.name, priority, StopReasonName(pr.stop_reason),
          rep.iterations.size(), s.eg.num_nodes(), s.eg.num_classes()));
    }
    if (pr.stop_reason == StopReason::kIterationLimit) hit_iteration_limit = true;
    if (rep.stop_reason != StopReason::kSaturated &&
        rep.stop_reason != StopReason::kIterationLimit) {
      global_stop = rep.stop_reason;
    }
    // Re-seed the next phase with the best graph of this one.
    if (options.phase_mode == PhaseMode::kReseed && p + 1 < groups.size() && !global_stop) {
      const Clock::time_point e0 = Clock::now();
      absl::StatusOr<Extracted> ex = ExtractGraph(s, model, options, /*annotate=*/false);
      if (!ex.ok()) return ex.status();
      pj["dag_cost"] = CostJson(ex->dag_cost);
      absl::StatusOr<Seeded> next = Seed(ex->graph);
      if (!next.ok()) return next.status();
      s = *std::move(next);
      extract_ms += Ms(e0, Clock::now());
    }
    phases.push_back(std::move(pj));
    if (global_stop) {
      for (size_t q = p + 1; q < groups.size(); ++q) {
        phases.push_back({{"priority", groups[q].first},
                          {"pass", PhaseName(groups[q].first)},
                          {"iterations", 0},
                          {"stop_reason", StopReasonName(*global_stop)},
                          {"skipped", true}});
      }
      break;
    }
  }
  time_ms["saturate"] = saturate_ms;

  // 4. Extract and lower.
  const Clock::time_point t_ex = Clock::now();
  absl::StatusOr<Extracted> ex = ExtractGraph(s, model, options, /*annotate=*/true);
  if (!ex.ok()) return ex.status();
  time_ms["extract_and_lower"] = Ms(t_ex, Clock::now()) + extract_ms;
  result.graph = std::move(ex->graph);
  result.output_cost = GraphCost(result.graph, model, nullptr);

  // 5. Plan memory.
  const Clock::time_point t_plan = Clock::now();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(result.graph);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<MemoryPlan> input_plan = PlanMemory(input);
  if (!input_plan.ok()) return input_plan.status();
  result.memory = *std::move(plan);
  time_ms["memory_plan"] = Ms(t_plan, Clock::now());

  // Report.
  StopReason stop =
      global_stop ? *global_stop
                  : (hit_iteration_limit ? StopReason::kIterationLimit : StopReason::kSaturated);
  report["input_nodes"] = input.num_nodes();
  report["output_nodes"] = result.graph.num_nodes();
  report["input_cost"] = CostJson(result.input_cost);
  if (!missing.empty()) report["input_cost_missing_op"] = missing;
  report["output_cost"] = CostJson(result.output_cost);
  report["extraction"] = {{"extractor", extract::ExtractorName(options.extractor)},
                          {"dag_cost", CostJson(ex->dag_cost)},
                          {"tree_cost", CostJson(ex->tree_cost)}};
  report["enodes"] = s.eg.num_nodes();
  report["eclasses"] = s.eg.num_classes();
  report["peak_enodes"] = peak_enodes;
  report["iterations"] = total_iterations;
  report["stop_reason"] = StopReasonName(stop);
  report["phase_mode"] = PhaseModeName(options.phase_mode);
  report["rules_compiled"] = compiled.size();
  report["merge_conflicts"] = conflicts;
  report["phases"] = std::move(phases);
  report["memory"] = {{"peak_bytes", result.memory.peak_bytes},
                      {"arena_bytes", result.memory.arena_bytes},
                      {"total_bytes", result.memory.total_bytes},
                      {"naive_peak_bytes", result.memory.naive_peak_bytes},
                      {"lower_bound_bytes", result.memory.lower_bound_bytes},
                      {"input_peak_bytes", input_plan->peak_bytes},
                      {"input_naive_peak_bytes", input_plan->naive_peak_bytes}};
  report["ops"] = OpsJson(input, result.graph);
  report["provenance"] = ProvenanceJson(result.graph);
  nlohmann::json issues = nlohmann::json::array();
  size_t provenance = 0;
  for (const rules::CompiledRule& r : compiled) {
    provenance += r.log->provenance.size();
    if (r.log->type_mismatches == 0 && r.log->build_failures == 0) continue;
    issues.push_back({{"rule", r.label},
                      {"location", r.loc.ToString()},
                      {"type_mismatches", r.log->type_mismatches},
                      {"build_failures", r.log->build_failures},
                      {"messages", r.log->messages}});
  }
  report["rule_issues"] = std::move(issues);
  report["provenance_records"] = provenance;
  time_ms["total"] = Ms(t_start, Clock::now());
  report["time_ms"] = std::move(time_ms);
  report["peak_rss_bytes"] = PeakRssBytes();
  result.report = std::move(report);
  return result;
}

}  // namespace egret
