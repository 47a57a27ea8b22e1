// egret's main job as a library call: a Graph and a RuleSet in, the optimized
// Graph and a typed account of the run out (pipeline/optimize_result.h; its
// ToJson is the `--report` JSON).
//
//   1. compile every valid rule into a rewrite (rules/compiler.h);
//   2. import the graph into an e-graph;
//   3. saturate phase by phase: one phase per distinct rule priority, in
//      ascending order, each with the op table's built-in equivalences
//      (commutativity, associativity, ...) and constant folding, under the
//      runner's limits (iterations per phase; nodes, time for the whole run);
//      between phases either keep the whole e-graph (PhaseMode::kKeep) or
//      extract the best graph and re-seed the next phase with it (kReseed);
//   4. extract the cheapest graph under the HVX cost model (DAG extractor by
//      default) and lower it to a Graph annotated with implementations and
//      costs;
//   5. plan the lowered graph's memory (backend/memory_plan.h).
// The phases run in the egraph runner (egraph/runner.h), whose phase hook
// re-seeds between phases (pipeline/saturate_internal.h).
// docs/rewrite-semantics.md describes the semantics and the report.
#ifndef EGRET_PIPELINE_OPTIMIZE_H_
#define EGRET_PIPELINE_OPTIMIZE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "egret/backend/memory_plan.h"
#include "egret/cost/device_params.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/egraph/runner.h"
#include "egret/extract/extractor.h"
#include "egret/extract/extractor_registry.h"
#include "egret/graph/graph.h"
#include "egret/pipeline/constant_fold.h"
#include "egret/pipeline/optimize_result.h"
#include "egret/pipeline/phase_mode.h"
#include "egret/rules/rule_set.h"
#include "egret/rules_compile/shape_functions.h"
#include "egret/support/diagnostic.h"

namespace egret {

struct OptimizeOptions {
  // `--option name=value`: override the graph's options for OPTION_*.
  Options option_overrides;
  // iterations: per phase; nodes, classes, seconds, memory: the whole run.
  RunnerLimits limits;
  // The extractor: a row of extract::Extractors() (never null).
  const extract::Extractor* extractor = &extract::DefaultExtractor();
  double ilp_time_limit_seconds = 10.0;
  PhaseMode phase_mode = PhaseMode::kKeep;
  // Cost overrides (see cost/cost_table.h) applied over the rule files'
  // registrations.
  cost::CostOverrides cost_overrides;
  // Price nodes in predicted nanoseconds on this device (the latency model,
  // cost/latency_model.h) instead of the rule-cost model's HVX cycles; null:
  // the rule-cost model.
  std::shared_ptr<const cost::DeviceParams> device;
  // Price an op with no HTP implementation as a CPU fallback (off-HTP, see
  // cost/hvx_cost_model.h); false makes such an op unchoosable, so a graph
  // that needs one fails (`egret optimize --htp-only`).
  bool cpu_fallback = true;
  bool constant_folding = true;
  int64_t fold_max_elements = kDefaultFoldMaxElements;
  bool builtin_rewrites = true;
  // External function implementations; null: the built-ins.
  const rules::FunctionLibrary* functions = nullptr;
  // The switches of the run (`--flag NAME`; rules/rule_flags.h: RuleFlag bits
  // of RunFlags()): a rule with a gating flag (relaxed_precision_flag,
  // fold_relu_flag) runs only when its switch is on.
  uint32_t rule_flags = 0;
  // False: a graph for other runtimes (an ONNX file): the rules of the HTP's
  // device-lowering passes (rules/pass_groups.h: tiling, memory placement)
  // are left out, and counted in OptimizeResult::rules_left_out.
  bool device_lowering = true;
  // A graph for a file: where the result would hold a constant folded from
  // a Dequantize of integer weights, keep the integers and the Dequantize
  // (pipeline/keep_quantized.h).
  bool keep_quantized_weights = false;
  // Called with one line per iteration and per phase (no newline).
  std::function<void(const std::string&)> progress;
};

// Rules that fail to compile are reported in `diags` and make the call fail
// (kFailedPrecondition). A graph output that no implementation can compute
// fails with kInvalidArgument naming the op and class. When
// options.limits.should_stop stops saturation, the call fails with
// kCancelled (nothing is extracted).
absl::StatusOr<OptimizeResult> Optimize(const Graph& input, const rules::RuleSet& rules,
                                        const OptimizeOptions& options, DiagnosticList* diags);

// Peak resident set size of this process (VmHWM), or 0 when unknown.
size_t PeakRssBytes();
// Resets this process's peak RSS to its current RSS (Linux: "5" to
// /proc/self/clear_refs); false when that is not possible.
bool ResetPeakRss();

}  // namespace egret

#endif  // EGRET_PIPELINE_OPTIMIZE_H_
