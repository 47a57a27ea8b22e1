// The extractor registry: names, lookup errors, and that every registered
// extractor solves a small problem with a valid choice.
#include "egret/extract/extractor_registry.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "egret/extract/choice.h"
#include "egret/extract/extractor.h"
#include "egret/extract/problem.h"
#include "egret/extract/validate.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

using ::testing::HasSubstr;

// R = f(A, B); A = a1(S) | a2; B = b1(S) | b2; S = s. As a tree, a2 and b2
// (6 each) beat a1 and b1 (1 + 8 each); as a DAG, a1 and b1 share S: the
// DAG optimum is f, a1, b1, s = 11 (tree-optimal f, a2, b2 = 13).
ExtractionProblem SharingProblem() {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), a = b.AddClass("A"), bb = b.AddClass("B"), s = b.AddClass("S");
  b.AddNode(r, "f", 1, std::vector<ClassId>{a, bb});
  b.AddNode(a, "a1", 1, std::vector<ClassId>{s});
  b.AddNode(a, "a2", 6, {});
  b.AddNode(bb, "b1", 1, std::vector<ClassId>{s});
  b.AddNode(bb, "b2", 6, {});
  b.AddNode(s, "s", 8, {});
  b.AddRoot(r);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

TEST(ExtractorRegistryTest, RowsAreNamedDescribedAndRunnable) {
  std::set<std::string> names;
  for (const Extractor& e : Extractors()) {
    SCOPED_TRACE(e.name);
    EXPECT_FALSE(e.name.empty());
    EXPECT_TRUE(names.insert(std::string(e.name)).second) << "duplicate name";
    EXPECT_FALSE(e.description.empty());
    EXPECT_EQ(e.description.find('\n'), std::string_view::npos) << "one line";
    EXPECT_NE(e.run, nullptr);
    EXPECT_EQ(FindExtractor(e.name), &e);
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("tree", "greedy", "dag", "ilp"));
  EXPECT_EQ(DefaultExtractor().name, "dag");
  EXPECT_EQ(FindExtractor("dag"), &DefaultExtractor());
  EXPECT_TRUE(FindExtractor("ilp")->proves_optimality);
  EXPECT_FALSE(FindExtractor("dag")->proves_optimality);
  EXPECT_FALSE(FindExtractor("greedy")->compared_by_default);
  EXPECT_TRUE(FindExtractor("tree")->compared_by_default);
}

TEST(ExtractorRegistryTest, UnknownNameIsAnErrorListingTheRegisteredNames) {
  EXPECT_EQ(FindExtractor("magic"), nullptr);
  EXPECT_EQ(FindExtractor(""), nullptr);
  EXPECT_EQ(FindExtractor("DAG"), nullptr);  // names are case-sensitive
  absl::StatusOr<const Extractor*> e = LookupExtractor("magic");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(e.status().message(), "unknown extractor 'magic' (expected tree, greedy, dag or ilp)");
  for (const Extractor& row : Extractors()) {
    EXPECT_THAT(std::string(e.status().message()), HasSubstr(std::string(row.name)));
  }
  EXPECT_EQ(ExtractorNameList(), "tree, greedy, dag or ilp");
  absl::StatusOr<const Extractor*> ilp = LookupExtractor("ilp");
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  EXPECT_EQ((*ilp)->name, "ilp");
}

TEST(ExtractorRegistryTest, EveryExtractorSolvesASmallProblemValidly) {
  const ExtractionProblem p = SharingProblem();
  ExtractOptions options;
  options.time_limit_seconds = 5;
  for (const Extractor& e : Extractors()) {
    SCOPED_TRACE(e.name);
    absl::StatusOr<ExtractResult> r = Extract(p, e, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(ValidateChoice(p, r->choice).ok());
    EXPECT_EQ(r->choice, RestrictToReachable(p, r->choice));
    // Extract measures the choice it returns.
    EXPECT_DOUBLE_EQ(r->dag_cost, DagCost(p, r->choice));
    EXPECT_DOUBLE_EQ(r->tree_cost, TreeCost(p, r->choice));
    // 11 is the DAG optimum, 13 the tree optimum's DAG cost.
    EXPECT_GE(r->dag_cost, 11);
    EXPECT_LE(r->dag_cost, 13);
    if (e.proves_optimality) {
      EXPECT_TRUE(r->optimal);
      EXPECT_NEAR(r->bound, 11, 1e-6);
      EXPECT_DOUBLE_EQ(r->dag_cost, 11);
    }
    // The row's function is what Extract runs.
    absl::StatusOr<ExtractorOutput> direct = e.run(p, options);
    ASSERT_TRUE(direct.ok()) << direct.status();
    EXPECT_EQ(direct->choice, r->choice);
  }
  // The tree extractor is tree-optimal; the DAG heuristic finds the sharing.
  EXPECT_DOUBLE_EQ(Extract(p, *FindExtractor("tree"), options)->dag_cost, 13);
  EXPECT_DOUBLE_EQ(Extract(p, *FindExtractor("dag"), options)->dag_cost, 11);
}

}  // namespace
}  // namespace egret::extract
