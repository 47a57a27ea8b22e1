// The comparison strategies (pipeline/strategies.h) and their report writers
// (pipeline/compare_report.h) on small graphs.
#include "egret/pipeline/strategies.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/extract/extractor_registry.h"
#include "egret/pipeline/compare_report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

const TensorType kF32(DType::kFloat32, {1, 1, 1, 4});

NodeId AddOp(Graph& g, const std::string& op, std::vector<NodeId> inputs) {
  Node n;
  n.op = op;
  for (NodeId i : inputs) n.inputs.push_back(ValueRef{i, 0});
  n.outputs.push_back(kF32);
  return g.AddNode(std::move(n));
}

// x -> Relu applied `depth` times -> output "y".
Graph ReluChain(int depth) {
  Graph g;
  NodeId v = g.AddInput("x", kF32);
  for (int i = 0; i < depth; ++i) v = AddOp(g, "Relu", {v});
  g.AddOutput(ValueRef{v, 0}, "y");
  return g;
}

constexpr char kCosts[] = R"(
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((a), "Relu", 2, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((b), "ReluMinMax", 2, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((c), "ReluX", 1, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((d), "ElementWiseAdd", 4, RESOURCE_HVX)
)";
constexpr char kToMinMax[] = R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op("Relu", "x"), OK,
  Op("ReluMinMax", "x", gen_ConstScalar_f32(0.0f), gen_ConstScalar_f32(INF)))
)";
constexpr char kToReluX[] = R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op("Relu", "x"), OK,
  Op("ReluX", "x", gen_ConstScalar_f32(100.0f)))
)";
constexpr char kReluRelu[] = R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")
)";

rules::RuleSet Rules(const std::string& text) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(std::string(kCosts) + text, "test.rules", {}, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  return set;
}

StrategyResult RunS(Strategy s, const Graph& g, const rules::RuleSet& set) {
  DiagnosticList diags;
  absl::StatusOr<StrategyResult> r = RunStrategy(s, g, set, {}, &diags);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  return r.ok() ? *r : StrategyResult{};
}

Strategy EqsatDag() { return Strategy::Eqsat(*extract::FindExtractor("dag")); }

TEST(StrategyTest, NamesRoundTrip) {
  for (Strategy s : KnownStrategies()) EXPECT_EQ(ParseStrategy(StrategyName(s)), s);
  EXPECT_EQ(ParseStrategy("eqsat"), std::nullopt);
}

// Eqsat strategies come from the extractor registry: one per registered
// extractor, the default set without the measurement-only ones.
TEST(StrategyTest, EqsatStrategiesComeFromTheExtractorRegistry) {
  EXPECT_EQ(StrategyNames(DefaultStrategies()), "greedy, cse, eqsat-tree, eqsat-dag, eqsat-ilp");
  EXPECT_EQ(StrategyNames(KnownStrategies()),
            "greedy, cse, eqsat-tree, eqsat-greedy, eqsat-dag, eqsat-ilp");
  std::vector<Strategy> known = KnownStrategies();
  ASSERT_EQ(known.size(), 2 + extract::Extractors().size());
  for (const extract::Extractor& e : extract::Extractors()) {
    std::optional<Strategy> s = ParseStrategy(absl::StrCat("eqsat-", std::string(e.name)));
    ASSERT_TRUE(s.has_value()) << e.name;
    EXPECT_EQ(s->kind, Strategy::Kind::kEqsat);
    EXPECT_EQ(s->extractor, &e);
    EXPECT_NE(std::find(known.begin(), known.end(), *s), known.end());
  }
  EXPECT_EQ(ParseStrategy("eqsat-magic"), std::nullopt);
  EXPECT_EQ(ParseStrategy("eqsat-"), std::nullopt);
  EXPECT_EQ(ParseStrategy("dag"), std::nullopt);
  EXPECT_EQ(ParseStrategy("greedy"), Strategy::kGreedy);
  EXPECT_EQ(ParseStrategy("cse"), Strategy::kCse);
}

// Two rules for the same root in one pass: only the first (file order) fires,
// even though the second gives the cheaper graph (which eqsat finds).
TEST(StrategyTest, GreedyAppliesTheFirstMatchingRuleOfAPass) {
  const Graph g = ReluChain(1);
  StrategyResult a = RunS(Strategy::kGreedy, g, Rules(std::string(kToMinMax) + kToReluX));
  EXPECT_THAT(a.ops_added, ElementsAre(Pair("ReluMinMax", 1)));
  EXPECT_THAT(a.ops_removed, ElementsAre(Pair("Relu", 1)));
  EXPECT_EQ(a.rewrites, 1u);
  EXPECT_TRUE(a.verified) << a.verify_message;
  EXPECT_EQ(a.egraph_nodes, 0u);

  StrategyResult b = RunS(Strategy::kGreedy, g, Rules(std::string(kToReluX) + kToMinMax));
  EXPECT_THAT(b.ops_added, ElementsAre(Pair("ReluX", 1)));
  EXPECT_TRUE(b.verified) << b.verify_message;
  EXPECT_LT(b.cost, a.cost);

  StrategyResult e = RunS(EqsatDag(), g, Rules(std::string(kToMinMax) + kToReluX));
  EXPECT_THAT(e.ops_added, ElementsAre(Pair("ReluX", 1)));
  EXPECT_EQ(e.cost, b.cost);
  EXPECT_GT(e.egraph_nodes, 0u);
}

