// What Optimize (pipeline/optimize.h) returns: the optimized graph and a typed
// account of the run (saturation phases, extraction, memory, op counts,
// provenance, rule issues, stage times).
//
// ToJson renders it as the JSON that `egret optimize --report FILE` writes;
// docs/rewrite-semantics.md ("Report") lists its keys. Each field below names
// the key it becomes, so a program reads the field and a script reads the key.
#ifndef EGRET_PIPELINE_OPTIMIZE_RESULT_H_
#define EGRET_PIPELINE_OPTIMIZE_RESULT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "egret/backend/memory_plan.h"
#include "egret/egraph/runner.h"
#include "egret/executor/verify.h"
#include "egret/graph/graph.h"
#include "egret/pipeline/op_counts.h"
#include "egret/pipeline/phase_mode.h"
#include "egret/rules/rule_flags.h"
#include "nlohmann/json_fwd.hpp"

namespace egret {

// One rule's totals over the iterations of a phase ("phases[].rules[]").
struct RuleActivity {
  std::string rule;         // "rule": its label ("PASS@file:line") or built-in name
  size_t matches = 0;       // "matches": matches that passed the guard
  size_t applications = 0;  // "applications": matches that changed the e-graph
  // Where the phase's time went, for finding the rules that cost it:
  size_t roots = 0;  // "roots": candidate root classes searched
  // "search_ms": searching, with the guard. A rule searched over every class
  // with its root op also matches the later rules of the iteration with that
  // root op there, and holds that time (RunnerOptions::search_ahead).
  double search_ms = 0;
  double apply_ms = 0;  // "apply_ms": building and merging the results
};

// One saturation phase: the rules of one priority, plus the built-in
// equivalences and constant folding ("phases[]").
struct PhaseSummary {
  int64_t priority = 0;  // "priority"
  std::string pass;      // "pass": its pass group, e.g. "EARLY" or "EARLY+10"
  StopReason stop_reason = StopReason::kSaturated;  // "stop_reason"
  size_t iterations = 0;                            // "iterations"
  // "skipped": not run, because an earlier phase ended the run (stop_reason
  // says why) or the time limit had passed when it was due. The fields below
  // are then zero and left out of the JSON.
  bool skipped = false;
  size_t matches = 0;       // "matches": summed over `rules`
  size_t applications = 0;  // "applications": summed over `rules`
  size_t enodes = 0;        // "enodes": e-graph size at the phase's end
  size_t eclasses = 0;      // "eclasses"
  double time_ms = 0;       // "time_ms"
  // "rules": one per distinct rule name, in the phase's rule order.
  std::vector<RuleActivity> rules;
  // "dag_cost", only with PhaseMode::kReseed when a next phase was re-seeded:
  // the DAG cost of the graph extracted to seed it (+inf, JSON null, when
  // that graph uses an op without implementation).
  std::optional<double> reseed_dag_cost;
};

// Equality saturation as a whole.
struct SaturationSummary {
  size_t enodes = 0;       // "enodes": final e-graph size
  size_t eclasses = 0;     // "eclasses"
  size_t peak_enodes = 0;  // "peak_enodes": the largest e-graph of the run
  size_t iterations = 0;   // "iterations": over all phases
  // "stop_reason": the limit that ended the run; else IterationLimit when a
  // phase hit its iteration limit; else Saturated.
  StopReason stop_reason = StopReason::kSaturated;
  PhaseMode phase_mode = PhaseMode::kKeep;  // "phase_mode"
  size_t merge_conflicts = 0;               // "merge_conflicts": merges refused (type clash)
  std::vector<PhaseSummary> phases;         // "phases": in ascending priority
};

// How the final graph was chosen ("extraction").
struct ExtractionSummary {
  std::string extractor;  // "extractor": its name, e.g. "dag"
  // "dag_cost" / "tree_cost": the extracted choice's cost with every node paid
  // once / once per use (JSON null when infinite).
  double dag_cost = 0;
  double tree_cost = 0;
  // "stop_reason": "MemoryLimit" when the extractor stopped a step at the
  // run's memory limit (extract::ExtractOptions::memory_budget_bytes: what
  // the limit leaves after the e-graph), "TimeLimit" when extraction ended at
  // the run's time limit (OptimizeOptions::limits.seconds covers saturation
  // and extraction); either way with its best choice so far. Else "Finished".
  bool time_limit_hit = false;
  bool memory_limit_hit = false;
  std::string_view StopReason() const {
    return memory_limit_hit ? "MemoryLimit" : time_limit_hit ? "TimeLimit" : "Finished";
  }
};

// The input graph's memory under the same planner as the output's
// ("memory": "input_peak_bytes", "input_naive_peak_bytes").
struct InputMemory {
  int64_t peak_bytes = 0;        // planned schedule
  int64_t naive_peak_bytes = 0;  // file order
};

// How many nodes of one computing op the input and output graphs have ("ops").
struct OpCount {
  int64_t before = 0;  // "before"
  int64_t after = 0;   // "after"
};

// An output node that rules built, or that computes more than its own input
// node ("provenance": "nodes[]").
struct RewrittenNode {
  std::string node;                // "node": its name
  std::string op;                  // "op"
  std::vector<std::string> from;   // "from": the input nodes it stands for
  std::vector<std::string> rules;  // "rules": the rules that built it
};

// One line of what the optimization did, in ops ("changes[]";
// pipeline/changes.h): `count` nodes of the result of `kind` ("fused",
// "recognized", "folded", "rewrote", "tiled") with op `op` standing for
// input nodes of ops `from_ops` (besides `op`).
struct OpChange {
  enum class Kind { kFused, kRecognized, kFolded, kRewrote, kTiled };
  Kind kind = Kind::kRewrote;
  std::string op;                     // the result's op (base name); "" for kFolded
  std::vector<std::string> from_ops;  // the other input ops, sorted and unique
  int64_t count = 0;                  // result nodes described so

