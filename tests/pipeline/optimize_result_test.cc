// OptimizeResult (pipeline/optimize_result.h) and its ToJson, the `--report`
// JSON: the keys docs/rewrite-semantics.md documents, with the typed fields'
// values, from real Optimize runs.
#include "egret/pipeline/optimize_result.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/io/graph_io.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules/rule_set.h"
#include "egret/support/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace egret {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Json = nlohmann::json;
using Keys = std::set<std::string>;

Keys KeysOf(const Json& j) {
  Keys k;
  for (const auto& [key, v] : j.items()) k.insert(key);
  return k;
}

int64_t CountOf(const std::map<std::string, OpCount>& ops, const std::string& op) {
  auto it = ops.find(op);
  return it == ops.end() ? 0 : it->second.after;
}

// examples/residual_block.{json,rules}.
struct Example {
  Graph graph;
  rules::RuleSet rules;
};
absl::StatusOr<Example> LoadExample() {
  absl::StatusOr<Graph> g = LoadGraph(EGRET_SOURCE_DIR "/examples/residual_block.json");
  if (!g.ok()) return g.status();
  DiagnosticList diags;
  absl::StatusOr<rules::RuleSet> set =
      rules::LoadRuleFiles({EGRET_SOURCE_DIR "/examples/residual_block.rules"}, {}, &diags);
  if (!set.ok()) return set.status();
  return Example{*std::move(g), *std::move(set)};
}

absl::StatusOr<OptimizeResult> OptimizeExample(PhaseMode mode) {
  absl::StatusOr<Example> ex = LoadExample();
  if (!ex.ok()) return ex.status();
  OptimizeOptions o;
  o.phase_mode = mode;
  DiagnosticList diags;
  return Optimize(ex->graph, ex->rules, o, &diags);
}

rules::RuleSet Rules(const std::string& text) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(text, "test.rules", {}, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  return set;
}

