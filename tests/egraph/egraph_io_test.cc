#include <memory>
#include <string>
#include <vector>

#include "egret/egraph/builtin_rewrites.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/graph_import.h"
#include "egret/egraph/invariants.h"
#include "egret/egraph/runner.h"
#include "egret/egraph/serialize.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::F32;
using ::egret::testing::Leaf;
using ::testing::HasSubstr;

TEST(SerializeTest, JsonHasEgraphSerializeStructure) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  Id sum = AddOp(g, "ElementWiseAdd", {a, b});
  RunnerOptions o;
  Runner(g, o).Run(BuiltinRewrites(OpTable::Default()));
  std::string text = ToSerializedJson(g, {sum}, [](const EGraph& g, NodeIdx n) {
    return g.NodeOp(n).str() == "ElementWiseAdd" ? 2.5 : 1.0;
  });
  nlohmann::json j = nlohmann::json::parse(text);
  ASSERT_TRUE(j.contains("nodes"));
  ASSERT_TRUE(j.contains("class_data"));
  ASSERT_TRUE(j.contains("root_eclasses"));
  EXPECT_EQ(j["nodes"].size(), g.num_nodes());
  EXPECT_EQ(j["class_data"].size(), g.num_classes());
  EXPECT_EQ(j["root_eclasses"], nlohmann::json::array({std::to_string(g.Find(sum))}));
  size_t adds = 0;
  for (auto& [id, node] : j["nodes"].items()) {
    ASSERT_TRUE(node["op"].is_string());
    ASSERT_TRUE(node["eclass"].is_string());
    ASSERT_TRUE(node["cost"].is_number());
    ASSERT_TRUE(node["children"].is_array());
    EXPECT_TRUE(j["class_data"].contains(node["eclass"].get<std::string>()));
    for (auto& child : node["children"]) {
      ASSERT_TRUE(j["nodes"].contains(child.get<std::string>())) << child;
    }
    if (node["op"] == "ElementWiseAdd") {
      ++adds;
      EXPECT_EQ(node["cost"], 2.5);
      EXPECT_EQ(node["eclass"], std::to_string(g.Find(sum)));
      EXPECT_EQ(node["children"].size(), 2u);
    }
  }
  EXPECT_EQ(adds, 2u);  // a+b and b+a
  EXPECT_EQ(j["class_data"][std::to_string(g.Find(a))]["type"], "Float32[4]");
}

TEST(SerializeTest, DotHasClustersAndEdges) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id r = AddOp(g, "Relu", {a});
  std::string dot = ToDot(g, {r});
  EXPECT_THAT(dot, HasSubstr("digraph"));
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_" + std::to_string(a)));
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_" + std::to_string(r)));
  EXPECT_THAT(dot, HasSubstr("[label=\"Relu\"]"));
  EXPECT_THAT(dot, HasSubstr("-> \"" + std::to_string(a) + ".0\""));
  EXPECT_EQ(std::count(dot.begin(), dot.end(), '{'), std::count(dot.begin(), dot.end(), '}'));
}

