// Rewrite::reads: a match found again that the rule found at its last
// complete search, with nothing it reads changed since, is counted but not
// applied again; a match whose read classes changed is applied again.
#include <memory>
#include <string>
#include <vector>

#include "egret/egraph/egraph.h"
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

// a = P(b) has many parents (so that it stays the root of every merge and
// F(a) is never re-canonicalized) and gains a node in each of the first
// iterations: Q(b) in the first (rule P->Q), then a constant in the second
// (rule Q->const). "count", searched first in each iteration, rewrites F(?x)
// to G(?x), counting its applier's calls; F(a) is within its incremental
// search's reach after every change of a.
struct Fixture {
  explicit Fixture(Rewrite::Reads reads) {
    b = Leaf(g, "b");
    a = AddOp(g, "P", {b});
    f = AddOp(g, "F", {a});
    for (int i = 0; i < 6; ++i) AddOp(g, "U" + std::to_string(i), {a});
    g.Rebuild();
    rules.push_back(MakeRule("count", "(F ?x)", [this](EGraph& eg, const MatchView& m) {
      ++calls;
      return std::optional<Id>(
          *eg.Add(ENodeView{Symbol::Intern("G"), kNoPayload, {m.subst[0]}}, F32()));
    }));
    rules.front().lookahead = 1;
    rules.front().reads = reads;
    rules.push_back(
        MakeRule("p-q", "(P ?z)", [](EGraph& eg, const MatchView& m) -> std::optional<Id> {
          return *eg.Add(ENodeView{Symbol::Intern("Q"), kNoPayload, {m.subst[0]}}, F32());
        }));
    rules.push_back(
        MakeRule("q-const", "(Q ?z)", [](EGraph& eg, const MatchView&) -> std::optional<Id> {
          return eg.AddConstant(
              std::make_shared<const Tensor>(Tensor::FromValues(F32(), {1, 2, 3, 4})));
        }));
  }
  Fixture(const Fixture&) = delete;  // the applier points into it

  RunReport Run() {
    RunnerOptions o;
    o.limits.iterations = 20;
    o.limits.nodes = 1000;
    o.limits.seconds = 60;
    o.check_invariants = true;
    return Runner(g, o).Run(rules);
  }

  // The matches of "count" in each iteration.
  static std::vector<size_t> CountMatches(const RunReport& r) {
    std::vector<size_t> out;
    for (const IterationReport& it : r.iterations) out.push_back(it.rules[0].matches);
    return out;
  }

  EGraph g;
  Id a = kNoId, b = kNoId, f = kNoId;
  std::vector<Rewrite> rules;
  int calls = 0;
};

TEST(RunnerReadsTest, EachRuleFindsWhatItsReadsCanChange) {
  // A rule that reads a's nodes or anything finds F(a) in each of the three
  // iterations (the full search, then twice around the changed class a). So
  // does one that reads constants: F(a)'s class changes in the first
  // iteration (it gains G(a)), and a gains a constant in the second. One
  // that reads only the match finds F(a) once: after its first search it
  // looks only at matches with a node changed since (semi-naive), and F(a)
  // is not.
  for (Rewrite::Reads reads : {Rewrite::Reads::kAnything, Rewrite::Reads::kClassNodes,
                               Rewrite::Reads::kConstants, Rewrite::Reads::kMatch}) {
    Fixture t(reads);
    RunReport r = t.Run();
    EXPECT_EQ(r.stop_reason, StopReason::kSaturated);
    EXPECT_TRUE(r.invariant_error.ok()) << r.invariant_error;
    const std::vector<size_t> expected = reads == Rewrite::Reads::kMatch
                                             ? std::vector<size_t>{1, 0, 0}
                                             : std::vector<size_t>{1, 1, 1};
    EXPECT_EQ(Fixture::CountMatches(r), expected) << static_cast<int>(reads);
    EXPECT_EQ(t.g.Find(t.f), t.g.Find(AddOp(t.g, "G", {t.a})));
  }
}

TEST(RunnerReadsTest, AMatchFoundAgainIsAppliedOnlyWhenWhatItReadsChanged) {
  // kAnything: applied each time it is found.
  {
    Fixture t(Rewrite::Reads::kAnything);
    t.Run();
    EXPECT_EQ(t.calls, 3);
  }
  // kClassNodes: a (bound to ?x) got a node before each search.
  {
    Fixture t(Rewrite::Reads::kClassNodes);
    t.Run();
    EXPECT_EQ(t.calls, 3);
  }
  // kConstants: only after a got its constant.
  {
    Fixture t(Rewrite::Reads::kConstants);
    t.Run();
    EXPECT_EQ(t.calls, 2);
  }
  // kMatch: F(a) never changed.
  {
    Fixture t(Rewrite::Reads::kMatch);
    t.Run();
    EXPECT_EQ(t.calls, 1);
  }
}

TEST(RunnerReadsTest, ANewNodeInTheMatchIsApplied) {
  // a loses a merge with a class of more parents: F(a) is re-canonicalized
  // (a node of the match changed), so even kMatch applies it again.
  Fixture t(Rewrite::Reads::kMatch);
  Id c = Leaf(t.g, "c");
  for (int i = 0; i < 20; ++i) AddOp(t.g, "V" + std::to_string(i), {c});
  t.rules[1] =
      MakeRule("p-c", "(P ?z)", [c](EGraph&, const MatchView&) { return std::optional<Id>(c); });
  t.g.Rebuild();
  RunReport r = t.Run();
  EXPECT_TRUE(r.invariant_error.ok()) << r.invariant_error;
  EXPECT_EQ(t.g.Find(t.a), t.g.Find(c));
  EXPECT_EQ(t.calls, 2);
}

}  // namespace
}  // namespace egret
