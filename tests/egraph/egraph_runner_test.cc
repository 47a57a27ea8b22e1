#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "egret/egraph/builtin_rewrites.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/invariants.h"
#include "egret/egraph/runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::F32;
using ::egret::testing::Leaf;
using ::testing::HasSubstr;

// ((x0 + x1) + x2) + ... + x{n-1} with distinct leaves.
Id LeftNestedSum(EGraph& g, int n, std::string_view op = "ElementWiseAdd") {
  Id acc = Leaf(g, "x0");
  for (int i = 1; i < n; ++i) acc = AddOp(g, op, {acc, Leaf(g, "x" + std::to_string(i))});
  return acc;
}

Rewrite MustRewrite(std::string name, std::string_view lhs, std::string_view rhs,
                    Guard guard = nullptr) {
  absl::StatusOr<Rewrite> r = MakeRewrite(std::move(name), lhs, rhs, std::move(guard));
  EXPECT_TRUE(r.ok()) << r.status();
  return *std::move(r);
}

RunnerOptions Unlimited() {
  RunnerOptions o;
  o.limits.iterations = 1000;
  o.limits.nodes = 100'000'000;
  o.limits.seconds = 600;
  o.check_invariants = true;
  return o;
}

struct SatCase {
  SchedulerKind scheduler;
  bool incremental;
  bool derivations = true;  // off: dead records are reused (egraph.h)
};

class CommAssocTest : public ::testing::TestWithParam<SatCase> {};

