// The critical-path lower bound (critical_path_bound.h) on hand-made
// e-graphs whose optimum is known: a chain, a shared class below two
// branches (the necessary classes), a cycle that must not shorten a path,
// negative costs; and the ILP extractor proving a chain optimal with it,
// without a solver. Random e-graphs against exhaustive search are in
// ilp_exactness_test.cc.
#include "egret/extract/critical_path_bound.h"

#include <optional>
#include <string>
#include <utility>

#include "egret/extract/ilp_extractor.h"
#include "egret/extract/problem.h"
#include "gtest/gtest.h"
#include "tests/extract/ilp_test_support.h"

namespace egret::extract {
namespace {

// A chain of `n` layers, each either a(prev) costing 2 or b(prev, side)
// costing 1 whose side class is s(prev) costing 2: b pays 3 in all and lies
// on a longer path. The optimum takes a at every layer (2n + 1 with the
// input's 1), which is also the heaviest path of every choice.
ExtractionProblem Chain(int n) {
  ExtractionProblemBuilder b;
  ClassId prev = b.AddClass("in");
  AddNode(b, prev, "input", 1, {});
  for (int i = 0; i < n; ++i) {
    const ClassId side = b.AddClass("side" + std::to_string(i));
    AddNode(b, side, "s", 2, {prev});
    const ClassId c = b.AddClass("layer" + std::to_string(i));
    AddNode(b, c, "b", 1, {prev, side});
    AddNode(b, c, "a", 2, {prev});
    prev = c;
  }
  b.AddRoot(prev);
  return BuildOrFail(std::move(b));
}

TEST(CriticalPathBoundTest, AChainIsBoundedByItsOptimum) {
  const ExtractionProblem p = Chain(6);
  std::optional<CriticalPathBound> bound = ComputeCriticalPathBound(p);
  ASSERT_TRUE(bound.has_value());
  EXPECT_DOUBLE_EQ(bound->plain_path, 13);
  EXPECT_DOUBLE_EQ(bound->bound, 13);
}

TEST(CriticalPathBoundTest, TheIlpExtractorProvesAChainWithoutASolver) {
  const ExtractionProblem p = Chain(40);
  absl::StatusOr<IlpResult> result = ExtractIlpChecked(p);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->cost, 81);
  EXPECT_TRUE(result->optimal);
  EXPECT_DOUBLE_EQ(result->bound, 81);
  EXPECT_FALSE(result->solver_used);
  EXPECT_EQ(result->model_columns, 0);  // returned before building the program
}

// R = r(A, B), A = a(X), B = b(X), X = x(): every class is necessary, so the
// bound is the whole cost 1 + 5 + 5 + 10 = 21, where the heaviest path is
// only 1 + 5 + 10.
TEST(CriticalPathBoundTest, NecessaryClassesCountEveryBranch) {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), a = b.AddClass("A"), bb = b.AddClass("B"), x = b.AddClass("X");
  AddNode(b, r, "r", 1, {a, bb});
  AddNode(b, a, "a", 5, {x});
  AddNode(b, bb, "b", 5, {x});
  AddNode(b, x, "x", 10, {});
  b.AddRoot(r);
  const ExtractionProblem p = BuildOrFail(std::move(b));
  std::optional<CriticalPathBound> bound = ComputeCriticalPathBound(p);
  ASSERT_TRUE(bound.has_value());
  EXPECT_DOUBLE_EQ(bound->plain_path, 16);
  EXPECT_EQ(bound->necessary_classes, 4u);
  EXPECT_DOUBLE_EQ(bound->necessary_cost, 21);
  EXPECT_DOUBLE_EQ(bound->bound, 21);
}

// R = f(C) (cost 1); C = c() (cost 10) or g(R) (cost 0). Through g, C would
// cost nothing, but only by using R, which needs C: the only valid choice
// costs 11, and so must the bound (a cycle never supports itself). With a
// second way to compute R, h() costing 20, C is no longer necessary for R
// and g has an acyclic term (through h); the optimum and the bound stay 11.
TEST(CriticalPathBoundTest, ACycleDoesNotShortenAPath) {
  for (bool second_root_node : {false, true}) {
    SCOPED_TRACE(second_root_node);
    ExtractionProblemBuilder b;
    const ClassId r = b.AddClass("R"), c = b.AddClass("C");
    AddNode(b, r, "f", 1, {c});
    if (second_root_node) AddNode(b, r, "h", 20, {});
    AddNode(b, c, "c", 10, {});
    AddNode(b, c, "g", 0, {r});
    b.AddRoot(r);
    const ExtractionProblem p = BuildOrFail(std::move(b));
    std::optional<CriticalPathBound> bound = ComputeCriticalPathBound(p);
    ASSERT_TRUE(bound.has_value());
    EXPECT_DOUBLE_EQ(bound->bound, 11);
  }
}

TEST(CriticalPathBoundTest, NegativeCostsBoundNothing) {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), x = b.AddClass("X");
  AddNode(b, r, "r", 1, {x});
  AddNode(b, x, "x", -2, {});
  b.AddRoot(r);
  EXPECT_FALSE(ComputeCriticalPathBound(BuildOrFail(std::move(b))).has_value());
}

TEST(CriticalPathBoundTest, ARootWithoutAnAcyclicTermHasNoBound) {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), x = b.AddClass("X");
  AddNode(b, r, "r", 1, {x});
  AddNode(b, x, "x", 1, {r});
  b.AddRoot(r);
  EXPECT_FALSE(ComputeCriticalPathBound(BuildOrFail(std::move(b))).has_value());
}

}  // namespace
}  // namespace egret::extract
