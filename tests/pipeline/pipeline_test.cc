// The optimize pipeline end to end: phases, extraction with the HVX cost
// model, lowering, constant folding, and the bundled example.
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/backend/lower.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/cost/vtcm.h"
#include "egret/egraph/graph_import.h"
#include "egret/egraph/runner.h"
#include "egret/extract/extractor_registry.h"
#include "egret/io/graph_io.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules_compile/compiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace egret {
namespace {

TensorType QU8(Dims d, int32_t zero = 0, float step = 1.0f) {
  return TensorType(DType::kQUInt8, std::move(d), zero, step);
}

NodeId AddOp(Graph& g, const std::string& op, std::vector<NodeId> inputs, TensorType out,
             const std::string& name = "") {
  Node n;
  n.op = op;
  n.name = name;
  for (NodeId i : inputs) n.inputs.push_back(ValueRef{i, 0});
  n.outputs.push_back(std::move(out));
  return g.AddNode(std::move(n));
}

rules::RuleSet Rules(const std::string& text) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(text, "test.rules", {}, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  return set;
}

int CountOp(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

absl::StatusOr<OptimizeResult> RunOpt(const Graph& g, const rules::RuleSet& set,
                                      OptimizeOptions options = {}) {
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(g, set, options, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  return r;
}

// cost/vtcm_test.cc tests VtcmBytesOf itself.
TEST(CostModelTest, VtcmCapacityComesFromTheTilingOption) {
  // Graph cost, extraction and lowering price a node the same way: inputs count.
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 8, 8, 32}));  // 2 KiB
  NodeId r = AddOp(g, "Relu", {x}, QU8({1, 8, 8, 32}), "r");
  g.AddOutput(ValueRef{r, 0});
  g.mutable_options()[std::string(cost::kVtcmBytesOption)] = int64_t{3072};
  rules::RuleSet set =
      Rules("DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<Tensor>), \"Relu\", 2, RESOURCE_HVX)\n");
  absl::StatusOr<OptimizeResult> res = RunOpt(g, set);
  ASSERT_TRUE(res.ok()) << res.status();
  // 16 vectors * 2 + (4096 - 3072) / 128 = 8 vectors spilled.
  const double want = 32 + 8 * cost::kSpillCyclesPerVector;
  EXPECT_NEAR(res->input_cost, want, 1e-6);
  EXPECT_NEAR(res->output_cost, want, 1e-6);
  EXPECT_NEAR(res->extraction.dag_cost, want, 1e-6);
  for (const Node& n : res->graph.nodes()) {
    if (n.op == "Relu") {
      EXPECT_EQ(std::get<double>(n.attrs.find(kCostAttr)->second), want);
    }
  }
}

// Relu (DEF_PACKAGE_OP: GLACIAL per HVX vector) may become ReluMinMax
// (DISABLE, not HVX) on a 4 MB tensor, where GLACIAL * 32768 vectors is far
// above the DISABLE constant 2^50.
Graph BigReluGraph() {
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 256, 256, 64}));
  NodeId r = AddOp(g, "Relu", {x}, QU8({1, 256, 256, 64}), "r");
  g.AddOutput(ValueRef{r, 0}, "out");
  return g;
}

constexpr char kReluToMinMax[] =
    "DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"Relu\", \"x\"), OK,\n"
    "  Op(\"ReluMinMax\", \"x\", gen_ConstScalar_f32(0.0f), gen_ConstScalar_f32(INF)))\n"
    "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(minmax, \"ReluMinMax\", DISABLE)\n";

