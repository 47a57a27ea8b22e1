// Optimization strategies compared by `egret compare` (docs/comparison.md),
// all from the same rule set, HVX cost model and lowering:
//
//   greedy      the HTP's destructive rewriting: pass by pass (distinct rule
//               priority, ascending), sweeps over the graph in topological
//               order in which the first rule (file order) whose match and
//               guard succeed at a node replaces it, until a sweep changes
//               nothing; syntactic CSE and dead-node removal between sweeps;
//               then each op gets its cheapest implementation.
//   cse         syntactic CSE only (same op, operands and payload), no rules.
//   eqsat-NAME  Optimize() (pipeline/optimize.h) with the registered extractor
//               NAME (extract/extractor_registry.h): eqsat-tree, eqsat-dag,
//               eqsat-ilp, and eqsat-greedy (not run by default).
//
// Every strategy's result is checked against the input on the reference
// executor (backend/verify.h) with seeded random inputs.
#ifndef EGRET_PIPELINE_STRATEGIES_H_
#define EGRET_PIPELINE_STRATEGIES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/executor/verify.h"
#include "egret/extract/extractor.h"
#include "egret/graph/graph.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules/rule_set.h"
#include "egret/support/diagnostic.h"

namespace egret {

// A strategy: greedy, cse, or equality saturation with an extractor.
struct Strategy {
  enum class Kind : uint8_t { kGreedy, kCse, kEqsat };
  Kind kind = Kind::kCse;
  // kEqsat: the extractor, a row of extract::Extractors(); null otherwise.
  const extract::Extractor* extractor = nullptr;

  static const Strategy kGreedy;
  static const Strategy kCse;
  // Equality saturation extracted by `extractor` (a registry row).
  static Strategy Eqsat(const extract::Extractor& extractor) {
    return Strategy{Kind::kEqsat, &extractor};
  }
  bool operator==(const Strategy&) const = default;
};
inline constexpr Strategy Strategy::kGreedy{Strategy::Kind::kGreedy, nullptr};
inline constexpr Strategy Strategy::kCse{Strategy::Kind::kCse, nullptr};

// "greedy", "cse", "eqsat-NAME" for a registered extractor NAME; nullopt
// for anything else.
std::optional<Strategy> ParseStrategy(std::string_view name);
std::string StrategyName(Strategy s);
// What `egret compare` runs by default: greedy, cse, then eqsat with every
// extractor compared by default, in registry order (eqsat-tree, eqsat-dag,
// eqsat-ilp).
std::vector<Strategy> DefaultStrategies();
// Every strategy ParseStrategy accepts: greedy, cse, then eqsat with every
// registered extractor, in registry order.
std::vector<Strategy> KnownStrategies();
// The strategies' names joined by ", ", for help and messages.
std::string StrategyNames(const std::vector<Strategy>& strategies);

struct StrategyOptions {
  // Limits, extractor time limit, folding, option and cost overrides; the
  // extractor is set by the strategy. Greedy folds constants after the rules
  // of every pass when constant_folding is on (as the HTP's prepare does).
  OptimizeOptions optimize;
  // Greedy: most sweeps per pass (a pass that still changes the graph after
  // this many stops and is counted in StrategyResult::limit_hit).
  int max_sweeps = 200;
  // Verification inputs and tolerances. With verify_result off, RunStrategy
  // skips the check (StrategyResult::verified stays false, verify_message is
  // "not run").
  uint64_t seed = 0;
  VerifyOptions verify;
  bool verify_result = true;
};

struct StrategyResult {
  Strategy strategy = Strategy::kCse;
  Graph graph;       // annotated with implementations and costs
  double cost = 0;   // HVX DAG cost of `graph` (+inf: an op lacks an implementation)
  size_t nodes = 0;  // graph.num_nodes()
  // Computing ops (not inputs, constants, shapes) gained / lost, by name.
  std::map<std::string, int64_t> ops_added, ops_removed;
  double time_ms = 0;  // optimization only (verification excluded)
  // time_ms by stage. Eqsat: Optimize()'s report "time_ms" (compile, seed,
  // saturate, extract_and_lower, memory_plan, total). Greedy and cse: compile
  // and rewrite (greedy only), select (CSE and implementation selection).
  std::map<std::string, double> stage_ms;
  // Eqsat only: stage_ms's stages in process CPU time (OptimizeResult::cpu_time).
  std::map<std::string, double> stage_cpu_ms;
  // Eqsat only: OptimizeResult::substage_cpu_ms.
  std::map<std::string, double> substage_cpu_ms;
  size_t egraph_nodes = 0;  // peak e-nodes: eqsat only, else 0
  size_t rewrites = 0;      // greedy: rule applications; eqsat: e-graph applications
  bool limit_hit = false;   // greedy: a pass hit max_sweeps; eqsat: stop reason not saturated
  // Eqsat: Optimize()'s stop reason ("Saturated", "IterationLimit",
  // "NodeLimit", "TimeLimit", ...); greedy: "Fixpoint" or "SweepLimit"; cse: "".
  std::string stop_reason;
  // Eqsat only: the saturation phases (per-rule matches and applications,
  // iterations, stop reason), as Optimize() reports them; empty otherwise.
  std::vector<PhaseSummary> phases;
  // Every output compared and within tolerance of the input's
  // (verdict == kOk).
  bool verified = false;
  // The verification's verdict; kFailed too when it could not run (then
  // verify_message says why).
  VerifyVerdict verdict = VerifyVerdict::kFailed;
  // The failure, or the outputs not verified and why (empty when verified).
  std::string verify_message;
};

// The input graph's outputs on the seeded random inputs: computed once per
// graph and shared by every strategy's verification (the reference executor
// is the slow part of a comparison on a real network). Fails when the inputs
// cannot be made or the input graph cannot be run; the message starts with
// "input: error: ".
struct VerifyReference {
  std::vector<Tensor> inputs;
  ReferenceOutputs expected;
};
absl::StatusOr<VerifyReference> MakeVerifyReference(const Graph& input, uint64_t seed);

// Runs `strategy` on `input` and checks the result against `reference`
// (null: computed from `input` and options.seed). Rules that fail to compile are reported in
// `diags` and fail the call (kFailedPrecondition); so does a result that
// cannot be lowered. A verification mismatch is not an error: see verified.
absl::StatusOr<StrategyResult> RunStrategy(Strategy strategy, const Graph& input,
                                           const rules::RuleSet& rules,
                                           const StrategyOptions& options, DiagnosticList* diags,
                                           const VerifyReference* reference = nullptr);

}  // namespace egret

#endif  // EGRET_PIPELINE_STRATEGIES_H_
