// Of two DAG choices that cost the same, the DAG extractor returns the one of
// fewer classes, whatever the order of the class's nodes (the HTP example:
// Relu(x) against ReluMinMax(x, lo, hi), whose bounds are free constants).
// ExtractDag's last step keeps, of its candidates (the cost sets' and the
// tree pass's, each after the local search) that cost the same, the one of
// fewer classes: which of two equal choices each candidate reaches depends
// on how the problem is numbered. On these small problems both candidates
// agree; CliTest.OptimizeVerifyPassesOnTheExampleAndSummarizes is where they
// do not (the bundled example took ReluMinMax without that step).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/extract/choice.h"
#include "egret/extract/dag_extractor.h"
#include "egret/extract/problem.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

ExtractionProblem ReluOrMinMax(bool minmax_first) {
  ExtractionProblemBuilder b;
  const ClassId out = b.AddClass("out"), x = b.AddClass("x"), lo = b.AddClass("lo"),
                hi = b.AddClass("hi");
  auto relu = [&] { b.AddNode(out, "Relu", 5, std::vector<ClassId>{x}); };
  auto minmax = [&] { b.AddNode(out, "ReluMinMax", 5, std::vector<ClassId>{x, lo, hi}); };
  if (minmax_first) {
    minmax();
    relu();
  } else {
    relu();
    minmax();
  }
  b.AddNode(x, "*Input", 0, {});
  b.AddNode(lo, "$Const", 0, {});
  b.AddNode(hi, "$Const", 0, {});
  b.AddRoot(out);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

TEST(DagEqualCostTest, FewerClassesWinATie) {
  for (bool minmax_first : {true, false}) {
    const ExtractionProblem p = ReluOrMinMax(minmax_first);
    absl::StatusOr<Choice> c = ExtractDag(p);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(p.op(c->node[0]), "Relu") << "ReluMinMax first: " << minmax_first;
    EXPECT_EQ(ReachableClasses(p, *c).size(), 2u);
    EXPECT_EQ(DagCost(p, *c), 5);
  }
}

// A cheaper choice still wins over one of fewer classes.
TEST(DagEqualCostTest, CostComesFirst) {
  ExtractionProblemBuilder b;
  const ClassId out = b.AddClass("out"), x = b.AddClass("x"), k = b.AddClass("k");
  b.AddNode(out, "Wide", 4, std::vector<ClassId>{x, k});
  b.AddNode(out, "Narrow", 5, std::vector<ClassId>{x});
  b.AddNode(x, "*Input", 0, {});
  b.AddNode(k, "$Const", 0, {});
  b.AddRoot(out);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<Choice> c = ExtractDag(*p);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(p->op(c->node[out]), "Wide");
}

}  // namespace
}  // namespace egret::extract