// x -> A -> out, with A -> B at priority 100, B -> C at 200 and C -> D at 300.
Graph Chain() {
  Graph g;
  const TensorType t(DType::kQUInt8, {4}, 0, 1.0f);
  NodeId x = g.AddInput("x", t);
  Node a;
  a.op = "A";
  a.name = "a";
  a.inputs.push_back(ValueRef{x, 0});
  a.outputs.push_back(t);
  g.AddOutput(ValueRef{g.AddNode(std::move(a)), 0}, "out");
  return g;
}
constexpr char kChainRules[] =
    "DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH+100, Op(\"A\", \"x\"), OK, Op(\"B\", \"x\"))\n"
    "DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH+200, Op(\"B\", \"x\"), OK, Op(\"C\", \"x\"))\n"
    "DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH+300, Op(\"C\", \"x\"), OK, Op(\"D\", \"x\"))\n"
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(b, \"B\", 20)\n"
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(c, \"C\", 10)\n"
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(d, \"D\", 1)\n";
// A's implementation.
constexpr char kCostOfA[] = "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"A\", 30)\n";
// A rule whose result has another type than what it rewrites: a rule issue.
constexpr char kMistypedRule[] =
    "DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH+100, Op(\"A\", \"x\"), OK, "
    "WITH_OUTPUT_TYPE(DType::Float32, 0, 1.0f, Op(\"E\", \"x\")))\n";

// The chain under node limit 1: the first phase stops at once, the others are
// skipped.
absl::StatusOr<OptimizeResult> OptimizeChainUnderNodeLimit() {
  OptimizeOptions o;
  o.limits.nodes = 1;  // the input alone is over it
  DiagnosticList diags;
  return Optimize(Chain(), Rules(absl::StrCat(kChainRules, kCostOfA)), o, &diags);
}

// The chain without A's implementation and with a mistyped rule.
// Without the CPU fallback (--htp-only), so that the input's op A, which has
// no implementation, makes its cost unknown.
absl::StatusOr<OptimizeResult> OptimizeChainWithIssues() {
  DiagnosticList diags;
  OptimizeOptions o;
  o.cpu_fallback = false;
  return Optimize(Chain(), Rules(absl::StrCat(kChainRules, kMistypedRule)), o, &diags);
}

TEST(OptimizeResultTest, ReportHasTheDocumentedKeys) {
  absl::StatusOr<OptimizeResult> r = OptimizeExample(PhaseMode::kReseed);
  ASSERT_TRUE(r.ok()) << r.status();
  const Json rep = ToJson(*r);
  EXPECT_EQ(KeysOf(rep), (Keys{"input_nodes",   "output_nodes",   "input_cost",
                               "output_cost",   "extraction",     "enodes",
                               "eclasses",      "peak_enodes",    "iterations",
                               "stop_reason",   "phase_mode",     "rules_compiled",
                               "rules_skipped", "rules_left_out", "merge_conflicts",
                               "phases",        "rule_issues",    "provenance_records",
                               "provenance",    "changes",        "memory",
                               "ops",           "off_htp",        "time_ms",
                               "peak_rss_bytes"}));
  EXPECT_EQ(KeysOf(rep["extraction"]), (Keys{"extractor", "dag_cost", "tree_cost", "stop_reason"}));
  EXPECT_EQ(rep["rules_left_out"],
            Json::parse(R"({"count": 0, "needed": [], "device_lowering": 0})"));
  EXPECT_EQ(KeysOf(rep["memory"]),
            (Keys{"peak_bytes", "arena_bytes", "total_bytes", "naive_peak_bytes",
                  "lower_bound_bytes", "input_peak_bytes", "input_naive_peak_bytes"}));
  EXPECT_EQ(KeysOf(rep["time_ms"]),
            (Keys{"compile", "seed", "saturate", "extract_and_lower", "memory_plan", "total"}));
  EXPECT_EQ(KeysOf(rep["provenance"]),
            (Keys{"rewritten_nodes", "merged_input_nodes", "by_rule", "nodes"}));
  ASSERT_FALSE(rep["provenance"]["nodes"].empty());
  EXPECT_EQ(KeysOf(rep["provenance"]["nodes"][0]), (Keys{"node", "op", "from", "rules"}));
  ASSERT_FALSE(rep["ops"].empty());
  for (const auto& [op, c] : rep["ops"].items()) EXPECT_EQ(KeysOf(c), (Keys{"before", "after"}));
  // Every phase but the last re-seeded the next one.
  const Json& phases = rep["phases"];
  ASSERT_GE(phases.size(), 2u);
  const Keys phase_keys = {"priority",     "pass",   "iterations", "stop_reason", "matches",
                           "applications", "enodes", "eclasses",   "time_ms",     "rules"};
  for (size_t p = 0; p < phases.size(); ++p) {
    Keys want = phase_keys;
    if (p + 1 < phases.size()) want.insert("dag_cost");
    EXPECT_EQ(KeysOf(phases[p]), want) << p;
    ASSERT_FALSE(phases[p]["rules"].empty());
    EXPECT_EQ(KeysOf(phases[p]["rules"][0]),
              (Keys{"rule", "matches", "applications", "roots", "search_ms", "apply_ms"}));
  }
}

// Each rule's profile (roots, search and apply times) is its share of its
// phase: a rule that matched searched some root, the rules' times fit in
// their phase's, and a phase that applied something spent time applying.
TEST(OptimizeResultTest, RuleProfilesAddUpToTheirPhase) {
  absl::StatusOr<OptimizeResult> r = OptimizeExample(PhaseMode::kKeep);
  ASSERT_TRUE(r.ok()) << r.status();
  size_t applied_phases = 0;
  for (const PhaseSummary& p : r->saturation.phases) {
    double search = 0, apply = 0;
    for (const RuleActivity& a : p.rules) {
      if (a.matches > 0) {
        EXPECT_GT(a.roots, 0u) << p.pass << " " << a.rule;
      }
      EXPECT_GE(a.search_ms, 0) << a.rule;
      EXPECT_GE(a.apply_ms, 0) << a.rule;
      search += a.search_ms;
      apply += a.apply_ms;
    }
    EXPECT_LE(search + apply, p.time_ms + 1e-6) << p.pass;
    if (p.applications > 0) {
      ++applied_phases;
      EXPECT_GT(apply, 0) << p.pass;
      EXPECT_GT(search, 0) << p.pass;
    }
  }
  EXPECT_GT(applied_phases, 0u);
}

TEST(OptimizeResultTest, EveryReportKeyIsInTheDocs) {
  absl::StatusOr<std::string> doc = ReadFile(EGRET_SOURCE_DIR "/docs/rewrite-semantics.md");
  ASSERT_TRUE(doc.ok()) << doc.status();
  const size_t begin = doc->find("## Report");
  ASSERT_NE(begin, std::string::npos);
  const std::string section = doc->substr(begin, doc->find("\n## ", begin + 1) - begin);
  // A re-seeded run, a run with skipped phases and a rule issue, and a run
  // whose input has an op without implementation cover every key.
  std::vector<Json> reports;
  absl::StatusOr<OptimizeResult> example = OptimizeExample(PhaseMode::kReseed);
  ASSERT_TRUE(example.ok()) << example.status();
  reports.push_back(ToJson(*example));
  for (absl::StatusOr<OptimizeResult> r :
       {OptimizeChainUnderNodeLimit(), OptimizeChainWithIssues()}) {
    ASSERT_TRUE(r.ok()) << r.status();
    reports.push_back(ToJson(*r));
  }
  std::vector<std::string> keys;
  auto walk = [&](const Json& j, auto&& self) -> void {
    if (j.is_array()) {
      for (const Json& e : j) self(e, self);
    } else if (j.is_object()) {
      for (const auto& [k, v] : j.items()) {
        keys.push_back(k);
        self(v, self);
      }
    }
  };
  for (const Json& rep : reports) {
    // Not "ops" and "off_htp" (keyed by op) nor "by_rule" (keyed by rule).
    for (const auto& [k, v] : rep.items()) {
      keys.push_back(k);
      if (k == "ops" || k == "off_htp") {
        for (const auto& [op, c] : v.items()) walk(c, walk);
      } else if (k == "provenance") {
        for (const auto& [pk, pv] : v.items()) {
          keys.push_back(pk);
          if (pk != "by_rule") walk(pv, walk);
        }
      } else {
        walk(v, walk);
      }
    }
  }
  for (const char* k : {"skipped", "dag_cost", "input_cost_missing_op", "input_cost_missing_reason",
                        "type_mismatches"}) {
    EXPECT_THAT(keys, ::testing::Contains(k));
  }
  for (const std::string& k : keys) {
    // `key`, or `key[]` for an array.
    const bool documented = section.find(absl::StrCat("`", k, "`")) != std::string::npos ||
                            section.find(absl::StrCat("`", k, "[]`")) != std::string::npos;
    EXPECT_TRUE(documented) << "report key '" << k
                            << "' is not in docs/rewrite-semantics.md's Report section";
  }
}

TEST(OptimizeResultTest, ReportValuesAreTheTypedFields) {
  absl::StatusOr<OptimizeResult> r = OptimizeExample(PhaseMode::kReseed);
  ASSERT_TRUE(r.ok()) << r.status();
  const Json rep = ToJson(*r);
  EXPECT_EQ(rep["input_nodes"], r->input_nodes);
  EXPECT_EQ(rep["output_nodes"], r->graph.num_nodes());
  EXPECT_EQ(rep["input_cost"], r->input_cost);
  EXPECT_EQ(rep["output_cost"], r->output_cost);
  EXPECT_EQ(rep["extraction"]["extractor"], "dag");
  EXPECT_EQ(r->extraction.extractor, "dag");
  EXPECT_EQ(rep["extraction"]["dag_cost"], r->extraction.dag_cost);
  // The final extraction's DAG cost is the lowered graph's cost.
  EXPECT_DOUBLE_EQ(r->extraction.dag_cost, r->output_cost);
  EXPECT_EQ(rep["enodes"], r->saturation.enodes);
  EXPECT_EQ(rep["peak_enodes"], r->saturation.peak_enodes);
  EXPECT_GE(r->saturation.peak_enodes, r->saturation.enodes);
  EXPECT_EQ(rep["stop_reason"], "Saturated");
  EXPECT_EQ(rep["phase_mode"], "reseed");
  size_t iterations = 0;
  for (const PhaseSummary& p : r->saturation.phases) {
    iterations += p.iterations;
    size_t applications = 0;
    for (const RuleActivity& a : p.rules) applications += a.applications;
    EXPECT_EQ(p.applications, applications) << p.pass;
    EXPECT_FALSE(p.skipped);
  }
  EXPECT_EQ(r->saturation.iterations, iterations);
  EXPECT_EQ(rep["iterations"], iterations);
  EXPECT_EQ(rep["rules_compiled"], r->rules_compiled);
  EXPECT_GT(r->rules_compiled, 0u);
  EXPECT_EQ(rep["memory"]["input_peak_bytes"], r->input_memory.peak_bytes);
  EXPECT_EQ(rep["memory"]["lower_bound_bytes"], r->memory.lower_bound_bytes);
  EXPECT_EQ(rep["ops"]["ElementWiseAdd"]["before"], r->ops.at("ElementWiseAdd").before);
  EXPECT_EQ(rep["provenance"]["rewritten_nodes"], r->provenance.nodes.size());
  EXPECT_EQ(rep["time_ms"]["total"], r->time.total_ms);
  EXPECT_GE(r->time.total_ms, r->time.saturate_ms);
  EXPECT_EQ(rep["peak_rss_bytes"], r->peak_rss_bytes);
}

TEST(OptimizeResultTest, PhasesAfterANodeLimitAreSkipped) {
  absl::StatusOr<OptimizeResult> r = OptimizeChainUnderNodeLimit();
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<PhaseSummary>& phases = r->saturation.phases;
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_FALSE(phases[0].skipped);
  EXPECT_EQ(phases[0].iterations, 0u);
  EXPECT_EQ(phases[0].stop_reason, StopReason::kNodeLimit);
  EXPECT_TRUE(phases[1].skipped);
  EXPECT_TRUE(phases[2].skipped);
  EXPECT_EQ(r->saturation.stop_reason, StopReason::kNodeLimit);
  const Json rep = ToJson(*r);
  EXPECT_EQ(rep["phases"][2], Json({{"priority", phases[2].priority},
                                    {"pass", "CLEANUP_GRAPH+300"},
                                    {"iterations", 0},
                                    {"stop_reason", "NodeLimit"},
                                    {"skipped", true}}));
  EXPECT_EQ(rep["stop_reason"], "NodeLimit");
  // Nothing ran.
  EXPECT_EQ(CountOf(r->ops, "A"), 1);
  EXPECT_DOUBLE_EQ(r->output_cost, 30);
}

TEST(OptimizeResultTest, NodeLimitsStoppingMidIterationAreSummarized) {
  // Some of these limits stop an iteration before its last rules ran.
  absl::StatusOr<Example> ex = LoadExample();
  ASSERT_TRUE(ex.ok()) << ex.status();
  DiagnosticList diags;
  bool stopped = false;
  for (size_t limit = 10; limit <= 40; ++limit) {
    OptimizeOptions o;
    o.limits.nodes = limit;
    absl::StatusOr<OptimizeResult> r = Optimize(ex->graph, ex->rules, o, &diags);
    ASSERT_TRUE(r.ok()) << r.status();
    if (r->saturation.stop_reason != StopReason::kNodeLimit) continue;
    stopped = true;
    // The phase that reached the limit (the run's, or its share of it: the
    // phases after such a phase still run) says so.
    int limited = 0;
    for (const PhaseSummary& p : r->saturation.phases) {
      if (!p.skipped && p.stop_reason == StopReason::kNodeLimit) ++limited;
      for (const RuleActivity& a : p.rules) EXPECT_FALSE(a.rule.empty()) << limit;
    }
    EXPECT_GE(limited, 1) << limit;
  }
  EXPECT_TRUE(stopped);
}

TEST(OptimizeResultTest, MissingInputOpAndRuleIssues) {
  absl::StatusOr<OptimizeResult> r = OptimizeChainWithIssues();
  ASSERT_TRUE(r.ok()) << r.status();
  // A has no implementation: the input's cost is unknown.
  EXPECT_EQ(r->input_cost_missing_op, "A");
  EXPECT_EQ(r->input_cost_missing_reason, "no implementation of A is registered");
  EXPECT_DOUBLE_EQ(r->output_cost, 1);
  ASSERT_EQ(r->rule_issues.size(), 1u);
  const RuleIssue& issue = r->rule_issues[0];
  EXPECT_THAT(issue.location, ::testing::HasSubstr("test.rules:7"));
  EXPECT_GE(issue.type_mismatches, 1u);
  EXPECT_EQ(issue.build_failures, 0u);
  ASSERT_FALSE(issue.messages.empty());
  const Json rep = ToJson(*r);
  EXPECT_EQ(rep["input_cost"], nullptr);
  EXPECT_EQ(rep["input_cost_missing_op"], "A");
  EXPECT_EQ(rep["input_cost_missing_reason"], "no implementation of A is registered");
  EXPECT_EQ(rep["rule_issues"][0]["location"], issue.location);
  EXPECT_EQ(rep["rule_issues"][0]["messages"], Json(issue.messages));
}

}  // namespace
}  // namespace egret
