// The ILP extractor's neighbourhood search (ilp_internal::ImproveByNeighbourhoods,
// ilp_extractor_internal.h) on e-graphs of many independent "sharing" gadgets,
// where the tree choice is a poor start and the DAG optimum is known.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/extract/choice.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/ilp_extractor_internal.h"
#include "egret/extract/tree_extractor.h"
#include "egret/extract/validate.h"
#include "gtest/gtest.h"
#include "tests/extract/maxcut_problem.h"

namespace egret::extract {
namespace {

// A root R = f(A_1, B_1, ..., A_k, B_k); A_i is a1(S_i) (cost 1) or a2
// (cost 6), B_i likewise, S_i costs 8. As a tree each gadget costs 12 (a2,
// b2); as a DAG 10 (a1, b1 sharing S_i). DAG optimum: 1 + 10k.
ExtractionProblem Gadgets(int k) {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R");
  std::vector<ClassId> root_children;
  for (int i = 0; i < k; ++i) {
    const ClassId a = b.AddClass(absl::StrCat("A", i));
    const ClassId bb = b.AddClass(absl::StrCat("B", i));
    const ClassId s = b.AddClass(absl::StrCat("S", i));
    const std::vector<ClassId> uses_s = {s};
    b.AddNode(a, "a1", 1, uses_s);
    b.AddNode(a, "a2", 6, {});
    b.AddNode(bb, "b1", 1, uses_s);
    b.AddNode(bb, "b2", 6, {});
    b.AddNode(s, "s", 8, {});
    root_children.push_back(a);
    root_children.push_back(bb);
  }
  b.AddNode(r, "f", 1, root_children);
  b.AddRoot(r);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

TEST(IlpNeighbourhoodTest, ReachesTheDagOptimumFromTheTreeChoice) {
  const int k = 600;  // 3,001 nodes: more than one neighbourhood's start size
  ExtractionProblem p = Gadgets(k);
  absl::StatusOr<Choice> tree = ExtractTree(p);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_DOUBLE_EQ(DagCost(p, *tree), 1 + 12.0 * k);
  ilp_internal::NeighbourhoodStats stats;
  const auto deadline = ilp_internal::Clock::now() + std::chrono::seconds(120);
  Choice improved = ilp_internal::ImproveByNeighbourhoods(p, *tree, deadline, 0, &stats);
  ASSERT_TRUE(ValidateChoice(p, improved).ok());
  EXPECT_DOUBLE_EQ(DagCost(p, improved), 1 + 10.0 * k);
  EXPECT_GE(stats.improved, 1);
  EXPECT_GE(stats.solved, stats.improved);
}

TEST(IlpNeighbourhoodTest, NeverWorseThanItsStart) {
  ExtractionProblem p = Gadgets(3);
  absl::StatusOr<Choice> tree = ExtractTree(p);
  ASSERT_TRUE(tree.ok()) << tree.status();
  // No time at all: the start comes back unchanged.
  ilp_internal::NeighbourhoodStats stats;
  Choice same =
      ilp_internal::ImproveByNeighbourhoods(p, *tree, ilp_internal::Clock::now(), 0, &stats);
  EXPECT_EQ(same, *tree);
  EXPECT_EQ(stats.solved, 0);
}

// The search is sized by work (CBC's nodes, proofs in a row), not by the
// clock: given more time than it needs, it makes the same sub-problems and
// returns the same choice whatever its deadline.
TEST(IlpNeighbourhoodTest, TheSearchDoesNotDependOnItsDeadline) {
  ExtractionProblem p = Gadgets(600);
  absl::StatusOr<Choice> tree = ExtractTree(p);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ilp_internal::NeighbourhoodStats first, second;
  const auto now = ilp_internal::Clock::now();
  Choice a =
      ilp_internal::ImproveByNeighbourhoods(p, *tree, now + std::chrono::seconds(100), 0, &first);
  Choice b =
      ilp_internal::ImproveByNeighbourhoods(p, *tree, now + std::chrono::seconds(400), 0, &second);
  EXPECT_EQ(a, b);
  EXPECT_EQ(first.solved, second.solved);
  EXPECT_EQ(first.improved, second.improved);
  EXPECT_EQ(first.nodes, second.nodes);
}

// A max-cut e-graph (root -> variables of two cost-0 sides; per edge one
// clause of cost -1 per side) of a pseudo-random graph, which CBC proves
// only by branching.
ExtractionProblem RandomMaxCut(int n, int m) {
  std::vector<std::pair<int, int>> edges;
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<int>((state >> 8) % static_cast<uint32_t>(n));
  };
  for (int e = 0; e < m; ++e) {
    const int i = next();
    int j = next();
    if (j == i) j = (i + 1) % n;
    edges.emplace_back(i, j);
  }
  return MaxCutProblem(n, edges, 1);
}

// A sub-problem's solve stops at its node limit (work), not at a time.
TEST(IlpNeighbourhoodTest, TheNodeLimitBoundsCbcsWork) {
  ExtractionProblem p = RandomMaxCut(24, 60);
  absl::StatusOr<TreeCosts> tree = ComputeTreeCosts(p);
  ASSERT_TRUE(tree.ok()) << tree.status();
  absl::StatusOr<Choice> start = ExtractTree(p);
  ASSERT_TRUE(start.ok()) << start.status();
  const auto deadline = ilp_internal::Clock::now() + std::chrono::seconds(120);
  ilp_internal::IlpBuilder unlimited(p, *tree);
  absl::StatusOr<IlpResult> full = unlimited.Run(*start, deadline, 0, /*neighbourhoods=*/false);
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_TRUE(full->optimal);
  EXPECT_GT(full->cbc_nodes, 1) << "the proof needs branching";
  ilp_internal::IlpBuilder limited(p, *tree);
  limited.set_max_nodes(1);
  absl::StatusOr<IlpResult> cut = limited.Run(*start, deadline, 0, /*neighbourhoods=*/false);
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_FALSE(cut->optimal);
  EXPECT_LE(cut->cbc_nodes, cut->rounds);
  EXPECT_GE(cut->cost, full->cost);
}

// A program of more than kNeighbourhoodColumns columns gets the search
// before the full solve, and the full solve still proves the optimum.
TEST(IlpNeighbourhoodTest, LargeProgramsAreSearchedFirstAndStillProven) {
  // 5k + 1 nodes, every one a column, a little above the threshold.
  const int k = ilp_internal::kNeighbourhoodColumns / 5 + 100;
  ExtractionProblem p = Gadgets(k);
  absl::StatusOr<Choice> tree = ExtractTree(p);
  ASSERT_TRUE(tree.ok()) << tree.status();
  IlpOptions options;
  options.time_limit_seconds = 120;
  options.warm_start = *tree;
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, options);
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  EXPECT_GT(ilp->model_columns, ilp_internal::kNeighbourhoodColumns);
  EXPECT_GE(ilp->neighbourhood_improvements, 1);
  EXPECT_DOUBLE_EQ(ilp->cost, 1 + 10.0 * k);
  EXPECT_TRUE(ilp->optimal);
}

}  // namespace
}  // namespace egret::extract
