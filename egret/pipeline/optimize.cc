#include "egret/pipeline/optimize.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/str_format.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/make_cost_model.h"
#include "egret/egraph/builtin_rewrites.h"
#include "egret/extract_egraph/egraph_problem.h"
#include "egret/extract_egraph/realized_extract.h"
#include "egret/pipeline/changes.h"
#include "egret/pipeline/keep_quantized.h"
#include "egret/pipeline/op_counts.h"
#include "egret/pipeline/saturate_internal.h"
#include "egret/pipeline/seed_internal.h"
#include "egret/pipeline/summarize_internal.h"
#include "egret/pipeline/uniform_constant.h"
#include "egret/rules/rule_flags.h"
#include "egret/rules_compile/compiler.h"
#include "egret/support/process_memory.h"
#include "egret/support/process_time.h"
#include "egret/support/status_macros.h"

namespace egret {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds since the last Lap (or construction); CpuLap likewise in
// process CPU time (its own mark, independent of Lap's).
class StageClock {
 public:
  double Lap() {
    const Clock::time_point now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }
  double CpuLap() {
    const double now = ProcessCpuMs();
    const double ms = now - last_cpu_;
    last_cpu_ = now;
    return ms;
  }
  double CpuSinceStartMs() const { return ProcessCpuMs() - start_cpu_; }
  double SinceStartMs() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  }

 private:
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
  double start_cpu_ = ProcessCpuMs();
  double last_cpu_ = start_cpu_;
};

// What saturation and extraction run with.
struct Prepared {
  std::vector<rules::CompiledRule> rules;
  std::vector<SkippedRuleSummary> skipped;  // rules left out (no implementation of a function)
  std::vector<Rewrite> extra;               // built-in equivalences and constant folding
  cost::HvxCostModel model;
};

absl::StatusOr<Prepared> Prepare(const Graph& input, const rules::RuleSet& rule_set,
                                 const OptimizeOptions& options, DiagnosticList* diags) {
  std::vector<SkippedRuleSummary> skipped;
  EGRET_ASSIGN_OR_RETURN(std::vector<rules::CompiledRule> compiled,
                         CompileForGraph(input, rule_set, options, diags, &skipped));
  std::vector<Rewrite> extra;
  if (options.builtin_rewrites) {
    extra = BuiltinRewrites(OpTable::Default());
    for (Rewrite& r : UniformConstantRewrites()) extra.push_back(std::move(r));
  }
  if (options.constant_folding) {
    EGRET_ASSIGN_OR_RETURN(
        Rewrite fold, ConstantFoldRewrite(FoldPolicyFor(rule_set.ops, options.fold_max_elements)));
    extra.push_back(std::move(fold));
  }
  cost::HvxCostModel model =
      cost::MakeCostModel(rule_set.ops, options.cost_overrides, EffectiveOptions(input, options),
                          diags, options.device);
  model.set_cpu_fallback(options.cpu_fallback);
  return Prepared{std::move(compiled), std::move(skipped), std::move(extra), std::move(model)};
}

struct Extracted {
  Graph graph;
  double dag_cost = 0;
  double tree_cost = 0;
  bool time_limit_hit = false;    // the extractor stopped at the deadline
  bool memory_limit_hit = false;  // ... or at the memory limit
};

