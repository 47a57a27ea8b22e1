// Pricing nodes and graphs: NodeCostOf's bytes and dtype, "$Shape" inputs
// left out of the working set, the cost of a graph, and the costs of the
// bundled examples, which must not move when the cost code moves.
#include "egret/cost/graph_cost.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "egret/cost/cost_table.h"
#include "egret/cost/device_params.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/cost/make_cost_model.h"
#include "egret/graph/dtype.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"
#include "egret/io/graph_io.h"
#include "egret/rules/rule_set.h"
#include "gtest/gtest.h"

namespace egret::cost {
namespace {

TensorType QU8(Dims d) { return TensorType(DType::kQUInt8, std::move(d)); }

NodeId AddOp(Graph& g, const std::string& op, std::vector<NodeId> inputs, TensorType out) {
  Node n;
  n.op = op;
  for (NodeId i : inputs) n.inputs.push_back(ValueRef{i, 0});
  n.outputs.push_back(std::move(out));
  return g.AddNode(std::move(n));
}

CostTable Table() {
  CostTable t;
  t.ops["Add"] = {{"add", 2, /*hvx=*/true, /*no_op=*/false}};
  t.ops["Reshape"] = {{"reshape", 3, /*hvx=*/true, /*no_op=*/false}};
  return t;
}

TEST(GraphCostTest, NodeCostSumsOutputBytesAndCountsInputsInTheWorkingSet) {
  const HvxCostModel m(Table(), /*vtcm_bytes=*/1024);
  // Outputs 256 + 256 bytes: 4 vectors at 2. Working set 512 + 1024 bytes:
  // 512 over the capacity, 4 vectors spilled.
  const TensorType in = QU8({512});
  NodeCost c = NodeCostOf(m, "Add", {QU8({256}), QU8({256})}, {NodeInput{&in}, NodeInput{&in}});
  ASSERT_TRUE(c.computable);
  EXPECT_EQ(c.impl, "add");
  EXPECT_EQ(c.cost, 4 * 2 + 4 * kSpillCyclesPerVector);
  EXPECT_EQ(NodeCostOf(m, "Add", {QU8({256}), QU8({256})}, {}).cost, 8);
  // The dtype is the first output's (here 2 vectors of output in all).
  CostTable o = Table();
  ASSERT_TRUE(AddCostOverrides(R"({"Add": {"QUInt8": 5, "Float32": 7}})", "c.json", &o).ok());
  const HvxCostModel mo(o);
  EXPECT_EQ(NodeCostOf(mo, "Add", {QU8({128}), TensorType(DType::kFloat32, {32})}, {}).cost, 10);
  EXPECT_EQ(NodeCostOf(mo, "Add", {TensorType(DType::kFloat32, {32}), QU8({128})}, {}).cost, 14);
  EXPECT_TRUE(NodeCostOf(m, "Mystery", {QU8({128})}, {}).off_htp);
}

TEST(GraphCostTest, ProfileSeparatesDataOperandsFromParametersAndShapeValues) {
  // Conv2d: in, filter, bias are data; stride, pads, dilation parameters.
  const TensorType x(DType::kQUInt8, {1, 8, 8, 4}), w(DType::kQInt8, {3, 3, 4, 4});
  const TensorType b(DType::kInt32, {4}), stride(DType::kInt32, {1, 1, 1, 1, 1});
  const TensorType pads(DType::kFloat32, {2, 2});  // a "$Const" parameter: counts as bytes
  const std::vector<NodeInput> ins = {
      {&x}, {&w}, {&b}, {&stride, /*shape_value=*/true}, {&pads}, {&stride, /*shape_value=*/true}};
  const NodeProfile p = ProfileOf("Conv2d", {TensorType(DType::kQUInt8, {1, 8, 8, 4})}, ins);
  EXPECT_EQ(p.dtype, DType::kQUInt8);
  EXPECT_FALSE(p.multi_output);
  EXPECT_EQ(p.data_dtypes, (std::vector<DType>{DType::kQUInt8, DType::kQInt8, DType::kInt32}));
  EXPECT_EQ(p.max_rank, 4);
  EXPECT_EQ(p.output_bytes, 256);
  EXPECT_EQ(p.input_bytes, 256 + 144 + 16 + 16);  // no "$Shape" bytes
  // An op the op table does not know: every input but "$Shape" values is data.
  const NodeProfile q = ProfileOf("onnx.Mystery", {x, x}, ins);
  EXPECT_EQ(q.data_dtypes.size(), 4u);
  EXPECT_TRUE(q.multi_output);
  EXPECT_EQ(q.output_bytes, 512);
  // A rank-5 data operand raises max_rank.
  const TensorType r5(DType::kFloat32, {1, 2, 3, 4, 5});
  EXPECT_EQ(ProfileOf("ElementWiseAdd", {r5}, {NodeInput{&r5}, NodeInput{&r5}}).max_rank, 5);
}

TEST(GraphCostTest, ShapeInputsAreNotPartOfTheWorkingSet) {
  const HvxCostModel m(Table(), /*vtcm_bytes=*/1024);
  Graph g;
  const NodeId x = g.AddInput("x", QU8({1024}));
  Node shape;
  shape.op = std::string(kShapeOp);
  shape.outputs.push_back(TensorType(DType::kInt32, {1, 1024}));  // 4 KiB if it were data
  const NodeId s = g.AddNode(std::move(shape));
  const NodeId r = AddOp(g, "Reshape", {x, s}, QU8({1, 1024}));
  g.AddOutput(ValueRef{r, 0});
  // 8 vectors at 3; working set 1024 + 1024 bytes: 8 vectors spilled. The
  // "$Shape" input's 4 KiB do not count.
  const double want = 8 * 3 + 8 * kSpillCyclesPerVector;
  EXPECT_EQ(GraphNodeCost(m, g, g.node(r)).cost, want);
  const TensorType in = QU8({1024});
  EXPECT_EQ(NodeCostOf(m, "Reshape", g.node(r).outputs, {NodeInput{&in}}).cost, want);
  // The graph: the input and the shape are free, the reshape as above.
  const double total = GraphCost(g, m, nullptr);
  EXPECT_NEAR(total, want, 1e-9);
  EXPECT_GE(total, want);
}

TEST(GraphCostTest, WithoutCpuFallbackAnOpWithoutImplementationMakesTheGraphCostInfinite) {
  HvxCostModel m(Table());
  m.set_cpu_fallback(false);
  Graph g;
  const NodeId x = g.AddInput("x", QU8({128}));
  const NodeId a = AddOp(g, "Add", {x, x}, QU8({128}));
  const NodeId b = AddOp(g, "Mystery", {a}, QU8({128}));
  const NodeId c = AddOp(g, "Unknown", {b}, QU8({128}));
  g.AddOutput(ValueRef{c, 0});
  UncomputableNode missing;
  EXPECT_EQ(GraphCost(g, m, &missing), std::numeric_limits<double>::infinity());
  EXPECT_EQ(missing.op, "Mystery");  // the first one
  EXPECT_EQ(missing.reason, "no implementation of Mystery is registered");
  EXPECT_EQ(GraphCost(g, m, nullptr), std::numeric_limits<double>::infinity());
}

TEST(GraphCostTest, AWeightReadThroughDequantizeIsPricedAtItsStoredBytes) {
  // FullyConnected(x, Dequantize(w)) with w [64, 128] in 4-bit blocks of 32:
  // the HTP reads the 4,096 stored bytes (two elements to a byte), not the
  // 32 KiB of the dequantized floats, and not as an activation.
  Graph g;
  const NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {1, 128}));
  TensorType wt(DType::kQUInt4, {64, 128});
  ASSERT_TRUE(
      wt.SetPerAxis(1, std::vector<float>(256, 0.5f), std::vector<int32_t>(256, 8), 32).ok());
  Node c;
  c.op = std::string(kConstOp);
  c.constant = std::make_shared<const Tensor>(wt);
  c.outputs.push_back(wt);
  const NodeId w = g.AddNode(std::move(c));
  const NodeId d = AddOp(g, "Dequantize", {w}, TensorType(DType::kFloat32, {64, 128}));
  const NodeId fc = AddOp(g, "FullyConnected", {x, d}, TensorType(DType::kFloat32, {1, 64}));
  g.AddOutput(ValueRef{fc, 0});
  const NodeProfile p = GraphNodeProfile(g, g.node(fc));
  EXPECT_EQ(p.stored_weight_bytes, 64 * 128 / 2);
  EXPECT_EQ(p.const_bytes, 0);
  EXPECT_EQ(p.input_activation_bytes.size(), 1u);  // x alone
  // The Dequantize itself reads a constant only: done while preparing.
  EXPECT_TRUE(GraphNodeProfile(g, g.node(d)).constant_inputs);
  // 8-bit weights of the same shape: twice the bytes.
  TensorType w8 = wt;
  w8.dtype = DType::kQUInt8;
  EXPECT_EQ(w8.stored_byte_size(), 2 * wt.stored_byte_size());
}