TEST(CostModelTest, GlacialOnALargeTensorBeatsDisable) {
  const Graph g = BigReluGraph();
  for (std::string_view kind : {"tree", "dag", "ilp"}) {
    SCOPED_TRACE(kind);
    OptimizeOptions o;
    o.extractor = extract::FindExtractor(kind);
    ASSERT_NE(o.extractor, nullptr);
    absl::StatusOr<OptimizeResult> r =
        RunOpt(g, Rules(absl::StrCat(kReluToMinMax, "DEF_PACKAGE_OP(reluRef, \"Relu\")\n")), o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(CountOp(r->graph, "Relu"), 1);
    EXPECT_EQ(CountOp(r->graph, "ReluMinMax"), 0);
    EXPECT_EQ(r->output_cost, r->input_cost);
    EXPECT_LT(r->output_cost, cost::kDisabledCost);
  }
  // With nothing else on the HTP computing the class, DISABLE is used (when
  // the CPU fallback is off: else Relu runs off the HTP, far below DISABLE).
  OptimizeOptions htp_only;
  htp_only.cpu_fallback = false;
  absl::StatusOr<OptimizeResult> r = RunOpt(g, Rules(kReluToMinMax), htp_only);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CountOp(r->graph, "ReluMinMax"), 1);
  EXPECT_GE(r->output_cost, cost::kDisabledCost);
}

