// Extraction pays for the epilogues its choice does not realize. After a
// FullyConnected, bias and scale rules put the FullyConnected with the scale
// folded into its weights in the class of each elementwise step; the problem
// then prices the next step as a free epilogue of that class, although the
// extractor may pick the elementwise node of it, whose reader the lowered
// graph prices in full (BEiT's attention scale, docs/comparison.md).
#include <memory>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/egraph/egraph.h"
#include "egret/extract/extractor_registry.h"
#include "egret/extract_egraph/egraph_problem.h"
#include "egret/extract_egraph/realized_extract.h"
#include "egret/graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/egraph/test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;

struct ScaledProjection {
  EGraph g;
  Id root = 0;
  // The chain's e-nodes: bias add, first and second scale.
  NodeIdx add = 0, mul1 = 0, mul2 = 0;
};

// y = ((FC(x, w) + b) * c) * c, where each class also holds the
// FullyConnected a rule folds it into (FC(x, w, b), then with w and b
// scaled once and twice), added after the elementwise node as a rule would.
void Build(ScaledProjection* s) {
  EGraph& g = s->g;
  const TensorType act(DType::kFloat32, {1, 196, 256});
  auto constant = [&g](TensorType t, double v) {
    const std::vector<double> values(static_cast<size_t>(t.num_elements()), v);
    return g.AddConstant(std::make_shared<const Tensor>(Tensor::FromValues(t, values)));
  };
  const TensorType wt(DType::kFloat32, {256, 256}), bt(DType::kFloat32, {256});
  const Id x = AddOp(g, "*Input", {}, act);
  const Id c = constant(TensorType(DType::kFloat32, {}), 0.125);
  const Id fc = AddOp(g, "FullyConnected", {x, constant(wt, 0.5)}, act);
  const Id add = AddOp(g, "ElementWiseAdd", {fc, constant(bt, 0.25)}, act);
  const Id mul1 = AddOp(g, "ElementWiseMultiply", {add, c}, act);
  const Id mul2 = AddOp(g, "ElementWiseMultiply", {mul1, c}, act);
  s->add = g.ClassNodes(add)[0];
  s->mul1 = g.ClassNodes(mul1)[0];
  s->mul2 = g.ClassNodes(mul2)[0];
  double scale = 1;
  for (Id cls : {add, mul1, mul2}) {
    const Id folded =
        AddOp(g, "FullyConnected", {x, constant(wt, 0.5 * scale), constant(bt, 0.25 * scale)}, act);
    ASSERT_TRUE(g.Union(cls, folded).ok());
    scale *= 0.125;
  }
  g.Rebuild();
  s->root = g.Find(mul2);
}

cost::HvxCostModel Model() {
  cost::CostTable t;
  for (const char* op : {"ElementWiseMultiply", "ElementWiseAdd"}) {
    t.ops[op] = {{"ew", 2, /*hvx=*/true}};
  }
  t.ops["FullyConnected"] = {{"fc", 16, /*hvx=*/true}};
  cost::HvxCostModel model(t);
  model.set_device(std::make_shared<cost::DeviceParams>(cost::PublicPrior("test", "Test")));
  return model;
}

// The problem node of e-node n.
extract::ENodeId ProblemNode(const extract::EGraphProblem& p, NodeIdx n) {
  for (size_t i = 0; i < p.node_of.size(); ++i) {
    if (p.node_of[i] == n) return static_cast<extract::ENodeId>(i);
  }
  return extract::kNoENode;
}

TEST(RealizedEpilogueTest, TheElementwiseChainPaysTheStepWhoseProducerIsNoMatrixOp) {
  ScaledProjection s;
  Build(&s);
  const cost::HvxCostModel model = Model();
  absl::StatusOr<extract::EGraphProblem> p = extract::BuildProblem(s.g, model, {s.root});
  ASSERT_TRUE(p.ok()) << p.status();
  // All three elementwise steps are priced as epilogues: each reads a class
  // that holds a FullyConnected.
  const extract::ENodeId add = ProblemNode(*p, s.add), mul1 = ProblemNode(*p, s.mul1),
                         mul2 = ProblemNode(*p, s.mul2);
  ASSERT_NE(mul2, extract::kNoENode);
  EXPECT_EQ(p->epilogues.size(), 3u);
  for (extract::ENodeId n : {add, mul1, mul2}) EXPECT_LT(p->problem.cost(n), 1e-9);

  // The chain down to the unfused FullyConnected: the add reads the
  // FullyConnected and the first scale reads the add of it (graph pricing
  // looks one elementwise step back), so both are epilogues; the second
  // scale reads the first, which reads no matrix op, and pays its time.
  extract::Choice chain(p->problem.num_classes());
  for (extract::ENodeId n : {add, mul1, mul2}) chain.node[p->problem.node_class(n)] = n;
  for (extract::ClassId k = 0; k < p->problem.num_classes(); ++k) {
    if (chain.node[k] == extract::kNoENode && p->problem.class_size(k) > 0) {
      chain.node[k] = p->problem.class_begin(k);
    }
  }
  chain = extract::RestrictToReachable(p->problem, chain);
  const extract::EpilogueCheck check = extract::CheckEpilogues(*p, chain);
  ASSERT_EQ(check.unrealized.size(), 1u);
  EXPECT_EQ(p->epilogues[check.unrealized[0]].node, mul2);
  EXPECT_GT(check.realized_cost, check.dag_cost + 1);

  // Extraction that pays for it picks the FullyConnected with both scales
  // folded (one node, nothing unrealized): dearer than the chain looked,
  // cheaper than the chain is.
  const extract::Extractor* dag = extract::FindExtractor("dag");
  ASSERT_NE(dag, nullptr);
  absl::StatusOr<extract::RealizedExtraction> r =
      extract::ExtractRealized(*p, *dag, extract::ExtractOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  const extract::EpilogueCheck after = extract::CheckEpilogues(*p, r->result.choice);
  EXPECT_TRUE(after.unrealized.empty());
  EXPECT_GE(r->result.dag_cost, check.dag_cost);  // it reads its bias
  EXPECT_LT(r->result.dag_cost, check.realized_cost);
  const extract::ClassId root = p->problem.roots()[0];
  EXPECT_EQ(p->problem.op(r->result.choice[root]), "FullyConnected");
}

}  // namespace
}  // namespace egret
