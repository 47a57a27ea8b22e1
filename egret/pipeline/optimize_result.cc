#include "egret/pipeline/optimize_result.h"

#include <cmath>
#include <string>

#include "egret/pipeline/changes.h"
#include "nlohmann/json.hpp"

namespace egret {
namespace {

using Json = nlohmann::json;

// A cost, or null when infinite (an op without implementation).
Json CostJson(double c) {
  if (!std::isfinite(c)) return nullptr;
  return c;
}

Json PhaseJson(const PhaseSummary& p) {
  Json j = {{"priority", p.priority},
            {"pass", p.pass},
            {"iterations", p.iterations},
            {"stop_reason", StopReasonName(p.stop_reason)}};
  if (p.skipped) {
    j["skipped"] = true;
    return j;
  }
  Json rules = Json::array();
  for (const RuleActivity& r : p.rules) {
    rules.push_back({{"rule", r.rule},
                     {"matches", r.matches},
                     {"applications", r.applications},
                     {"roots", r.roots},
                     {"search_ms", r.search_ms},
                     {"apply_ms", r.apply_ms}});
  }
  j["matches"] = p.matches;
  j["applications"] = p.applications;
  j["enodes"] = p.enodes;
  j["eclasses"] = p.eclasses;
  j["time_ms"] = p.time_ms;
  j["rules"] = std::move(rules);
  if (p.reseed_dag_cost) j["dag_cost"] = CostJson(*p.reseed_dag_cost);
  return j;
}

Json ProvenanceJson(const ProvenanceSummary& p) {
  Json nodes = Json::array();
  for (const RewrittenNode& n : p.nodes) {
    nodes.push_back({{"node", n.node}, {"op", n.op}, {"from", n.from}, {"rules", n.rules}});
  }
  return {{"rewritten_nodes", p.nodes.size()},
          {"merged_input_nodes", p.merged_input_nodes},
          {"by_rule", p.by_rule},
          {"nodes", std::move(nodes)}};
}

Json RuleIssueJson(const RuleIssue& i) {
  return {{"rule", i.rule},
          {"location", i.location},
          {"type_mismatches", i.type_mismatches},
          {"build_failures", i.build_failures},
          {"messages", i.messages}};
}

}  // namespace

std::vector<std::pair<std::string_view, double>> StageTimes::Named() const {
  std::vector<std::pair<std::string_view, double>> out;
  if (read_ms) out.emplace_back("read", *read_ms);
  out.insert(out.end(), {{"compile", compile_ms},
                         {"seed", seed_ms},
                         {"saturate", saturate_ms},
                         {"extract_and_lower", extract_and_lower_ms},
                         {"memory_plan", memory_plan_ms}});
  if (verify_ms) out.emplace_back("verify", *verify_ms);
  out.emplace_back("total", total_ms);
  return out;
}

nlohmann::json ToJson(const OptimizeResult& r) {
  Json j;
  j["input_nodes"] = r.input_nodes;
  j["output_nodes"] = r.graph.num_nodes();
  j["input_cost"] = CostJson(r.input_cost);
  if (!r.input_cost_missing_op.empty()) j["input_cost_missing_op"] = r.input_cost_missing_op;
  if (!r.input_cost_missing_reason.empty()) {
    j["input_cost_missing_reason"] = r.input_cost_missing_reason;
  }
  j["output_cost"] = CostJson(r.output_cost);
  j["extraction"] = {{"extractor", r.extraction.extractor},
                     {"dag_cost", CostJson(r.extraction.dag_cost)},
                     {"tree_cost", CostJson(r.extraction.tree_cost)},
                     {"stop_reason", r.extraction.StopReason()}};
  const SaturationSummary& s = r.saturation;
  j["enodes"] = s.enodes;
  j["eclasses"] = s.eclasses;
  j["peak_enodes"] = s.peak_enodes;
  j["iterations"] = s.iterations;
  j["stop_reason"] = StopReasonName(s.stop_reason);
  j["phase_mode"] = PhaseModeName(s.phase_mode);
  j["rules_compiled"] = r.rules_compiled;
  Json skipped = Json::array();
  for (const SkippedRuleSummary& k : r.rules_skipped) {
    Json missing = Json::array();
    for (const SkippedRuleSummary::Missing& m : k.missing_functions) {
      missing.push_back({{"function", m.function}, {"form", m.form}, {"location", m.location}});
    }
    skipped.push_back(
        {{"rule", k.rule}, {"location", k.location}, {"missing_functions", std::move(missing)}});
  }
  j["rules_skipped"] = std::move(skipped);
  j["rules_left_out"] = {{"count", r.rules_left_out.count},
                         {"needed", r.rules_left_out.needed},
                         {"device_lowering", r.rules_left_out.device_lowering}};
  j["merge_conflicts"] = s.merge_conflicts;
  Json phases = Json::array();
  for (const PhaseSummary& p : s.phases) phases.push_back(PhaseJson(p));
  j["phases"] = std::move(phases);
  j["memory"] = {{"peak_bytes", r.memory.peak_bytes},
                 {"arena_bytes", r.memory.arena_bytes},
                 {"total_bytes", r.memory.total_bytes},
                 {"naive_peak_bytes", r.memory.naive_peak_bytes},
                 {"lower_bound_bytes", r.memory.lower_bound_bytes},
                 {"input_peak_bytes", r.input_memory.peak_bytes},
                 {"input_naive_peak_bytes", r.input_memory.naive_peak_bytes}};
  Json ops = Json::object();
  for (const auto& [op, c] : r.ops) ops[op] = {{"before", c.before}, {"after", c.after}};
  j["ops"] = std::move(ops);
  Json off_htp = Json::object();
  for (const auto& [op, o] : r.off_htp) off_htp[op] = {{"nodes", o.nodes}, {"reasons", o.reasons}};
  j["off_htp"] = std::move(off_htp);
  j["provenance"] = ProvenanceJson(r.provenance);
  Json changes = Json::array();
  for (const OpChange& c : r.changes) {
    changes.push_back({{"kind", OpChangeKindName(c.kind)},
                       {"op", c.op},
                       {"from_ops", c.from_ops},
                       {"count", c.count}});
  }
  j["changes"] = std::move(changes);
  Json issues = Json::array();
  for (const RuleIssue& i : r.rule_issues) issues.push_back(RuleIssueJson(i));
  j["rule_issues"] = std::move(issues);
  j["provenance_records"] = r.provenance_records;
  Json time_ms = Json::object();
  for (const auto& [stage, ms] : r.time.Named()) time_ms[std::string(stage)] = ms;
  j["time_ms"] = std::move(time_ms);
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  if (r.verify) j["verify"] = ToJson(*r.verify);
  return j;
}

Json ToJson(const VerifySummary& v) {
  Json outputs = Json::array();
  for (const OutputCheck& o : v.outputs) {
    Json out = {{"name", o.label}, {"verified", o.not_verified.empty()}};
    if (o.not_verified.empty()) {
      out["elements"] = o.elements;
      out["mismatches"] = o.diff.mismatches;
      out["max_abs_error"] = o.diff.max_abs;
      out["max_rel_error"] = o.diff.max_rel;
      out["atol"] = o.atol;
      out["atol_source"] = o.atol_source;
    } else {
      out["reason"] = o.not_verified;
    }
    outputs.push_back(std::move(out));
  }
  return {{"status", std::string(VerifyVerdictName(v.verdict))},
          {"ok", v.ok()},
          {"outputs", std::move(outputs)},
          {"reference_peak_live_bytes", v.reference_peak_live_bytes},
          {"candidate_peak_live_bytes", v.candidate_peak_live_bytes},
          {"peak_rss_bytes", v.peak_rss_bytes}};
}

}  // namespace egret