TEST(PipelineTest, BundledExampleCostIsStrictlyLower) {
  absl::StatusOr<Graph> g = LoadGraph(EGRET_SOURCE_DIR "/examples/residual_block.json");
  ASSERT_TRUE(g.ok()) << g.status();
  DiagnosticList diags;
  absl::StatusOr<rules::RuleSet> set =
      rules::LoadRuleFiles({EGRET_SOURCE_DIR "/examples/residual_block.rules"}, {}, &diags);
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_FALSE(diags.has_errors()) << diags.ToString();
  for (PhaseMode mode : {PhaseMode::kKeep, PhaseMode::kReseed}) {
    OptimizeOptions o;
    o.phase_mode = mode;
    absl::StatusOr<OptimizeResult> r = RunOpt(*g, *set, o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_LT(r->output_cost, r->input_cost);
    EXPECT_TRUE(r->graph.Validate().ok());
    EXPECT_EQ(CountOp(r->graph, "ElementWiseAdd"), 1);  // x + conv2 = conv2 + x
    EXPECT_EQ(CountOp(r->graph, "Conv2d"), 2);
    EXPECT_EQ(CountOp(r->graph, "Relu") + CountOp(r->graph, "ReluMinMax"), 2);
    ASSERT_EQ(r->graph.outputs().size(), 2u);
    EXPECT_EQ(r->graph.outputs()[0].name, "out");
    EXPECT_EQ(r->graph.outputs()[1].name, "out_skip");
    EXPECT_EQ(r->graph.outputs()[0].value, r->graph.outputs()[1].value);
    ASSERT_EQ(r->graph.inputs().size(), 1u);
    EXPECT_EQ(r->graph.node(r->graph.inputs()[0]).name, "x");
    for (const Node& n : r->graph.nodes()) {
      if (n.op == "Conv2d" || n.op == "ElementWiseAdd") {
        EXPECT_TRUE(n.attrs.contains(std::string(kImplAttr))) << n.op;
        EXPECT_TRUE(n.attrs.contains(std::string(kCostAttr))) << n.op;
      }
    }
    const nlohmann::json rep = ToJson(*r);
    for (const char* key :
         {"input_nodes", "output_nodes", "input_cost", "output_cost", "enodes", "eclasses",
          "iterations", "stop_reason", "phases", "time_ms", "peak_rss_bytes", "memory", "ops"}) {
      EXPECT_TRUE(rep.contains(key)) << key;
    }
    // The lowered graph's memory plan holds and is no worse than its file order.
    absl::Status plan = ValidateMemoryPlan(r->graph, r->memory);
    EXPECT_TRUE(plan.ok()) << plan;
    EXPECT_LE(r->memory.peak_bytes, r->memory.naive_peak_bytes);
    EXPECT_EQ(rep["memory"]["peak_bytes"], r->memory.peak_bytes);
    EXPECT_EQ(rep["memory"]["naive_peak_bytes"], r->memory.naive_peak_bytes);
    // Every value is 2048 bytes (QUInt8[1,16,16,8]). The input adds x + conv2
    // twice, so four values are live at its second add; the result adds once.
    EXPECT_GT(r->input_memory.peak_bytes, r->memory.peak_bytes);
    EXPECT_EQ(r->ops.at("ElementWiseAdd").before, 2);
    EXPECT_EQ(r->ops.at("ElementWiseAdd").after, 1);
    EXPECT_EQ(r->saturation.stop_reason, StopReason::kSaturated);
    // Phases run in ascending priority.
    int64_t last = -1;
    for (const PhaseSummary& p : r->saturation.phases) {
      EXPECT_GT(p.priority, last);
      last = p.priority;
    }
  }
}

TEST(PipelineTest, PhasesRunInAscendingPriority) {
  // A -> B at 200, B -> C at 300, C -> D at 100: D is never built, because
  // priority 100 ran before any C existed.
  Graph g;
  NodeId x = g.AddInput("x", QU8({4}));
  NodeId a = AddOp(g, "A", {x}, QU8({4}), "a");
  g.AddOutput(ValueRef{a, 0}, "out");
  const std::string text =
      "DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH+100, Op(\"A\", \"x\"), OK, Op(\"B\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH+200, Op(\"B\", \"x\"), OK, Op(\"C\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op(\"C\", \"x\"), OK, Op(\"D\", \"x\"))\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"A\", 30)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(b, \"B\", 20)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(c, \"C\", 10)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(d, \"D\", 1)\n";
  for (PhaseMode mode : {PhaseMode::kKeep, PhaseMode::kReseed}) {
    OptimizeOptions o;
    o.phase_mode = mode;
    absl::StatusOr<OptimizeResult> r = RunOpt(g, Rules(text), o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(CountOp(r->graph, "C"), 1);
    EXPECT_EQ(CountOp(r->graph, "D"), 0);
    EXPECT_DOUBLE_EQ(r->input_cost, 30);
    EXPECT_DOUBLE_EQ(r->output_cost, 10);
    const std::vector<PhaseSummary>& phases = r->saturation.phases;
    ASSERT_EQ(phases.size(), 3u);
    EXPECT_EQ(phases[0].priority, 100);
    EXPECT_EQ(phases[1].priority, 200);
    EXPECT_EQ(phases[2].priority, 300);
    EXPECT_EQ(phases[0].applications, 0u);
    EXPECT_EQ(phases[1].applications, 1u);
    EXPECT_EQ(phases[2].applications, 1u);
  }
}

TEST(PipelineTest, SemanticCseMergesCommutedAdds) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 8}));
  NodeId y = g.AddInput("y", QU8({1, 8}));
  NodeId s1 = AddOp(g, "ElementWiseAdd", {x, y}, QU8({1, 8}), "s1");
  NodeId s2 = AddOp(g, "ElementWiseAdd", {y, x}, QU8({1, 8}), "s2");
  NodeId m = AddOp(g, "ElementWiseMultiply", {s1, s2}, QU8({1, 8}), "m");
  g.AddOutput(ValueRef{m, 0}, "out");
  absl::StatusOr<OptimizeResult> r =
      RunOpt(g, Rules("DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"ElementWiseAdd\", 5, RESOURCE_HVX)\n"
                      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(m, \"ElementWiseMultiply\", 5, "
                      "RESOURCE_HVX)\n"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CountOp(r->graph, "ElementWiseAdd"), 1);
  EXPECT_DOUBLE_EQ(r->input_cost, 15);
  EXPECT_NEAR(r->output_cost, 10, 1e-9);
}

TEST(PipelineTest, ConstantFoldingUsesTheReferenceKernels) {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {3}));
  NodeId c1 = g.AddConstant("c1", std::make_shared<const Tensor>(Tensor::FromValues(
                                      TensorType(DType::kFloat32, {3}), {1, 2, 3})));
  NodeId c2 = g.AddConstant("c2", std::make_shared<const Tensor>(Tensor::FromValues(
                                      TensorType(DType::kFloat32, {3}), {10, 20, 30})));
  NodeId sum = AddOp(g, "ElementWiseAdd", {c1, c2}, TensorType(DType::kFloat32, {3}), "sum");
  NodeId out = AddOp(g, "ElementWiseMultiply", {x, sum}, TensorType(DType::kFloat32, {3}), "out");
  g.AddOutput(ValueRef{out, 0}, "out");
  rules::RuleSet set = Rules(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"ElementWiseAdd\", 5, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(m, \"ElementWiseMultiply\", 5, RESOURCE_HVX)\n");
  absl::StatusOr<OptimizeResult> r = RunOpt(g, set);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CountOp(r->graph, "ElementWiseAdd"), 0);
  const Node& mul = r->graph.node(r->graph.outputs()[0].value.node);
  ASSERT_EQ(mul.op, "ElementWiseMultiply");
  const Node& folded = r->graph.node(mul.inputs[1].node);
  ASSERT_EQ(folded.op, "$Const");
  EXPECT_EQ(folded.constant->GetValue(0), 11);
  EXPECT_EQ(folded.constant->GetValue(2), 33);
  // Bounded: with a limit of 2 elements nothing is folded.
  OptimizeOptions o;
  o.fold_max_elements = 2;
  absl::StatusOr<OptimizeResult> r2 = RunOpt(g, set, o);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(CountOp(r2->graph, "ElementWiseAdd"), 1);
}

