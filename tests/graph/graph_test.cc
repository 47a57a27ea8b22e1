#include "egret/graph/graph.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace egret {
namespace {

TEST(DType, NamesRoundTripWithQnnValues) {
  EXPECT_EQ(static_cast<int>(DType::kQUInt8), 1);
  EXPECT_EQ(static_cast<int>(DType::kInt64), 9);
  for (int v : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 254, 255}) {
    auto t = DTypeFromValue(v);
    ASSERT_TRUE(t.has_value()) << v;
    EXPECT_EQ(ParseDType(DTypeName(*t)), t);
  }
  EXPECT_FALSE(ParseDType("Float8").has_value());
  EXPECT_FALSE(DTypeFromValue(18).has_value());
  EXPECT_EQ(ElementSize(DType::kQUInt16), 2);
  // 4-bit weights: one element per byte in memory, two in storage.
  EXPECT_EQ(ElementSize(DType::kQInt4), 1);
  EXPECT_EQ(StorageBits(DType::kQInt4), 4);
  EXPECT_EQ(StorageBits(DType::kQUInt8), 8);
  EXPECT_EQ(StorageMin(DType::kQInt4), -8);
  EXPECT_EQ(StorageMax(DType::kQUInt4), 15);
  EXPECT_TRUE(IsQuantizedSigned(DType::kQInt4));
  EXPECT_EQ(TensorType(DType::kQUInt4, {3, 5}).stored_byte_size(), 8);
}

TEST(Tensor, QuantizedRealValues) {
  Tensor t(TensorType(DType::kQUInt8, {4}, 128, 0.5f));
  t.SetReal(0, 1.0);     // q = 130
  t.SetReal(1, -64.0);   // q = 0
  t.SetReal(2, 1000.0);  // saturates to 255
  EXPECT_EQ(t.GetValue(0), 130);
  EXPECT_EQ(t.GetReal(0), 1.0);
  EXPECT_EQ(t.GetValue(1), 0);
  EXPECT_EQ(t.GetValue(2), 255);
  EXPECT_EQ(t.GetReal(2), 63.5);
}

TEST(Tensor, HalfConversions) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(f)), f) << f;
  }
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_TRUE(std::isinf(HalfToFloat(FloatToHalf(1e6f))));
}

Graph SmallGraph() {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {1, 2, 2, 3}));
  NodeId y = g.AddInput("y", TensorType(DType::kFloat32, {1, 2, 2, 3}));
  Node add;
  add.op = "ElementWiseAdd";
  add.name = "add";
  add.inputs = {{x, 0}, {y, 0}};
  add.outputs = {TensorType(DType::kFloat32, {1, 2, 2, 3})};
  NodeId a = g.AddNode(add);
  g.AddOutput({a, 0}, "out");
  return g;
}

TEST(Graph, ValidGraphValidates) {
  Graph g = SmallGraph();
  EXPECT_TRUE(g.Validate().ok()) << g.Validate();
  auto order = g.TopologicalOrder();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order, (std::vector<NodeId>{0, 1, 2}));
}

// Nodes whose ids are not in dependency order (a rewrite that redirects an
// input to a node added later): the order is still every producer before its
// users, the smallest ready id first.
TEST(Graph, OrderPutsProducersFirstWhateverTheIds) {
  Graph g = SmallGraph();
  Node neg;
  neg.op = "Neg";
  neg.inputs = {{0, 0}};
  neg.outputs = {TensorType(DType::kFloat32, {1, 2, 2, 3})};
  const NodeId n3 = g.AddNode(neg);
  neg.inputs = {{n3, 0}};
  const NodeId n4 = g.AddNode(neg);
  g.mutable_node(2).inputs[1] = {n4, 0};  // add (#2) now reads #4, which reads #3
  auto order = g.TopologicalOrder();
  ASSERT_TRUE(order.ok()) << order.status();
  EXPECT_EQ(*order, (std::vector<NodeId>{0, 1, 3, 4, 2}));
  EXPECT_TRUE(g.Validate().ok());
}

TEST(Graph, DanglingInputIsRejected) {
  Graph g = SmallGraph();
  g.mutable_node(2).inputs[1] = {99, 0};
  absl::Status s = g.Validate();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "node 'add' (#2): input 1 refers to missing node #99");
}

TEST(Graph, CycleIsRejected) {
  Graph g = SmallGraph();
  Node relu;
  relu.op = "Relu";
  relu.name = "r";
  relu.inputs = {{2, 0}};
  relu.outputs = {TensorType(DType::kFloat32, {1, 2, 2, 3})};
  NodeId r = g.AddNode(relu);
  g.mutable_node(2).inputs[0] = {r, 0};
  absl::Status s = g.Validate();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "node 'add' (#2): is on a cycle: 'add' (#2) -> 'r' (#3) -> 'add' (#2)");
}

