// Hand-made e-graphs with known tree and DAG optima, for all three extractors.
#include <chrono>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/extract/choice.h"
#include "egret/extract/dag_extractor.h"
#include "egret/extract/extractor.h"
#include "egret/extract/extractor_registry.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/tree_extractor.h"
#include "egret/extract/validate.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

using ::testing::HasSubstr;

// Builds a problem from a compact description: classes by name, nodes as
// {class, op, cost, {child class names}}.
struct NodeSpec {
  std::string cls;
  std::string op;
  double cost;
  std::vector<std::string> children;
};

ExtractionProblem Make(const std::vector<std::string>& classes, const std::vector<NodeSpec>& nodes,
                       const std::vector<std::string>& roots) {
  ExtractionProblemBuilder b;
  for (const std::string& c : classes) b.AddClass(c);
  auto id = [&](const std::string& name) {
    for (ClassId c = 0; c < classes.size(); ++c) {
      if (classes[c] == name) return c;
    }
    ADD_FAILURE() << "no class " << name;
    return ClassId{0};
  };
  for (const NodeSpec& n : nodes) {
    std::vector<ClassId> kids;
    for (const std::string& k : n.children) kids.push_back(id(k));
    b.AddNode(id(n.cls), n.op, n.cost, kids, n.op);
  }
  for (const std::string& r : roots) b.AddRoot(id(r));
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

IlpOptions Limit(double seconds) {
  IlpOptions o;
  o.time_limit_seconds = seconds;
  return o;
}

// Limit(seconds) without the critical-path bound, for the tests of the
// program's rows: on these small problems the bound alone proves the warm
// start optimal, and no program would be built.
IlpOptions ProgramOnly(double seconds) {
  IlpOptions o = Limit(seconds);
  o.critical_path_bound = false;
  return o;
}

// Extract with the registered extractor `name` and a 5 s time limit.
absl::StatusOr<ExtractResult> ExtractWith(const ExtractionProblem& p, std::string_view name) {
  const Extractor* e = FindExtractor(name);
  if (e == nullptr) return absl::NotFoundError(absl::StrCat("no extractor ", std::string(name)));
  ExtractOptions o;
  o.time_limit_seconds = 5;
  return Extract(p, *e, o);
}

std::string Chosen(const ExtractionProblem& p, const Choice& c, const std::string& cls) {
  ENodeId n = c[static_cast<ClassId>(p.FindClass(cls))];
  return n == kNoENode ? "<none>" : p.op(n);
}

// Sharing S makes a1/b1 better as a DAG although a2/b2 are better as trees.
ExtractionProblem SharingProblem() {
  return Make({"R", "A", "B", "S"},
              {{"R", "f", 1, {"A", "B"}},
               {"A", "a1", 1, {"S"}},
               {"A", "a2", 6, {}},
               {"B", "b1", 1, {"S"}},
               {"B", "b2", 6, {}},
               {"S", "s", 8, {}}},
              {"R"});
}

TEST(ExtractorsTest, TreeAndDagOptimaDiffer) {
  ExtractionProblem p = SharingProblem();
  absl::StatusOr<Choice> tree = ExtractTree(p);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_TRUE(ValidateChoice(p, *tree).ok());
  EXPECT_EQ(Chosen(p, *tree, "A"), "a2");
  EXPECT_DOUBLE_EQ(TreeCost(p, *tree), 13);
  EXPECT_DOUBLE_EQ(DagCost(p, *tree), 13);
  EXPECT_EQ((*tree)[3], kNoENode);  // S is not used by the tree choice

  absl::StatusOr<Choice> dag = ExtractDag(p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  ASSERT_TRUE(ValidateChoice(p, *dag).ok());
  EXPECT_EQ(Chosen(p, *dag, "A"), "a1");
  EXPECT_EQ(Chosen(p, *dag, "B"), "b1");
  EXPECT_DOUBLE_EQ(DagCost(p, *dag), 11);
  EXPECT_DOUBLE_EQ(TreeCost(p, *dag), 19);  // S counted twice as a tree

  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, Limit(5));
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_TRUE(ilp->optimal);
  EXPECT_DOUBLE_EQ(ilp->cost, 11);
  EXPECT_NEAR(ilp->bound, 11, 1e-6);
}

TEST(ExtractorsTest, IlpImprovesOnAPoorWarmStart) {
  ExtractionProblem p = SharingProblem();
  absl::StatusOr<Choice> tree = ExtractTree(p);
  ASSERT_TRUE(tree.ok());
  IlpOptions options;
  options.warm_start = *tree;  // DAG cost 13; the optimum is 11
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, options);
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  EXPECT_TRUE(ilp->solver_used);
  EXPECT_DOUBLE_EQ(ilp->cost, 11);
  EXPECT_TRUE(ilp->optimal);
  EXPECT_EQ(Chosen(p, ilp->choice, "B"), "b1");
}