TEST(PipelineTest, ConstantFoldingSkipsOpsReadingConstantsOverTheBound) {
  // Slice_shape of a 4-element constant to 1 element: folded with the default
  // bound, not with a bound of 2 (the input is over it, the result is not).
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {1}));
  NodeId c = g.AddConstant("c", std::make_shared<const Tensor>(Tensor::FromValues(
                                    TensorType(DType::kFloat32, {4}), {1, 2, 3, 4})));
  auto shape = [&g](int64_t v) {
    Node n;
    n.op = std::string(kShapeOp);
    n.outputs.push_back(TensorType(DType::kInt32, {v}));
    return g.AddNode(std::move(n));
  };
  NodeId s = AddOp(g, "Slice_shape", {c, shape(2), shape(1)}, TensorType(DType::kFloat32, {1}));
  NodeId out = AddOp(g, "ElementWiseMultiply", {x, s}, TensorType(DType::kFloat32, {1}), "out");
  g.AddOutput(ValueRef{out, 0}, "out");
  rules::RuleSet set = Rules(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(s, \"Slice_shape\", 5, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(m, \"ElementWiseMultiply\", 5, RESOURCE_HVX)\n");
  absl::StatusOr<OptimizeResult> r = RunOpt(g, set);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CountOp(r->graph, "Slice_shape"), 0);
  OptimizeOptions o;
  o.fold_max_elements = 2;
  absl::StatusOr<OptimizeResult> r2 = RunOpt(g, set, o);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(CountOp(r2->graph, "Slice_shape"), 1);
}

