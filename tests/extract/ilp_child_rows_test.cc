// The ILP extractor's child rows (ilp_model.cc): one row per class and child
// class, sum(nodes of c that use d) <= sum(nodes of d). With a row per node
// instead (x_n <= sum(nodes of d)), two alternatives of a class that share
// an expensive child class could each be taken at 1/2 and pay that child at
// 1/2 only; the row per class makes the relaxation pay it in full.
#include <utility>
#include <vector>

#include "egret/extract/choice.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/problem.h"
#include "egret/extract/validate.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

// R = r(C, S). C is a1(D, E), a2(D, F) or a3(G), with D costing 10, G 8 and
// E, F nothing: C costs 8 (a3). S is a sum of three leaves L1..L3 (cost 1
// each) in two bracketings, s1(P, L3) with P = p(L1, L2) and s2(Q, L1) with
// Q = q(L2, L3), the additions costing 1 each: S costs 5. The optimum is 13.
// A relaxation with a child row per node takes a1 and a2 at 1/2 and pays D
// at 1/2: C costs 5 there, 10 in all. The sum gives the model a branching
// row (ilp_branching_rows.cc), so the LP loop solves the relaxation in Clp
// before CBC.
ExtractionProblem SharedChildOfAlternatives() {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), c = b.AddClass("C"), d = b.AddClass("D"), e = b.AddClass("E"),
                f = b.AddClass("F"), g = b.AddClass("G"), s = b.AddClass("S"), p = b.AddClass("P"),
                q = b.AddClass("Q"), l1 = b.AddClass("L1"), l2 = b.AddClass("L2"),
                l3 = b.AddClass("L3");
  auto add = [&b](ClassId cls, const char* op, double cost, std::vector<ClassId> children) {
    b.AddNode(cls, op, cost, children);
  };
  add(r, "r", 0, {c, s});
  add(c, "a1", 0, {d, e});
  add(c, "a2", 0, {d, f});
  add(c, "a3", 0, {g});
  add(d, "d", 10, {});
  add(e, "e", 0, {});
  add(f, "f", 0, {});
  add(g, "g", 8, {});
  add(s, "s1", 1, {p, l3});
  add(s, "s2", 1, {q, l1});
  add(p, "p", 1, {l1, l2});
  add(q, "q", 1, {l2, l3});
  add(l1, "l1", 1, {});
  add(l2, "l2", 1, {});
  add(l3, "l3", 1, {});
  b.AddRoot(r);
  absl::StatusOr<ExtractionProblem> built = std::move(b).Build();
  EXPECT_TRUE(built.ok()) << built.status();
  return *std::move(built);
}

TEST(IlpChildRowsTest, TheRelaxationPaysAChildSharedByAlternativesInFull) {
  const ExtractionProblem problem = SharedChildOfAlternatives();
  IlpOptions options;
  options.time_limit_seconds = 60;
  absl::StatusOr<IlpResult> result = ExtractIlp(problem, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(ValidateChoice(problem, result->choice).ok());
  EXPECT_DOUBLE_EQ(result->cost, 13);
  EXPECT_TRUE(result->optimal);
  EXPECT_DOUBLE_EQ(result->bound, 13);
  // The relaxation alone proved it: CBC never ran (with a row per node its
  // optimum is 10, and CBC has to close the gap).
  EXPECT_EQ(result->rounds, 0);
  EXPECT_TRUE(result->solver_used);
}

}  // namespace
}  // namespace egret::extract
