// The runner across phases: a rule in several phases goes on from its last
// complete search (RunnerOptions::phase_hook_keeps_egraph), and the backoff
// scheduler's scale-aware match limit (BackoffOptions::classes_per_match).
#include <string>
#include <vector>

#include "egret/egraph/builtin_rewrites.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/runner.h"
#include "egret/egraph/scheduler.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::Leaf;

// Sum of the first iteration's matches of phase `p`.
size_t FirstIterationMatches(const RunReport& r, size_t p) {
  for (const IterationReport& it : r.iterations) {
    if (it.phase != p) continue;
    size_t m = 0;
    for (const RuleStats& s : it.rules) m += s.matches;
    return m;
  }
  return 0;
}

// n independent sums x_i + y_i and the commutativity rule in two phases.
struct TwoPhaseComm {
  explicit TwoPhaseComm(int n) {
    for (int i = 0; i < n; ++i) {
      AddOp(g, "ElementWiseAdd",
            {Leaf(g, "x" + std::to_string(i)), Leaf(g, "y" + std::to_string(i))});
    }
    for (Rewrite& r : BuiltinRewrites(OpTable::Default())) {
      if (r.name == "comm-ElementWiseAdd") comm = std::move(r);
    }
    phases = {{"one", {&comm}}, {"two", {&comm}}};
  }
  TwoPhaseComm(const TwoPhaseComm&) = delete;  // phases point into it
  EGraph g;
  Rewrite comm;
  std::vector<Phase> phases;
};

RunnerOptions Options() {
  RunnerOptions o;
  o.limits.iterations = 100;
  o.limits.nodes = 1'000'000;
  o.limits.seconds = 600;
  o.check_invariants = true;
  return o;
}

TEST(RunnerPhasesTest, ARuleGoesOnFromItsSearchInAnEarlierPhase) {
  TwoPhaseComm t(10);
  RunReport r = Runner(t.g, Options()).Run(t.phases);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].stop_reason, StopReason::kSaturated);
  EXPECT_EQ(r.phases[1].stop_reason, StopReason::kSaturated);
  // Phase one: x+y and then y+x (20 matches), phase two: nothing new since.
  EXPECT_EQ(FirstIterationMatches(r, 0), 10u);
  EXPECT_EQ(FirstIterationMatches(r, 1), 0u);
  EXPECT_EQ(r.phases[1].iterations, 1u);
  EXPECT_EQ(t.g.num_nodes(), 40u);  // 20 leaves, x+y and y+x
}

TEST(RunnerPhasesTest, AHookThatKeepsTheEGraphKeepsTheRuleState) {
  TwoPhaseComm t(10);
  RunnerOptions o = Options();
  o.on_phase_end = [](const PhaseReport&, bool) { return absl::OkStatus(); };
  o.phase_hook_keeps_egraph = true;
  RunReport r = Runner(t.g, o).Run(t.phases);
  EXPECT_EQ(FirstIterationMatches(r, 1), 0u);
}

TEST(RunnerPhasesTest, AHookThatMayChangeTheEGraphStartsRulesAfresh) {
  TwoPhaseComm t(10);
  RunnerOptions o = Options();
  o.on_phase_end = [](const PhaseReport&, bool) { return absl::OkStatus(); };
  RunReport r = Runner(t.g, o).Run(t.phases);
  // The whole e-graph searched again: both orders of the 10 sums.
  EXPECT_EQ(FirstIterationMatches(r, 1), 20u);
}

TEST(RunnerPhasesTest, AHookThatChangesTheEGraphStartsRulesAfreshEvenWhenItSaysItKeepsIt) {
  TwoPhaseComm t(10);
  RunnerOptions o = Options();
  o.phase_hook_keeps_egraph = true;
  o.on_phase_end = [&](const PhaseReport&, bool more) {
    if (more) {
      AddOp(t.g, "ElementWiseAdd", {Leaf(t.g, "p"), Leaf(t.g, "q")});
      t.g.Rebuild();
    }
    return absl::OkStatus();
  };
  RunReport r = Runner(t.g, o).Run(t.phases);
  EXPECT_EQ(FirstIterationMatches(r, 1), 21u);
  EXPECT_EQ(t.g.num_nodes(), 44u);  // and p+q was commuted too
}

TEST(BackoffSchedulerTest, MatchLimitScalesWithTheEGraphsClasses) {
  BackoffOptions b;
  b.match_limit = 1000;
  b.classes_per_match = 16;
  EXPECT_EQ(BackoffScheduler(SchedulerKind::kBackoff, b, {true}, 0).MatchLimit(0), 1000u);
  EXPECT_EQ(BackoffScheduler(SchedulerKind::kBackoff, b, {true}, 16'000).MatchLimit(0), 1000u);
  EXPECT_EQ(BackoffScheduler(SchedulerKind::kBackoff, b, {true}, 160'000).MatchLimit(0), 10'000u);
  b.classes_per_match = 0;
  EXPECT_EQ(BackoffScheduler(SchedulerKind::kBackoff, b, {true}, 160'000).MatchLimit(0), 1000u);
}

TEST(BackoffSchedulerTest, TheScaledLimitDoublesWithEachBan) {
  BackoffOptions b;
  b.match_limit = 10;
  b.classes_per_match = 2;
  BackoffScheduler s(SchedulerKind::kBackoff, b, {true, false}, 100);
  EXPECT_EQ(s.MatchLimit(0), 50u);
  s.Ban(0, 0);
  EXPECT_TRUE(s.IsBanned(0, 1));
  EXPECT_EQ(s.MatchLimit(0), 100u);
  // A rule that may not be banned has no limit.
  EXPECT_EQ(s.MatchLimit(1), std::numeric_limits<size_t>::max());
}

// The runner makes each phase's scheduler with the e-graph's class count: 40
// sums (120 classes) under a limit of max(8, 120 / 4) = 30 matches: the
// first search of comm (40 matches) is banned once, not twice as under 8.
TEST(RunnerPhasesTest, TheRunnerScalesTheMatchLimitWithTheEGraph) {
  for (size_t per : {size_t{0}, size_t{4}}) {
    TwoPhaseComm t(40);
    RunnerOptions o = Options();
    o.backoff.match_limit = 8;
    o.backoff.classes_per_match = per;
    RunReport r = Runner(t.g, o).Run(t.phases);
    size_t bans = 0;
    for (const IterationReport& it : r.iterations) bans += it.rules[0].banned ? 1 : 0;
    EXPECT_EQ(bans, per == 0 ? 3u : 1u) << per;
    EXPECT_EQ(t.g.num_nodes(), 160u) << per;
  }
}

}  // namespace
}  // namespace egret
