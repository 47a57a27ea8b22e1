#include "egret/extract/validate.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

using ::testing::HasSubstr;

// R -> f(A), A = {g(R) | a}, and B unused.
ExtractionProblem Problem() {
  ExtractionProblemBuilder b;
  ClassId r = b.AddClass("R"), a = b.AddClass("A");
  b.AddClass("B");
  const ClassId ra[] = {a}, ar[] = {r};
  b.AddNode(r, "f", 1, ra);  // node 0
  b.AddNode(a, "g", 1, ar);  // node 1
  b.AddNode(a, "a", 1, {});  // node 2
  b.AddNode(2, "b", 1, {});  // node 3
  b.AddRoot(r);
  return *std::move(b).Build();
}

std::string Check(const Choice& c) {
  absl::Status s = ValidateChoice(Problem(), c);
  return s.ok() ? "ok" : std::string(s.message());
}

TEST(ValidateTest, AcceptsAValidChoiceAndIgnoresUnreachableClasses) {
  Choice c(3);
  c.node = {0, 2, kNoENode};
  EXPECT_EQ(Check(c), "ok");
  c.node = {0, 2, 3};
  EXPECT_EQ(Check(c), "ok");
}

TEST(ValidateTest, RejectsBadChoices) {
  Choice c(3);
  c.node = {kNoENode, 2, kNoENode};
  EXPECT_THAT(Check(c), HasSubstr("root class 'R' has no choice"));
  c.node = {0, kNoENode, kNoENode};
  EXPECT_THAT(Check(c), HasSubstr("class 'A' is used by node 'R.0' but has no choice"));
  c.node = {0, 1, kNoENode};
  EXPECT_THAT(Check(c), HasSubstr("cycle"));
  c.node = {0, 3, kNoENode};
  EXPECT_THAT(Check(c), HasSubstr("class 'A' chooses a node of another class"));
  c.node = {0, 2};
  EXPECT_THAT(Check(c), HasSubstr("entries"));
}

TEST(ValidateTest, CostsOfAChoice) {
  ExtractionProblem p = Problem();
  Choice c(3);
  c.node = {0, 2, 3};
  EXPECT_DOUBLE_EQ(DagCost(p, c), 2);
  EXPECT_DOUBLE_EQ(TreeCost(p, c), 2);
  EXPECT_EQ(RestrictToReachable(p, c).node, (std::vector<ENodeId>{0, 2, kNoENode}));
}

}  // namespace
}  // namespace egret::extract