// A and B can each be defined by the other; taking both cheap nodes would be
// a cycle. The DAG optimum breaks the cycle on one side.
ExtractionProblem CycleProblem() {
  return Make({"R", "A", "B"},
              {{"R", "h", 1, {"A", "B"}},
               {"A", "a1", 1, {"B"}},
               {"A", "a2", 10, {}},
               {"B", "b1", 1, {"A"}},
               {"B", "b2", 10, {}}},
              {"R"});
}

TEST(ExtractorsTest, CyclicEgraphGivesAcyclicChoices) {
  ExtractionProblem p = CycleProblem();
  absl::StatusOr<Choice> tree = ExtractTree(p);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_TRUE(ValidateChoice(p, *tree).ok());
  EXPECT_DOUBLE_EQ(TreeCost(p, *tree), 21);

  absl::StatusOr<Choice> dag = ExtractDag(p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  ASSERT_TRUE(ValidateChoice(p, *dag).ok());
  EXPECT_DOUBLE_EQ(DagCost(p, *dag), 12);

  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, ProgramOnly(5));
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_TRUE(ilp->optimal);
  EXPECT_DOUBLE_EQ(ilp->cost, 12);
  EXPECT_TRUE(ilp->solver_used);
  EXPECT_EQ(ilp->cycle_cuts, 0);  // the 2-cycle A <-> B is ruled out from the start
}

// A 3-cycle, the cheapest way to cover the root if cycles were allowed. Short
// cycles of classes are ruled out from the start: the first solve is the
// optimum a, b, c0 (12; a0 alone costs 20), no cut needed.
TEST(ExtractorsTest, IlpRulesOutShortCyclesFromTheStart) {
  ExtractionProblem p = Make({"R", "A", "B", "C"},
                             {{"R", "r", 0, {"A"}},
                              {"A", "a", 1, {"B"}},
                              {"A", "a0", 20, {}},
                              {"B", "b", 1, {"C"}},
                              {"B", "b0", 20, {}},
                              {"C", "c", 1, {"A"}},
                              {"C", "c0", 10, {}}},
                             {"R"});
  IlpOptions options = ProgramOnly(5);
  options.warm_start = *ExtractTree(p);
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, options);
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_TRUE(ilp->optimal);
  EXPECT_DOUBLE_EQ(ilp->cost, 12);
  EXPECT_GE(ilp->bound, 12 - 1e-6);
  EXPECT_EQ(ilp->cycle_cuts, 0);
  EXPECT_EQ(ilp->rounds, 1);
}

// A cycle of 12 classes, longer than those ruled out from the start. Each
// class has two nodes on it, k (cost 1) and k' (0.5, but it also needs the
// shared class X, cost 3, so neither dominates the other), and a way out
// (30; the last class's 10). The first solve takes the cycle through every
// k' (9); its cut is lifted to classes, so it forbids all 2^12 ways to close
// the same cycle of classes, and the second solve is the optimum: 11 nodes
// k', X and the last class's way out (18.5). A cut of the nodes taken only
// would leave the cycles through some k (9.5, 10, ...) to be cut one solve
// at a time.
TEST(ExtractorsTest, IlpCutsALongCycleOfClassesLazilyAndAtOnce) {
  const int n = 12;
  std::vector<std::string> classes = {"R", "X"};
  std::vector<NodeSpec> nodes = {{"R", "r", 0, {"C0"}}, {"X", "x", 3, {}}};
  for (int k = 0; k < n; ++k) {
    const std::string c = absl::StrCat("C", k), next = absl::StrCat("C", (k + 1) % n);
    classes.push_back(c);
    nodes.push_back({c, absl::StrCat("n", k), 1, {next}});
    nodes.push_back({c, absl::StrCat("n", k, "'"), 0.5, {next, "X"}});
    nodes.push_back({c, absl::StrCat("out", k), k == n - 1 ? 10.0 : 30.0, {}});
  }
  ExtractionProblem p = Make(classes, nodes, {"R"});
  IlpOptions options = Limit(5);
  options.warm_start = *ExtractTree(p);
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, options);
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_TRUE(ilp->optimal);
  EXPECT_DOUBLE_EQ(ilp->cost, 18.5);
  EXPECT_EQ(Chosen(p, ilp->choice, "C0"), "n0'");
  EXPECT_EQ(Chosen(p, ilp->choice, absl::StrCat("C", n - 1)), absl::StrCat("out", n - 1));
  EXPECT_EQ(ilp->cycle_cuts, 1);
  EXPECT_EQ(ilp->rounds, 2);
}

