// The extraction problem prices a weight computed from constants alone (a
// slice of a dequantized weight) as graph pricing does: as a weight its
// reader loads from DDR, not as an activation kept in VTCM. Greedy tiling
// writes such slices; eqsat's untiled convolution reads the whole weight, so
// pricing the slices as free activations made the tiled graph look cheaper.
#include <memory>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/egraph/egraph.h"
#include "egret/extract_egraph/egraph_problem.h"
#include "egret/graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/egraph/test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;

TEST(FoldedWeightProblemTest, ASliceOfADequantizedWeightIsReadFromDdr) {
  // A 1 MiB int8 weight [2048, 512], sliced to its first 1024 units: 1 MiB of
  // fp16 when folded, within half of VTCM when taken for an activation. One
  // row of input, so the matrix work is small and the weight's bytes decide.
  const TensorType act(DType::kFloat32, {1, 512});
  const TensorType q(DType::kQInt8, {2048, 512}, 0, 0.5f);
  const TensorType deq(DType::kFloat32, {2048, 512});
  const TensorType half(DType::kFloat32, {1024, 512});
  const TensorType out(DType::kFloat32, {1, 1024});
  EGraph g;
  const Id x = AddOp(g, "*Input", {}, act);
  const Id w = g.AddConstant(
      std::make_shared<const Tensor>(Tensor::FromValues(q, std::vector<double>(2048 * 512, 1))));
  const Id sliced =
      AddOp(g, "Slice_shape",
            {AddOp(g, "Dequantize", {w}, deq), g.AddShape({0, 0}), g.AddShape({1024, 512})}, half);
  const Id folded = AddOp(g, "FullyConnected", {x, sliced}, out);
  const Id activation = AddOp(g, "FullyConnected", {x, AddOp(g, "*Input", {}, half)}, out);
  const Id sum = AddOp(g, "ElementWiseAdd", {folded, activation}, out);
  g.Rebuild();

  cost::CostTable t;
  for (const char* op : {"FullyConnected", "Slice_shape", "Dequantize", "ElementWiseAdd"}) {
    t.ops[op] = {{"impl", 1, /*hvx=*/true}};
  }
  cost::HvxCostModel model(t);
  model.set_device(std::make_shared<cost::DeviceParams>(cost::PublicPrior("test", "Test")));
  absl::StatusOr<extract::EGraphProblem> p = extract::BuildProblem(g, model, {sum});
  ASSERT_TRUE(p.ok()) << p.status();
  double folded_cost = -1, activation_cost = -1, slice_cost = -1;
  for (size_t i = 0; i < p->node_of.size(); ++i) {
    const double c = p->problem.cost(static_cast<extract::ENodeId>(i));
    const NodeIdx n = p->node_of[i];
    if (n == g.ClassNodes(folded)[0]) folded_cost = c;
    if (n == g.ClassNodes(activation)[0]) activation_cost = c;
    if (n == g.ClassNodes(sliced)[0]) slice_cost = c;
  }
  ASSERT_GT(activation_cost, 0);
  // The folded weight's 1 MiB of fp16 crosses DDR; the activation does not.
  EXPECT_GT(folded_cost, 4 * activation_cost);
  // The slice itself is computed while the graph is prepared.
  EXPECT_GE(slice_cost, 0);
  EXPECT_LT(slice_cost, 1e-6);
}

}  // namespace
}  // namespace egret