// GraphCost and AnnotateImplementations remember which values are constants
// across the nodes they price; each node must still cost what it costs
// alone (GraphNodeCost), on chains of Reshapes of a weight shorter and
// longer than the constant search's budget and on a chain from an input.
TEST(GraphCostTest, PricingAGraphPricesEachNodeAsAlone) {
  DiagnosticList diags;
  absl::StatusOr<rules::RuleSet> set = rules::LoadRuleFiles(
      rules::ShippedRuleFiles(std::string(EGRET_SOURCE_DIR) + "/egret/rules/lib"), {}, &diags);
  ASSERT_TRUE(set.ok()) << set.status();
  // Priced in time on a device: the latency model reads constants from DDR.
  absl::StatusOr<DeviceParams> device =
      LoadDevice("snapdragon-8-gen-3", std::string(EGRET_SOURCE_DIR) + "/egret/cost/devices");
  ASSERT_TRUE(device.ok()) << device.status();
  Graph g;
  const HvxCostModel m = MakeCostModel(set->ops, {}, g.options(), nullptr,
                                       std::make_shared<const DeviceParams>(*device));
  const TensorType t(DType::kFloat32, {1, 64, 64, 32});
  const NodeId x = g.AddInput("x", t);
  Node c;
  c.op = std::string(kConstOp);
  c.constant = std::make_shared<const Tensor>(t);
  c.outputs.push_back(t);
  const NodeId w = g.AddNode(std::move(c));
  NodeId from_x = x, from_w = w;
  std::vector<NodeId> adds, chain;
  for (int i = 0; i < 100; ++i) {
    from_x = AddOp(g, "Relu", {from_x}, t);
    from_w = AddOp(g, "Relu", {from_w}, t);
    chain.push_back(from_w);
    // Reads a value from the input and a chain of the weight, i + 1 long:
    // constant up to the search's budget, then not.
    adds.push_back(AddOp(g, "ElementWiseAdd", {from_x, from_w}, t));
    g.AddOutput(ValueRef{adds.back(), 0});
  }
  double sum = 0;
  for (const Node& n : g.nodes()) sum += GraphNodeCost(m, g, n).cost;
  EXPECT_EQ(GraphCost(g, m, nullptr), sum);
  // The test can tell: a Relu of the weight's chain whose input is a
  // constant is done while preparing the graph; past the search's budget its
  // input is an activation, and it is priced.
  EXPECT_LT(GraphNodeCost(m, g, g.node(chain[1])).cost,
            GraphNodeCost(m, g, g.node(chain.back())).cost);
  Graph annotated = g;
  ASSERT_EQ(AnnotateImplementations(m, &annotated, nullptr), kNoNode);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (!annotated.node(id).attrs.contains(std::string(kCostAttr))) continue;
    EXPECT_EQ(annotated.node(id).attrs.at(std::string(kCostAttr)),
              AttrValue(GraphNodeCost(m, g, g.node(id)).cost))
        << "node " << id;
  }
}