TEST_P(CommAssocTest, SaturationReachesExactCounts) {
  std::vector<Rewrite> rules = BuiltinRewrites(OpTable::Default());
  for (Rewrite& r : rules) r.incremental = GetParam().incremental;
  for (int n = 2; n <= 8; ++n) {
    EGraph g;
    g.set_record_derivations(GetParam().derivations);
    Id root = LeftNestedSum(g, n);
    RunnerOptions o = Unlimited();
    o.scheduler = GetParam().scheduler;
    o.check_invariants = n <= 6;  // the invariant test below covers the rest
    RunReport report = Runner(g, o).Run(rules);
    ASSERT_EQ(report.stop_reason, StopReason::kSaturated) << "n=" << n << "\n" << report.ToString();
    EXPECT_TRUE(report.invariant_error.ok()) << report.invariant_error;
    const size_t classes = (size_t{1} << n) - 1;
    const size_t nodes = n + static_cast<size_t>(std::pow(3, n)) - (size_t{1} << (n + 1)) + 1;
    EXPECT_EQ(g.num_classes(), classes) << "n=" << n;
    EXPECT_EQ(g.num_nodes(), nodes) << "n=" << n;
    // The root class holds every way to sum all leaves: 2^n - 2 ordered splits.
    EXPECT_EQ(g.ClassNodes(g.Find(root)).size(), (size_t{1} << n) - 2) << "n=" << n;
    EXPECT_EQ(report.conflicts, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Schedulers, CommAssocTest,
                         ::testing::Values(SatCase{SchedulerKind::kBackoff, true},
                                           SatCase{SchedulerKind::kSimple, true},
                                           SatCase{SchedulerKind::kSimple, false},
                                           SatCase{SchedulerKind::kBackoff, true, false},
                                           SatCase{SchedulerKind::kSimple, true, false}));

// Without derivations, the records of nodes that rebuilds killed are reused:
// the same saturated e-graph (counts, invariants after every rebuild) in
// fewer stored records; with them, every record is kept (the log names them).
TEST(RunnerTest, DeadRecordsAreReusedOnlyWithoutDerivations) {
  size_t stored[2] = {0, 0};
  for (bool derivations : {true, false}) {
    EGraph g;
    g.set_record_derivations(derivations);
    LeftNestedSum(g, 7);
    RunReport report = Runner(g, Unlimited()).Run(BuiltinRewrites(OpTable::Default()));
    ASSERT_EQ(report.stop_reason, StopReason::kSaturated);
    EXPECT_TRUE(report.invariant_error.ok()) << report.invariant_error;
    EXPECT_EQ(g.num_classes(), 127u);
    EXPECT_EQ(g.num_nodes(), 1939u);
    stored[derivations ? 0 : 1] = g.num_stored_nodes();
  }
  EXPECT_GT(stored[0], 1939u);  // live nodes and the dead ones
  EXPECT_LT(stored[1], stored[0]);
  EXPECT_GE(stored[1], 1939u);
}

TEST(RunnerTest, InvariantsHoldAfterEveryRebuild) {
  EGraph g;
  LeftNestedSum(g, 7);
  Id x = Leaf(g, "x0");
  AddOp(g, "ElementWiseMaximum", {x, x});
  RunReport report = Runner(g, Unlimited()).Run(BuiltinRewrites(OpTable::Default()));
  EXPECT_EQ(report.stop_reason, StopReason::kSaturated);
  EXPECT_TRUE(report.invariant_error.ok()) << report.invariant_error;
  EXPECT_GT(report.iterations.size(), 2u);
}

// Associativity across broadcasting (Multiply's traits say so): x: [4],
// y, z: [1]. x * (y * z), (x * y) * z and (x * z) * y are one value, each
// inner product with its own broadcast type ([4] for x * y, [1] for y * z):
// the classes and root nodes of a full three-leaf product. Add is
// associative only between operands of one type (op_table.h: OpAlgebra).
TEST(RunnerTest, AssociativityAcrossBroadcasting) {
  for (const char* op : {"ElementWiseMultiply", "ElementWiseAdd"}) {
    EGraph g;
    Id x = Leaf(g, "x", F32({4}));
    Id y = Leaf(g, "y", F32({1}));
    Id z = Leaf(g, "z", F32({1}));
    Id yz = AddOp(g, op, {y, z}, F32({1}));
    Id root = AddOp(g, op, {x, yz}, F32({4}));
    RunReport report = Runner(g, Unlimited()).Run(BuiltinRewrites(OpTable::Default()));
    EXPECT_EQ(report.stop_reason, StopReason::kSaturated);
    EXPECT_TRUE(report.invariant_error.ok()) << report.invariant_error;
    EXPECT_EQ(report.conflicts, 0u);
    const Id x_y[2] = {g.Find(x), g.Find(y)};
    std::optional<Id> xy = g.Lookup(ENodeView{Symbol::Intern(op), kNoPayload, x_y});
    if (std::string_view(op) == "ElementWiseAdd") {  // commutativity only
      EXPECT_EQ(g.num_classes(), 5u);
      EXPECT_EQ(g.ClassNodes(g.Find(root)).size(), 2u);
      EXPECT_FALSE(xy.has_value());
      continue;
    }
    EXPECT_EQ(g.num_classes(), 7u);  // x, y, z, y*z, x*y, x*z, x*y*z
    EXPECT_EQ(g.ClassNodes(g.Find(root)).size(), 6u);
    ASSERT_TRUE(xy.has_value());
    EXPECT_EQ(g.Type(g.TypeIdOf(g.Find(*xy))), F32({4}));
    EXPECT_EQ(g.Type(g.TypeIdOf(g.Find(yz))), F32({1}));
  }
}

// Reassociating needs one dtype and encoding: a quantized operand among
// float ones, or two encodings, keep the sum as written (commutativity
// only).
TEST(RunnerTest, AssociativityNeedsOneDtypeAndEncoding) {
  for (const TensorType& odd :
       {TensorType(DType::kQUInt8, {1}, 128, 0.1f), TensorType(DType::kFloat16, {1})}) {
    EGraph g;
    Id x = Leaf(g, "x", F32({4}));
    Id y = Leaf(g, "y", odd);
    Id z = Leaf(g, "z", odd);
    Id yz = AddOp(g, "ElementWiseMultiply", {y, z}, odd);
    Id root = AddOp(g, "ElementWiseMultiply", {x, yz}, F32({4}));
    RunReport report = Runner(g, Unlimited()).Run(BuiltinRewrites(OpTable::Default()));
    EXPECT_EQ(report.stop_reason, StopReason::kSaturated);
    EXPECT_EQ(g.ClassNodes(g.Find(root)).size(), 2u) << odd.ToString();
    EXPECT_EQ(g.num_classes(), 5u) << odd.ToString();
  }
}

TEST(RunnerTest, IdempotenceAndInvolution) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id m = AddOp(g, "ElementWiseMaximum", {a, a});
  Id n = AddOp(g, "Neg", {AddOp(g, "Neg", {a})});
  // Abs is not an involution in the op table: Abs(Abs(a)) stays apart from a.
  Id abs2 = AddOp(g, "Abs", {AddOp(g, "Abs", {a})});
  Runner(g, Unlimited()).Run(BuiltinRewrites(OpTable::Default()));
  EXPECT_EQ(g.Find(m), g.Find(a));
  EXPECT_EQ(g.Find(n), g.Find(a));
  EXPECT_NE(g.Find(abs2), g.Find(a));
}

TEST(RunnerTest, GuardAndTypeConflictReporting) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id cast = AddOp(g, "Cast", {a}, TensorType(DType::kFloat16, {4}));
  Id relu = AddOp(g, "Relu", {a});
  std::vector<Rewrite> rules;
  rules.push_back(MustRewrite("drop-cast", "(Cast ?x)", "?x"));  // a type error
  rules.push_back(MustRewrite("drop-relu", "(Relu ?x)", "?x",
                              [](const EGraph&, const MatchView&) { return false; }));
  RunReport report = Runner(g, Unlimited()).Run(rules);
  EXPECT_EQ(report.stop_reason, StopReason::kSaturated);
  EXPECT_NE(g.Find(cast), g.Find(a));  // refused
  EXPECT_NE(g.Find(relu), g.Find(a));  // guarded
  EXPECT_GE(report.conflicts, 1u);
  ASSERT_FALSE(g.conflicts().empty());
  EXPECT_EQ(g.conflicts()[0].rule, "drop-cast");
  EXPECT_THAT(g.conflicts()[0].ToString(), HasSubstr("Float16[4]"));
  EXPECT_THAT(g.conflicts()[0].ToString(), HasSubstr("Float32[4]"));
  EXPECT_EQ(report.iterations[0].rules[1].matches, 0u);
}