// Layers of two alternatives that both read the layer before: every term of
// a layer computes all earlier layers, and each layer gets the row
// sum(layer before) >= sum(layer). A class whose two nodes read different
// classes needs neither of them: no row.
TEST(ExtractorsTest, IlpAddsRowsForNecessaryClasses) {
  std::vector<std::string> classes = {"In", "P", "Q", "S"};
  std::vector<NodeSpec> nodes = {{"In", "x", 1, {}},
                                 {"P", "p", 5, {}},
                                 {"Q", "q", 6, {}},
                                 {"S", "s1", 1, {"P"}},
                                 {"S", "s2", 1, {"Q"}}};
  std::string prev = "In";
  for (int k = 0; k < 6; ++k) {
    const std::string layer = absl::StrCat("L", k);
    classes.push_back(layer);
    nodes.push_back({layer, "a", 3.0 + k, {prev}});
    nodes.push_back({layer, "b", 1.0 + k, {prev, "S"}});  // cheaper, once S is paid
    prev = layer;
  }
  ExtractionProblem p = Make(classes, nodes, {prev});
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, ProgramOnly(5));
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_TRUE(ilp->optimal);
  EXPECT_DOUBLE_EQ(ilp->cost, 1 + (1 + 2 + 3 + 4 + 5 + 6) + (1 + 5));  // every b, S by s1
  EXPECT_EQ(ilp->necessary_rows, 6);  // L0 needs In, Lk needs L(k-1); S needs nothing
}

// Every bracketing of a sum of n terms (class "s<mask>" sums the terms in
// mask), each addition costing 1, each term 2.
ExtractionProblem AllBracketings(int n) {
  std::vector<std::string> classes;
  std::vector<NodeSpec> nodes;
  for (int m = 1; m < (1 << n); ++m) {
    const std::string name = absl::StrCat("s", m);
    classes.push_back(name);
    if ((m & (m - 1)) == 0) {
      nodes.push_back({name, absl::StrCat("t", m), 2, {}});
      continue;
    }
    for (int a = (m - 1) & m; a > 0; a = (a - 1) & m) {
      if (a < (m & ~a)) continue;  // each split once
      nodes.push_back({name, "+", 1, {absl::StrCat("s", a), absl::StrCat("s", m & ~a)}});
    }
  }
  return Make(classes, nodes, {absl::StrCat("s", (1 << n) - 1)});
}

TEST(ExtractorsTest, IlpAddsBranchingRowsForSums) {
  ExtractionProblem p = AllBracketings(5);
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, Limit(5));
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_TRUE(ilp->optimal);
  EXPECT_DOUBLE_EQ(ilp->cost, 5 * 2 + 4);  // five terms, four additions
  // The sums of 3, 4 and 5 terms have a row each (16; the sum of 2 has one
  // node, whose child rows say it); the relaxation, spread over the
  // bracketings, violates some of them, and only those are added.
  EXPECT_GT(ilp->branching_rows, 0);
  EXPECT_LE(ilp->branching_rows, 10 + 5 + 1);
}

TEST(ExtractorsTest, IlpStopsWhenTheRelaxationReachesTheWarmStart) {
  // With its branching rows, the relaxation of all bracketings of a sum of
  // four terms has the optimum 4 * 2 + 3, Clp's: that proves the DAG
  // heuristic's choice optimal before any CBC round.
  ExtractionProblem p = AllBracketings(4);
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, Limit(5));
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  EXPECT_TRUE(ilp->optimal);
  EXPECT_DOUBLE_EQ(ilp->cost, 4 * 2 + 3);
  EXPECT_NEAR(ilp->bound, ilp->cost, 1e-6);
  EXPECT_GT(ilp->branching_rows, 0);
  EXPECT_EQ(ilp->rounds, 0);
  EXPECT_TRUE(ilp->solver_used);
}

