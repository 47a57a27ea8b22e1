// CanonicalizeParams: integer-list parameters given as "$Const" become the
// "$Shape" form the rules bind; scalars, data and values a "$Shape" cannot
// hold are left as given.
#include "egret/graph/canonical_params.h"

#include <gtest/gtest.h>

#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;

// The "$Shape" value operand k of node `id` reads, or {-99} when it reads
// something else.
Dims ShapeRead(const Graph& g, NodeId id, int k) {
  const Node& p = g.node(g.node(id).inputs[k].node);
  return p.op == kShapeOp ? p.outputs[0].dims : Dims{-99};
}

TEST(CanonicalParamsTest, AxesBecomeAscendingNonNegativeShapes) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2, 3, 4});
  ValueRef kd = b.Ints({1});
  NodeId mean = b.OpNode("ReduceMean", {x, b.Ints({-1, 0}), kd});
  NodeId sum = b.OpNode("ReduceSum", {x, b.Shape({2, 1}), kd});  // a "$Shape", not ascending
  NodeId max = b.OpNode("ReduceMax", {x, b.Ints({2, 0}), kd});   // the same set as mean's
  Graph g = b.graph();
  EXPECT_EQ(CanonicalizeParams(&g), 3);
  EXPECT_EQ(ShapeRead(g, mean, 1), (Dims{0, 2}));
  EXPECT_EQ(ShapeRead(g, sum, 1), (Dims{1, 2}));
  EXPECT_EQ(g.node(max).inputs[1], g.node(mean).inputs[1]);  // one node per value
  // keep_dims is a scalar parameter, read by rules as "$Const" data.
  EXPECT_EQ(g.node(g.node(mean).inputs[2].node).op, kConstOp);
  ASSERT_TRUE(g.Validate().ok());
  for (NodeId id : {mean, sum, max}) {
    auto t = InferNodeOutputTypes(g, id);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ((*t)[0], g.node(id).outputs[0]);  // the same meaning
  }
  EXPECT_EQ(CanonicalizeParams(&g), 0);  // already canonical
}

// The plan names what CanonicalizeParams rewrites without touching the
// graph, and applying it gives the same graph; on a canonical graph it is
// empty (Seed then reads the input without a copy).
TEST(CanonicalParamsTest, PlanLeavesTheGraphAndApplyingItCanonicalizes) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2, 3, 4});
  ValueRef kd = b.Ints({1});
  NodeId mean = b.OpNode("ReduceMean", {x, b.Ints({-1}), kd});
  NodeId perm = b.OpNode("Transpose", {x, b.Ints({2, 0, 1})});
  const Graph input = b.graph();
  Graph planned = input;
  const std::vector<ParamRewrite> plan = PlanCanonicalParams(planned);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].node, mean);
  EXPECT_EQ(plan[0].operand, 1);
  EXPECT_EQ(plan[0].value, (std::vector<int64_t>{2}));
  EXPECT_EQ(plan[1].node, perm);
  EXPECT_EQ(planned.num_nodes(), input.num_nodes());  // planning changed nothing
  EXPECT_EQ(planned.node(mean).inputs, input.node(mean).inputs);
  EXPECT_EQ(ApplyCanonicalParams(plan, &planned), 2);
  Graph direct = input;
  EXPECT_EQ(CanonicalizeParams(&direct), 2);
  ASSERT_EQ(planned.num_nodes(), direct.num_nodes());
  for (NodeId id = 0; id < direct.num_nodes(); ++id) {
    EXPECT_EQ(planned.node(id).op, direct.node(id).op) << id;
    EXPECT_EQ(planned.node(id).inputs, direct.node(id).inputs) << id;
    EXPECT_EQ(planned.node(id).outputs, direct.node(id).outputs) << id;
  }
  EXPECT_TRUE(PlanCanonicalParams(planned).empty());
  EXPECT_EQ(ApplyCanonicalParams({}, &planned), 0);
}

// PlanCanonicalParams reads operand 0's rank for an axes operand from the
// graph before any rewrite: that is the rank after too only because no op
// with an axes operand takes a list parameter as operand 0.
TEST(CanonicalParamsTest, NoOpWithAxesTakesAListAsOperandZero) {
  int with_axes = 0;
  for (const OpDef& def : AllOpDefs()) {
    bool axes = false;
    for (int k = 0; k <= static_cast<int>(def.operands.size()); ++k) {
      axes = axes || def.FormOf(k) == ParamForm::kAxes;
    }
    if (!axes) continue;
    ++with_axes;
    EXPECT_EQ(def.FormOf(0), ParamForm::kScalar) << def.name;
  }
  EXPECT_GT(with_axes, 0);  // the reductions
}

TEST(CanonicalParamsTest, ListsBecomeShapesWhenAShapeCanHoldThem) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2, 3, 4});
  NodeId perm = b.OpNode("Transpose", {x, b.Ints({2, 0, 1})});
  NodeId infer = b.OpNode("Reshape", {x, b.Ints({-1, 4})});  // -1: no "$Shape" holds it
  ValueRef shared = b.Ints({6, 4});
  NodeId reshape = b.OpNode("Reshape", {x, shared});
  NodeId data = b.OpNode("ElementWiseAdd", {shared, shared});  // the same constant as data
  Graph g = b.graph();
  EXPECT_EQ(CanonicalizeParams(&g), 2);
  EXPECT_EQ(ShapeRead(g, perm, 1), (Dims{2, 0, 1}));
  EXPECT_EQ(ShapeRead(g, infer, 1), (Dims{-99}));
  EXPECT_EQ(ShapeRead(g, reshape, 1), (Dims{6, 4}));
  EXPECT_EQ(g.node(data).inputs[0], shared);
  EXPECT_TRUE(g.Validate().ok());
}

TEST(CanonicalParamsTest, InvalidAxesAndUnknownOpsAreLeftAsGiven) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2, 3, 4});
  // Added without shape inference, which would reject the first three.
  auto add = [&](std::string op, ValueRef axes) {
    Node n;
    n.op = std::move(op);
    n.inputs = {x, axes};
    n.outputs.push_back(TensorType(DType::kFloat32, {2, 3, 4}));
    return b.graph().AddNode(std::move(n));
  };
  const NodeId twice = add("ReduceMean", b.Ints({1, -2}));
  const NodeId out_of_range = add("ReduceMean", b.Ints({3}));
  const NodeId floats = add("ReduceMean", b.F32({1}, {1}));
  const NodeId opaque = add("MyReduce", b.Ints({1}));
  Graph& g = b.graph();
  EXPECT_EQ(CanonicalizeParams(&g), 0);
  for (NodeId id : {twice, out_of_range, floats, opaque}) {
    EXPECT_EQ(g.node(g.node(id).inputs[1].node).op, kConstOp) << id;
  }
}

}  // namespace
}  // namespace egret
