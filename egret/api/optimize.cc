#include "egret/api/optimize.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "egret/api/rules_internal.h"
#include "egret/cost/device_params.h"
#include "egret/extract/extractor_registry.h"
#include "egret/pipeline/changes.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules/rule_flags.h"
#include "egret/support/status_macros.h"

namespace egret::api {
namespace {

egret::OptimizeOptions PipelineOptions(const OptimizeOptions& options,
                                       const extract::Extractor* extractor, const Rules& rules,
                                       uint32_t rule_flags) {
  egret::OptimizeOptions o;
  o.rule_flags = rule_flags;
  o.option_overrides = options.option_overrides;
  o.limits.iterations = static_cast<size_t>(options.max_iterations);
  o.limits.nodes = static_cast<size_t>(options.max_enodes);
  o.limits.seconds = options.time_limit_seconds;
  o.limits.memory_bytes = static_cast<size_t>(options.memory_limit_bytes);
  o.limits.should_stop = options.should_stop;
  o.extractor = extractor;
  o.ilp_time_limit_seconds = options.ilp_time_limit_seconds;
  o.phase_mode = options.reseed_between_phases ? PhaseMode::kReseed : PhaseMode::kKeep;
  o.constant_folding = options.constant_folding;
  o.builtin_rewrites = options.builtin_rewrites;
  o.cpu_fallback = !options.htp_only;
  o.functions = &rules.impl().functions;
  o.progress = options.progress;
  o.device_lowering = !options.for_other_runtimes;
  o.keep_quantized_weights = options.for_other_runtimes;
  return o;
}

// The API's result from the pipeline's typed result.
OptimizeResult FromPipelineResult(egret::OptimizeResult r) {
  OptimizeResult out;
  out.input_cost = r.input_cost;
  out.output_cost = r.output_cost;
  out.peak_bytes = r.memory.peak_bytes;
  for (const auto& [op, counts] : r.ops) out.ops.push_back({op, counts.before, counts.after});
  for (auto& [op, o] : r.off_htp) out.off_htp.push_back({op, o.nodes, std::move(o.reasons)});
  absl::flat_hash_map<std::string, size_t> index;  // rule -> its entry in out.rules
  for (const PhaseSummary& phase : r.saturation.phases) {
    for (const RuleActivity& a : phase.rules) {  // none for a phase skipped after a limit
      auto [it, fresh] = index.try_emplace(a.rule, out.rules.size());
      if (fresh) out.rules.push_back({a.rule, 0, 0});
      out.rules[it->second].matches += static_cast<int64_t>(a.matches);
      out.rules[it->second].applications += static_cast<int64_t>(a.applications);
    }
  }
  for (RuleIssue& issue : r.rule_issues) {
    out.rule_issues.push_back({std::move(issue.rule), std::move(issue.messages)});
  }
  for (SkippedRuleSummary& k : r.rules_skipped) {
    std::vector<std::string> reasons;
    for (const SkippedRuleSummary::Missing& m : k.missing_functions) {
      reasons.push_back(absl::StrCat(m.form, " function '", m.function, "' (", m.location, ")"));
    }
    out.skipped_rules.push_back({std::move(k.rule), std::move(reasons)});
  }
  out.rules_left_out = static_cast<int64_t>(r.rules_left_out.count);
  out.rules_left_out_need = std::move(r.rules_left_out.needed);
  out.rules_left_out_device_lowering = static_cast<int64_t>(r.rules_left_out.device_lowering);
  for (const OpChange& c : r.changes) {
    out.changes.push_back({std::string(OpChangeKindName(c.kind)), c.op, c.from_ops, c.count});
  }
  out.stop_reason = std::string(StopReasonName(r.saturation.stop_reason));
  out.iterations = static_cast<int64_t>(r.saturation.iterations);
  out.extractor = std::move(r.extraction.extractor);
  out.input_peak_bytes = r.input_memory.peak_bytes;
  out.total_ms = r.time.total_ms;
  out.graph = std::move(r.graph);
  return out;
}

}  // namespace

std::vector<ExtractorInfo> Extractors() {
  std::vector<ExtractorInfo> out;
  for (const extract::Extractor& e : extract::Extractors()) {
    out.push_back({std::string(e.name), std::string(e.description)});
  }
  return out;
}

absl::StatusOr<OptimizeResult> Optimize(const Graph& input, const Rules& rules,
                                        const OptimizeOptions& options, DiagnosticList* diags) {
  DiagnosticList local;
  if (diags == nullptr) diags = &local;
  if (absl::Status s = input.Validate(); !s.ok()) return s;
  EGRET_ASSIGN_OR_RETURN(const extract::Extractor* extractor,
                         extract::LookupExtractor(options.extractor));
  EGRET_ASSIGN_OR_RETURN(const uint32_t rule_flags, rules::ParseRunFlags(options.rule_flags));
  egret::OptimizeOptions pipeline = PipelineOptions(options, extractor, rules, rule_flags);
  if (!options.device_file.empty()) {
    // A file path: no directory of shipped devices is searched.
    EGRET_ASSIGN_OR_RETURN(cost::DeviceParams device, cost::LoadDeviceFile(options.device_file));
    pipeline.device = std::make_shared<const cost::DeviceParams>(std::move(device));
  }
  EGRET_ASSIGN_OR_RETURN(egret::OptimizeResult r,
                         egret::Optimize(input, rules.impl().set, pipeline, diags));
  return FromPipelineResult(std::move(r));
}

}  // namespace egret::api