TEST(ExtractorsTest, IlpSolvesNoRelaxationInProcessPastTheMemoryBudget) {
  // Clp runs in this process, where the budget is not polled: with a budget
  // its estimate cannot meet, the relaxation is not solved (no branching
  // row; with it, this e-graph gets some, as above). CBC's child process is
  // polled instead (whether it is killed or finishes first depends on the
  // machine).
  ExtractionProblem p = AllBracketings(4);
  IlpOptions options = Limit(5);
  options.memory_budget_bytes = 1;
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, options);
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_EQ(ilp->branching_rows, 0);
}

TEST(ExtractorsTest, IlpMustNotTakeTheCheapCycle) {
  // With the warm start as the cyclic-free expensive solution, the solver
  // still has to respect acyclicity: a1 + b1 would cost 3 but is a cycle.
  ExtractionProblem p = CycleProblem();
  IlpOptions options;
  options.warm_start = *ExtractTree(p);
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, options);
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_DOUBLE_EQ(ilp->cost, 12);
  EXPECT_GE(ilp->bound, 12 - 1e-6);
}

TEST(ExtractorsTest, SelfLoopIsNeverChosen) {
  // Like extraction-gym's loop.json: x = x * 1 is in the class of x.
  ExtractionProblem p =
      Make({"X", "One"}, {{"X", "mul", 0, {"One", "X"}}, {"X", "x", 5, {}}, {"One", "one", 1, {}}},
           {"X"});
  for (std::string_view kind : {"tree", "dag", "ilp"}) {
    absl::StatusOr<ExtractResult> r = ExtractWith(p, kind);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE(ValidateChoice(p, r->choice).ok());
    EXPECT_EQ(Chosen(p, r->choice, "X"), "x") << kind;
    EXPECT_DOUBLE_EQ(r->dag_cost, 5);
    EXPECT_EQ(r->choice[1], kNoENode);  // One is unreachable under the choice
  }
}

TEST(ExtractorsTest, UncomputableRootNamesTheClass) {
  ExtractionProblem cyclic = Make({"R", "C"}, {{"R", "f", 1, {"C"}}, {"C", "g", 1, {"R"}}}, {"R"});
  ExtractionProblem empty_child = Make({"R", "E"}, {{"R", "f", 1, {"E"}}}, {"R"});
  for (std::string_view kind : {"tree", "dag", "ilp"}) {
    absl::StatusOr<ExtractResult> r = ExtractWith(cyclic, kind);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("root class 'R' cannot be extracted"));
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("cyclic"));
    r = ExtractWith(empty_child, kind);
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("class 'E' has no nodes"));
  }
}

TEST(ExtractorsTest, UnreachableAndUncomputableClassesAreIgnored) {
  ExtractionProblem p = Make({"R", "U", "Loop", "V"},
                             {{"R", "r", 2, {}},
                              {"U", "u", 1, {"Loop"}},  // unreachable and uncomputable
                              {"Loop", "l", 1, {"U"}},
                              {"V", "v", 1, {"R"}}},  // unreachable, computable
                             {"R"});
  for (std::string_view kind : {"tree", "dag", "ilp"}) {
    absl::StatusOr<ExtractResult> r = ExtractWith(p, kind);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE(ValidateChoice(p, r->choice).ok());
    EXPECT_EQ(r->choice.node, (std::vector<ENodeId>{0, kNoENode, kNoENode, kNoENode}));
    EXPECT_DOUBLE_EQ(r->dag_cost, 2);
  }
}

TEST(ExtractorsTest, TiesGoToTheSmallerNodeIndex) {
  ExtractionProblem p = Make({"R", "A"},
                             {{"R", "r_first", 1, {"A"}},
                              {"R", "r_second", 1, {"A"}},
                              {"A", "a_first", 3, {}},
                              {"A", "a_second", 3, {}}},
                             {"R"});
  for (std::string_view kind : {"tree", "dag", "ilp"}) {
    absl::StatusOr<ExtractResult> r = ExtractWith(p, kind);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Chosen(p, r->choice, "R"), "r_first") << kind;
    EXPECT_EQ(Chosen(p, r->choice, "A"), "a_first") << kind;
    // Deterministic: the same result on a second run.
    absl::StatusOr<ExtractResult> again = ExtractWith(p, kind);
    EXPECT_EQ(again->choice, r->choice);
  }
}

