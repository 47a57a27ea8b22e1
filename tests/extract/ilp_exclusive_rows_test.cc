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

}  // namespace
}  // namespace egret::extract