// f(x) => f(g(x)): never saturates.
std::vector<Rewrite> Explosive() {
  std::vector<Rewrite> rules;
  rules.push_back(MustRewrite("grow", "(F ?x)", "(F (G ?x))"));
  rules.push_back(MustRewrite("grow2", "(G ?x)", "(G (H ?x))"));
  return rules;
}

TEST(RunnerTest, IterationLimit) {
  EGraph g;
  AddOp(g, "F", {Leaf(g, "a")});
  RunnerOptions o = Unlimited();
  o.limits.iterations = 3;
  RunReport r = Runner(g, o).Run(Explosive());
  EXPECT_EQ(r.stop_reason, StopReason::kIterationLimit);
  EXPECT_EQ(r.iterations.size(), 3u);
  EXPECT_TRUE(g.clean());
}

TEST(RunnerTest, OnIterationSeesEveryIterationAsItEnds) {
  EGraph g;
  Id root = LeftNestedSum(g, 5);
  RunnerOptions o = Unlimited();
  std::vector<size_t> seen;  // e-nodes after each iteration, as reported live
  o.on_iteration = [&](const IterationReport& it) {
    EXPECT_EQ(it.iteration, seen.size());
    EXPECT_EQ(it.nodes, g.num_nodes());  // called right after that iteration's rebuild
    seen.push_back(it.nodes);
  };
  std::vector<Rewrite> rules = BuiltinRewrites(OpTable::Default());
  RunReport r = Runner(g, o).Run(rules);
  ASSERT_EQ(seen.size(), r.iterations.size());
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], r.iterations[i].nodes);
  EXPECT_GT(seen.back(), seen.front());
  (void)root;
}