// The op flags of the registered implementations steer folding as the HTP's
// constant propagation: INHIBIT_CONST_PROP keeps an op with constant inputs
// (on any of its implementations; "X.suffix" without its own follows "X"),
// IS_CONST (on all of them) folds whatever the output's size.
TEST(PipelineTest, ConstantFoldingFollowsTheOpFlags) {
  auto graph = [](std::string_view op) {
    Graph g;
    NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {3}));
    NodeId c1 = g.AddConstant("c1", std::make_shared<const Tensor>(Tensor::FromValues(
                                        TensorType(DType::kFloat32, {3}), {1, 2, 3})));
    NodeId c2 = g.AddConstant("c2", std::make_shared<const Tensor>(Tensor::FromValues(
                                        TensorType(DType::kFloat32, {3}), {10, 20, 30})));
    NodeId sum = AddOp(g, std::string(op), {c1, c2}, TensorType(DType::kFloat32, {3}), "sum");
    NodeId out = AddOp(g, "ElementWiseMultiply", {x, sum}, TensorType(DType::kFloat32, {3}), "out");
    g.AddOutput(ValueRef{out, 0}, "out");
    return g;
  };
  auto adds_left = [](const Graph& g, const rules::RuleSet& set, const OptimizeOptions& o) {
    absl::StatusOr<OptimizeResult> r = RunOpt(g, set, o);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? CountOp(r->graph, "ElementWiseAdd") + CountOp(r->graph, "ElementWiseAdd.x")
                  : -1;
  };
  const std::string mul = "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(m, \"ElementWiseMultiply\", 5)\n";
  const Graph g = graph("ElementWiseAdd");
  const rules::RuleSet plain =
      Rules(mul + "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"ElementWiseAdd\", 5, RESOURCE_HVX)\n");
  const rules::RuleSet inhibit =
      Rules(mul +
            "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"ElementWiseAdd\", 5, RESOURCE_HVX)\n"
            "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(b, \"ElementWiseAdd\", 5, Flags::RESOURCE_HVX, "
            "Flags::INHIBIT_CONST_PROP)\n");
  const rules::RuleSet is_const = Rules(
      mul +
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"ElementWiseAdd\", 5, RESOURCE_HVX, IS_CONST)\n");
  const rules::RuleSet some_const =
      Rules(mul +
            "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"ElementWiseAdd\", 5, RESOURCE_HVX, IS_CONST)\n"
            "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(b, \"ElementWiseAdd\", 5, RESOURCE_HVX)\n");
  OptimizeOptions bounded;
  bounded.fold_max_elements = 2;
  EXPECT_EQ(adds_left(g, plain, {}), 0);
  EXPECT_EQ(adds_left(g, inhibit, {}), 1);
  EXPECT_EQ(adds_left(g, plain, bounded), 1);
  EXPECT_EQ(adds_left(g, is_const, bounded), 0);    // the output bound does not apply
  EXPECT_EQ(adds_left(g, some_const, bounded), 1);  // one implementation runs at run time
  // Folding off: the IS_CONST op stays, priced FREE (the HTP computes it while
  // preparing the graph).
  OptimizeOptions no_fold;
  no_fold.constant_folding = false;
  absl::StatusOr<OptimizeResult> r = RunOpt(g, is_const, no_fold);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CountOp(r->graph, "ElementWiseAdd"), 1);
  EXPECT_NEAR(r->output_cost, 5, 1e-9);  // the multiply alone
  // A suffixed op with no implementations of its own has its base op's flags.
  const Graph gx = graph("ElementWiseAdd.x");
  EXPECT_EQ(adds_left(gx, plain, {}), 0);
  EXPECT_EQ(adds_left(gx, inhibit, {}), 1);
  // The policy the optimizer builds from a registry.
  const FoldPolicy p = FoldPolicyFor(inhibit.ops, 7);
  EXPECT_EQ(p.max_elements, 7);
  EXPECT_TRUE(p.FlagsOf("ElementWiseAdd").inhibit);
  EXPECT_TRUE(p.FlagsOf("ElementWiseAdd.x").inhibit);
  EXPECT_FALSE(p.FlagsOf("ElementWiseMultiply").inhibit);
  EXPECT_TRUE(FoldPolicyFor(is_const.ops).FlagsOf("ElementWiseAdd").is_const);
  EXPECT_FALSE(FoldPolicyFor(some_const.ops).FlagsOf("ElementWiseAdd").is_const);
}

// An op with no implementation (an opaque ONNX op, say) does not stop the
// run: it stays, priced as a CPU fallback, everything around it is
// optimized, and the result lists it as running off the HTP.
TEST(PipelineTest, OpWithoutImplementationRunsOffTheHtp) {
  Graph g;
  const TensorType t = QU8({4});
  NodeId x = g.AddInput("x", t);
  NodeId r1 = AddOp(g, "Relu", {x}, t, "r1");
  NodeId r2 = AddOp(g, "Relu", {r1}, t, "r2");  // Relu(Relu(x)) = Relu(x)
  NodeId m = AddOp(g, "onnx.LSTM", {r2}, t, "lstm");
  NodeId r3 = AddOp(g, "Relu", {m}, t, "r3");
  g.AddOutput(ValueRef{r3, 0}, "out");
  absl::StatusOr<OptimizeResult> r =
      RunOpt(g, Rules("DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"Relu\", Op(\"Relu\", "
                      "\"x\")), OK, Op(\"Relu\", \"x\"))\n"
                      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"Relu\", 5)\n"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CountOp(r->graph, "Relu"), 2);
  EXPECT_EQ(CountOp(r->graph, "onnx.LSTM"), 1);
  EXPECT_EQ(r->off_htp,
            (std::map<std::string, OffHtpOps>{
                {"onnx.LSTM", OffHtpOps{1, {"no implementation of onnx.LSTM is registered"}}}}));
  EXPECT_EQ(ToJson(*r)["off_htp"], nlohmann::json::parse(R"({"onnx.LSTM": {"nodes": 1, "reasons": [
                "no implementation of onnx.LSTM is registered"]}})"));
  EXPECT_LT(r->output_cost, r->input_cost);
  EXPECT_GT(r->output_cost, cost::kOffHtpFixedCost);
}