// Extracts the cheapest graph of `s` with options.extractor and lowers it
// (annotated with implementations and costs when `annotate`); the extractor
// stops early at `deadline` where it can (extract/extractor.h). Its
// sub-stages are timed in `laps`.
absl::StatusOr<Extracted> ExtractGraph(const Seeded& s, const cost::HvxCostModel& model,
                                       const OptimizeOptions& options, bool annotate,
                                       std::chrono::steady_clock::time_point deadline,
                                       CpuLaps& laps) {
  absl::StatusOr<extract::EGraphProblem> p = extract::BuildProblem(
      s.eg, model, s.Roots(), [&s](NodeIdx n) { return DescribeENode(s, n); });
  if (!p.ok()) return p.status();
  laps.Lap("problem");
  extract::ExtractOptions eo;
  eo.time_limit_seconds = options.ilp_time_limit_seconds;
  eo.deadline = deadline;
  // What the memory limit leaves after the e-graph and the problem.
  eo.memory_budget_bytes = MemoryHeadroom(static_cast<int64_t>(options.limits.memory_bytes));
  // Epilogues the choice does not realize are paid and the choice made again
  // (extract_egraph/realized_extract.h).
  absl::StatusOr<extract::RealizedExtraction> rx =
      extract::ExtractRealized(*p, *options.extractor, eo);
  if (!rx.ok()) return rx.status();
  const extract::ExtractResult* r = &rx->result;
  absl::flat_hash_map<Id, NodeIdx> choice;
  for (extract::ClassId c = 0; c < p->problem.num_classes(); ++c) {
    extract::ENodeId n = r->choice[c];
    if (n != extract::kNoENode) choice[p->class_of[c]] = p->node_of[n];
  }
  Extracted out{Graph(), r->dag_cost, r->tree_cost, r->time_limit_hit, r->memory_limit_hit};
  // The problem (tens of bytes an e-node) is not needed to lower: freed
  // first, so it and the lowered graph are never held at once.
  *p = extract::EGraphProblem();
  laps.Lap("extract");
  if (annotate && options.keep_quantized_weights) PreferQuantizedConstants(s.eg, &choice);
  absl::StatusOr<Graph> g = LowerSeeded(s, std::move(choice), annotate ? &model : nullptr, &laps);
  if (!g.ok()) return g.status();
  out.graph = *std::move(g);
  return out;
}

// PhaseMode::kReseed's step between phases: `s` becomes a fresh seeding of
// its best graph, whose DAG cost is returned.
absl::StatusOr<double> Reseed(Seeded& s, const cost::HvxCostModel& model,
                              const OptimizeOptions& options,
                              std::chrono::steady_clock::time_point deadline) {
  CpuLaps untimed(nullptr);  // part of saturation's time
  EGRET_ASSIGN_OR_RETURN(Extracted ex,
                         ExtractGraph(s, model, options, /*annotate=*/false, deadline, untimed));
  EGRET_ASSIGN_OR_RETURN(s, Seed(ex.graph));
  return ex.dag_cost;
}

// The memory plans of the output graph (result->memory) and of the input.
absl::Status PlanMemories(const Graph& input, OptimizeResult* result, CpuLaps& laps) {
  EGRET_ASSIGN_OR_RETURN(result->memory, PlanMemory(result->graph));
  laps.Lap("plan_output");
  // Only the input's peaks are reported: its buffers are not placed.
  EGRET_ASSIGN_OR_RETURN(const MemoryPeaks input_peaks, PlanMemoryPeaks(input));
  laps.Lap("plan_input");
  result->input_memory = {input_peaks.peak_bytes, input_peaks.naive_peak_bytes};
  return absl::OkStatus();
}

}  // namespace

Options EffectiveOptions(const Graph& input, const OptimizeOptions& options) {
  Options out = input.options();
  for (const auto& [k, v] : options.option_overrides) out[k] = v;
  return out;
}

absl::StatusOr<std::vector<rules::CompiledRule>> CompileForGraph(
    const Graph& input, const rules::RuleSet& rule_set, const OptimizeOptions& options,
    DiagnosticList* diags, std::vector<SkippedRuleSummary>* skipped) {
  rules::CompileOptions co;
  co.options = EffectiveOptions(input, options);
  co.functions = options.functions;
  co.rule_flags = options.rule_flags;
  co.device_lowering = options.device_lowering;
  const int errors_before = diags->error_count();
  std::vector<rules::SkippedRule> left_out;
  std::vector<rules::CompiledRule> compiled = rules::CompileRules(rule_set, co, diags, &left_out);
  if (skipped != nullptr) {
    for (const rules::SkippedRule& r : left_out) {
      SkippedRuleSummary k{r.rule, r.loc.ToString(), {}};
      for (const rules::UnboundCall& c : r.calls) {
        k.missing_functions.push_back(
            {c.function, std::string(rules::ExprKindName(c.form)), c.origin.loc.ToString()});
      }
      skipped->push_back(std::move(k));
    }
  }
  if (diags->error_count() > errors_before) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%d rule(s) failed to compile", diags->error_count() - errors_before));
  }
  return compiled;
}

bool ResetPeakRss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

size_t PeakRssBytes() { return static_cast<size_t>(PeakResidentBytes()); }

