// The ILP extractor's child rows (ilp_model.cc): one row per class and child
// class, sum(nodes of c that use d) <= sum(nodes of d). With a row per node
// instead (x_n <= sum(nodes of d)), two alternatives of a class that share
// an expensive child class could each be taken at 1/2 and pay that child at
// 1/2 only; the row per class makes the relaxation pay it in full.
#include <utility>

#include "egret/extract/choice.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/problem.h"
#include "gtest/gtest.h"
#include "tests/extract/ilp_test_support.h"

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
  AddNode(b, r, "r", 0, {c, s});
  AddNode(b, c, "a1", 0, {d, e});
  AddNode(b, c, "a2", 0, {d, f});
  AddNode(b, c, "a3", 0, {g});
  AddNode(b, d, "d", 10, {});
  AddNode(b, e, "e", 0, {});
  AddNode(b, f, "f", 0, {});
  AddNode(b, g, "g", 8, {});
  AddNode(b, s, "s1", 1, {p, l3});
  AddNode(b, s, "s2", 1, {q, l1});
  AddNode(b, p, "p", 1, {l1, l2});
  AddNode(b, q, "q", 1, {l2, l3});
  AddNode(b, l1, "l1", 1, {});
  AddNode(b, l2, "l2", 1, {});
  AddNode(b, l3, "l3", 1, {});
  b.AddRoot(r);
  return BuildOrFail(std::move(b));
}

TEST(IlpChildRowsTest, TheRelaxationPaysAChildSharedByAlternativesInFull) {
  const ExtractionProblem problem = SharedChildOfAlternatives();
  absl::StatusOr<IlpResult> result = ExtractIlpChecked(problem);
  ASSERT_TRUE(result.ok()) << result.status();
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