TEST(RunnerTest, NodeLimitHonouredWithinTenPercent) {
  EGraph g;
  LeftNestedSum(g, 8);
  RunnerOptions o = Unlimited();
  o.limits.nodes = 500;
  RunReport r = Runner(g, o).Run(BuiltinRewrites(OpTable::Default()));
  EXPECT_EQ(r.stop_reason, StopReason::kNodeLimit);
  EXPECT_LE(g.num_nodes(), 550u);
  EXPECT_TRUE(g.clean());
  EXPECT_TRUE(CheckInvariants(g).ok());
}

TEST(RunnerTest, ClassLimitHonouredWithinTenPercent) {
  EGraph g;
  LeftNestedSum(g, 8);
  RunnerOptions o = Unlimited();
  o.limits.classes = 100;
  RunReport r = Runner(g, o).Run(BuiltinRewrites(OpTable::Default()));
  EXPECT_EQ(r.stop_reason, StopReason::kClassLimit);
  EXPECT_LE(g.num_classes(), 110u);
}

TEST(RunnerTest, TimeLimit) {
  EGraph g;
  AddOp(g, "F", {Leaf(g, "a")});
  RunnerOptions o = Unlimited();
  o.limits.seconds = 0.5;
  o.limits.iterations = 1u << 30;
  o.check_invariants = false;
  const auto start = std::chrono::steady_clock::now();
  RunReport r = Runner(g, o).Run(Explosive());
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.stop_reason, StopReason::kTimeLimit);
  // Honoured within 10% (plus a little for the final rebuild on a loaded machine).
  EXPECT_LE(elapsed, o.limits.seconds * 1.1 + 0.1);
  EXPECT_GE(elapsed, o.limits.seconds);
  EXPECT_TRUE(g.clean());
}

TEST(RunnerTest, MemoryLimitOwnAccounting) {
  EGraph g;
  AddOp(g, "F", {Leaf(g, "a")});
  RunnerOptions o = Unlimited();
  o.limits.memory_bytes = 256 * 1024;
  o.limits.iterations = 1u << 30;
  o.check_invariants = false;
  RunReport r = Runner(g, o).Run(Explosive());
  EXPECT_EQ(r.stop_reason, StopReason::kMemoryLimit);
  // The accounting is by capacity: the application that crosses the limit
  // may have doubled a few arrays, hence the 20% slack.
  EXPECT_LE(g.ApproxMemoryBytes(), 256 * 1024 * 12 / 10);
}

// should_stop is polled while an explosive rule runs: once it says so, the
// run stops with kCancelled long before the time limit.
TEST(RunnerTest, ShouldStopCancels) {
  EGraph g;
  AddOp(g, "F", {Leaf(g, "a")});
  RunnerOptions o = Unlimited();
  o.limits.iterations = 1u << 30;
  o.check_invariants = false;
  int polls = 0;
  o.limits.should_stop = [&polls] { return ++polls >= 3; };
  const auto start = std::chrono::steady_clock::now();
  RunReport r = Runner(g, o).Run(Explosive());
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.stop_reason, StopReason::kCancelled);
  EXPECT_EQ(StopReasonName(r.stop_reason), "Cancelled");
  EXPECT_EQ(polls, 3);
  EXPECT_LT(elapsed, 60);
  EXPECT_TRUE(g.clean());
}

TEST(RunnerTest, MemoryLimitRss) {
  EGraph g;
  AddOp(g, "F", {Leaf(g, "a")});
  RunnerOptions o = Unlimited();
  o.limits.memory_bytes = 1;  // any process is bigger
  o.limits.memory_from_rss = true;
  RunReport r = Runner(g, o).Run(Explosive());
  EXPECT_EQ(r.stop_reason, StopReason::kMemoryLimit);
}