// An op whose implementations are all for other tensor types runs off the
// HTP too, and the result says why.
TEST(PipelineTest, OpWithImplementationsOnlyForOtherTypesRunsOffTheHtpWithTheReason) {
  Graph g;
  const TensorType f(DType::kFloat32, {1, 4, 4, 8});
  NodeId x = g.AddInput("x", f);
  NodeId r = AddOp(g, "Relu", {x}, f, "r");
  NodeId n = AddOp(g, "Neg", {r}, f, "n");
  g.AddOutput(ValueRef{n, 0}, "out");
  const rules::RuleSet set = Rules(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<QUint8CroutonTensor>), \"Relu\", 2, "
      "RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((negImpl<Tensor>), \"Neg\", 2, RESOURCE_HVX)\n");
  absl::StatusOr<OptimizeResult> res = RunOpt(g, set);
  ASSERT_TRUE(res.ok()) << res.status();
  const std::string why = "no Float32 implementation of Relu (registered: QUInt8 crouton)";
  EXPECT_EQ(res->off_htp, (std::map<std::string, OffHtpOps>{{"Relu", OffHtpOps{1, {why}}}}));
  EXPECT_GT(res->output_cost, cost::kOffHtpFixedCost);
  for (const Node& node : res->graph.nodes()) {
    if (node.op != "Relu") continue;
    EXPECT_EQ(std::get<std::string>(node.attrs.at(std::string(kImplAttr))), cost::kOffHtpImpl);
    EXPECT_EQ(std::get<std::string>(node.attrs.at("egret.off_htp_reason")), why);
  }
  // With the CPU fallback off the output cannot be computed, for that reason.
  OptimizeOptions htp_only;
  htp_only.cpu_fallback = false;
  res = RunOpt(g, set, htp_only);
  ASSERT_FALSE(res.ok());
  EXPECT_THAT(
      std::string(res.status().message()),
      ::testing::HasSubstr("op 'Relu' (class 1, Float32[1,4,4,8], from input node 'r') has no "
                           "implementation for its types: " +
                           why));
}

TEST(PipelineTest, UncomputableOutputNamesTheOp) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({4}));
  NodeId m = AddOp(g, "Mystery", {x}, QU8({4}), "m");
  g.AddOutput(ValueRef{m, 0}, "out");
  OptimizeOptions htp_only;
  htp_only.cpu_fallback = false;
  absl::StatusOr<OptimizeResult> r =
      RunOpt(g, Rules("DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"Relu\", 5)\n"), htp_only);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'Mystery'"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("class"), std::string::npos) << r.status();
}