// GraphProfiler keeps each node's op-table row and each value's constant
// test for the whole graph; every profile must still be the node's profile
// alone (GraphNodeProfile), for matrix ops and their epilogues, weights
// computed from constants, a QDQ weight, a gather, an op with an
// implementation suffix and an op egret does not know.
TEST(GraphCostTest, GraphProfilerProfilesEachNodeAsAlone) {
  Graph g;
  const TensorType act(DType::kFloat32, {1, 8, 8, 16});
  const TensorType filter(DType::kFloat32, {3, 3, 16, 16});
  auto constant = [&](const TensorType& t) {
    Node c;
    c.op = std::string(kConstOp);
    c.constant = std::make_shared<const Tensor>(t);
    c.outputs.push_back(t);
    return g.AddNode(std::move(c));
  };
  const NodeId x = g.AddInput("x", act);
  const NodeId w = constant(filter);
  const NodeId w2 = AddOp(g, "Reshape", {constant(TensorType(DType::kFloat32, {144, 16}))}, filter);
  const NodeId conv = AddOp(g, "Conv2d", {x, w}, act);
  const NodeId scale = constant(TensorType(DType::kFloat32, {1}));
  const NodeId scaled = AddOp(g, "ElementWiseMultiply", {conv, scale}, act);
  const NodeId relu = AddOp(g, "Relu.fp16", {scaled}, act);
  const NodeId conv2 = AddOp(g, "Conv2d", {relu, w2}, act);
  const NodeId sum = AddOp(g, "ElementWiseAdd", {conv2, relu}, act);
  const TensorType q(DType::kQUInt8, {16, 16}, /*zero=*/3, /*step=*/0.5f);
  const NodeId dq = AddOp(g, "Dequantize", {constant(q)}, TensorType(DType::kFloat32, {16, 16}));
  const NodeId fc = AddOp(g, "FullyConnected", {sum, dq}, act);
  const NodeId table = constant(TensorType(DType::kFloat32, {1000, 16}));
  const NodeId ids = g.AddInput("ids", TensorType(DType::kInt32, {4}));
  const NodeId rows = AddOp(g, "Gather", {table, ids}, TensorType(DType::kFloat32, {4, 16}));
  const NodeId mystery = AddOp(g, "onnx.Mystery", {fc, rows}, act);
  g.AddOutput(ValueRef{mystery, 0});

  // Every field of a profile, dtypes by name (so that a failure reads).
  auto fields = [](const NodeProfile& p) {
    std::vector<std::string> data_dtypes;
    for (DType t : p.data_dtypes) data_dtypes.emplace_back(DTypeName(t));
    return std::make_tuple(std::string(DTypeName(p.dtype)), p.multi_output, p.output_bytes,
                           p.input_bytes, data_dtypes, p.max_rank, p.macs, p.matrix_macs,
                           p.const_bytes, p.stored_weight_bytes,
                           std::string(DTypeName(p.input_dtype)), p.constant_inputs, p.epilogue,
                           p.input_activation_bytes, p.output_activation_bytes);
  };
  GraphProfiler profiler(g);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const NodeProfile alone = GraphNodeProfile(g, g.node(id));
    EXPECT_EQ(fields(profiler.Profile(id)), fields(alone)) << g.NodeLabel(id);
  }
  // The test can tell: the scale and the Relu are the first convolution's
  // epilogue, the sum reads two matrix sources and is not; the reshaped
  // weight is a constant, the QDQ weight is read at its stored bytes, and
  // the gather reads only the rows it takes.
  EXPECT_TRUE(profiler.Profile(scaled).epilogue);
  EXPECT_TRUE(profiler.Profile(relu).epilogue);
  EXPECT_FALSE(profiler.Profile(sum).epilogue);
  EXPECT_GT(profiler.Profile(conv).macs, 0);
  EXPECT_EQ(profiler.Profile(conv2).const_bytes, filter.byte_size());
  EXPECT_EQ(profiler.Profile(fc).stored_weight_bytes, 16 * 16);
  EXPECT_EQ(profiler.Profile(rows).input_bytes, 4 * 16 * 4 + 4 * 4);
}