TEST(RunnerTest, PhasesRunInOrder) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id foo = AddOp(g, "Foo", {a});
  Rewrite foo_bar = MustRewrite("foo-bar", "(Foo ?x)", "(Bar ?x)");
  Rewrite bar_baz = MustRewrite("bar-baz", "(Bar ?x)", "(Baz ?x)");
  Rewrite baz_foo2 = MustRewrite("baz-qux", "(Baz ?x)", "(Qux ?x)");
  std::vector<Phase> phases = {{"one", {&foo_bar}}, {"two", {&bar_baz}}, {"three", {&baz_foo2}}};
  RunReport r = Runner(g, Unlimited()).Run(phases);
  EXPECT_EQ(r.stop_reason, StopReason::kSaturated);
  ASSERT_EQ(r.phases.size(), 3u);
  for (const PhaseReport& p : r.phases) EXPECT_EQ(p.stop_reason, StopReason::kSaturated);
  Id c = g.Find(foo);
  for (std::string_view op : {"Foo", "Bar", "Baz", "Qux"}) {
    EXPECT_EQ(g.ClassNodesWithOp(c, Symbol::Intern(op)).size(), 1u) << op;
  }
  // Phase two's rule did not run in phase one.
  for (const IterationReport& it : r.iterations) {
    ASSERT_EQ(it.rules.size(), 1u);
    EXPECT_EQ(it.rules[0].name, it.phase == 0 ? "foo-bar" : it.phase == 1 ? "bar-baz" : "baz-qux");
  }
}

TEST(RunnerTest, PhaseIterationLimitMovesToNextPhase) {
  EGraph g;
  Id a = Leaf(g, "a");
  AddOp(g, "F", {a});
  Id b = AddOp(g, "Bar", {a});
  std::vector<Rewrite> grow = Explosive();
  Rewrite bar_baz = MustRewrite("bar-baz", "(Bar ?x)", "(Baz ?x)");
  std::vector<Phase> phases = {{"grow", {&grow[0], &grow[1]}}, {"bar", {&bar_baz}}};
  RunnerOptions o = Unlimited();
  o.limits.iterations = 4;
  RunReport r = Runner(g, o).Run(phases);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].stop_reason, StopReason::kIterationLimit);
  EXPECT_EQ(r.phases[1].stop_reason, StopReason::kSaturated);
  EXPECT_EQ(r.stop_reason, StopReason::kIterationLimit);
  EXPECT_EQ(g.ClassNodesWithOp(g.Find(b), Symbol::Intern("Baz")).size(), 1u);
}

// (Foo a), with phase "one" rewriting Foo to Bar and phase "two" Bar to Baz.
struct FooBarBaz {
  FooBarBaz() { AddOp(g, "Foo", {Leaf(g, "a")}); }
  EGraph g;
  Rewrite foo_bar = MustRewrite("foo-bar", "(Foo ?x)", "(Bar ?x)");
  Rewrite bar_baz = MustRewrite("bar-baz", "(Bar ?x)", "(Baz ?x)");
  std::vector<Phase> phases = {{"one", {&foo_bar}}, {"two", {&bar_baz}}};
};

TEST(RunnerTest, PhaseHookRunsAfterEachPhaseAndMayReplaceTheEGraph) {
  FooBarBaz t;
  EGraph& g = t.g;
  RunnerOptions o = Unlimited();
  std::vector<std::pair<std::string, bool>> calls;
  o.on_phase_end = [&](const PhaseReport& p, bool more) {
    calls.emplace_back(p.name, more);
    if (more) {
      // Re-seed: the next phase sees only (Bar b), not what phase one built.
      g = EGraph();
      AddOp(g, "Bar", {Leaf(g, "b")});
    }
    return absl::OkStatus();
  };
  RunReport r = Runner(g, o).Run(t.phases);
  EXPECT_EQ(r.stop_reason, StopReason::kSaturated);
  EXPECT_THAT(calls, ::testing::ElementsAre(std::pair<std::string, bool>("one", true),
                                            std::pair<std::string, bool>("two", false)));
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].nodes, 3u);  // a, Foo, Bar
  EXPECT_EQ(r.phases[1].nodes, 3u);  // b, Bar, Baz
  EXPECT_EQ(r.phases[1].index, 1u);
  EXPECT_TRUE(g.ClassesWithOp(Symbol::Intern("Foo")).empty());
  EXPECT_EQ(g.ClassesWithOp(Symbol::Intern("Baz")).size(), 1u);
  EXPECT_EQ(r.nodes, 3u);
}

