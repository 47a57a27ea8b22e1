// The extraction problem prices epilogues as graph pricing does: with a
// device, an elementwise e-node whose data children are one class holding a
// matrix op (or an elementwise node of that class alone) costs nothing; one
// that also reads another class costs its time.
#include <memory>
#include <string>
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

// A "$Const" of type t with every element v.
Id Constant(EGraph& g, const TensorType& t, double v) {
  const std::vector<double> values(static_cast<size_t>(t.num_elements()), v);
  return g.AddConstant(std::make_shared<const Tensor>(Tensor::FromValues(t, values)));
}

TEST(EpilogueProblemTest, ActivationsOfAConvolutionCostNothingAndAResidualCostsItsTime) {
  const TensorType act(DType::kFloat32, {1, 8, 8, 16});
  EGraph g;
  const Id x = AddOp(g, "*Input", {}, act);
  const Id w = Constant(g, TensorType(DType::kFloat32, {1, 1, 16, 16}), 0.5);
  const Id bias = Constant(g, TensorType(DType::kFloat32, {16}), 0);
  const Id conv =
      AddOp(g, "Conv2d", {x, w, bias, g.AddShape({1, 1, 1, 1}), g.AddShape({0, 0, 0, 0})}, act);
  const Id scaled = AddOp(g, "ElementWiseMultiply",
                          {conv, Constant(g, TensorType(DType::kFloat32, {}), 0.1)}, act);
  const Id leaky = AddOp(g, "ElementWiseMaximum", {conv, scaled}, act);
  const Id residual = AddOp(g, "ElementWiseAdd", {leaky, x}, act);
  g.Rebuild();

  cost::CostTable t;
  for (const char* op : {"ElementWiseMultiply", "ElementWiseMaximum", "ElementWiseAdd"}) {
    t.ops[op] = {{"ew", 2, /*hvx=*/true}};
  }
  t.ops["Conv2d"] = {{"conv", 16, /*hvx=*/true}};
  cost::HvxCostModel model(t);
  model.set_device(std::make_shared<cost::DeviceParams>(cost::PublicPrior("test", "Test")));
  absl::StatusOr<extract::EGraphProblem> p = extract::BuildProblem(g, model, {residual});
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<std::string> seen;
  for (size_t i = 0; i < p->node_of.size(); ++i) {
    const std::string op(g.NodeOp(p->node_of[i]).str());
    const double c = p->problem.cost(static_cast<extract::ENodeId>(i));
    if (op == "ElementWiseMultiply" || op == "ElementWiseMaximum") {
      EXPECT_LT(c, 1e-6) << op;
      seen.push_back(op);
    } else if (op == "ElementWiseAdd" || op == "Conv2d") {
      EXPECT_GT(c, 1) << op;
      seen.push_back(op);
    }
  }
  EXPECT_EQ(seen.size(), 4u);
}

// Nodes alike are priced once (BuildProblem remembers a cost by what it
// reads): x + x of one convolution's output is its epilogue, x + y of two
// convolutions' outputs of the same type is not, and the two must not share
// a price although their op and types are the same.
TEST(EpilogueProblemTest, NodesOfOneOpAndTypesArePricedByTheirMatrixSources) {
  const TensorType act(DType::kFloat32, {1, 8, 8, 16});
  EGraph g;
  const Id x = AddOp(g, "*Input", {}, act);
  auto conv = [&](double weight) {
    const Id w = Constant(g, TensorType(DType::kFloat32, {1, 1, 16, 16}), weight);
    const Id b = Constant(g, TensorType(DType::kFloat32, {16}), weight);
    return AddOp(g, "Conv2d", {x, w, b, g.AddShape({1, 1, 1, 1}), g.AddShape({0, 0, 0, 0})}, act);
  };
  const Id c1 = conv(0.5), c2 = conv(0.25);
  const Id same1 = AddOp(g, "ElementWiseAdd", {c1, c1}, act);
  const Id mixed = AddOp(g, "ElementWiseAdd", {c1, c2}, act);
  const Id same2 = AddOp(g, "ElementWiseAdd", {c2, c2}, act);
  g.Rebuild();

  cost::CostTable t;
  t.ops["ElementWiseAdd"] = {{"ew", 2, /*hvx=*/true}};
  t.ops["Conv2d"] = {{"conv", 16, /*hvx=*/true}};
  cost::HvxCostModel model(t);
  model.set_device(std::make_shared<cost::DeviceParams>(cost::PublicPrior("test", "Test")));
  absl::StatusOr<extract::EGraphProblem> p = extract::BuildProblem(g, model, {same1, mixed, same2});
  ASSERT_TRUE(p.ok()) << p.status();
  int adds = 0;
  for (size_t i = 0; i < p->node_of.size(); ++i) {
    const NodeIdx n = p->node_of[i];
    if (g.NodeOp(n).str() != "ElementWiseAdd") continue;
    ++adds;
    const double c = p->problem.cost(static_cast<extract::ENodeId>(i));
    if (g.NodeClass(n) == g.Find(mixed)) {
      EXPECT_GT(c, 1) << "x + y of two convolutions";
    } else {
      EXPECT_LT(c, 1e-6) << "x + x of one convolution";
    }
  }
  EXPECT_EQ(adds, 3);
}

}  // namespace
}  // namespace egret
