// Every extractor on every e-graph of the extraction-gym sample
// (EGRET_SHARED_DIR/extraction-gym): choices are valid, the tree extractor is
// tree-optimal among the heuristics, the DAG heuristic is never worse in DAG
// cost than the tree choice or the plain greedy, and the ILP (small files,
// short limit) is never worse than the heuristic and proves its bound.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "egret/extract/choice.h"
#include "egret/extract/dag_extractor.h"
#include "egret/extract/egraph_serialize.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/tree_extractor.h"
#include "egret/extract/validate.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

std::vector<std::string> GymFiles() {
  std::vector<std::string> files;
  std::filesystem::path dir = std::filesystem::path(EGRET_SHARED_DIR) / "extraction-gym";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The largest file of `files` (not empty).
std::string Largest(const std::vector<std::string>& files) {
  return *std::max_element(files.begin(), files.end(),
                           [](const std::string& a, const std::string& b) {
                             return std::filesystem::file_size(a) < std::filesystem::file_size(b);
                           });
}

double Tol(double x) { return 1e-6 * std::max(1.0, std::abs(x)); }

TEST(GymTest, HeuristicsAreValidOnEveryFile) {
  std::vector<std::string> files = GymFiles();
  if (files.empty()) GTEST_SKIP() << "no extraction-gym sample under " << EGRET_SHARED_DIR;
  int dag_better = 0;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    absl::StatusOr<ExtractionProblem> p = ReadEgraphSerializeFile(f);
    ASSERT_TRUE(p.ok()) << p.status();
    absl::StatusOr<Choice> tree = ExtractTree(*p);
    ASSERT_TRUE(tree.ok()) << tree.status();
    ASSERT_TRUE(ValidateChoice(*p, *tree).ok()) << ValidateChoice(*p, *tree);
    absl::StatusOr<Choice> greedy = ExtractGreedyDag(*p);
    ASSERT_TRUE(greedy.ok()) << greedy.status();
    ASSERT_TRUE(ValidateChoice(*p, *greedy).ok()) << ValidateChoice(*p, *greedy);
    absl::StatusOr<Choice> dag = ExtractDag(*p);
    ASSERT_TRUE(dag.ok()) << dag.status();
    ASSERT_TRUE(ValidateChoice(*p, *dag).ok()) << ValidateChoice(*p, *dag);

    const double tree_tree = TreeCost(*p, *tree), tree_dag = DagCost(*p, *tree);
    const double dag_dag = DagCost(*p, *dag), greedy_dag = DagCost(*p, *greedy);
    EXPECT_LE(tree_tree, TreeCost(*p, *dag) + Tol(tree_tree));  // tree-optimal
    EXPECT_LE(tree_tree, TreeCost(*p, *greedy) + Tol(tree_tree));
    EXPECT_LE(dag_dag, tree_dag + Tol(tree_dag));      // never worse than tree
    EXPECT_LE(dag_dag, greedy_dag + Tol(greedy_dag));  // nor than plain greedy
    if (dag_dag < std::min(tree_dag, greedy_dag) - Tol(dag_dag)) ++dag_better;
  }
  // The local search pays off somewhere in the sample.
  EXPECT_GT(dag_better, 0);
}

