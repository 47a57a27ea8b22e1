// The ILP extractor against exhaustive search on small random e-graphs:
// whatever rows strengthen its relaxation (necessary classes, branching
// rows, cycle rows, the cuts of its LP loop), a proven optimum must be the
// least DAG cost of any valid choice. A row that cut off a valid choice
// would show up here as a "proven" cost above the exhaustive minimum.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/extract/choice.h"
#include "egret/extract/critical_path_bound.h"
#include "egret/extract/critical_path_search.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/validate.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

struct Spec {
  int num_classes = 0;
  struct Node {
    int cls;
    double cost;
    std::vector<int> children;
  };
  std::vector<Node> nodes;
  std::vector<int> roots;
};

ExtractionProblem Build(const Spec& s) {
  ExtractionProblemBuilder b;
  for (int c = 0; c < s.num_classes; ++c) b.AddClass(absl::StrCat("c", c));
  int k = 0;
  for (const Spec::Node& n : s.nodes) {
    std::vector<ClassId> kids(n.children.begin(), n.children.end());
    b.AddNode(static_cast<ClassId>(n.cls), absl::StrCat("op", k), n.cost, kids,
              absl::StrCat("n", k));
    ++k;
  }
  for (int r : s.roots) b.AddRoot(static_cast<ClassId>(r));
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

// The least DAG cost of a valid choice, by trying every node of every class
// (infinity if there is none).
double ExhaustiveOptimum(const ExtractionProblem& p) {
  const size_t nc = p.num_classes();
  std::vector<ENodeId> pick(nc);
  for (ClassId c = 0; c < nc; ++c) pick[c] = p.class_begin(c);
  double best = std::numeric_limits<double>::infinity();
  while (true) {
    Choice choice(nc);
    for (ClassId c = 0; c < nc; ++c) choice.node[c] = pick[c];
    choice = RestrictToReachable(p, choice);
    if (ValidateChoice(p, choice).ok()) best = std::min(best, DagCost(p, choice));
    size_t c = 0;
    for (; c < nc; ++c) {
      if (++pick[c] < p.class_end(c)) break;
      pick[c] = p.class_begin(c);
    }
    if (c == nc) break;
  }
  return best;
}

// Random classes in layers: children come from later classes, and now and
// then from an earlier one (a cycle); the last class always has a leaf.
Spec RandomSpec(std::mt19937& rng) {
  Spec s;
  s.num_classes = 4 + static_cast<int>(rng() % 5);
  for (int c = 0; c < s.num_classes; ++c) {
    const int nodes = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < nodes; ++k) {
      Spec::Node n{c, static_cast<double>(rng() % 6), {}};
      const int arity = c + 1 < s.num_classes ? static_cast<int>(rng() % 4) : 0;
      for (int a = 0; a < arity; ++a) {
        int d = c + 1 + static_cast<int>(rng() % (s.num_classes - c - 1));
        if (rng() % 8 == 0) d = static_cast<int>(rng() % s.num_classes);  // maybe a cycle
        n.children.push_back(d);
      }
      s.nodes.push_back(n);
    }
  }
  s.roots = {0};
  if (rng() % 2 == 0) s.roots.push_back(1);
  return s;
}

// Every bracketing of sums over subsets of four terms (the shape the
// branching rows are for), with random costs, a second way to compute each
// term and one or two roots.
Spec RandomSums(std::mt19937& rng) {
  Spec s;
  s.num_classes = 15;  // class m - 1 holds the sum over the bits of m
  for (int m = 1; m < 16; ++m) {
    const int c = m - 1;
    if ((m & (m - 1)) == 0) {  // a single term
      s.nodes.push_back({c, 1.0 + static_cast<double>(rng() % 4), {}});
      if (rng() % 2 == 0) s.nodes.push_back({c, static_cast<double>(rng() % 3), {}});
      continue;
    }
    for (int a = (m - 1) & m; a > 0; a = (a - 1) & m) {
      const int rest = m & ~a;
      if (a < rest) continue;  // each split once
      s.nodes.push_back({c, 1.0 + static_cast<double>(rng() % 3), {a - 1, rest - 1}});
    }
  }
  s.roots = {14};
  if (rng() % 2 == 0) s.roots.push_back(6);  // terms 1, 2 and 3 too
  return s;
}

