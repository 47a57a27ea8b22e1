// BuildProblem numbers the problem's classes depth-first from the roots, and
// keeps class_of, node_of and the children consistent with the e-graph
// under that numbering.
#include <string>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/egraph/egraph.h"
#include "egret/extract_egraph/egraph_problem.h"
#include "gtest/gtest.h"
#include "tests/egraph/test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;

cost::HvxCostModel Model() {
  cost::CostTable t;
  for (const char* op : {"ElementWiseAdd", "ElementWiseMultiply", "Relu", "Sigmoid"}) {
    t.ops[op] = {{"impl", 1, /*hvx=*/true}};
  }
  cost::HvxCostModel model(t);
  model.set_device(std::make_shared<cost::DeviceParams>(cost::PublicPrior("test", "Test")));
  return model;
}

// A chain of `blocks` residual blocks, x -> x + relu(x * w_i), where each
// block's product also has a second spelling (w_i * x) merged into its class,
// so that classes have alternatives whose children are reached twice.
struct Chain {
  EGraph g;
  Id out = kNoId;
};

void BuildChain(Chain& c, int blocks) {
  const TensorType t(DType::kFloat32, {1, 64});
  Id x = AddOp(c.g, "*Input", {}, t, 1);
  for (int i = 0; i < blocks; ++i) {
    const Id w = AddOp(c.g, "*Input", {}, t, static_cast<Payload>(i + 2));
    const Id prod = AddOp(c.g, "ElementWiseMultiply", {x, w}, t);
    const Id swapped = AddOp(c.g, "ElementWiseMultiply", {w, x}, t);
    ASSERT_TRUE(c.g.Union(prod, swapped).ok());
    const Id act = AddOp(c.g, "Relu", {prod}, t);
    x = AddOp(c.g, "ElementWiseAdd", {x, act}, t);
  }
  c.g.Rebuild();
  c.out = x;
}

TEST(ProblemNumberingTest, ClassesAreNumberedDepthFirstFromTheRoots) {
  Chain c;
  BuildChain(c, 40);
  const cost::HvxCostModel model = Model();
  absl::StatusOr<extract::EGraphProblem> ep = extract::BuildProblem(c.g, model, {c.out});
  ASSERT_TRUE(ep.ok()) << ep.status();
  const extract::ExtractionProblem& p = ep->problem;
  ASSERT_GT(p.num_classes(), 120u);

  // A depth-first walk from the roots, each class's nodes and their children
  // in order, visits the classes as 0, 1, 2, ...
  std::vector<extract::ClassId> visit;
  std::vector<bool> seen(p.num_classes(), false);
  std::vector<extract::ClassId> stack(p.roots().rbegin(), p.roots().rend());
  while (!stack.empty()) {
    const extract::ClassId k = stack.back();
    stack.pop_back();
    if (seen[k]) continue;
    seen[k] = true;
    visit.push_back(k);
    for (extract::ENodeId n = p.class_end(k); n-- > p.class_begin(k);) {
      const auto kids = p.children(n);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
        if (!seen[*it]) stack.push_back(*it);
      }
    }
  }
  ASSERT_EQ(visit.size(), p.num_classes());
  for (size_t i = 0; i < visit.size(); ++i) ASSERT_EQ(visit[i], i) << "visit step " << i;
}

TEST(ProblemNumberingTest, ClassAndNodeMapsFollowTheNumbering) {
  Chain c;
  BuildChain(c, 12);
  const cost::HvxCostModel model = Model();
  absl::StatusOr<extract::EGraphProblem> ep = extract::BuildProblem(c.g, model, {c.out});
  ASSERT_TRUE(ep.ok()) << ep.status();
  const extract::ExtractionProblem& p = ep->problem;
  ASSERT_EQ(ep->class_of.size(), p.num_classes());
  ASSERT_EQ(ep->node_of.size(), p.num_nodes());
  ASSERT_EQ(ep->param_class.size(), p.num_classes());
  ASSERT_EQ(p.roots().size(), 1u);
  EXPECT_EQ(ep->class_of[p.roots()[0]], c.g.Find(c.out));
  EXPECT_EQ(p.roots()[0], 0u);
  for (extract::ENodeId n = 0; n < p.num_nodes(); ++n) {
    const NodeIdx e = ep->node_of[n];
    EXPECT_EQ(c.g.Find(c.g.NodeClass(e)), ep->class_of[p.node_class(n)]) << "node " << n;
    const ENodeView v = c.g.Node(e);
    EXPECT_EQ(p.op(n), std::string(v.op.str()));
    const auto kids = p.children(n);
    ASSERT_EQ(kids.size(), v.children.size());
    for (size_t i = 0; i < kids.size(); ++i) {
      EXPECT_EQ(ep->class_of[kids[i]], c.g.Find(v.children[i])) << "node " << n << " child " << i;
    }
  }
}

}  // namespace
}  // namespace egret