TEST(ExtractorsTest, NegativeCostsCountOnlyReachableClasses) {
  // maxsat-style: choosing p reaches two clauses worth -1 each, n reaches one.
  ExtractionProblem p = Make({"R", "V", "C1", "C2", "C3", "Orphan"},
                             {{"R", "root", 0, {"V"}},
                              {"V", "n", 0, {"C1"}},
                              {"V", "p", 0, {"C2", "C3"}},
                              {"C1", "c1", -1, {}},
                              {"C2", "c2", -1, {}},
                              {"C3", "c3", -1, {}},
                              {"Orphan", "o", -5, {}}},
                             {"R"});
  absl::StatusOr<Choice> dag = ExtractDag(p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_DOUBLE_EQ(DagCost(p, *dag), -2);
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, Limit(5));
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  ASSERT_TRUE(ValidateChoice(p, ilp->choice).ok());
  EXPECT_DOUBLE_EQ(ilp->cost, -2);
  EXPECT_TRUE(ilp->optimal);
  EXPECT_EQ(Chosen(p, ilp->choice, "V"), "p");
}

TEST(ExtractorsTest, NegativeCycleIsAnError) {
  ExtractionProblem p = Make(
      {"R", "A", "B"},
      {{"R", "r", 0, {"A"}}, {"A", "a", 1, {}}, {"A", "a_via_b", -2, {"B"}}, {"B", "b", -2, {"A"}}},
      {"R"});
  absl::StatusOr<Choice> tree = ExtractTree(p);
  ASSERT_FALSE(tree.ok());
  EXPECT_THAT(std::string(tree.status().message()), HasSubstr("negative cost"));
}

// A chain of diamonds: each level's two middle classes can share the level
// below (DAG) or use private leaves (cheaper as a tree).
TEST(ExtractorsTest, DagBeatsTreeOnLayeredSharing) {
  std::vector<std::string> classes;
  std::vector<NodeSpec> nodes;
  const int levels = 6;
  for (int i = 0; i < levels; ++i) {
    std::string t = "T" + std::to_string(i), l = "L" + std::to_string(i),
                r = "Q" + std::to_string(i), s = "S" + std::to_string(i);
    classes.insert(classes.end(), {t, l, r, s});
    nodes.push_back({t, "t" + std::to_string(i), 1, {l, r}});
    nodes.push_back({l, "l_shared", 1, {s}});
    nodes.push_back({l, "l_own", 5, {}});
    nodes.push_back({r, "r_shared", 1, {s}});
    nodes.push_back({r, "r_own", 5, {}});
    nodes.push_back({s, "s", 7, {}});
  }
  classes.push_back("Top");
  std::vector<std::string> tops;
  for (int i = 0; i < levels; ++i) tops.push_back("T" + std::to_string(i));
  nodes.push_back({"Top", "top", 0, tops});
  ExtractionProblem p = Make(classes, nodes, {"Top"});
  absl::StatusOr<Choice> tree = ExtractTree(p);
  absl::StatusOr<Choice> dag = ExtractDag(p);
  ASSERT_TRUE(tree.ok() && dag.ok());
  EXPECT_DOUBLE_EQ(DagCost(p, *tree), levels * 11.0);
  EXPECT_DOUBLE_EQ(DagCost(p, *dag), levels * 10.0);
  absl::StatusOr<IlpResult> ilp = ExtractIlp(p, Limit(5));
  ASSERT_TRUE(ilp.ok());
  EXPECT_DOUBLE_EQ(ilp->cost, levels * 10.0);
  EXPECT_TRUE(ilp->optimal);
}

// A residual chain of `blocks` blocks (R_i = add(R_{i-1}, conv(R_{i-1}))): its
// cost sets grow with the depth, ~blocks^2 entries in all.
ExtractionProblem ResidualChain(int blocks) {
  std::vector<std::string> classes{"R0"};
  std::vector<NodeSpec> nodes{{"R0", "in", 1, {}}};
  for (int i = 1; i <= blocks; ++i) {
    const std::string r = "R" + std::to_string(i), c = "C" + std::to_string(i),
                      prev = "R" + std::to_string(i - 1);
    classes.insert(classes.end(), {r, c});
    nodes.push_back({c, "conv", 3, {prev}});
    nodes.push_back({r, "add", 1, {prev, c}});
  }
  return Make(classes, nodes, {"R" + std::to_string(blocks)});
}