// The input costs `egret optimize` reported for the bundled examples before
// the cost stage existed (report "input_cost").
TEST(GraphCostTest, BundledExamplesCostWhatTheyCost) {
  struct Case {
    std::string graph;
    std::vector<std::string> rules;
    double cost;
  };
  const std::string dir = std::string(EGRET_SOURCE_DIR) + "/examples/";
  const std::vector<Case> cases = {
      {dir + "residual_block.json", {dir + "residual_block.rules"}, 33024},
      {dir + "inception_block.json",
       rules::ShippedRuleFiles(std::string(EGRET_SOURCE_DIR) + "/egret/rules/lib"), 856192},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.graph);
    absl::StatusOr<Graph> g = LoadGraph(c.graph);
    ASSERT_TRUE(g.ok()) << g.status();
    DiagnosticList diags;
    absl::StatusOr<rules::RuleSet> set = rules::LoadRuleFiles(c.rules, {}, &diags);
    ASSERT_TRUE(set.ok()) << set.status();
    ASSERT_FALSE(diags.has_errors()) << diags.ToString();
    const HvxCostModel m = MakeCostModel(set->ops, {}, g->options());
    UncomputableNode missing;
    EXPECT_EQ(GraphCost(*g, m, &missing), c.cost);
    EXPECT_EQ(missing.op, "");
  }
}

}  // namespace
}  // namespace egret::cost
