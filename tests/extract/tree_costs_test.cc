// ComputeTreeCosts against a plain fixpoint on random problems, numbered so
// that children come after their users (BuildProblem's depth-first order),
// before them or anywhere, with cycles (left to its worklist); and of a
// class's nodes that cost the same, the first kept.
#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/extract/choice.h"
#include "egret/extract/problem.h"
#include "egret/extract/tree_extractor.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum class Layout { kChildrenAfter, kChildrenBefore, kAnywhere };

// `classes` classes, each of 1-3 nodes of integer cost 0-9 and 0-2 children.
// A node's children are classes on the far side of it in `layout` (every
// tenth node ignores that: cycles), so that the e-graph is mostly a DAG.
ExtractionProblem RandomProblem(std::mt19937& rng, size_t classes, Layout layout) {
  ExtractionProblemBuilder b;
  for (size_t c = 0; c < classes; ++c) b.AddClass(absl::StrCat("c", c));
  auto pick = [&](size_t lo, size_t hi) {  // in [lo, hi)
    return static_cast<ClassId>(lo + rng() % (hi - lo));
  };
  for (size_t c = 0; c < classes; ++c) {
    const int nodes = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < nodes; ++k) {
      std::vector<ClassId> kids;
      // Half the nodes leaves, so that tree costs stay far below 2^53.
      const int arity = rng() % 2 == 0 ? 0 : 1 + static_cast<int>(rng() % 2);
      for (int a = 0; a < arity; ++a) {
        const bool anywhere = layout == Layout::kAnywhere || rng() % 10 == 0;
        if (anywhere) {
          kids.push_back(pick(0, classes));
        } else if (layout == Layout::kChildrenAfter && c + 1 < classes) {
          kids.push_back(pick(c + 1, classes));
        } else if (layout == Layout::kChildrenBefore && c > 0) {
          kids.push_back(pick(0, c));
        }
      }
      b.AddNode(static_cast<ClassId>(c), "f", static_cast<double>(rng() % 10), kids);
    }
  }
  b.AddRoot(0);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

// The least fixpoint of cost(c) = min over c's nodes of cost(n) + the sum of
// its children's, by sweeps until nothing changes (costs are non-negative).
std::vector<double> ReferenceCosts(const ExtractionProblem& p) {
  std::vector<double> cost(p.num_classes(), kInf);
  for (bool changed = true; changed;) {
    changed = false;
    for (ENodeId n = 0; n < p.num_nodes(); ++n) {
      double v = p.cost(n);
      for (ClassId k : p.children(n)) v += cost[k];
      if (v < cost[p.node_class(n)]) {
        cost[p.node_class(n)] = v;
        changed = true;
      }
    }
  }
  return cost;
}

TEST(TreeCostsTest, MatchAFixpointInEveryLayout) {
  std::mt19937 rng(7);
  for (Layout layout : {Layout::kChildrenAfter, Layout::kChildrenBefore, Layout::kAnywhere}) {
    for (int round = 0; round < 40; ++round) {
      const ExtractionProblem p = RandomProblem(rng, 20 + round * 5, layout);
      absl::StatusOr<TreeCosts> t = ComputeTreeCosts(p);
      ASSERT_TRUE(t.ok()) << t.status();
      const std::vector<double> want = ReferenceCosts(p);
      for (ClassId c = 0; c < p.num_classes(); ++c) {
        ASSERT_EQ(t->cost[c], want[c])
            << "layout " << static_cast<int>(layout) << " round " << round << " class " << c;
        const ENodeId n = t->choice.node[c];
        if (std::isinf(want[c])) {
          EXPECT_EQ(n, kNoENode);
          continue;
        }
        // The chosen node costs what its class does, through its children's
        // chosen nodes.
        ASSERT_NE(n, kNoENode);
        double v = p.cost(n);
        for (ClassId k : p.children(n)) v += t->cost[k];
        EXPECT_EQ(v, want[c]);
      }
      // And the choice from the root is acyclic, its tree cost the root's.
      if (!std::isinf(want[0])) {
        const Choice r = RestrictToReachable(p, t->choice);
        EXPECT_EQ(TreeCost(p, r), want[0]);
      }
    }
  }
}

// Of a class's nodes that cost the same, the first is chosen, whichever
// side of the class its children lie on.
TEST(TreeCostsTest, EqualNodesGoToTheFirst) {
  for (bool children_after : {true, false}) {
    ExtractionProblemBuilder b;
    const ClassId leaf = children_after ? 1 : 0, top = children_after ? 0 : 1;
    for (int i = 0; i < 2; ++i) b.AddClass(absl::StrCat("c", i));
    b.AddNode(leaf, "leaf", 1, {});
    b.AddNode(top, "first", 2, std::vector<ClassId>{leaf});
    b.AddNode(top, "second", 2, std::vector<ClassId>{leaf});
    b.AddRoot(top);
    absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
    ASSERT_TRUE(p.ok()) << p.status();
    absl::StatusOr<TreeCosts> t = ComputeTreeCosts(*p);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(p->op(t->choice.node[top]), "first") << children_after;
    EXPECT_EQ(t->cost[top], 3);
  }
}

}  // namespace
}  // namespace egret::extract
