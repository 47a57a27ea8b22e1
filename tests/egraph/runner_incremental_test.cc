// Incremental search against full search: on random e-graphs, rules whose
// patterns reach one to four levels deep, with guards that read constants
// (lookahead 1, Reads::kConstants) and appliers that add constants to classes
// mid-run, searched only around the classes changed since each rule's last
// search (the runner's walks to parents, shared by every rule and depth of an
// iteration while the e-graph is unchanged) reach the same fixpoint as
// searching every class every iteration: the same classes and nodes, and the
// same equalities among the terms of the start.
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/rewrite.h"
#include "egret/egraph/runner.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::Filled;
using ::egret::testing::Leaf;
using ::egret::testing::MakeRule;
using ::egret::testing::Partition;

std::vector<Rewrite> Rules() {
  std::vector<Rewrite> rules;
  // Depth 2: F(F(x)) = H(x).
  rules.push_back(MakeRule("ff-h", "(F (F ?x))", [](EGraph& g, const MatchView& m) {
    return std::optional<Id>(AddOp(g, "H", {m.subst[0]}));
  }));
  // Depth 3, both operands: G(H(x), F(y)) = G(x, y).
  rules.push_back(MakeRule("g-strip", "(G (H ?x) (F ?y))", [](EGraph& g, const MatchView& m) {
    return std::optional<Id>(AddOp(g, "G", {m.subst[0], m.subst[1]}));
  }));
  // Depth 4: F(H(G(x, H(y)))) = G(y, x).
  rules.push_back(MakeRule("deep", "(F (H (G ?x (H ?y))))", [](EGraph& g, const MatchView& m) {
    return std::optional<Id>(AddOp(g, "G", {m.subst[1], m.subst[0]}));
  }));
  // Guarded on a constant operand: G(x, c) = F(x) when c holds a constant.
  Rewrite by_constant = MakeRule(
      "g-const", "(G ?x ?c)",
      [](EGraph& g, const MatchView& m) { return std::optional<Id>(AddOp(g, "F", {m.subst[0]})); },
      [](const EGraph& g, const MatchView& m) { return g.HasConstant(g.Find(m.subst[1])); });
  by_constant.reads = Rewrite::Reads::kConstants;
  rules.push_back(std::move(by_constant));
  // Constants appear mid-run: F of a constant is the constant 100 (one value
  // for all, so that a class that holds F of itself stays consistent).
  Rewrite fold = MakeRule(
      "f-fold", "(F ?c)",
      [](EGraph& g, const MatchView&) { return std::optional<Id>(g.AddConstant(Filled(100))); },
      [](const EGraph& g, const MatchView& m) { return g.HasConstant(g.Find(m.subst[0])); });
  fold.reads = Rewrite::Reads::kConstants;
  rules.push_back(std::move(fold));
  return rules;
}

// A random e-graph of `size` terms over three leaves and two constants, the
// terms' classes in the order made.
std::vector<Id> RandomTerms(EGraph& g, uint32_t seed, int size) {
  std::mt19937 rng(seed);
  std::vector<Id> terms = {Leaf(g, "a"), Leaf(g, "b"), Leaf(g, "c"), g.AddConstant(Filled(0)),
                           g.AddConstant(Filled(10))};
  auto pick = [&] { return terms[rng() % terms.size()]; };
  while (static_cast<int>(terms.size()) < size) {
    switch (rng() % 3) {
      case 0:
        terms.push_back(AddOp(g, "F", {pick()}));
        break;
      case 1:
        terms.push_back(AddOp(g, "H", {pick()}));
        break;
      default:
        terms.push_back(AddOp(g, "G", {pick(), pick()}));
    }
  }
  g.Rebuild();
  return terms;
}

struct Fixpoint {
  StopReason stop;
  size_t classes;
  size_t nodes;
  std::vector<size_t> partition;  // per start term: the index of the first term equal to it
};

Fixpoint Saturate(uint32_t seed, bool incremental) {
  EGraph g;
  const std::vector<Id> terms = RandomTerms(g, seed, 40);
  std::vector<Rewrite> rules = Rules();
  for (Rewrite& r : rules) r.incremental = incremental;
  RunnerOptions o;
  o.limits.iterations = 200;
  o.limits.nodes = 20000;
  o.limits.seconds = 60;
  o.check_invariants = true;
  RunReport r = Runner(g, o).Run(rules);
  EXPECT_TRUE(r.invariant_error.ok()) << r.invariant_error;
  return Fixpoint{r.stop_reason, g.num_classes(), g.num_nodes(), Partition(g, terms)};
}

TEST(RunnerIncrementalTest, ReachesTheFullSearchsFixpoint) {
  int merged = 0;  // start terms made equal to an earlier one, over all seeds
  for (uint32_t seed = 0; seed < 40; ++seed) {
    const Fixpoint full = Saturate(seed, /*incremental=*/false);
    const Fixpoint inc = Saturate(seed, /*incremental=*/true);
    ASSERT_EQ(full.stop, StopReason::kSaturated) << seed;
    EXPECT_EQ(inc.stop, StopReason::kSaturated) << seed;
    EXPECT_EQ(inc.classes, full.classes) << seed;
    EXPECT_EQ(inc.nodes, full.nodes) << seed;
    EXPECT_EQ(inc.partition, full.partition) << seed;
    for (size_t i = 0; i < full.partition.size(); ++i) merged += full.partition[i] != i;
  }
  // The rules do make terms equal (a test of nothing otherwise).
  EXPECT_GT(merged, 40);
}

}  // namespace
}  // namespace egret
