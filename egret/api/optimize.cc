#include "egret/api/optimize.h"

#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/api/rules_internal.h"
#include "egret/extract/extractor.h"
#include "egret/pipeline/optimize.h"

namespace egret::api {
namespace {

egret::OptimizeOptions PipelineOptions(const OptimizeOptions& options, extract::ExtractorKind kind,
                                       const Rules& rules) {
  egret::OptimizeOptions o;
  o.option_overrides = options.option_overrides;
  o.limits.iterations = static_cast<size_t>(options.max_iterations);
  o.limits.nodes = static_cast<size_t>(options.max_enodes);
  o.limits.seconds = options.time_limit_seconds;
  o.limits.memory_bytes = static_cast<size_t>(options.memory_limit_bytes);
  o.extractor = kind;
  o.ilp_time_limit_seconds = options.ilp_time_limit_seconds;
  o.phase_mode = options.reseed_between_phases ? PhaseMode::kReseed : PhaseMode::kKeep;
  o.constant_folding = options.constant_folding;
  o.builtin_rewrites = options.builtin_rewrites;
  o.functions = &rules.impl().functions;
  o.progress = options.progress;
  return o;
}

// The typed fields from the pipeline's report (docs/rewrite-semantics.md).
void ReadReport(const nlohmann::json& report, OptimizeResult* out) {
  for (const auto& [op, counts] : report.at("ops").items()) {
    out->ops.push_back({op, counts.at("before").get<int64_t>(), counts.at("after").get<int64_t>()});
  }
  absl::flat_hash_map<std::string, size_t> index;  // rule -> its entry in out->rules
  for (const nlohmann::json& phase : report.at("phases")) {
    if (!phase.contains("rules")) continue;  // skipped after a limit
    for (const nlohmann::json& r : phase.at("rules")) {
      const std::string name = r.at("rule").get<std::string>();
      auto [it, fresh] = index.try_emplace(name, out->rules.size());
      if (fresh) out->rules.push_back({name, 0, 0});
      out->rules[it->second].matches += r.at("matches").get<int64_t>();
      out->rules[it->second].applications += r.at("applications").get<int64_t>();
    }
  }
  for (const nlohmann::json& issue : report.at("rule_issues")) {
    out->rule_issues.push_back({issue.at("rule").get<std::string>(),
                                issue.at("messages").get<std::vector<std::string>>()});
  }
  out->stop_reason = report.at("stop_reason").get<std::string>();
  out->iterations = report.at("iterations").get<int64_t>();
  out->extractor = report.at("extraction").at("extractor").get<std::string>();
  out->input_peak_bytes = report.at("memory").at("input_peak_bytes").get<int64_t>();
  out->total_ms = report.at("time_ms").at("total").get<double>();
}

}  // namespace

std::vector<ExtractorInfo> Extractors() {
  return {{"tree", "optimal tree cost (a shared value is paid at every use)"},
          {"dag", "DAG cost (shared values paid once) by greedy cost sets and local search"},
          {"ilp", "optimal DAG cost by integer linear programming (CBC), within its time limit"}};
}

absl::StatusOr<OptimizeResult> Optimize(const Graph& input, const Rules& rules,
                                        const OptimizeOptions& options, DiagnosticList* diags) {
  DiagnosticList local;
  if (diags == nullptr) diags = &local;
  if (absl::Status s = input.Validate(); !s.ok()) return s;
  std::optional<extract::ExtractorKind> kind = extract::ParseExtractorKind(options.extractor);
  if (!kind) {
    std::vector<std::string> names;
    for (const ExtractorInfo& e : Extractors()) names.push_back(e.name);
    return absl::InvalidArgumentError(absl::StrCat("unknown extractor '", options.extractor,
                                                   "' (known: ", absl::StrJoin(names, ", "), ")"));
  }
  absl::StatusOr<egret::OptimizeResult> r =
      egret::Optimize(input, rules.impl().set, PipelineOptions(options, *kind, rules), diags);
  if (!r.ok()) return r.status();
  OptimizeResult out;
  out.input_cost = r->input_cost;
  out.output_cost = r->output_cost;
  out.peak_bytes = r->memory.peak_bytes;
  ReadReport(r->report, &out);
  out.graph = std::move(r->graph);
  return out;
}

}  // namespace egret::api