// `poor_start`: warm-start from the last node of every class (valid when the
// e-graph has no cycle), so that the result is the solver's own and not the
// DAG heuristic's.
void ExpectExact(const Spec& s, const std::string& what, bool poor_start = false) {
  SCOPED_TRACE(what);
  ExtractionProblem p = Build(s);
  const double best = ExhaustiveOptimum(p);
  IlpOptions options;
  options.time_limit_seconds = 20;
  if (poor_start) {
    Choice start(p.num_classes());
    for (ClassId c = 0; c < p.num_classes(); ++c) start.node[c] = p.class_end(c) - 1;
    options.warm_start = RestrictToReachable(p, start);
  }
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, options);
  if (std::isinf(best)) {
    EXPECT_FALSE(ilp.ok());
    return;
  }
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_TRUE(ilp->optimal);
  EXPECT_NEAR(ilp->cost, best, 1e-9);
  EXPECT_LE(ilp->bound, best + 1e-6);
}

// The critical-path bound (critical_path_bound.h) on its own: never above
// the exhaustive optimum, and absent only when no choice is valid.
TEST(IlpExactnessTest, CriticalPathBoundIsBelowTheExhaustiveOptimum) {
  std::mt19937 rng(20261202);
  int tight = 0;
  for (int i = 0; i < 300; ++i) {
    SCOPED_TRACE(i);
    const ExtractionProblem p = Build(i % 2 == 0 ? RandomSpec(rng) : RandomSums(rng));
    const double best = ExhaustiveOptimum(p);
    const std::optional<CriticalPathBound> bound = ComputeCriticalPathBound(p);
    ASSERT_EQ(bound.has_value(), !std::isinf(best));
    if (!bound.has_value()) continue;
    EXPECT_LE(bound->bound, best + 1e-9);
    EXPECT_GE(bound->bound, bound->plain_path);
    tight += bound->bound >= best - 1e-9;
  }
  // Not vacuous: on these small e-graphs the bound is often the optimum.
  EXPECT_GT(tight, 30);
}

// The branch and bound on the critical-path bound (critical_path_search.h),
// unlimited: it finishes, and its choice is valid and costs the exhaustive
// optimum; started from that optimum, it finishes and finds nothing
// cheaper; stopped after one bound where it must branch, it says so.
TEST(IlpExactnessTest, CriticalPathSearchFindsTheExhaustiveOptimum) {
  std::mt19937 rng(20261203);
  int branched = 0;
  for (int i = 0; i < 300; ++i) {
    SCOPED_TRACE(i);
    const ExtractionProblem p = Build(i % 2 == 0 ? RandomSpec(rng) : RandomSums(rng));
    const double best = ExhaustiveOptimum(p);
    const CriticalPathSearchResult r =
        SearchByCriticalPath(p, nullptr, std::numeric_limits<double>::infinity(), {});
    ASSERT_TRUE(r.complete);
    if (std::isinf(best)) {
      EXPECT_TRUE(r.choice.node.empty());
      continue;
    }
    ASSERT_FALSE(r.choice.node.empty());
    EXPECT_TRUE(ValidateChoice(p, r.choice).ok());
    EXPECT_NEAR(r.cost, best, 1e-9 * std::max(1.0, best));
    EXPECT_NEAR(DagCost(p, r.choice), r.cost, 1e-12);
    const CriticalPathSearchResult again = SearchByCriticalPath(p, &r.choice, best, {});
    EXPECT_TRUE(again.complete);
    EXPECT_TRUE(again.choice.node.empty());
    if (r.bounds > 1) {
      ++branched;
      CriticalPathSearchOptions one;
      one.max_bounds = 1;
      const CriticalPathSearchResult stopped =
          SearchByCriticalPath(p, nullptr, std::numeric_limits<double>::infinity(), one);
      EXPECT_FALSE(stopped.complete);
      EXPECT_EQ(stopped.bounds, 1);
    }
  }
  // Not vacuous: many of these e-graphs need a search, not one bound.
  EXPECT_GT(branched, 50);
}

TEST(IlpExactnessTest, RandomEgraphsMatchExhaustiveSearch) {
  std::mt19937 rng(20261130);
  for (int i = 0; i < 150; ++i) ExpectExact(RandomSpec(rng), absl::StrCat("random ", i));
}

TEST(IlpExactnessTest, RandomSumsMatchExhaustiveSearch) {
  std::mt19937 rng(40);
  for (int i = 0; i < 40; ++i) ExpectExact(RandomSums(rng), absl::StrCat("sums ", i), true);
}

}  // namespace
}  // namespace egret::extract
