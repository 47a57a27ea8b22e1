// Provenance of optimized graphs (backend/provenance.h): each node says which
// input nodes it came from and which rules built it, through fusions, merges,
// re-seeding, JSON and DOT; errors about an op name the node it came from.
#include <set>
#include <string>
#include <vector>

#include "egret/graph/graph_dot.h"
#include "egret/graph/graph_json.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const TensorType kT(DType::kFloat32, {1, 8});

NodeId AddOp(Graph& g, const std::string& op, std::vector<NodeId> inputs, const std::string& name) {
  Node n;
  n.op = op;
  n.name = name;
  for (NodeId i : inputs) n.inputs.push_back(ValueRef{i, 0});
  n.outputs.push_back(kT);
  return g.AddNode(std::move(n));
}

absl::StatusOr<OptimizeResult> OptimizeText(const Graph& g, const std::string& rules,
                                            PhaseMode mode = PhaseMode::kKeep,
                                            bool cpu_fallback = true) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(rules, "p.rules", {}, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  OptimizeOptions o;
  o.phase_mode = mode;
  o.cpu_fallback = cpu_fallback;
  return Optimize(g, set, o, &diags);
}

const Node* Find(const Graph& g, const std::string& op) {
  for (const Node& n : g.nodes()) {
    if (n.op == op) return &n;
  }
  return nullptr;
}

// x -> A (a) -> B (b) -> Relu (r): the rule fuses B(A(x)) into AB.
Graph Chain() {
  Graph g;
  NodeId x = g.AddInput("x", kT);
  NodeId a = AddOp(g, "A", {x}, "a");
  NodeId b = AddOp(g, "B", {a}, "b");
  NodeId r = AddOp(g, "Relu", {b}, "r");
  g.AddOutput(ValueRef{r, 0}, "out");
  return g;
}