  friend bool operator==(const OpChange&, const OpChange&) = default;
};

// Where the output graph's nodes came from ("provenance";
// docs/rewrite-semantics.md, "Provenance").
struct ProvenanceSummary {
  // "rewritten_nodes" is nodes.size().
  int64_t merged_input_nodes = 0;          // "merged_input_nodes"
  std::map<std::string, int64_t> by_rule;  // "by_rule": rule -> nodes it built
  std::vector<RewrittenNode> nodes;        // "nodes"
};

// A rule whose applications went wrong ("rule_issues[]"); `egret optimize`
// prints the messages as warnings.
struct RuleIssue {
  std::string rule;                   // "rule": its label
  std::string location;               // "location": "file:line:col"
  size_t type_mismatches = 0;         // "type_mismatches": results of another type than the root
  size_t build_failures = 0;          // "build_failures": applications that could not be built
  std::vector<std::string> messages;  // "messages": the first few, one line each
};

// A valid rule that was not run because it calls an external function with
// no implementation loaded ("rules_skipped[]"; rules/function_binding.h).
struct SkippedRuleSummary {
  std::string rule;      // "rule": its label
  std::string location;  // "location": "file:line:col" of the rule
  // "missing_functions[]": one per function and calling form, at its first call.
  struct Missing {
    std::string function;  // "function": its name
    std::string form;      // "form": e.g. "SHAPEFN_APPLY"
    std::string location;  // "location": "file:line:col" of the call
  };
  std::vector<Missing> missing_functions;
};

// Wall time of each stage in milliseconds ("time_ms"). Optimize times the
// stages from compile to memory_plan; a caller that also reads the model file
// or verifies the result (`egret optimize`, `--verify`) adds those stages and
// makes total cover them.
struct StageTimes {
  // "read": reading the model file into a graph (ONNX import included); set
  // by the caller that read it, absent otherwise.
  std::optional<double> read_ms;
  double compile_ms = 0;            // "compile": rules, built-ins, cost model
  double seed_ms = 0;               // "seed": the input graph into the e-graph
  double saturate_ms = 0;           // "saturate": all phases (re-seeding excluded)
  double extract_and_lower_ms = 0;  // "extract_and_lower": final and re-seeding extractions
  double memory_plan_ms = 0;        // "memory_plan"
  // "verify": running the input and the result on the reference executor and
  // comparing their outputs; set by the caller that verified, absent otherwise.
  std::optional<double> verify_ms;
  // "total": Optimize's wall time (compile to memory_plan, with the small
  // steps between them) plus read and verify when set.
  double total_ms = 0;

