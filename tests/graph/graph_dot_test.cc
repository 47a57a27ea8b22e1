#include "egret/graph/graph_dot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace egret {
namespace {

using ::testing::HasSubstr;

TEST(GraphDot, ShowsOpsNamesEdgeTypesAndConstants) {
  Graph g;
  g.set_name("tiny");
  NodeId x = g.AddInput("x", TensorType(DType::kQUInt8, {1, 4, 4, 2}, 128, 0.5f));
  Tensor bias(TensorType(DType::kInt32, {2}));
  bias.SetValue(0, 3);
  bias.SetValue(1, -4);
  NodeId b = g.AddConstant("b", std::make_shared<const Tensor>(bias));
  NodeId big = g.AddConstant(
      "w", std::make_shared<const Tensor>(Tensor(TensorType(DType::kQUInt8, {3, 3, 2, 2}))));
  Node shape;
  shape.op = std::string(kShapeOp);
  shape.outputs = {TensorType(DType::kInt32, {1, 2, 2, 1})};
  NodeId s = g.AddNode(shape);
  Node conv;
  conv.op = "Conv2d";
  conv.name = "conv \"1\"";
  conv.inputs = {{x, 0}, {big, 0}, {b, 0}, {s, 0}};
  conv.outputs = {TensorType(DType::kQUInt8, {1, 2, 2, 2}, 128, 0.25f)};
  NodeId c = g.AddNode(conv);
  g.AddOutput({c, 0}, "y");

  std::string dot = GraphToDot(g);
  EXPECT_THAT(dot, ::testing::StartsWith("digraph \"tiny\" {\n"));
  EXPECT_THAT(dot, HasSubstr("  n0 [label=\"*Input\\nx\", shape=ellipse];\n"));
  // The constants and the shape are lines of the Conv2d's label, by input
  // index (small constants with their values), not boxes or edges.
  EXPECT_THAT(dot, HasSubstr("n4 [label=\"Conv2d\\nconv \\\"1\\\"\\n#1 w: QUInt8[3,3,2,2](z=0,s=1)"
                             "\\n#2 b: Int32[2] {3, -4}\\n#3 [1,2,2,1]\"];\n"));
  for (const char* gone : {"  n1 ", "  n2 ", "  n3 ", "n1 -> ", "n2 -> ", "n3 -> "}) {
    EXPECT_THAT(dot, ::testing::Not(HasSubstr(gone))) << gone;
  }
  EXPECT_THAT(dot, HasSubstr("  n0 -> n4 [label=\"QUInt8[1,4,4,2](z=128,s=0.5)\"];\n"));
  EXPECT_THAT(dot, HasSubstr("  out0 [label=\"y\", shape=ellipse];\n"));
  EXPECT_THAT(dot, HasSubstr("  n4 -> out0 [label=\"QUInt8[1,2,2,2](z=128,s=0.25)\"];\n"));
  EXPECT_THAT(dot, ::testing::EndsWith("}\n"));
}

TEST(GraphDot, ShowsTheImplementationAndCostLoweringChose) {
  Graph g;
  const TensorType t(DType::kFloat32, {4});
  NodeId last = g.AddInput("x", t);
  auto add = [&](std::string op, std::string name, Attributes attrs) {
    Node n;
    n.op = std::move(op);
    n.name = std::move(name);
    n.inputs = {{last, 0}};
    n.outputs = {t};
    n.attrs = std::move(attrs);
    last = g.AddNode(std::move(n));
  };
  add("Relu", "r",
      {{std::string(kImplAttr), std::string("reluImpl<PlainFloatTensor>")},
       {std::string(kCostAttr), 2.5}});
  add("Neg", "n", {{std::string(kCostAttr), int64_t{7}}});  // as read back from JSON
  add("Neg", "p", {});

  std::string dot = GraphToDot(g);
  EXPECT_THAT(dot, HasSubstr("n1 [label=\"Relu\\nr\\nimpl: reluImpl<PlainFloatTensor>\\ncost: "
                             "2.5\"];\n"));
  EXPECT_THAT(dot, HasSubstr("n2 [label=\"Neg\\nn\\ncost: 7\"];\n"));
  EXPECT_THAT(dot, HasSubstr("n3 [label=\"Neg\\np\"];\n"));
}

// A constant that is a graph output keeps its box; a node rules rewrote is
// filled orange, one they did not is not.
TEST(GraphDot, ConstantOutputsAreDrawnAndRewrittenNodesHighlighted) {
  Graph g;
  const TensorType t(DType::kFloat32, {2});
  NodeId x = g.AddInput("x", t);
  NodeId k = g.AddConstant("k", std::make_shared<const Tensor>(Tensor(t)));
  Node relu;
  relu.op = "Relu";
  relu.name = "r";
  relu.inputs = {{x, 0}};
  relu.outputs = {t};
  relu.provenance.mutable_from() = {"r", "r2"};
  relu.provenance.mutable_rules() = {"GRAPH_CLEANUP@relu.rules:2"};
  NodeId r = g.AddNode(relu);
  Node neg = relu;
  neg.op = "Neg";
  neg.name = "n";
  neg.inputs = {{r, 0}};
  neg.provenance = {{"n"}, {}};
  NodeId n = g.AddNode(neg);
  g.AddOutput({n, 0}, "y");
  g.AddOutput({k, 0}, "k_out");
  const std::string dot = GraphToDot(g);
  EXPECT_THAT(dot, HasSubstr("  n1 [label=\"$Const\\nk\\nFloat32[2] {0, 0}\", style=filled"));
  EXPECT_THAT(
      dot, HasSubstr("  n2 [label=\"Relu\\nr\\nfrom: r, r2\\nrules: GRAPH_CLEANUP@relu.rules:2\", "
                     "style=filled, fillcolor=\"#fde2b8\"];\n"));
  EXPECT_THAT(dot, HasSubstr("  n3 [label=\"Neg\\nn\\nfrom: n\"];\n"));
}

TEST(GraphDot, MultiOutputEdgesNameTheOutputAndMissingInputsAreDrawn) {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {2}));
  Node split;
  split.op = "Split";
  split.inputs = {{x, 0}};
  split.outputs = {TensorType(DType::kFloat32, {1}), TensorType(DType::kFloat16, {1})};
  NodeId s = g.AddNode(split);
  Node relu;
  relu.op = "Relu";
  relu.inputs = {{s, 1}, {42, 0}};
  relu.outputs = {TensorType(DType::kFloat16, {1})};
  g.AddNode(relu);
  std::string dot = GraphToDot(g);
  EXPECT_THAT(dot, HasSubstr("  n1 -> n2 [label=\"1: Float16[1]\"];\n"));
  EXPECT_THAT(dot, HasSubstr("  missing -> n2 [style=dashed, label=\"#42:0\"];\n"));
}

}  // namespace
}  // namespace egret
