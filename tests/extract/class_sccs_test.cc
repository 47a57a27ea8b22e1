#include "egret/extract/class_sccs.h"

#include <vector>

#include "gtest/gtest.h"

namespace egret::extract {
namespace {

// a -> b <-> c -> d (b and c through one node each), e alone; a second node
// of c closes c -> a. Components come children first.
ExtractionProblem Graph(bool back_edge) {
  ExtractionProblemBuilder b;
  const ClassId a = b.AddClass("a"), bb = b.AddClass("b"), c = b.AddClass("c"), d = b.AddClass("d"),
                e = b.AddClass("e");
  const ClassId to_b[] = {bb}, to_c[] = {c}, to_bd[] = {bb, d}, to_a[] = {a};
  b.AddNode(a, "A", 1, to_b);
  b.AddNode(bb, "B", 1, to_c);
  b.AddNode(c, "C", 1, to_bd);
  if (back_edge) b.AddNode(c, "C2", 1, to_a);
  b.AddNode(d, "D", 1, {});
  b.AddNode(e, "E", 1, {});
  b.AddRoot(a);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

TEST(ClassSccsTest, ComponentsComeChildrenFirst) {
  const ExtractionProblem p = Graph(false);
  const ClassSccs s = ComputeClassSccs(p);
  // d completes first, then {b, c}, then a; e is started last.
  EXPECT_EQ(s.id, (std::vector<int32_t>{2, 1, 1, 0, 3}));
  ASSERT_EQ(s.order.size(), 5u);
  EXPECT_EQ(s.order[0], 3u);
  EXPECT_EQ(s.order[3], 0u);
  EXPECT_EQ(s.order[4], 4u);
}

TEST(ClassSccsTest, ANodeLeftOutOrAClassLeftOutBreaksTheCycle) {
  const ExtractionProblem p = Graph(true);
  EXPECT_EQ(ComputeClassSccs(p).id, (std::vector<int32_t>{1, 1, 1, 0, 2}));
  // Without c's second node (C2, node 3 after sorting by class) the back
  // edge is gone.
  std::vector<char> keep(p.num_nodes(), 1);
  for (ENodeId n = 0; n < p.num_nodes(); ++n) keep[n] = p.op(n) != "C2";
  EXPECT_EQ(ComputeClassSccs(p, {}, keep).id, (std::vector<int32_t>{2, 1, 1, 0, 3}));
  // Without class b, a and c are apart (a, reaching nothing now, completes
  // first) and b is outside (-1).
  const std::vector<char> in = {1, 0, 1, 1, 1};
  EXPECT_EQ(ComputeClassSccs(p, in).id, (std::vector<int32_t>{0, -1, 2, 1, 3}));
}

}  // namespace
}  // namespace egret::extract