TEST(Graph, CycleErrorNamesANodeOnTheCycleNotOneDownstream) {
  // #1 consumes the cycle #2 <-> #3 but is not on it.
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {1}));
  auto add = [&](std::string name, std::vector<ValueRef> inputs) {
    Node n;
    n.op = "Op";
    n.name = std::move(name);
    n.inputs.assign(inputs.begin(), inputs.end());
    n.outputs = {TensorType(DType::kFloat32, {1})};
    return g.AddNode(std::move(n));
  };
  add("down", {{3, 0}});
  add("a", {{x, 0}, {3, 0}});
  add("b", {{2, 0}});
  NodeId culprit = kNoNode;
  absl::Status s = g.Validate(&culprit);
  EXPECT_EQ(s.message(), "node 'a' (#2): is on a cycle: 'a' (#2) -> 'b' (#3) -> 'a' (#2)");
  EXPECT_EQ(culprit, 2u);
  NodeId self = add("self", {{4, 0}});
  g.mutable_node(2).inputs.pop_back();
  EXPECT_EQ(g.TopologicalOrder(&culprit).status().message(),
            "node 'self' (#4): is on a cycle: 'self' (#4) -> 'self' (#4)");
  EXPECT_EQ(culprit, self);
}

TEST(Graph, RepeatedNameIsRejectedAtItsSecondNode) {
  Graph g = SmallGraph();  // x #0, y #1, add #2
  Node relu;
  relu.op = "Relu";
  relu.name = "x";
  relu.inputs = {{2, 0}};
  relu.outputs = {TensorType(DType::kFloat32, {1, 2, 2, 3})};
  g.AddNode(relu);  // #3, named as #0
  relu.name = "add";
  g.AddNode(relu);  // #4, named as #2: a later repeat
  NodeId culprit = kNoNode;
  absl::Status s = g.Validate(&culprit);
  EXPECT_EQ(s.message(), "node 'x' (#3): name also used by node #0");
  EXPECT_EQ(culprit, 3u);
  // The checks go node by node: an earlier node's other fault comes first.
  g.mutable_node(2).op.clear();
  EXPECT_EQ(g.Validate().message(), "node 'add' (#2): empty op");
  // Unnamed nodes never clash.
  g.mutable_node(2).op = "ElementWiseAdd";
  g.mutable_node(3).name.clear();
  g.mutable_node(4).name.clear();
  g.mutable_node(1).name.clear();
  EXPECT_TRUE(g.Validate().ok()) << g.Validate();
}

TEST(Graph, ValidateReportsTheCulprit) {
  Graph g = SmallGraph();
  g.mutable_node(1).outputs[0].dims[0] = -1;
  NodeId culprit = kNoNode;
  EXPECT_FALSE(g.Validate(&culprit).ok());
  EXPECT_EQ(culprit, 1u);
}

TEST(Provenance, EmptyReadsAsTwoEmptyListsAndEqualsOneMadeEmpty) {
  Provenance none;
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(none.from().empty());
  EXPECT_TRUE(none.rules().empty());
  EXPECT_EQ(none, Provenance({}, {}));
  // Lists made and left empty are still empty, and equal to none.
  Provenance made;
  made.mutable_rules();
  EXPECT_TRUE(made.empty());
  EXPECT_EQ(made, none);
}

TEST(Provenance, CopiesAreDeepAndMovesTakeTheLists) {
  Provenance a({"x", "y"}, {"fuse"});
  Provenance b = a;
  b.mutable_from().push_back("z");
  EXPECT_EQ(a.from(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.from(), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_NE(a, b);
  b = a;
  EXPECT_EQ(a, b);
  b = Provenance();  // assigning an empty one empties
  EXPECT_TRUE(b.empty());
  Provenance c = std::move(a);
  EXPECT_EQ(c.rules(), (std::vector<std::string>{"fuse"}));
  Node n;
  n.provenance = c;
  Node copy = n;  // a node's copy carries its own lists
  copy.provenance.mutable_rules().clear();
  EXPECT_EQ(n.provenance.rules(), (std::vector<std::string>{"fuse"}));
  EXPECT_FALSE(copy.provenance.empty());  // from is still {"x", "y"}
}

TEST(Provenance, RewrittenMeansRulesOrInputNodesOtherThanItself) {
  Node n;
  n.name = "conv";
  EXPECT_FALSE(IsRewritten(n));  // an input graph's node
  n.provenance = Provenance({"conv"}, {});
  EXPECT_FALSE(IsRewritten(n));  // lowered unchanged
  n.provenance = Provenance({"relu"}, {});
  EXPECT_TRUE(IsRewritten(n));  // took another node's place
  n.provenance = Provenance({"conv", "relu"}, {});
  EXPECT_TRUE(IsRewritten(n));  // merged two
  n.provenance = Provenance({"conv"}, {"fold_bias"});
  EXPECT_TRUE(IsRewritten(n));  // a rule rebuilt it
  n.provenance = Provenance({}, {"fold_bias"});
  EXPECT_TRUE(IsRewritten(n));
}

TEST(Attributes, IterateInKeyOrderAndFindByView) {
  Attributes a;
  a["stride"] = int64_t{2};
  a["axes"] = std::vector<int64_t>{0, 1};
  a["mode"] = std::string("nearest");
  std::vector<std::string> keys;
  for (const auto& [k, v] : a) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"axes", "mode", "stride"}));
  auto it = a.find(std::string_view("mode"));  // heterogeneous: no string is built
  ASSERT_NE(it, a.end());
  EXPECT_EQ(std::get<std::string>(it->second), "nearest");
  a.erase("axes");
  EXPECT_FALSE(a.contains("axes"));
  Attributes b = a;
  EXPECT_EQ(a, b);
  b["stride"] = int64_t{1};
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace egret