TEST(GymTest, IlpOnSmallFilesIsValidAndNeverWorse) {
  std::vector<std::string> files = GymFiles();
  if (files.empty()) GTEST_SKIP() << "no extraction-gym sample under " << EGRET_SHARED_DIR;
  int tried = 0, optimal = 0;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    absl::StatusOr<ExtractionProblem> p = ReadEgraphSerializeFile(f);
    ASSERT_TRUE(p.ok()) << p.status();
    if (p->num_nodes() >= 600) continue;
    ++tried;
    absl::StatusOr<Choice> dag = ExtractDag(*p);
    ASSERT_TRUE(dag.ok());
    IlpOptions options;
    options.time_limit_seconds = 2;
    options.warm_start = *dag;
    absl::StatusOr<IlpResult> ilp = ExtractIlp(*p, options);
    ASSERT_TRUE(ilp.ok()) << ilp.status();
    ASSERT_TRUE(ValidateChoice(*p, ilp->choice).ok()) << ValidateChoice(*p, ilp->choice);
    const double dag_cost = DagCost(*p, *dag);
    EXPECT_DOUBLE_EQ(ilp->cost, DagCost(*p, ilp->choice));
    EXPECT_LE(ilp->cost, dag_cost + Tol(dag_cost));
    EXPECT_LE(ilp->bound, ilp->cost + Tol(ilp->cost));
    if (ilp->optimal) {
      ++optimal;
      EXPECT_NEAR(ilp->bound, ilp->cost, 2 * Tol(ilp->cost));
    }
  }
  ASSERT_GT(tried, 0);
  // Small e-graphs are solved to optimality within the limit (a few may time out).
  EXPECT_GE(optimal * 10, tried * 8) << optimal << " of " << tried << " optimal";
}

TEST(GymTest, IlpHonoursItsTimeLimitOnTheLargestFile) {
  std::vector<std::string> files = GymFiles();
  if (files.empty()) GTEST_SKIP() << "no extraction-gym sample under " << EGRET_SHARED_DIR;
  const std::string largest = Largest(files);
  SCOPED_TRACE(largest);
  absl::StatusOr<ExtractionProblem> p = ReadEgraphSerializeFile(largest);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<Choice> dag = ExtractDag(*p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  IlpOptions options;
#if defined(EGRET_SANITIZED)
  // Everything before the solver (reading, tree costs, the warm start) runs
  // several times slower under the sanitizers: give the solver room to start.
  options.time_limit_seconds = 6;
#else
  options.time_limit_seconds = 1.5;
#endif
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<IlpResult> ilp = ExtractIlp(*p, options);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  EXPECT_LE(elapsed, options.time_limit_seconds * 1.1 + 0.2);
  ASSERT_TRUE(ValidateChoice(*p, ilp->choice).ok()) << ValidateChoice(*p, ilp->choice);
  EXPECT_DOUBLE_EQ(ilp->cost, DagCost(*p, ilp->choice));
  const double dag_cost = DagCost(*p, *dag);
  EXPECT_LE(ilp->cost, dag_cost + Tol(dag_cost));
  EXPECT_LE(ilp->bound, ilp->cost + Tol(ilp->cost));
  // The solver ran (the file is too large to be solved by pruning alone).
  EXPECT_TRUE(ilp->solver_used);
}

TEST(GymTest, IlpStopsItsSolverAtTheMemoryBudget) {
  std::vector<std::string> files = GymFiles();
  if (files.empty()) GTEST_SKIP() << "no extraction-gym sample under " << EGRET_SHARED_DIR;
  const std::string largest = Largest(files);
  SCOPED_TRACE(largest);
  absl::StatusOr<ExtractionProblem> p = ReadEgraphSerializeFile(largest);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<Choice> dag = ExtractDag(*p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  // The warm start is given, so only the solver's child process can meet the
  // budget: 1 MiB above this process is less than CBC needs for this file.
  IlpOptions options;
  options.warm_start = *dag;
  options.time_limit_seconds = 30;
  options.memory_budget_bytes = 1 << 20;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<IlpResult> ilp = ExtractIlp(*p, options);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  EXPECT_TRUE(ilp->solver_used);
  EXPECT_TRUE(ilp->memory_limit_hit);
  EXPECT_FALSE(ilp->time_limit_hit);
  EXPECT_FALSE(ilp->optimal);
  EXPECT_LT(elapsed, 15) << "the solver was not stopped at the budget";
  ASSERT_TRUE(ValidateChoice(*p, ilp->choice).ok());
  EXPECT_LE(ilp->cost, DagCost(*p, *dag) + Tol(DagCost(*p, *dag)));
}

}  // namespace
}  // namespace egret::extract