TEST(RunnerTest, PhaseHookErrorEndsTheRun) {
  FooBarBaz t;
  EGraph& g = t.g;
  RunnerOptions o = Unlimited();
  o.on_phase_end = [](const PhaseReport&, bool) { return absl::InternalError("no"); };
  RunReport r = Runner(g, o).Run(t.phases);
  EXPECT_EQ(r.hook_error, absl::InternalError("no"));
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_TRUE(g.ClassesWithOp(Symbol::Intern("Baz")).empty());
}

// An e-graph F(a) and three phases: "grow" (rules that explode), "next" (a
// rule that never matches) and "last" (no rules).
struct ExplodingThenQuiet {
  EGraph g;
  std::vector<Rewrite> grow = Explosive();
  Rewrite none = MustRewrite("none", "(Nothing ?x)", "(Nowhere ?x)");
  std::vector<Phase> phases = {{"grow", {&grow[0], &grow[1]}}, {"next", {&none}}, {"last", {}}};
  ExplodingThenQuiet() { AddOp(g, "F", {Leaf(g, "a")}); }
  ExplodingThenQuiet(const ExplodingThenQuiet&) = delete;  // phases point into it
};

// The node limit is shared among phases: an exploding phase that is not the
// last ends at half of the room left, and the phases after it still run.
TEST(RunnerTest, AnExplodingPhaseLeavesRoomForThePhasesAfterIt) {
  ExplodingThenQuiet t;
  EGraph& g = t.g;
  RunnerOptions o = Unlimited();
  o.limits.nodes = 50;
  const size_t start = g.num_nodes();
  std::vector<bool> more;
  o.on_phase_end = [&](const PhaseReport&, bool m) {
    more.push_back(m);
    return absl::OkStatus();
  };
  RunReport r = Runner(g, o).Run(t.phases);
  EXPECT_EQ(r.stop_reason, StopReason::kNodeLimit);
  EXPECT_EQ(more, (std::vector<bool>{true, true, false}));
  ASSERT_EQ(r.phases.size(), 3u);
  EXPECT_EQ(r.phases[0].stop_reason, StopReason::kNodeLimit);
  // Half of the room (plus the application that crossed it).
  EXPECT_GT(r.phases[0].nodes, start + (50 - start) / 2);
  EXPECT_LE(r.phases[0].nodes, 50u);
  for (size_t p : {1, 2}) {
    EXPECT_FALSE(r.phases[p].skipped) << p;
    EXPECT_EQ(r.phases[p].stop_reason, StopReason::kSaturated) << p;
    EXPECT_GE(r.phases[p].iterations, 1u) << p;
  }
}

// A limit that ends the run (here the class limit) skips the phases after
// it, each with its reason.
TEST(RunnerTest, PhasesAfterAStopAreSkippedWithItsReason) {
  ExplodingThenQuiet t;
  EGraph& g = t.g;
  RunnerOptions o = Unlimited();
  o.limits.classes = 20;
  bool hook_more = true;
  o.on_phase_end = [&](const PhaseReport&, bool more) {
    hook_more = more;
    return absl::OkStatus();
  };
  RunReport r = Runner(g, o).Run(t.phases);
  EXPECT_EQ(r.stop_reason, StopReason::kClassLimit);
  EXPECT_FALSE(hook_more);  // no phase follows a stopped run
  ASSERT_EQ(r.phases.size(), 3u);
  EXPECT_FALSE(r.phases[0].skipped);
  EXPECT_EQ(r.phases[0].stop_reason, StopReason::kClassLimit);
  for (size_t p : {1, 2}) {
    EXPECT_TRUE(r.phases[p].skipped) << p;
    EXPECT_EQ(r.phases[p].stop_reason, StopReason::kClassLimit) << p;
    EXPECT_EQ(r.phases[p].iterations, 0u) << p;
  }
}