absl::StatusOr<OptimizeResult> Optimize(const Graph& input, const rules::RuleSet& rule_set,
                                        const OptimizeOptions& options, DiagnosticList* diags) {
  StageClock clock;
  // The time limit covers the whole call: saturation and extraction.
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(std::clamp(options.limits.seconds, 0.0, 1e9)));
  OptimizeResult result;
  StageTimes& time = result.time;
  StageTimes& cpu = result.cpu_time;

  EGRET_ASSIGN_OR_RETURN(const Prepared prep, Prepare(input, rule_set, options, diags));
  time.compile_ms = clock.Lap();
  cpu.compile_ms = clock.CpuLap();

  result.input_nodes = input.num_nodes();
  CpuLaps seed_laps(&result.substage_cpu_ms);
  cost::UncomputableNode missing;
  result.input_cost = cost::GraphCost(input, prep.model, &missing);
  result.input_cost_missing_op = std::move(missing.op);
  result.input_cost_missing_reason = std::move(missing.reason);
  seed_laps.Lap("input_cost");
  EGRET_ASSIGN_OR_RETURN(Seeded s, Seed(input, &seed_laps));
  time.seed_ms = clock.Lap();
  cpu.seed_ms = clock.CpuLap();

  SaturateRequest sr;
  sr.rules = &prep.rules;
  sr.extra = prep.extra;
  sr.options = &options;
  sr.seconds = options.limits.seconds - clock.SinceStartMs() / 1e3;
  sr.reseed = [&](Seeded& current) { return Reseed(current, prep.model, options, deadline); };
  EGRET_ASSIGN_OR_RETURN(Saturated sat, Saturate(s, sr));
  result.saturation = std::move(sat.summary);
  time.saturate_ms = sat.saturate_ms;
  clock.Lap();
  cpu.saturate_ms = clock.CpuLap();  // re-seeding included
  // The caller asked to stop (options.limits.should_stop): nothing is extracted.
  if (result.saturation.stop_reason == StopReason::kCancelled) {
    return absl::CancelledError("optimization cancelled");
  }

  CpuLaps laps(&result.substage_cpu_ms);
  EGRET_ASSIGN_OR_RETURN(Extracted ex,
                         ExtractGraph(s, prep.model, options, /*annotate=*/true, deadline, laps));
  // Nothing below reads the e-graph or the seeding's names and sources: freed
  // here (its time counted in extract+lower) so the memory plans and the
  // summaries do not run on top of it (the heap peak of a large graph was
  // there, massif).
  { const Seeded released = std::move(s); }
  laps.Lap("release");
  result.graph = std::move(ex.graph);
  result.extraction = {std::string(options.extractor->name), ex.dag_cost, ex.tree_cost};
  // Past the deadline, the extractor returned its best so far (or saturation
  // used up the time and extraction had none left to improve).
  result.extraction.time_limit_hit =
      ex.time_limit_hit || std::chrono::steady_clock::now() >= deadline;
  result.extraction.memory_limit_hit = ex.memory_limit_hit;
  time.extract_and_lower_ms = clock.Lap() + sat.reseed_ms;
  cpu.extract_and_lower_ms = clock.CpuLap();
  result.output_cost = cost::GraphCost(result.graph, prep.model, nullptr);

  clock.Lap();
  clock.CpuLap();
  laps.Lap("output_cost");
  EGRET_RETURN_IF_ERROR(PlanMemories(input, &result, laps));
  time.memory_plan_ms = clock.Lap();
  cpu.memory_plan_ms = clock.CpuLap();

  result.rules_compiled = prep.rules.size();
  result.rules_skipped = prep.skipped;
  result.rules_left_out =
      rules::RulesLeftOut(rule_set, options.rule_flags, options.device_lowering);
  result.provenance_records = ProvenanceRecordsOf(prep.rules);
  result.rule_issues = RuleIssuesOf(prep.rules);
  result.ops = OpCountChanges(input, result.graph);
  result.off_htp = OffHtpOpsOf(result.graph);
  result.provenance = SummarizeProvenance(result.graph);
  result.changes = DescribeChanges(input, result.provenance);
  time.total_ms = clock.SinceStartMs();
  cpu.total_ms = clock.CpuSinceStartMs();
  result.peak_rss_bytes = PeakRssBytes();
  return result;
}

}  // namespace egret