// Relu(Relu(Relu(x))): the first sweep replaces the middle Relu; the outer
// one matched through it and waits for the next sweep, which removes it.
TEST(StrategyTest, GreedyRepeatsSweepsUntilNothingChanges) {
  StrategyResult r = RunS(Strategy::kGreedy, ReluChain(3), Rules(kReluRelu));
  EXPECT_THAT(r.ops_removed, ElementsAre(Pair("Relu", 2)));
  EXPECT_EQ(r.rewrites, 2u);
  EXPECT_EQ(r.nodes, 2u);  // x and one Relu
  EXPECT_TRUE(r.verified) << r.verify_message;
}

// Rule passes run in ascending priority: a later pass sees an earlier one's
// result, an earlier pass never reruns.
TEST(StrategyTest, GreedyRunsPassesInPriorityOrder) {
  const std::string late = R"(
DEF_PACKAGE_OPTIMIZATION(LATE, Op("ReluMinMax", "x", "lo", "hi"), OK, Op("Relu", "x"))
)";
  StrategyResult r = RunS(Strategy::kGreedy, ReluChain(1), Rules(std::string(kToMinMax) + late));
  EXPECT_TRUE(r.ops_added.empty());
  EXPECT_TRUE(r.ops_removed.empty());
  EXPECT_EQ(r.rewrites, 2u);
}

// Each strategy reports its time by stage; verification can be left out.
TEST(StrategyTest, StageTimesAndVerificationSwitch) {
  const rules::RuleSet set = Rules(kToMinMax);
  auto stages = [](const StrategyResult& r) {
    std::vector<std::string> names;
    for (const auto& [stage, ms] : r.stage_ms) {
      EXPECT_GE(ms, 0) << stage;
      names.push_back(stage);
    }
    return names;
  };
  EXPECT_THAT(stages(RunS(Strategy::kGreedy, ReluChain(2), set)),
              ElementsAre("compile", "rewrite", "select"));
  EXPECT_THAT(stages(RunS(Strategy::kCse, ReluChain(2), set)), ElementsAre("select"));
  const StrategyResult e = RunS(EqsatDag(), ReluChain(2), set);
  EXPECT_THAT(stages(e), ElementsAre("compile", "extract_and_lower", "memory_plan", "saturate",
                                     "seed", "total"));
  EXPECT_TRUE(e.verified) << e.verify_message;
  EXPECT_EQ(e.stop_reason, "Saturated");
  EXPECT_EQ(RunS(Strategy::kGreedy, ReluChain(2), set).stop_reason, "Fixpoint");

  StrategyOptions options;
  options.verify_result = false;
  DiagnosticList diags;
  absl::StatusOr<StrategyResult> r = RunStrategy(EqsatDag(), ReluChain(2), set, options, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->verified);
  EXPECT_EQ(r->verify_message, "not run");
  EXPECT_EQ(r->cost, e.cost);
}

// Syntactic CSE: identical adds merge, a commuted one does not.
TEST(StrategyTest, CseMergesIdenticalNodesOnly) {
  Graph g;
  NodeId a = g.AddInput("a", kF32), b = g.AddInput("b", kF32);
  NodeId s1 = AddOp(g, "ElementWiseAdd", {a, b});
  NodeId s2 = AddOp(g, "ElementWiseAdd", {a, b});
  NodeId s3 = AddOp(g, "ElementWiseAdd", {b, a});
  NodeId t = AddOp(g, "ElementWiseAdd", {s1, s2});
  g.AddOutput(ValueRef{AddOp(g, "ElementWiseAdd", {t, s3}), 0}, "y");
  StrategyResult r = RunS(Strategy::kCse, g, Rules(""));
  EXPECT_THAT(r.ops_removed, ElementsAre(Pair("ElementWiseAdd", 1)));
  EXPECT_TRUE(r.verified) << r.verify_message;
  StrategyResult e = RunS(EqsatDag(), g, Rules(""));  // commutativity is built in
  EXPECT_THAT(e.ops_removed, ElementsAre(Pair("ElementWiseAdd", 2)));
}

TEST(CompareReportTest, CsvRowsAndGeomean) {
  const Graph g = ReluChain(1);
  const rules::RuleSet set = Rules(std::string(kToMinMax) + kToReluX);
  std::vector<CompareRow> rows;
  for (Strategy s : DefaultStrategies()) rows.push_back({"g.json", RunS(s, g, set), 0, ""});
  const std::string csv = CompareCsv(rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 5);
  EXPECT_THAT(csv, HasSubstr("g.json,greedy,"));
  std::map<std::string, double> gm = GeomeanRelativeToGreedy(rows);
  EXPECT_DOUBLE_EQ(gm["greedy"], 1.0);
  EXPECT_DOUBLE_EQ(gm["cse"], 1.0);        // Relu against ReluMinMax, 2 each
  EXPECT_DOUBLE_EQ(gm["eqsat-dag"], 0.5);  // ReluX, 1
  EXPECT_THAT(CompareSvg(rows), HasSubstr("<svg"));
  EXPECT_THAT(CompareMarkdown(rows), HasSubstr("| eqsat-dag |"));
}

}  // namespace
}  // namespace egret