// Comm and assoc are searched semi-naively (lookahead 0): with
// apply_found_when_banned a search over the limit still applies its matches
// (each is found once), then the rule sits out. By default, or with
// lookahead 1 (searched again around every change), an over-limit search
// applies nothing, as in egg.
TEST(RunnerTest, BackoffBansRulesThatExplodeAndStillSaturates) {
  for (int mode : {0, 1, 2}) {
    const int lookahead = mode == 1 ? 1 : 0;
    const bool apply_found = mode != 2;
    SCOPED_TRACE(mode);
    EGraph g;
    LeftNestedSum(g, 6);
    RunnerOptions o = Unlimited();
    o.backoff.match_limit = 8;
    o.backoff.ban_length = 2;
    o.backoff.apply_found_when_banned = apply_found;
    std::vector<Rewrite> rules = BuiltinRewrites(OpTable::Default());
    for (Rewrite& rw : rules) rw.lookahead = lookahead;
    RunReport r = Runner(g, o).Run(rules);
    EXPECT_EQ(r.stop_reason, StopReason::kSaturated);
    bool banned = false, skipped = false, applied_when_banned = false;
    for (const IterationReport& it : r.iterations) {
      for (const RuleStats& s : it.rules) {
        banned |= s.banned;
        skipped |= s.skipped;
        if (s.banned) {
          if (mode != 0) {
            EXPECT_EQ(s.applications, 0u);  // matches discarded
          }
          applied_when_banned |= s.applications > 0;
        }
      }
    }
    EXPECT_TRUE(banned);
    EXPECT_TRUE(skipped);
    EXPECT_EQ(applied_when_banned, mode == 0);
    EXPECT_EQ(g.num_classes(), 63u);
    EXPECT_EQ(g.num_nodes(), 6u + 729 - 128 + 1);
  }
}

TEST(RunnerTest, BackoffOptOut) {
  EGraph g;
  LeftNestedSum(g, 6);
  RunnerOptions o = Unlimited();
  o.backoff.match_limit = 8;
  std::vector<Rewrite> rules = BuiltinRewrites(OpTable::Default());
  for (Rewrite& rw : rules) rw.backoff = false;
  RunReport r = Runner(g, o).Run(rules);
  EXPECT_EQ(r.stop_reason, StopReason::kSaturated);
  for (const IterationReport& it : r.iterations) {
    for (const RuleStats& s : it.rules) {
      EXPECT_FALSE(s.banned);
      EXPECT_FALSE(s.skipped);
    }
  }
}

TEST(SchedulerTest, BanLengthsAndLimitsDouble) {
  BackoffScheduler s(SchedulerKind::kBackoff, BackoffOptions{10, 3}, {true, false});
  EXPECT_EQ(s.MatchLimit(0), 10u);
  EXPECT_EQ(s.MatchLimit(1), std::numeric_limits<size_t>::max());
  s.Ban(0, 0);
  EXPECT_TRUE(s.IsBanned(0, 1));
  EXPECT_TRUE(s.IsBanned(0, 3));
  EXPECT_FALSE(s.IsBanned(0, 4));
  EXPECT_EQ(s.MatchLimit(0), 20u);
  s.Ban(0, 4);
  EXPECT_TRUE(s.IsBanned(0, 10));
  EXPECT_FALSE(s.IsBanned(0, 11));
  EXPECT_TRUE(s.AnyBanned(5));
  s.LiftBans();
  EXPECT_FALSE(s.IsBanned(0, 5));
  EXPECT_EQ(s.MatchLimit(0), 40u);
  BackoffScheduler simple(SchedulerKind::kSimple, BackoffOptions{}, {true});
  EXPECT_EQ(simple.MatchLimit(0), std::numeric_limits<size_t>::max());
}

