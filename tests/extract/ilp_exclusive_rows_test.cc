// The ILP extractor's exclusive-user rows (ilp_exclusive_rows.cc): a class d
// used by columns that no valid choice takes together is paid for the sum
// of their values, not the largest of them.
#include <utility>
#include <vector>

#include "egret/extract/choice.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/problem.h"
#include "egret/extract/validate.h"
#include "gtest/gtest.h"

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
  auto add = [&b](ClassId cls, const char* op, double cost, std::vector<ClassId> children) {
    b.AddNode(cls, op, cost, children);
  };
  add(r, "r", 0, {c});
  add(c, "a1", 0, {d, e});
  add(c, "a2", 0, {x});
  add(c, "a3", 0, {g});
  add(x, "x", 0, {d, f});
  add(d, "d", 10, {});
  add(e, "e", 0, {});
  add(f, "f", 0, {});
  add(g, "g", 8, {});
  b.AddRoot(r);
  absl::StatusOr<ExtractionProblem> built = std::move(b).Build();
  EXPECT_TRUE(built.ok()) << built.status();
  return *std::move(built);
}

TEST(IlpExclusiveRowsTest, TheRelaxationPaysAClassSharedByExclusiveUsersInFull) {
  const ExtractionProblem problem = SharedThroughAnExclusiveUser();
  IlpOptions options;
  options.time_limit_seconds = 60;
  absl::StatusOr<IlpResult> result = ExtractIlp(problem, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(ValidateChoice(problem, result->choice).ok());
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
  auto add = [&b](ClassId cls, const char* op, double cost, std::vector<ClassId> children) {
    b.AddNode(cls, op, cost, children);
  };
  add(r, "r", 0, {c});
  add(c, "c1", 0, {y});
  add(c, "c4", 0, {y, k});
  add(c, "c2", 0, {z});
  add(c, "c3", 0, {g});
  add(y, "y1", 0, {d, e});
  add(y, "y2", 0, {h});
  add(z, "z1", 0, {d, f});
  add(z, "z2", 0, {h2});
  add(d, "d", 10, {});
  add(e, "e", 0, {});
  add(f, "f", 0, {});
  add(g, "g", 8, {});
  add(h, "h", 100, {});
  add(h2, "h2", 100, {});
  add(k, "k", 0, {});
  b.AddRoot(r);
  absl::StatusOr<ExtractionProblem> built = std::move(b).Build();
  EXPECT_TRUE(built.ok()) << built.status();
  return *std::move(built);
}

TEST(IlpExclusiveRowsTest, ColumnsBelowClassesForcedToDifferentChoicesExcludeEachOther) {
  const ExtractionProblem problem = SharedBelowClassesForcedApart();
  IlpOptions options;
  options.time_limit_seconds = 60;
  absl::StatusOr<IlpResult> result = ExtractIlp(problem, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(ValidateChoice(problem, result->choice).ok());
  EXPECT_DOUBLE_EQ(result->cost, 8);
  EXPECT_TRUE(result->optimal);
  EXPECT_DOUBLE_EQ(result->bound, 8);
  // Without what Y and Z force, the relaxation stays at 5 and CBC runs.
  EXPECT_EQ(result->rounds, 0);
}

}  // namespace
}  // namespace egret::extract
