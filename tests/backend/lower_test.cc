// Lowering a choice of e-nodes to a graph (backend/lower.h): the names given
// by e-node, the choice and the trace held in arrays by class id.
#include "egret/backend/lower.h"

#include <gtest/gtest.h>

#include "egret/egraph/graph_import.h"

namespace egret {
namespace {

TEST(ENodeNamesTest, FirstNameWinsAndUnnamedNodesHaveNone) {
  ENodeNames names;
  names.Add(5, "five");
  names.Add(5, "again");  // kept: "five"
  names.Add(2, "two");
  EXPECT_EQ(names.Find(5), "five");
  EXPECT_EQ(names.Find(2), "two");
  EXPECT_EQ(names.Find(3), std::nullopt);    // inside the array, unnamed
  EXPECT_EQ(names.Find(100), std::nullopt);  // past its end
  EXPECT_EQ(names.size(), 2u);
}

// x -> Relu "r" -> Relu "r" (the same name twice) -> output.
struct Chain {
  Graph g;
  EGraph eg;
  Id x = kNoId, first = kNoId, second = kNoId;
  NodeIdx first_node = 0, second_node = 0;
};

Chain MakeChain() {
  Chain c;
  const TensorType t(DType::kFloat32, {4});
  NodeId x = c.g.AddInput("x", t);
  auto relu = [&](ValueRef in) {
    Node n;
    n.op = "Relu";
    n.name = "r";
    n.inputs = {in};
    n.outputs = {t};
    return c.g.AddNode(n);
  };
  NodeId a = relu(ValueRef{x, 0});
  NodeId b = relu(ValueRef{a, 0});
  c.g.AddOutput(ValueRef{b, 0}, "y");
  absl::StatusOr<GraphClasses> cls = AddGraph(c.eg, c.g);
  EXPECT_TRUE(cls.ok()) << cls.status();
  c.eg.Rebuild();
  c.x = c.eg.Find((*cls)[x][0]);
  c.first = c.eg.Find((*cls)[a][0]);
  c.second = c.eg.Find((*cls)[b][0]);
  c.first_node = c.eg.ClassNodesWithOp(c.first, Symbol::Intern("Relu"))[0];
  c.second_node = c.eg.ClassNodesWithOp(c.second, Symbol::Intern("Relu"))[0];
  return c;
}

TEST(LowerChoiceTest, NamesByENodeStayUniqueAndTheTraceMapsClassesToNodes) {
  Chain c = MakeChain();
  ENodeNames names;
  names.Add(c.first_node, "r");
  names.Add(c.second_node, "r");
  LowerRequest req;
  req.choice = {{c.first, c.first_node}, {c.second, c.second_node}};
  req.inputs = {{c.x, "x"}};
  req.outputs = {{c.second, "y"}};
  req.names = &names;
  LowerTrace trace;
  absl::StatusOr<Graph> g = LowerChoice(c.eg, req, &trace);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->num_nodes(), 3u);  // x, then the two Relus in order
  EXPECT_EQ(g->node(1).name, "r");
  EXPECT_EQ(g->node(2).name, "r_0");
  EXPECT_EQ(trace.NodeOfClass(c.x), 0u);
  EXPECT_EQ(trace.NodeOfClass(c.first), 1u);
  EXPECT_EQ(trace.NodeOfClass(c.second), 2u);
  EXPECT_EQ(trace.NodeOfClass(c.second + 1000), kNoNode);
  ASSERT_EQ(trace.enode.size(), 3u);
  EXPECT_EQ(trace.enode[0], LowerTrace::kNoENode);
  EXPECT_EQ(trace.enode[2], c.second_node);
}

// Fresh names skip the names taken, given or fresh: an unnamed node's "n<k>"
// and a repeated name's "<name>_<k>" both step past a taken k.
TEST(LowerChoiceTest, FreshNamesStepPastTakenOnes) {
  Chain c = MakeChain();
  ENodeNames names;
  names.Add(c.first_node, "n0");  // the name the second node would get first
  LowerRequest req;
  req.choice = {{c.first, c.first_node}, {c.second, c.second_node}};
  req.inputs = {{c.x, "x"}};
  req.outputs = {{c.second, "y"}};
  req.names = &names;
  absl::StatusOr<Graph> g = LowerChoice(c.eg, req);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->num_nodes(), 3u);
  EXPECT_EQ(g->node(1).name, "n0");
  EXPECT_EQ(g->node(2).name, "n1");

  ENodeNames repeated;
  repeated.Add(c.first_node, "r");
  repeated.Add(c.second_node, "r");
  req.inputs = {{c.x, "r_0"}};  // the input holds the first fresh "r_0"
  req.names = &repeated;
  g = LowerChoice(c.eg, req);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->num_nodes(), 3u);
  EXPECT_EQ(g->node(0).name, "r_0");
  EXPECT_EQ(g->node(1).name, "r");
  EXPECT_EQ(g->node(2).name, "r_1");
}

TEST(LowerChoiceTest, AClassWithoutAChoiceIsAnError) {
  Chain c = MakeChain();
  LowerRequest req;
  req.choice = {{c.second, c.second_node}};  // the first Relu's class has none
  req.inputs = {{c.x, "x"}};
  req.outputs = {{c.second, "y"}};
  absl::StatusOr<Graph> g = LowerChoice(c.eg, req);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find("has no chosen node"), std::string::npos) << g.status();
}

}  // namespace
}  // namespace egret
