// The ILP extractor's exclusive-user rows (ilp_exclusive_rows.cc): a class d
// used by columns that no valid choice takes together is paid for the sum
// of their values, not the largest of them.
#include <utility>

#include "egret/extract/choice.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/problem.h"
#include "gtest/gtest.h"
#include "tests/extract/ilp_test_support.h"

namespace egret::extract {
namespace {

// R = r(C). C is a1(D, E), a2(X) or a3(G), with X = x(D, F) used by a2
// alone; D costs 10, G 8, E and F nothing: the optimum is 8 (a3). The child
// rows let the relaxation take a1 and a2 at 1/2 each and pay D at 1/2 (C's
// row and X's row each ask for 1/2): 5 in all. a1 and x exclude each other
// (X is not reachable when C chooses a1), so the exclusive-user row
// sum(D) >= x_a1 + x_x makes the relaxation pay D in full and reach 8.
ExtractionProblem SharedThroughAnExclusiveUser() {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), c = b.AddClass("C"), d = b.AddClass("D"), e = b.AddClass("E"),
                x = b.AddClass("X"), f = b.AddClass("F"), g = b.AddClass("G");
  AddNode(b, r, "r", 0, {c});
  AddNode(b, c, "a1", 0, {d, e});
  AddNode(b, c, "a2", 0, {x});
  AddNode(b, c, "a3", 0, {g});
  AddNode(b, x, "x", 0, {d, f});
  AddNode(b, d, "d", 10, {});
  AddNode(b, e, "e", 0, {});
  AddNode(b, f, "f", 0, {});
  AddNode(b, g, "g", 8, {});
  b.AddRoot(r);
  return BuildOrFail(std::move(b));
}

TEST(IlpExclusiveRowsTest, TheRelaxationPaysAClassSharedByExclusiveUsersInFull) {
  const ExtractionProblem problem = SharedThroughAnExclusiveUser();
  IlpOptions options = TestIlpOptions();
  options.critical_path_bound = false;  // it would prove 8 alone: no relaxation
  absl::StatusOr<IlpResult> result = ExtractIlpChecked(problem, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->cost, 8);
  EXPECT_TRUE(result->optimal);
  EXPECT_DOUBLE_EQ(result->bound, 8);
  // The relaxation alone proved it: CBC never ran (without the row its
  // optimum is 5, and CBC has to close the gap).
  EXPECT_EQ(result->rounds, 0);
  EXPECT_TRUE(result->solver_used);
}

// R = r(C). C is c1(Y), c4(Y, K), c2(Z) or c3(G); Y is y1(D, E) or y2(H),
// Z is z1(D, F) or z2(H'); D costs 10, G 8, H and H' 100, the rest nothing:
// the optimum is 8 (c3). The relaxation takes c1 and c2 at 1/2, y1 and z1
// at 1/2 and pays D at 1/2: 5. Y and Z are reachable whatever the other
// chooses, so reachability does not separate y1 from z1; but Y is used by
// c1 and c4 only and Z by c2 only, so Y forces C to choose c1 or c4 and Z
// forces it to choose c2: y1 and z1 exclude each other, and the row
// sum(D) >= x_y1 + x_z1 makes the relaxation reach 8.
ExtractionProblem SharedBelowClassesForcedApart() {
  ExtractionProblemBuilder b;
  const ClassId r = b.AddClass("R"), c = b.AddClass("C"), y = b.AddClass("Y"), z = b.AddClass("Z"),
                d = b.AddClass("D"), e = b.AddClass("E"), f = b.AddClass("F"), g = b.AddClass("G"),
                h = b.AddClass("H"), h2 = b.AddClass("H2"), k = b.AddClass("K");
  AddNode(b, r, "r", 0, {c});
  AddNode(b, c, "c1", 0, {y});
  AddNode(b, c, "c4", 0, {y, k});
  AddNode(b, c, "c2", 0, {z});
  AddNode(b, c, "c3", 0, {g});
  AddNode(b, y, "y1", 0, {d, e});
  AddNode(b, y, "y2", 0, {h});
  AddNode(b, z, "z1", 0, {d, f});
  AddNode(b, z, "z2", 0, {h2});
  AddNode(b, d, "d", 10, {});
  AddNode(b, e, "e", 0, {});
  AddNode(b, f, "f", 0, {});
  AddNode(b, g, "g", 8, {});
  AddNode(b, h, "h", 100, {});
  AddNode(b, h2, "h2", 100, {});
  AddNode(b, k, "k", 0, {});
  b.AddRoot(r);
  return BuildOrFail(std::move(b));
}

TEST(IlpExclusiveRowsTest, ColumnsBelowClassesForcedToDifferentChoicesExcludeEachOther) {
  const ExtractionProblem problem = SharedBelowClassesForcedApart();
  absl::StatusOr<IlpResult> result = ExtractIlpChecked(problem);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->cost, 8);
  EXPECT_TRUE(result->optimal);
  EXPECT_DOUBLE_EQ(result->bound, 8);
  // Without what Y and Z force, the relaxation stays at 5 and CBC runs.
  EXPECT_EQ(result->rounds, 0);
}

}  // namespace
}  // namespace egret::extract
