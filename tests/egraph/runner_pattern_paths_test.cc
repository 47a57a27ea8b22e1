// Following the pattern's paths (RunnerOptions::follow_pattern_paths) saves
// work and changes no application. Semi-naive rules (which the scheduler may
// ban) and narrow ones, whose guards read constants that unions bring into a
// class or only the matched nodes, over patterns two and three ops deep: on
// random e-graphs, a run that follows the paths and one that does not apply
// the same matches, rule by rule and iteration by iteration, and leave the
// same e-graph. What may differ is where they look (roots) and so how many
// matches found again a narrow rule counts (RuleStats::matches); the matches
// it applies are the same. The runs that follow the paths do visit fewer
// roots, so the comparison is not of two identical code paths.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/rewrite.h"
#include "egret/egraph/runner.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::BanningOptions;
using ::egret::testing::Filled;
using ::egret::testing::HasConst;
using ::egret::testing::MakeRule;
using ::egret::testing::Partition;
using ::egret::testing::RandomTerms;

std::optional<Id> Op(EGraph& g, std::string_view op, std::vector<Id> ch) {
  return std::optional<Id>(AddOp(g, op, std::move(ch)));
}

std::vector<Rewrite> Rules() {
  std::vector<Rewrite> rules;
  // Semi-naive (lookahead 0), bannable.
  rules.push_back(MakeRule("g-assoc", "(G ?a (G ?b ?c))", [](EGraph& g, const MatchView& m) {
    return Op(g, "G", {*Op(g, "G", {m[0], m[1]}), m[2]});
  }));
  rules.push_back(MakeRule("g-swap-f", "(G (F ?x) ?y)", [](EGraph& g, const MatchView& m) {
    return Op(g, "G", {m[1], *Op(g, "F", {m[0]})});
  }));
  rules.push_back(MakeRule("h-f-g", "(H (F (G ?x ?y)))", [](EGraph& g, const MatchView& m) {
    return Op(g, "H", {*Op(g, "G", {m[1], m[0]})});
  }));
  // Narrow: a guard that reads constants. "f-fold" makes F(c) of a constant
  // c a constant's class, which "g-const" then reads in its second operand.
  rules.push_back(MakeRule(
      "f-fold", "(F ?c)",
      [](EGraph& g, const MatchView&) { return std::optional<Id>(g.AddConstant(Filled(100))); },
      [](const EGraph& g, const MatchView& m) { return HasConst(g, m[0]); }));
  rules.back().reads = Rewrite::Reads::kConstants;
  rules.push_back(MakeRule(
      "g-const", "(G (H ?x) ?c)", [](EGraph& g, const MatchView& m) { return Op(g, "H", {m[0]}); },
      [](const EGraph& g, const MatchView& m) { return HasConst(g, m[1]); }));
  rules.back().reads = Rewrite::Reads::kConstants;
  // Narrow with the semi-naive filter: a guard that reads the matched nodes.
  rules.push_back(MakeRule(
      "g-same", "(G (F ?x) (F ?y))",
      [](EGraph& g, const MatchView& m) { return Op(g, "F", {m[0]}); },
      [](const EGraph& g, const MatchView& m) {
        return g.Node(m.nodes[1]).children[0] == g.Node(m.nodes[2]).children[0];
      }));
  rules.back().reads = Rewrite::Reads::kMatch;
  // Narrow rules count found-again matches only where they look: their
  // counts may differ, so they are not banned (a ban is decided by count).
  for (Rewrite& r : rules) r.backoff = r.lookahead == 0;
  return rules;
}

// Per rule and iteration: name, matches not found again, applications,
// banned, skipped, absent.
using RuleRow = std::tuple<std::string, size_t, size_t, bool, bool, bool>;
struct Outcome {
  StopReason stop = StopReason::kSaturated;
  std::vector<RuleRow> rows;
  size_t nodes = 0;
  size_t classes = 0;
  std::vector<size_t> partition;  // per start term: the first term equal to it
  size_t roots = 0;               // roots visited, all searches
  size_t by_paths = 0;            // searches that followed the paths
};

Outcome RunOnce(uint32_t seed, bool follow_paths) {
  EGraph g;
  const std::vector<Id> terms = RandomTerms(g, seed, 40);
  const std::vector<Rewrite> rules = Rules();
  RunnerOptions o = BanningOptions(10, 5000, 80);
  o.follow_pattern_paths = follow_paths;
  const RunReport r = Runner(g, o).Run(rules);
  EXPECT_TRUE(r.invariant_error.ok()) << r.invariant_error;
  Outcome out;
  out.stop = r.stop_reason;
  for (const IterationReport& it : r.iterations) {
    for (const RuleStats& s : it.rules) {
      out.rows.emplace_back(s.name, s.matches - s.found_again, s.applications, s.banned, s.skipped,
                            s.absent);
      out.roots += s.roots;
      out.by_paths += s.by_paths;
    }
  }
  out.nodes = g.num_nodes();
  out.classes = g.num_classes();
  out.partition = Partition(g, terms);
  return out;
}

TEST(RunnerPatternPathsTest, SameApplicationsWithAndWithout) {
  size_t roots_on = 0, roots_off = 0, by_paths = 0, banned = 0, applied = 0, merged = 0;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const Outcome off = RunOnce(seed, /*follow_paths=*/false);
    const Outcome on = RunOnce(seed, /*follow_paths=*/true);
    EXPECT_EQ(on.stop, off.stop);
    ASSERT_EQ(on.rows.size(), off.rows.size());
    for (size_t i = 0; i < on.rows.size(); ++i) EXPECT_EQ(on.rows[i], off.rows[i]) << "row " << i;
    EXPECT_EQ(on.nodes, off.nodes);
    EXPECT_EQ(on.classes, off.classes);
    EXPECT_EQ(on.partition, off.partition);
    EXPECT_EQ(off.by_paths, 0u);
    roots_on += on.roots;
    roots_off += off.roots;
    by_paths += on.by_paths;
    for (const RuleRow& row : off.rows) {
      banned += std::get<3>(row);
      applied += std::get<2>(row);
    }
    for (size_t i = 0; i < off.partition.size(); ++i) merged += off.partition[i] != i;
  }
  // What the comparison covers: searches that followed the paths and
  // visited fewer roots, bans, applications and merges.
  EXPECT_GT(by_paths, 200u);
  EXPECT_LT(roots_on * 4, roots_off * 3) << roots_on << " against " << roots_off;
  EXPECT_GT(banned, 0u);
  EXPECT_GT(applied, 1000u);
  EXPECT_GT(merged, 40u);
}

}  // namespace
}  // namespace egret
