// The extraction problem prices a multi-output node (Split) with all of its
// outputs, as graph pricing prices the node lowering emits for it. Priced with
// its class's Multi type alone, a Split wrote no bytes: Swin-B's window splits
// cost 1.3 us in the problem and 2.2-4.9 us in the lowered graph, and the
// extractor took choices that only looked cheaper.
#include <memory>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/graph_import.h"
#include "egret/egraph/multi_outputs.h"
#include "egret/extract_egraph/egraph_problem.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

TEST(MultiOutputProblemTest, ASplitIsPricedWithEveryOutputAsInTheGraph) {
  const TensorType in(DType::kFloat32, {1, 64, 64, 32});
  const TensorType part(DType::kFloat32, {1, 64, 64, 8});
  const TensorType rest(DType::kFloat32, {1, 64, 64, 16});
  Graph graph;
  const NodeId x = graph.AddInput("x", in);
  TensorType scalar;  // (not TensorType(kInt32, {}): a GCC 12 -Wmaybe-uninitialized report)
  scalar.dtype = DType::kInt32;
  const NodeId axis = graph.AddConstant(
      "axis", std::make_shared<const Tensor>(Tensor::FromValues(scalar, std::vector<double>{3})));
  Node sizes;
  sizes.op = "$Shape";
  sizes.name = "sizes";
  sizes.outputs = {TensorType(DType::kInt32, {8, 8, 16})};
  const NodeId sz = graph.AddNode(std::move(sizes));
  Node split;
  split.op = "Split";
  split.name = "split";
  split.inputs = {{x, 0}, {axis, 0}, {sz, 0}};
  split.outputs = {part, part, rest};
  const NodeId sp = graph.AddNode(std::move(split));
  Node add;
  add.op = "ElementWiseAdd";
  add.name = "add";
  add.inputs = {{sp, 0}, {sp, 1}};
  add.outputs = {part};
  const NodeId sum = graph.AddNode(std::move(add));
  graph.mutable_outputs() = {{{sum, 0}, "sum"}, {{sp, 2}, "rest"}};
  ASSERT_TRUE(graph.Validate().ok()) << graph.Validate();

  EGraph g;
  absl::StatusOr<GraphClasses> cls = AddGraph(g, graph);
  ASSERT_TRUE(cls.ok()) << cls.status();
  g.Rebuild();
  const Id multi = g.Find(g.Node(g.ClassNodes((*cls)[sp][0])[0]).children[0]);
  absl::StatusOr<std::vector<TensorType>> types = MultiOutputTypes(g, multi);
  ASSERT_TRUE(types.ok()) << types.status();
  EXPECT_EQ(*types, (std::vector<TensorType>{part, part, rest}));

  cost::CostTable t;
  for (const char* op : {"Split", "ElementWiseAdd"}) t.ops[op] = {{"impl", 1, /*hvx=*/true}};
  cost::HvxCostModel model(t);
  model.set_device(std::make_shared<cost::DeviceParams>(cost::PublicPrior("test", "Test")));
  absl::StatusOr<extract::EGraphProblem> p =
      extract::BuildProblem(g, model, {(*cls)[sum][0], (*cls)[sp][2]});
  ASSERT_TRUE(p.ok()) << p.status();
  double split_cost = -1;
  for (size_t i = 0; i < p->node_of.size(); ++i) {
    if (p->node_of[i] == g.ClassNodes(multi)[0]) {
      split_cost = p->problem.cost(static_cast<extract::ENodeId>(i));
    }
  }
  const double graph_cost = cost::GraphNodeCost(model, graph, graph.node(sp)).cost;
  ASSERT_GT(graph_cost, 0);
  EXPECT_NEAR(split_cost, graph_cost, 1e-9 * graph_cost);
}

TEST(MultiOutputProblemTest, AClassWithoutReadersHasNoOutputTypes) {
  EGraph g;
  TensorType multi;
  multi.dtype = DType::kMulti;
  absl::StatusOr<Id> c =
      g.Add(ENodeView{Symbol::Intern("Split"), kNoPayload, {}}, g.InternType(multi));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(MultiOutputTypes(g, *c).ok());
}

}  // namespace
}  // namespace egret