  // (key, milliseconds) in pipeline order, the keys as in "time_ms"; read and
  // verify only when set.
  std::vector<std::pair<std::string_view, double>> Named() const;
};

// The cost of checking the result on the reference executor ("verify"; set
// by the caller that verified it, e.g. `egret optimize --verify`).
struct VerifySummary {
  // "status": "ok" (every output compared, each within tolerance), "failed"
  // or "incomplete" (some output not compared); "ok" is status == "ok".
  VerifyVerdict verdict = VerifyVerdict::kFailed;
  bool ok() const { return verdict == VerifyVerdict::kOk; }
  // "outputs": one per graph output: {"name", "verified"} and, when
  // compared, "elements", "mismatches", "max_abs_error", "max_rel_error",
  // "atol" (the absolute tolerance it was compared with) and "atol_source"; when not,
  // "reason".
  std::vector<OutputCheck> outputs;
  // "reference_peak_live_bytes" / "candidate_peak_live_bytes": the most
  // bytes of computed values alive at once in the executor's run of the
  // input and of the result (ExecuteStats::peak_live_bytes).
  int64_t reference_peak_live_bytes = 0;
  int64_t candidate_peak_live_bytes = 0;
  // "peak_rss_bytes": this process's peak RSS once verification ended (it
  // covers everything before it too: it is a high-water mark).
  size_t peak_rss_bytes = 0;
};

// The "verify" object of the report (VerifySummary's keys).
nlohmann::json ToJson(const VerifySummary& verify);

struct OptimizeResult {
  // The optimized graph, lowered and annotated with each computing node's
  // implementation and cost (graph/graph.h: kImplAttr, kCostAttr) and
  // provenance. "output_nodes" is graph.num_nodes().
  Graph graph;
  size_t input_nodes = 0;  // "input_nodes"
  // "input_cost" / "output_cost": DAG cost of the input and output graphs
  // under the same cost model. With cpu_fallback off (--htp-only),
  // input_cost is +inf (JSON null) when the input has a node no
  // implementation computes, whose op is input_cost_missing_op and why
  // input_cost_missing_reason (cost::NodeCost::reason; both "", and no JSON
  // keys, otherwise).
  double input_cost = 0;
  std::string input_cost_missing_op;
  std::string input_cost_missing_reason;
  double output_cost = 0;
  ExtractionSummary extraction;  // "extraction"
  // "enodes", "eclasses", "peak_enodes", "iterations", "stop_reason",
  // "phase_mode", "merge_conflicts", "phases" (top-level keys).
  SaturationSummary saturation;
  size_t rules_compiled = 0;  // "rules_compiled"
  // "rules_skipped": valid rules left out for a function with no
  // implementation (neither compiled nor run).
  std::vector<SkippedRuleSummary> rules_skipped;
  // "rules_left_out": {"count": N, "needed": ["relaxed_precision", ...]}: the
  // valid rules not run because a switch they need (rules/rule_flags.h) was
  // not given, and those switches.
  rules::LeftOutRules rules_left_out;
  size_t provenance_records = 0;       // "provenance_records": WITH_SAME_ID / WITH_SPLIT_HISTORY
  std::vector<RuleIssue> rule_issues;  // "rule_issues"
  // "memory": `graph`'s memory plan (its peak_bytes, arena_bytes, total_bytes,
  // naive_peak_bytes, lower_bound_bytes) and the input's peaks.
  MemoryPlan memory;
  InputMemory input_memory;
  std::map<std::string, OpCount> ops;  // "ops": per computing op
  // "off_htp": op -> the nodes of `graph` that run off the HTP (no HTP
  // implementation eligible for their types: priced and run as a CPU
  // fallback) and why; JSON {"nodes": N, "reasons": [...]}.
  std::map<std::string, OffHtpOps> off_htp;
  ProvenanceSummary provenance;   // "provenance"
  std::vector<OpChange> changes;  // "changes": provenance in ops (pipeline/changes.h)
  StageTimes time;                // "time_ms"
  // The same stages in this process's CPU time (not in the JSON): what a
  // benchmark on a shared machine compares. Saturation includes re-seeding.
  StageTimes cpu_time;
  // Where seed, extract_and_lower and memory_plan spend it (not in the
  // JSON), in process CPU ms, in pipeline order: "input_cost" (pricing the
  // input), "seed_params" (canonical parameters), "seed_import" (the graph
  // into the e-graph), "seed_rebuild", "seed_names" (input node names by
  // e-node), "seed_sources" (provenance sources), "problem" (the extraction
  // problem's build), "extract" (the extractor), "lower" (the choice to a graph),
  // "annotate" (implementations and costs), "provenance", "validate",
  // "release" (freeing the e-graph), "output_cost" (pricing the result,
  // between the two stages), "plan_output" and "plan_input" (the two memory
  // plans). Repeated keys (re-seeding extractions) are summed.
  std::vector<std::pair<std::string, double>> substage_cpu_ms;
  size_t peak_rss_bytes = 0;            // "peak_rss_bytes": this process's, at the end of Optimize
  std::optional<VerifySummary> verify;  // "verify", when set
};

// The `--report` JSON of `result` (every key above; no graph).
nlohmann::json ToJson(const OptimizeResult& result);

}  // namespace egret

#endif  // EGRET_PIPELINE_OPTIMIZE_RESULT_H_
