// A rule whose pattern has an op that no class holds matches nowhere: the
// runner completes its search without visiting a root (RuleStats::absent),
// and it still finds the matches that appear once a class gains the op.
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

Rewrite Make(std::string name, std::string_view lhs, Applier applier) {
  absl::StatusOr<Pattern> p = ParsePattern(lhs);
  EXPECT_TRUE(p.ok()) << p.status();
  absl::StatusOr<Rewrite> r = MakeRewrite(std::move(name), *p, std::move(applier));
  EXPECT_TRUE(r.ok()) << r.status();
  return *std::move(r);
}

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
  rules.push_back(Make("f-of-h", "(F (H ?y))", [](EGraph& eg, const MatchView& m) {
    return std::optional<Id>(*eg.Add(ENodeView{Symbol::Intern("K"), kNoPayload, {m[0]}}, F32()));
  }));
  rules.back().lookahead = GetParam();
  rules.push_back(Make("x-h", "X", [z](EGraph& eg, const MatchView&) {
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

}  // namespace
}  // namespace egret