TEST(RunnerTest, ReportCountsMatchesAndApplications) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  AddOp(g, "ElementWiseAdd", {a, b});
  RunReport r = Runner(g, Unlimited()).Run(BuiltinRewrites(OpTable::Default()));
  ASSERT_GE(r.iterations.size(), 2u);
  const IterationReport& first = r.iterations[0];
  auto it = std::find_if(first.rules.begin(), first.rules.end(),
                         [](const RuleStats& s) { return s.name == "comm-ElementWiseAdd"; });
  ASSERT_NE(it, first.rules.end());
  EXPECT_EQ(it->matches, 1u);
  EXPECT_EQ(it->applications, 1u);
  EXPECT_EQ(first.nodes, 4u);
  EXPECT_EQ(first.classes, 3u);
  EXPECT_THAT(r.ToString(), HasSubstr("stop=Saturated"));
}

}  // namespace
}  // namespace egret

namespace egret {
namespace {

// Derivations: the runner records, for each node an application stores, the
// rule and the matched nodes; and for each union, the rule, so that the path
// between two ids of one class names the rules that merged them.
TEST(DerivationTest, NodesRecordTheirRuleAndMatchedNodes) {
  EGraph g;
  Id x = Leaf(g, "x");
  Id a = AddOp(g, "A", {x});
  Id b = AddOp(g, "B", {a});
  g.Rebuild();
  const NodeIdx a_node = g.ClassNodes(a)[0];
  const NodeIdx b_node = g.ClassNodes(b)[0];
  EXPECT_FALSE(g.NodeDerivation(b_node).has_value());  // imported by hand
  std::vector<Rewrite> rules;
  rules.push_back(MustRewrite("fuse", "(B (A ?x))", "(AB ?x)"));
  RunReport report = Runner(g, Unlimited()).Run(rules);
  ASSERT_EQ(report.stop_reason, StopReason::kSaturated);
  auto ab = g.ClassNodesWithOp(g.Find(b), Symbol::Intern("AB"));
  ASSERT_EQ(ab.size(), 1u);
  std::optional<Derivation> d = g.NodeDerivation(ab[0]);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rule, "fuse");
  EXPECT_THAT(std::vector<NodeIdx>(d->matched.begin(), d->matched.end()),
              ::testing::ElementsAre(b_node, a_node));
  EXPECT_EQ(g.derivations().num_records(), 1u);
}

TEST(DerivationTest, MergeRulesFollowTheUnionPath) {
  EGraph g;
  Id x = Leaf(g, "x");
  Id r1 = AddOp(g, "Relu", {x});
  Id r2 = AddOp(g, "Relu", {r1});
  Id y = Leaf(g, "y");
  Id n = AddOp(g, "Neg", {y});
  Id nn = AddOp(g, "Neg", {n});
  g.Rebuild();
  std::vector<Rewrite> rules;
  rules.push_back(MustRewrite("relu-idem", "(Relu (Relu ?x))", "(Relu ?x)"));
  rules.push_back(MustRewrite("neg-neg", "(Neg (Neg ?x))", "?x"));
  Runner(g, Unlimited()).Run(rules);
  ASSERT_EQ(g.Find(r1), g.Find(r2));
  ASSERT_EQ(g.Find(nn), g.Find(y));
  EXPECT_THAT(g.derivations().MergeRules(r2, r1), ::testing::ElementsAre("relu-idem"));
  EXPECT_THAT(g.derivations().MergeRules(nn, y), ::testing::ElementsAre("neg-neg"));
  EXPECT_TRUE(g.derivations().MergeRules(x, y).empty());  // never merged
  EXPECT_TRUE(g.derivations().MergeRules(x, x).empty());
}

TEST(DerivationTest, CongruenceMergesAreNotAttributedToARule) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id b = Leaf(g, "b");
  Id fa = AddOp(g, "F", {a});
  Id fb = AddOp(g, "F", {b});
  g.Rebuild();
  g.set_rule_context("manual");
  ASSERT_TRUE(g.Union(a, b).ok());
  g.Rebuild();  // F(a) = F(b) by congruence
  g.set_rule_context("");
  ASSERT_EQ(g.Find(fa), g.Find(fb));
  EXPECT_TRUE(g.derivations().MergeRules(fa, fb).empty());
  EXPECT_THAT(g.derivations().MergeRules(a, b), ::testing::ElementsAre("manual"));
}

}  // namespace
}  // namespace egret
