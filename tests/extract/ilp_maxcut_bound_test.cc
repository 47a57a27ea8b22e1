// The ILP extractor's eigenvalue bound for max-cut e-graphs
// (ilp_maxcut_bound.cc): the relaxation satisfies every clause at x = 1/2,
// the bound n lambda_max(L) / 4 on the cut does not.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "egret/extract/ilp_extractor.h"
#include "egret/extract/ilp_extractor_internal.h"
#include "egret/extract/problem.h"
#include "egret/extract/validate.h"
#include "gtest/gtest.h"
#include "tests/extract/ilp_test_support.h"
#include "tests/extract/maxcut_problem.h"

namespace egret::extract {
namespace {

// A 4-cycle: lambda_max(L) = 4, so the cut is at most 4 * 4 / 4 = 4, which
// the bipartition reaches: DAG cost -(4 + 4) * w.
TEST(IlpMaxCutBoundTest, TheEigenvalueBoundProvesABipartiteCutWithoutASolver) {
  const ExtractionProblem problem = MaxCutProblem(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}, 1.5);
  const std::optional<double> bound = ilp_internal::MaxCutLowerBound(problem);
  ASSERT_TRUE(bound.has_value());
  EXPECT_NEAR(*bound, -12, 1e-6);
  EXPECT_LE(*bound, -12);
  absl::StatusOr<IlpResult> result = ExtractIlpChecked(problem);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->cost, -12);
  EXPECT_TRUE(result->optimal);
  EXPECT_EQ(result->rounds, 0);  // CBC never ran
}

// A triangle: lambda_max(L) = 3, bound 3 * 3 / 4 = 2.25 on a cut of 2: a
// bound, not the optimum, which CBC then proves.
TEST(IlpMaxCutBoundTest, AnOddCycleIsBoundedBelowItsOptimumAndSolved) {
  const ExtractionProblem problem = MaxCutProblem(3, {{0, 1}, {1, 2}, {2, 0}}, 1);
  const std::optional<double> bound = ilp_internal::MaxCutLowerBound(problem);
  ASSERT_TRUE(bound.has_value());
  EXPECT_NEAR(*bound, -5.25, 1e-6);
  absl::StatusOr<IlpResult> result = ExtractIlpChecked(problem);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->cost, -5);
  EXPECT_TRUE(result->optimal);
}

TEST(IlpMaxCutBoundTest, AClauseOfMixedSidesIsNotAMaxCut) {
  const ExtractionProblem problem =
      MaxCutProblem(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}, 1, /*mixed=*/true);
  EXPECT_FALSE(ilp_internal::MaxCutLowerBound(problem).has_value());
  EXPECT_FALSE(ilp_internal::MaxCutLocalSearch(problem, Choice(problem.num_classes())).has_value());
}

// Every variable on one side cuts nothing; the local search finds the
// maximum cut of an even cycle (all of it) and of a 5-wheel's rim.
TEST(IlpMaxCutBoundTest, TheLocalSearchImprovesAPoorStart) {
  const ExtractionProblem cycle =
      MaxCutProblem(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}}, 2);
  Choice same_side(cycle.num_classes());
  same_side.node[0] = cycle.class_begin(0);
  for (ClassId v = 1; v <= 6; ++v) same_side.node[v] = cycle.class_begin(v);
  for (ClassId c = 7; c < cycle.num_classes(); c += 2) same_side.node[c] = cycle.class_begin(c);
  ASSERT_TRUE(ValidateChoice(cycle, same_side).ok());
  EXPECT_DOUBLE_EQ(DagCost(cycle, same_side), -12);  // 6 edges, none cut
  const std::optional<Choice> found = ilp_internal::MaxCutLocalSearch(cycle, same_side);
  ASSERT_TRUE(found.has_value());
  ASSERT_TRUE(ValidateChoice(cycle, *found).ok());
  EXPECT_DOUBLE_EQ(DagCost(cycle, *found), -24);  // every edge cut
  // The extractor uses it: from the same poor start, the optimum (proven by
  // the eigenvalue bound, lambda_max = 4: 6 * 4 / 4 = 6 edges).
  IlpOptions options = TestIlpOptions();
  options.warm_start = same_side;
  absl::StatusOr<IlpResult> result = ExtractIlpChecked(cycle, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->cost, -24);
  EXPECT_TRUE(result->optimal);
  EXPECT_EQ(result->rounds, 0);  // no CBC: the local search and the bound
}

}  // namespace
}  // namespace egret::extract
