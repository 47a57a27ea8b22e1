// Searches the runner narrows or skips without changing what they find: a
// rule whose pattern has an op that no class holds matches nowhere (its
// search completes without visiting a root, RuleStats::absent) and still
// finds the matches that appear once a class gains the op; a rule that has
// never matched and reads only constants looks ahead only from changed
// classes that hold one (RuleStats::narrow) and still finds a match whose
// operand gains a constant.
#include <memory>
#include <string>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/pattern.h"
#include "egret/egraph/rewrite.h"
#include "egret/egraph/runner.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::F32;
using ::egret::testing::Leaf;
using ::egret::testing::MakeRule;

TEST(CompiledPatternOps, DistinctOpsRootFirst) {
  absl::StatusOr<Pattern> p = ParsePattern("(F (H ?y) (G (H ?z)))");
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<CompiledPattern> cp = CompilePattern(*p);
  ASSERT_TRUE(cp.ok()) << cp.status();
  ASSERT_EQ(cp->ops().size(), 3u);
  EXPECT_EQ(cp->ops()[0], Symbol::Intern("F"));
  EXPECT_EQ(cp->ops()[1], Symbol::Intern("H"));
  EXPECT_EQ(cp->ops()[2], Symbol::Intern("G"));
}

// F(X) with no H anywhere: "f-of-h" (F (H ?y)) is skipped as absent in the
// first iteration, in which "x-h" adds H(Z) to X's class; in the second it
// matches F(H(Z)) and adds K(Z) to F's class. With lookahead 0 (semi-naive)
// and 1 (incremental with a parent level more).
class AbsentOpTest : public ::testing::TestWithParam<int> {};

TEST_P(AbsentOpTest, SkippedWhileAbsentThenFound) {
  EGraph g;
  const Id x = Leaf(g, "X");
  const Id f = AddOp(g, "F", {x});
  const Id z = Leaf(g, "Z");
  g.Rebuild();
  std::vector<Rewrite> rules;
  rules.push_back(MakeRule("f-of-h", "(F (H ?y))", [](EGraph& eg, const MatchView& m) {
    return std::optional<Id>(*eg.Add(ENodeView{Symbol::Intern("K"), kNoPayload, {m[0]}}, F32()));
  }));
  rules.back().lookahead = GetParam();
  rules.push_back(MakeRule("x-h", "X", [z](EGraph& eg, const MatchView&) {
    return std::optional<Id>(*eg.Add(ENodeView{Symbol::Intern("H"), kNoPayload, {z}}, F32()));
  }));
  RunnerOptions o;
  o.scheduler = SchedulerKind::kSimple;
  const RunReport rep = Runner(g, o).Run(rules);
  ASSERT_EQ(rep.stop_reason, StopReason::kSaturated) << rep.ToString();
  ASSERT_GE(rep.iterations.size(), 2u);
  const RuleStats& first = rep.iterations[0].rules[0];
  EXPECT_TRUE(first.absent);
  EXPECT_EQ(first.roots, 0u);
  EXPECT_EQ(first.matches, 0u);
  EXPECT_EQ(rep.iterations[0].rules[1].applications, 1u);
  const RuleStats& second = rep.iterations[1].rules[0];
  EXPECT_FALSE(second.absent);
  EXPECT_EQ(second.matches, 1u);
  EXPECT_EQ(second.applications, 1u);
  // F's class now holds K(Z).
  EXPECT_FALSE(g.ClassNodesWithOp(g.Find(f), Symbol::Intern("K")).empty());
}

INSTANTIATE_TEST_SUITE_P(Lookahead, AbsentOpTest, ::testing::Values(0, 1));