TEST(ExtractorsTest, DeepResidualChainWhoseTreeCostOverflows) {
  // R_i = add(R_{i-1}, conv(R_{i-1})): the tree cost doubles per block and
  // passes the largest double after ~1024 blocks; the DAG stays small. Every
  // extractor must still find it (the tree one with a saturated cost).
  const int blocks = 1200;
  ExtractionProblem p = ResidualChain(blocks);
  for (std::string_view kind : {"tree", "dag"}) {
    absl::StatusOr<ExtractResult> r = ExtractWith(p, kind);
    ASSERT_TRUE(r.ok()) << kind << ": " << r.status();
    EXPECT_DOUBLE_EQ(r->dag_cost, 1 + 4.0 * blocks) << kind;
  }
  // The cost sets hold ~blocks^2 entries here: with no work budget beyond the
  // fixed 2^20, step 1 gives up and the tree choice plus local search remain.
  DagOptions o;
  o.cost_set_work_factor = 0;
  absl::StatusOr<Choice> c = ExtractDag(p, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_DOUBLE_EQ(DagCost(p, *c), 1 + 4.0 * blocks);
}

TEST(ExtractorsTest, DagCostSetsGiveUpAtTheMemoryBudgetAndSayWhy) {
  // 300 blocks: well inside the work bound, so only the memory budget can
  // stop the cost sets; persistent, they hold ~600 records (~30 KB).
  ExtractionProblem p = ResidualChain(300);
  DagOptions o;
  DagOptions::Report unbounded;
  o.report = &unbounded;
  absl::StatusOr<Choice> c = ExtractDag(p, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(unbounded.cost_sets_gave_up);
  EXPECT_FALSE(unbounded.memory_limit_hit);

  DagOptions::Report bounded;
  o.report = &bounded;
  o.memory_budget_bytes = 4 << 10;
  c = ExtractDag(p, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(bounded.cost_sets_gave_up);
  EXPECT_TRUE(bounded.memory_limit_hit);
  EXPECT_FALSE(bounded.time_limit_hit);
  // The tree candidate and the local search remain, and find the optimum.
  EXPECT_TRUE(ValidateChoice(p, *c).ok());
  EXPECT_DOUBLE_EQ(DagCost(p, *c), 1 + 4.0 * 300);
}

TEST(ExtractorsTest, DagCostSetsThatMustPassTheWorkBoundAreNotStarted) {
  // 2000 blocks: a lower bound on the sets' work (~3 x 2000^2 entries, from
  // each class's minimal height) passes the bound (64 x (nodes + edges) +
  // 2^20), so step 1 gives up before it makes a single set: a one-byte
  // memory budget, which the first set would pass, is never reached.
  ExtractionProblem p = ResidualChain(2000);
  DagOptions o;
  DagOptions::Report report;
  o.report = &report;
  o.memory_budget_bytes = 1;
  absl::StatusOr<Choice> c = ExtractDag(p, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(report.cost_sets_gave_up);
  EXPECT_FALSE(report.memory_limit_hit);
  EXPECT_DOUBLE_EQ(DagCost(p, *c), 1 + 4.0 * 2000);
  // Within the bound (300 blocks), the same budget stops step 1 at its first set.
  ExtractionProblem q = ResidualChain(300);
  DagOptions::Report within;
  o.report = &within;
  c = ExtractDag(q, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(within.memory_limit_hit);
}

TEST(ExtractorsTest, DagStopsAtAPassedDeadlineWithAValidChoice) {
  ExtractionProblem p = ResidualChain(2000);
  DagOptions o;
  DagOptions::Report report;
  o.report = &report;
  o.deadline = std::chrono::steady_clock::now();
  absl::StatusOr<Choice> c = ExtractDag(p, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(report.time_limit_hit);
  EXPECT_TRUE(report.cost_sets_gave_up);
  EXPECT_FALSE(report.memory_limit_hit);
  EXPECT_TRUE(ValidateChoice(p, *c).ok());
}

TEST(ExtractorsTest, RegistryRowsReportTheLimitThatStoppedThem) {
  ExtractionProblem p = ResidualChain(300);
  const Extractor* dag = FindExtractor("dag");
  ASSERT_NE(dag, nullptr);
  ExtractOptions o;
  o.memory_budget_bytes = 4 << 10;
  absl::StatusOr<ExtractResult> r = Extract(p, *dag, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->memory_limit_hit);
  EXPECT_FALSE(r->time_limit_hit);
  o.memory_budget_bytes = 0;
  r = Extract(p, *dag, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->memory_limit_hit);
}

}  // namespace
}  // namespace egret::extract
