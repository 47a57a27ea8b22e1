// Search ahead (RunnerOptions::search_ahead) saves work and changes nothing
// else. Several rules rooted at one op, some searched in full every
// iteration, some incrementally, with guards that read what the rules
// before them in the same iteration change (constants that unions bring
// into a class) and match limits that ban them: on random e-graphs, a run
// with search ahead and one without give the same report, rule by rule and
// iteration by iteration (matches, applications, roots, bans), and the same
// e-graph. The runs with it do take kept matches (RuleStats::kept), so the
// comparison is not of two identical code paths.
#include <memory>
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

// Rules rooted at G, in the order run. "g-fold-f" makes the class of F(c) a
// constant's when c is one, so that "g-const" (whose guard asks whether its
// second operand holds a constant) passes on a match in the same iteration
// that it failed on in the iteration before: a guard evaluated ahead, at
// the first rule's turn, would give other counts.
std::vector<Rewrite> Rules(bool full_every_iteration) {
  std::vector<Rewrite> rules;
  rules.push_back(MakeRule(
      "g-fold-f", "(G ?x (F ?c))",
      [](EGraph& g, const MatchView&) { return std::optional<Id>(g.AddConstant(Filled(100))); },
      [](const EGraph& g, const MatchView& m) { return HasConst(g, m.subst[1]); }));
  rules.back().reads = Rewrite::Reads::kConstants;
  rules.push_back(MakeRule("g-swap-f", "(G (F ?x) ?y)", [](EGraph& g, const MatchView& m) {
    return std::optional<Id>(AddOp(g, "G", {m.subst[1], AddOp(g, "F", {m.subst[0]})}));
  }));
  rules.push_back(MakeRule(
      "g-const", "(G ?x ?c)",
      [](EGraph& g, const MatchView& m) { return std::optional<Id>(AddOp(g, "H", {m.subst[0]})); },
      [](const EGraph& g, const MatchView& m) { return HasConst(g, m.subst[1]); }));
  rules.back().reads = Rewrite::Reads::kConstants;
  rules.push_back(MakeRule("g-strip", "(G (H ?x) (F ?y))", [](EGraph& g, const MatchView& m) {
    return std::optional<Id>(AddOp(g, "G", {m.subst[0], m.subst[1]}));
  }));
  rules.push_back(MakeRule("g-assoc", "(G ?a (G ?b ?c))", [](EGraph& g, const MatchView& m) {
    return std::optional<Id>(AddOp(g, "G", {AddOp(g, "G", {m.subst[0], m.subst[1]}), m.subst[2]}));
  }));
  // A rule rooted elsewhere, between them.
  rules.insert(rules.begin() + 2, MakeRule("f-f", "(F (F ?x))", [](EGraph& g, const MatchView& m) {
                 return std::optional<Id>(AddOp(g, "H", {m.subst[0]}));
               }));
  for (Rewrite& r : rules) r.incremental = !full_every_iteration || r.name == "g-strip";
  return rules;
}

// What a run did, rule by rule and iteration by iteration, and what it left.
using RuleRow = std::tuple<std::string, size_t, size_t, size_t, size_t, bool, bool, bool, bool>;
struct Outcome {
  StopReason stop = StopReason::kSaturated;
  std::vector<RuleRow> rows;
  size_t nodes = 0;
  size_t classes = 0;
  std::vector<size_t> partition;  // per start term: the first term equal to it
  size_t kept = 0;                // searches that took kept matches
};

Outcome RunOnce(uint32_t seed, bool full_every_iteration, bool search_ahead) {
  EGraph g;
  const std::vector<Id> terms = RandomTerms(g, seed, 30);
  const std::vector<Rewrite> rules = Rules(full_every_iteration);
  RunnerOptions o = BanningOptions(12, 4000, 60);
  o.search_ahead = search_ahead;
  const RunReport r = Runner(g, o).Run(rules);
  EXPECT_TRUE(r.invariant_error.ok()) << r.invariant_error;
  Outcome out;
  out.stop = r.stop_reason;
  for (const IterationReport& it : r.iterations) {
    for (const RuleStats& s : it.rules) {
      out.rows.emplace_back(s.name, s.matches, s.applications, s.roots, s.found_again, s.full,
                            s.banned, s.skipped, s.absent);
      out.kept += s.kept;
    }
  }
  out.nodes = g.num_nodes();
  out.classes = g.num_classes();
  out.partition = Partition(g, terms);
  return out;
}

TEST(RunnerSearchAheadTest, SameRunWithAndWithout) {
  for (bool full : {true, false}) {
    size_t kept = 0, banned = 0, merged = 0;
    for (uint32_t seed = 0; seed < 30; ++seed) {
      SCOPED_TRACE(::testing::Message() << "seed " << seed << (full ? " full" : " incremental"));
      const Outcome off = RunOnce(seed, full, /*search_ahead=*/false);
      const Outcome on = RunOnce(seed, full, /*search_ahead=*/true);
      EXPECT_EQ(on.stop, off.stop);
      ASSERT_EQ(on.rows.size(), off.rows.size());
      for (size_t i = 0; i < on.rows.size(); ++i) EXPECT_EQ(on.rows[i], off.rows[i]) << "row " << i;
      EXPECT_EQ(on.nodes, off.nodes);
      EXPECT_EQ(on.classes, off.classes);
      EXPECT_EQ(on.partition, off.partition);
      EXPECT_EQ(off.kept, 0u);
      kept += on.kept;
      for (const RuleRow& row : off.rows) banned += std::get<6>(row);
      for (size_t i = 0; i < off.partition.size(); ++i) merged += off.partition[i] != i;
    }
    // What the comparison covers: kept matches taken, bans, and merges.
    EXPECT_GT(kept, 30u) << (full ? "full" : "incremental");
    EXPECT_GT(banned, 0u) << (full ? "full" : "incremental");
    EXPECT_GT(merged, 30u) << (full ? "full" : "incremental");
  }
}

}  // namespace
}  // namespace egret
