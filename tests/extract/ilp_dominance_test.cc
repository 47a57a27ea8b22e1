// The ILP extractor's dominance by necessary classes (ilp_dominance.cc): a
// node b is pruned when a node a of its class costs no more and every child
// class of a is computed anyway by any acyclic choice of b (b's child
// classes and the classes necessary for them). Subset dominance does not
// see it: a's child classes are not a subset of b's.
#include <string>
#include <utility>

#include "egret/extract/choice.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/problem.h"
#include "gtest/gtest.h"
#include "tests/extract/ilp_test_support.h"

namespace egret::extract {
namespace {

// R = r(C). C is a = f(X) or b = g(Y), both costing 1; Y is h(X) (cost 1)
// and, with `y_has_leaf`, also k() (cost 1, no children); X costs 5.
// Without k every term of Y contains X, so b needs X anyway: a dominates b
// and the optimum is 6 (a, X). With k, Y can be computed without X and b
// is not dominated: the optimum is 2 (b, k).
ExtractionProblem Alternatives(bool y_has_leaf) {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), c = b.AddClass("C"), x = b.AddClass("X"), y = b.AddClass("Y");
  AddNode(b, r, "r", 0, {c});
  AddNode(b, c, "g", 1, {y});
  AddNode(b, c, "f", 1, {x});
  AddNode(b, y, "h", 1, {x});
  if (y_has_leaf) AddNode(b, y, "k", 1, {});
  AddNode(b, x, "x", 5, {});
  b.AddRoot(r);
  return BuildOrFail(std::move(b));
}

absl::StatusOr<IlpResult> Solve(const ExtractionProblem& problem) {
  IlpOptions options = TestIlpOptions();
  // A poor warm start, so that the result is the solver's own: C through
  // g(h(X)), cost 7.
  Choice warm(problem.num_classes());
  for (ClassId c = 0; c < problem.num_classes(); ++c) {
    for (ENodeId n = problem.class_begin(c); n < problem.class_end(c); ++n) {
      const std::string& op = problem.op(n);
      if (op == "r" || op == "g" || op == "h" || op == "x") warm.node[c] = n;
    }
  }
  options.warm_start = std::move(warm);
  return ExtractIlpChecked(problem, options);
}

TEST(IlpDominanceTest, ANodeWhoseChildrenAnAlternativeComputesAnywayIsPruned) {
  const ExtractionProblem problem = Alternatives(/*y_has_leaf=*/false);
  absl::StatusOr<IlpResult> result = Solve(problem);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->cost, 6);
  EXPECT_TRUE(result->optimal);
  // g is pruned (by subsets it is not: {Y} and {X} differ); what is left,
  // r(f(x)), collapses into one exact subtree and no solver runs.
  EXPECT_EQ(result->necessary_dominated, 1);
  EXPECT_FALSE(result->solver_used);
}

TEST(IlpDominanceTest, ANodeWhoseChildCanBeComputedOtherwiseIsKept) {
  const ExtractionProblem problem = Alternatives(/*y_has_leaf=*/true);
  absl::StatusOr<IlpResult> result = Solve(problem);
  ASSERT_TRUE(result.ok()) << result.status();
  // Pruning g here would lose the optimum: C through g(k()) costs 2.
  EXPECT_EQ(result->necessary_dominated, 0);
  EXPECT_DOUBLE_EQ(result->cost, 2);
  EXPECT_TRUE(result->optimal);
}

// R = r(C, X), so every choice computes X (cost 5, a leaf). C is a = f(X)
// or b = g(Y), both costing 1, Y = k() costing 1. b needs only Y, but X is
// computed anyway and cannot reach C, so a dominates b: the optimum is 6.
TEST(IlpDominanceTest, AClassEveryChoiceComputesCountsAsComputedAnyway) {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), c = b.AddClass("C"), x = b.AddClass("X"), y = b.AddClass("Y");
  AddNode(b, r, "r", 0, {c, x});
  AddNode(b, c, "g", 1, {y});
  AddNode(b, c, "f", 1, {x});
  AddNode(b, y, "k", 1, {});
  AddNode(b, x, "x", 5, {});
  b.AddRoot(r);
  absl::StatusOr<ExtractionProblem> built = std::move(b).Build();
  ASSERT_TRUE(built.ok()) << built.status();
  absl::StatusOr<IlpResult> result = Solve(*built);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->necessary_dominated, 1);
  EXPECT_DOUBLE_EQ(result->cost, 6);
  EXPECT_TRUE(result->optimal);
}

}  // namespace
}  // namespace egret::extract