// F(a) with a = P(b) (and F over eight other leaves, so that an incremental
// search is narrower than all F classes). "needs-const" rewrites F(?x) to
// G(?x) when ?x holds a constant; it reads only constants. Iteration 0: its
// first search finds F(a) and the guard fails; "p-q" adds Q(b) to a's class
// (a changes, no constant). Iteration 1: it looks ahead from no changed
// class (none holds a constant): its only root is a's class itself, and
// following the pattern's paths not even that (a's class has no F);
// "q-const" adds a constant to a's class. Iteration 2: a changed and holds a
// constant, so F(a)'s class is searched and the guard passes. Having matched,
// it goes on looking only where a change it reads can make a new match.
class NarrowSearch : public ::testing::TestWithParam<bool> {};

TEST_P(NarrowSearch, LooksAheadOnlyFromConstants) {
  const bool paths = GetParam();
  EGraph g;
  const Id b = Leaf(g, "B");
  const Id a = AddOp(g, "P", {b});
  const Id f = AddOp(g, "F", {a});
  for (int i = 0; i < 8; ++i) AddOp(g, "F", {Leaf(g, "L" + std::to_string(i))});
  // Many parents keep a the root of its merges.
  for (int i = 0; i < 6; ++i) AddOp(g, "U" + std::to_string(i), {a});
  g.Rebuild();
  std::vector<Rewrite> rules;
  rules.push_back(MakeRule("needs-const", "(F ?x)", [](EGraph& eg, const MatchView& m) {
    return std::optional<Id>(*eg.Add(ENodeView{Symbol::Intern("G"), kNoPayload, {m[0]}}, F32()));
  }));
  rules.back().guard = [](const EGraph& eg, const MatchView& m) {
    return eg.HasConstant(eg.Find(m[0]));
  };
  rules.back().lookahead = 1;
  rules.back().reads = Rewrite::Reads::kConstants;
  rules.push_back(MakeRule("p-q", "(P ?z)", [](EGraph& eg, const MatchView& m) {
    return std::optional<Id>(*eg.Add(ENodeView{Symbol::Intern("Q"), kNoPayload, {m[0]}}, F32()));
  }));
  rules.push_back(MakeRule("q-const", "(Q ?z)", [](EGraph& eg, const MatchView&) {
    return std::optional<Id>(
        eg.AddConstant(std::make_shared<const Tensor>(Tensor::FromValues(F32(), {1, 2, 3, 4}))));
  }));
  RunnerOptions o;
  o.scheduler = SchedulerKind::kSimple;
  o.follow_pattern_paths = paths;
  const RunReport rep = Runner(g, o).Run(rules);
  ASSERT_EQ(rep.stop_reason, StopReason::kSaturated) << rep.ToString();
  ASSERT_GE(rep.iterations.size(), 4u) << rep.ToString();
  EXPECT_EQ(rep.iterations[0].rules[0].matches, 0u);
  EXPECT_FALSE(rep.iterations[0].rules[0].narrow);  // the first search is full
  const RuleStats& one = rep.iterations[1].rules[0];
  EXPECT_TRUE(one.narrow);
  EXPECT_EQ(one.by_paths, paths);
  // a's class; not F(a)'s, a parent of a change without a constant.
  EXPECT_EQ(one.roots, paths ? 0u : 1u);
  EXPECT_EQ(one.matches, 0u);
  EXPECT_EQ(rep.iterations[1].rules[2].applications, 1u);
  const RuleStats& two = rep.iterations[2].rules[0];
  EXPECT_TRUE(two.narrow);
  EXPECT_EQ(two.matches, 1u);
  EXPECT_EQ(two.applications, 1u);
  EXPECT_FALSE(g.ClassNodesWithOp(g.Find(f), Symbol::Intern("G")).empty());
  // Having matched, it stays narrow: F(a) changed (it gained G(a)), so it is
  // found again, counted and not applied again.
  const RuleStats& three = rep.iterations[3].rules[0];
  EXPECT_TRUE(three.narrow);
  EXPECT_EQ(three.matches, 1u);
  EXPECT_EQ(three.found_again, 1u);
  EXPECT_EQ(three.applications, 0u);
}

INSTANTIATE_TEST_SUITE_P(FollowingPaths, NarrowSearch, ::testing::Bool());

}  // namespace
}  // namespace egret