const char kCosts[] =
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"A\", 10)\n"
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(b, \"B\", 10)\n"
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(ab, \"AB\", 12)\n"
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(abr, \"ABR\", 13)\n"
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(r, \"Relu\", 2)\n";

// B(A(x)) -> AB(x).
const char kFuseAB[] =
    "DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"B\", Op(\"A\", \"x\")), OK, "
    "Op(\"AB\", \"x\"))\n";

TEST(ProvenanceTest, AFusedNodeNamesItsInputNodesAndRule) {
  absl::StatusOr<OptimizeResult> r = OptimizeText(Chain(), std::string(kCosts) + kFuseAB);
  ASSERT_TRUE(r.ok()) << r.status();
  const Node* ab = Find(r->graph, "AB");
  ASSERT_NE(ab, nullptr);
  EXPECT_THAT(ab->provenance.from(), ElementsAre("a", "b"));
  ASSERT_EQ(ab->provenance.rules().size(), 1u);
  EXPECT_THAT(ab->provenance.rules()[0], HasSubstr("GRAPH_CLEANUP@p.rules:"));
  // An untouched node stands for itself, with no rule.
  const Node* relu = Find(r->graph, "Relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_THAT(relu->provenance.from(), ElementsAre("r"));
  EXPECT_TRUE(relu->provenance.rules().empty());
  // The report lists the rewritten node.
  const ProvenanceSummary& p = r->provenance;
  ASSERT_EQ(p.nodes.size(), 1u);
  EXPECT_EQ(p.nodes[0].op, "AB");
  EXPECT_THAT(p.nodes[0].from, ElementsAre("a", "b"));
}

TEST(ProvenanceTest, RulesComposeAcrossFusionsAndReseeding) {
  // AB from the first phase, then ABR from AB and Relu in a later phase.
  const std::string rules =
      std::string(kCosts) + kFuseAB +
      "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"Relu\", Op(\"AB\", \"x\")), OK, Op(\"ABR\", \"x\"))\n";
  for (PhaseMode mode : {PhaseMode::kKeep, PhaseMode::kReseed}) {
    absl::StatusOr<OptimizeResult> r = OptimizeText(Chain(), rules, mode);
    ASSERT_TRUE(r.ok()) << r.status();
    const Node* abr = Find(r->graph, "ABR");
    ASSERT_NE(abr, nullptr) << PhaseModeName(mode);
    EXPECT_THAT(abr->provenance.from(), ElementsAre("a", "b", "r")) << PhaseModeName(mode);
    ASSERT_EQ(abr->provenance.rules().size(), 2u) << PhaseModeName(mode);
    EXPECT_THAT(abr->provenance.rules()[0], HasSubstr("p.rules:"));
    EXPECT_NE(abr->provenance.rules()[0], abr->provenance.rules()[1]);
  }
}

TEST(ProvenanceTest, ARewriteThatOnlyMergesIsNamedOnTheSurvivor) {
  // Relu(Relu(x)) -> Relu(x) builds nothing: it merges two classes.
  Graph g;
  NodeId x = g.AddInput("x", kT);
  NodeId r1 = AddOp(g, "Relu", {x}, "r1");
  NodeId r2 = AddOp(g, "Relu", {r1}, "r2");
  g.AddOutput(ValueRef{r2, 0}, "out");
  absl::StatusOr<OptimizeResult> r = OptimizeText(
      g, std::string(kCosts) +
             "DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"Relu\", Op(\"Relu\", \"x\")), OK, "
             "Op(\"Relu\", \"x\"))\n");
  ASSERT_TRUE(r.ok()) << r.status();
  const Node* relu = Find(r->graph, "Relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(r->graph.num_nodes(), 2u);
  EXPECT_THAT(relu->provenance.from(), ElementsAre("r1", "r2"));
  ASSERT_EQ(relu->provenance.rules().size(), 1u);
  EXPECT_THAT(relu->provenance.rules()[0], HasSubstr("GRAPH_CLEANUP@p.rules:"));
}

TEST(ProvenanceTest, EveryLiveInputNodeIsAccountedFor) {
  // Semantic CSE (x+y and y+x), a fusion and an untouched node: every
  // computing input node appears in some output node's provenance.
  Graph g;
  NodeId x = g.AddInput("x", kT);
  NodeId y = g.AddInput("y", kT);
  NodeId s1 = AddOp(g, "ElementWiseAdd", {x, y}, "s1");
  NodeId s2 = AddOp(g, "ElementWiseAdd", {y, x}, "s2");
  NodeId m = AddOp(g, "ElementWiseMultiply", {s1, s2}, "m");
  NodeId a = AddOp(g, "A", {m}, "a");
  NodeId b = AddOp(g, "B", {a}, "b");
  g.AddOutput(ValueRef{b, 0}, "out");
  absl::StatusOr<OptimizeResult> r =
      OptimizeText(g, std::string(kCosts) +
                          "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(add, \"ElementWiseAdd\", 5)\n"
                          "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(mul, \"ElementWiseMultiply\", 5)\n" +
                          kFuseAB);
  ASSERT_TRUE(r.ok()) << r.status();
  std::set<std::string> covered;
  for (const Node& n : r->graph.nodes())
    covered.insert(n.provenance.from().begin(), n.provenance.from().end());
  EXPECT_EQ(covered, (std::set<std::string>{"s1", "s2", "m", "a", "b"}));
  const Node* add = Find(r->graph, "ElementWiseAdd");
  ASSERT_NE(add, nullptr);
  EXPECT_THAT(add->provenance.from(), ElementsAre("s1", "s2"));
  EXPECT_THAT(add->provenance.rules(), ElementsAre("comm-ElementWiseAdd"));
}

TEST(ProvenanceTest, RoundTripsThroughJsonAndShowsInDot) {
  absl::StatusOr<OptimizeResult> r = OptimizeText(Chain(), std::string(kCosts) + kFuseAB);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<std::string> text = GraphToJsonString(r->graph);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<Graph> back = ParseGraphJson(*text, "g.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  const Node* ab = Find(*back, "AB");
  ASSERT_NE(ab, nullptr);
  EXPECT_EQ(ab->provenance, Find(r->graph, "AB")->provenance);
  const std::string dot = GraphToDot(r->graph);
  EXPECT_THAT(dot, HasSubstr("from: a, b"));
  EXPECT_THAT(dot, HasSubstr("rules: GRAPH_CLEANUP@p.rules:"));
  // Bad provenance in a file is an error with its place.
  const std::string bad =
      "{\"format\": \"egret-graph\", \"version\": 1, \"nodes\": [\n"
      "{\"name\": \"x\", \"op\": \"*Input\", \"outputs\": [{\"dtype\": \"Float32\", "
      "\"shape\": [1]}]},\n"
      "{\"name\": \"r\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [{\"dtype\": "
      "\"Float32\", \"shape\": [1]}], \"provenance\": {\"from\": [1]}}],\n"
      "\"inputs\": [\"x\"], \"outputs\": [{\"name\": \"out\", \"value\": \"r\"}]}\n";
  absl::StatusOr<Graph> rejected = ParseGraphJson(bad, "g.json", "");
  ASSERT_FALSE(rejected.ok());
  EXPECT_THAT(std::string(rejected.status().message()), HasSubstr("g.json:3:"));
  EXPECT_THAT(std::string(rejected.status().message()), HasSubstr("provenance/from/0"));
}

// With --htp-only (no CPU fallback), an op without implementation is an
// error that names where the node came from.
TEST(ProvenanceTest, AnOpWithoutImplementationNamesItsSourceNode) {
  Graph g;
  NodeId x = g.AddInput("x", kT);
  NodeId a = AddOp(g, "A", {x}, "a");
  NodeId m = AddOp(g, "Mystery", {a}, "m");
  g.AddOutput(ValueRef{m, 0}, "out");
  absl::StatusOr<OptimizeResult> r =
      OptimizeText(g, kCosts, PhaseMode::kKeep, /*cpu_fallback=*/false);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("op 'Mystery'"));
  EXPECT_THAT(r.status().message(), HasSubstr("from input node 'm'"));
  // Built by a rule: the error says which rule, from which input nodes.
  absl::StatusOr<OptimizeResult> r2 = OptimizeText(
      Chain(), std::string("DEF_PACKAGE_OP_AND_COST_AND_FLAGS(r, \"Relu\", 2)\n") + kFuseAB,
      PhaseMode::kKeep, /*cpu_fallback=*/false);
  ASSERT_FALSE(r2.ok());
  EXPECT_THAT(r2.status().message(), HasSubstr("from input node"));
}

}  // namespace
}  // namespace egret