TEST(GraphImportTest, CseConstantsAttributesAndMultiOutput) {
  Graph graph;
  TensorType t(DType::kFloat32, {1, 4});
  NodeId in1 = graph.AddInput("in1", t);
  NodeId in2 = graph.AddInput("in2", t);
  auto data = std::make_shared<Tensor>(Tensor::FromValues(t, {1, 2, 3, 4}));
  NodeId c1 = graph.AddConstant("c1", data);
  NodeId c2 = graph.AddConstant("c2", std::make_shared<Tensor>(*data));
  auto add = [&](std::string name, ValueRef x, ValueRef y) {
    Node n;
    n.op = "ElementWiseAdd";
    n.name = std::move(name);
    n.inputs = {x, y};
    n.outputs = {t};
    return graph.AddNode(std::move(n));
  };
  NodeId s1 = add("s1", {in1, 0}, {c1, 0});
  NodeId s2 = add("s2", {in1, 0}, {c2, 0});  // same as s1 (equal constants)
  NodeId s3 = add("s3", {in2, 0}, {c1, 0});  // another input
  auto opaque = [&](std::string name, int64_t k) {
    Node n;
    n.op = "CustomOp";
    n.name = std::move(name);
    n.inputs = {{s1, 0}};
    n.outputs = {t};
    n.attrs["k"] = k;
    return graph.AddNode(std::move(n));
  };
  NodeId o1 = opaque("o1", 1), o2 = opaque("o2", 2), o3 = opaque("o3", 1);
  Node split;
  split.op = "Split";
  split.name = "split";
  split.inputs = {{s3, 0}};
  split.outputs = {TensorType(DType::kFloat32, {1, 2}), TensorType(DType::kFloat32, {1, 2})};
  NodeId sp = graph.AddNode(std::move(split));
  Node shape;
  shape.op = "$Shape";
  shape.name = "shape";
  shape.outputs = {TensorType(DType::kInt32, {1, 2, 2, 1})};
  NodeId sh = graph.AddNode(std::move(shape));
  ASSERT_TRUE(graph.Validate().ok()) << graph.Validate();

  EGraph g;
  absl::StatusOr<GraphClasses> cls = AddGraph(g, graph);
  ASSERT_TRUE(cls.ok()) << cls.status();
  const GraphClasses& c = *cls;
  EXPECT_NE(c[in1][0], c[in2][0]);
  EXPECT_EQ(c[c1][0], c[c2][0]);
  EXPECT_EQ(c[s1][0], c[s2][0]);
  EXPECT_NE(c[s1][0], c[s3][0]);
  EXPECT_EQ(c[o1][0], c[o3][0]);
  EXPECT_NE(c[o1][0], c[o2][0]);
  EXPECT_EQ(g.AttributesOf(g.Node(g.ClassNodes(c[o2][0])[0]).payload).at("k"),
            AttrValue(int64_t{2}));
  ASSERT_EQ(c[sp].size(), 2u);
  EXPECT_NE(c[sp][0], c[sp][1]);
  EXPECT_EQ(g.TypeOf(c[sp][1]), TensorType(DType::kFloat32, {1, 2}));
  ENodeView out = g.Node(g.ClassNodes(c[sp][1])[0]);
  EXPECT_EQ(out.op.str(), "$Out");
  EXPECT_EQ(g.TypeOf(out.children[0]).dtype, DType::kMulti);
  EXPECT_EQ(g.TypeOf(c[sh][0]), TensorType(DType::kInt32, {1, 2, 2, 1}));
  ASSERT_NE(g.ConstantOf(c[c1][0]), nullptr);
  EXPECT_EQ(*g.ConstantOf(c[c1][0]), *data);
  EXPECT_TRUE(CheckInvariants(g).ok());

  // The e-node stored per graph node: none for a node CSE merged; for the
  // Split, the node its "$Out" nodes read.
  EGraph again;
  std::vector<NodeIdx> added;
  ASSERT_TRUE(AddGraph(again, graph, &added).ok());
  ASSERT_EQ(added.size(), graph.num_nodes());
  for (NodeId id : {in1, in2, c1, s1, s3, o1, o2, sp, sh}) {
    ASSERT_NE(added[id], kNoNodeIdx) << graph.node(id).name;
    EXPECT_EQ(again.NodeOp(added[id]).str(), graph.node(id).op) << graph.node(id).name;
    // The import is deterministic: `again`'s classes are `g`'s.
    const Id want = id == sp ? again.Node(again.ClassNodes(c[sp][0])[0]).children[0] : c[id][0];
    EXPECT_EQ(again.NodeClass(added[id]), again.Find(want)) << graph.node(id).name;
  }
  for (NodeId id : {c2, s2, o3}) EXPECT_EQ(added[id], kNoNodeIdx) << graph.node(id).name;
}

TEST(GraphImportTest, GraphClassesHoldAnyClassIdAndAnyNumberOfOutputs) {
  GraphClasses c(4);
  EXPECT_EQ(c.size(), 4u);
  EXPECT_TRUE(c[0].empty());
  c.Set(0, {7});
  c.Set(1, {Id{1} << 31});  // an id with the bit that marks several outputs
  c.Set(2, {3, 4, 5});
  EXPECT_THAT(c[0], ::testing::ElementsAre(7u));
  EXPECT_THAT(c[1], ::testing::ElementsAre(Id{1} << 31));
  EXPECT_THAT(c[2], ::testing::ElementsAre(3u, 4u, 5u));
  EXPECT_TRUE(c[3].empty());
}

TEST(GraphImportTest, ReportsTheOrderItAddedTheNodesIn) {
  // Ids out of topological order: node 0 reads node 2, which reads 3 and 1.
  Graph graph;
  const TensorType t(DType::kFloat32, {4});
  Node relu;
  relu.op = "Relu";
  relu.inputs = {{2, 0}};
  relu.outputs = {t};
  graph.AddNode(relu);
  graph.AddConstant("w", std::make_shared<Tensor>(Tensor::FromValues(t, {1, 2, 3, 4})));
  Node add;
  add.op = "ElementWiseAdd";
  add.inputs = {{3, 0}, {1, 0}};
  add.outputs = {t};
  graph.AddNode(add);
  graph.AddInput("x", t);
  graph.AddOutput({0, 0});
  ASSERT_TRUE(graph.Validate().ok()) << graph.Validate();
  const absl::StatusOr<std::vector<NodeId>> topo = graph.TopologicalOrder();
  ASSERT_TRUE(topo.ok());
  EGraph g;
  std::vector<NodeId> order;
  ASSERT_TRUE(AddGraph(g, graph, nullptr, &order).ok());
  EXPECT_EQ(order, *topo);
  EXPECT_THAT(order, ::testing::ElementsAre(1u, 3u, 2u, 0u));

  // Ids in topological order already: the ids themselves.
  Graph ascending;
  const NodeId x = ascending.AddInput("x", t);
  Node r = relu;
  r.inputs = {{x, 0}};
  ascending.AddNode(r);
  ascending.AddOutput({1, 0});
  EGraph h;
  ASSERT_TRUE(AddGraph(h, ascending, nullptr, &order).ok());
  EXPECT_THAT(order, ::testing::ElementsAre(0u, 1u));
}

TEST(GraphImportTest, RejectsCycles) {
  Graph graph;
  TensorType t(DType::kFloat32, {4});
  Node a;
  a.op = "Relu";
  a.name = "a";
  a.inputs = {{1, 0}};
  a.outputs = {t};
  Node b = a;
  b.name = "b";
  b.inputs = {{0, 0}};
  graph.AddNode(a);
  graph.AddNode(b);
  EGraph g;
  EXPECT_FALSE(AddGraph(g, graph).ok());
}

}  // namespace
}  // namespace egret