TEST(PipelineTest, ReluFamilyRulesOfTheExample) {
  // x covers [0, 5.1]: Relu and Relu6 change nothing, Relu1 and ReluX(4) do.
  Graph g;
  const TensorType t = QU8({1, 4, 4, 8}, 0, 0.02f);
  NodeId x = g.AddInput("x", t);
  NodeId r = AddOp(g, "Relu", {x}, t, "r");
  NodeId r6 = AddOp(g, "Relu6", {x}, t, "r6");
  NodeId r1 = AddOp(g, "Relu1", {x}, t, "r1");
  NodeId mx = g.AddConstant("mx", std::make_shared<const Tensor>(
                                      Tensor::FromValues(TensorType(DType::kFloat32, {1}), {4})));
  NodeId rx = AddOp(g, "ReluX", {x, mx}, t, "rx");
  for (NodeId n : {r, r6, r1, rx}) g.AddOutput(ValueRef{n, 0}, g.node(n).name);
  DiagnosticList diags;
  absl::StatusOr<rules::RuleSet> set =
      rules::LoadRuleFiles({EGRET_SOURCE_DIR "/examples/residual_block.rules"}, {}, &diags);
  ASSERT_TRUE(set.ok());
  std::vector<rules::CompiledRule> compiled = rules::CompileRules(*set, {}, &diags);
  ASSERT_FALSE(diags.has_errors()) << diags.ToString();
  EGraph eg;
  absl::StatusOr<GraphClasses> cls = AddGraph(eg, g);
  ASSERT_TRUE(cls.ok());
  eg.Rebuild();
  std::vector<Phase> phases;
  for (const auto& [prio, members] : rules::GroupByPriority(compiled)) {
    Phase p;
    for (size_t i : members) p.rules.push_back(&compiled[i].rewrite);
    phases.push_back(p);
  }
  Runner runner(eg);
  runner.Run(phases);
  auto C = [&](NodeId n) { return eg.Find((*cls)[n][0]); };
  auto has = [&](NodeId n, const char* op) {
    return !eg.ClassNodesWithOp(C(n), Symbol::Intern(op)).empty();
  };
  for (NodeId n : {r, r6, r1, rx}) EXPECT_TRUE(has(n, "ReluMinMax")) << g.node(n).name;
  EXPECT_EQ(C(r), C(x));
  EXPECT_EQ(C(r6), C(x));
  EXPECT_NE(C(r1), C(x));
  EXPECT_NE(C(rx), C(x));
  // The ReluMinMax of Relu1 clamps to [-1, 1].
  ENodeView mm = eg.Node(eg.ClassNodesWithOp(C(r1), Symbol::Intern("ReluMinMax"))[0]);
  EXPECT_EQ(eg.ConstantOf(eg.Find(mm.children[1]))->GetValue(0), -1);
  EXPECT_EQ(eg.ConstantOf(eg.Find(mm.children[2]))->GetValue(0), 1);
}

TEST(LowerTest, MultiOutputNodesAndDeadNodes) {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {4, 2}));
  Node axis;
  axis.op = "$Shape";
  axis.outputs.push_back(TensorType(DType::kInt32, {0}));
  NodeId ax = g.AddNode(axis);
  Node sizes;
  sizes.op = "$Shape";
  sizes.outputs.push_back(TensorType(DType::kInt32, {2, 2}));
  NodeId sz = g.AddNode(sizes);
  Node split;
  split.op = "Split";
  split.name = "split";
  split.inputs = {ValueRef{x, 0}, ValueRef{ax, 0}, ValueRef{sz, 0}};
  split.outputs = {TensorType(DType::kFloat32, {2, 2}), TensorType(DType::kFloat32, {2, 2})};
  NodeId sp = g.AddNode(split);
  NodeId dead = AddOp(g, "Relu", {x}, TensorType(DType::kFloat32, {4, 2}), "dead");
  (void)dead;
  g.AddOutput(ValueRef{sp, 1}, "second");
  absl::StatusOr<OptimizeResult> r =
      RunOpt(g, Rules("DEF_PACKAGE_OP_AND_COST_AND_FLAGS(s, \"Split\", 3)\n"
                      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(s, \"Relu\", 3)\n"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CountOp(r->graph, "Relu"), 0);  // dead
  ASSERT_EQ(CountOp(r->graph, "Split"), 1);
  const GraphOutput& out = r->graph.outputs()[0];
  EXPECT_EQ(r->graph.node(out.value.node).op, "Split");
  EXPECT_EQ(r->graph.node(out.value.node).outputs.size(), 2u);
  EXPECT_EQ(out.value.output, 1u);
  EXPECT_EQ(r->graph.node(out.value.node).name, "split");
  ASSERT_TRUE(r->graph.TopologicalOrder().ok());
}

}  // namespace
}  // namespace egret
