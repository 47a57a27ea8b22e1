#include "egret/extract/problem.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

using ::testing::HasSubstr;

// Nodes are added out of class order, named and unnamed, with repeated ops:
// after Build each node keeps its own op, cost, children and name (an unnamed
// node is "<class name>.<k>" for the k-th node of its class).
TEST(ProblemTest, NodesKeepTheirOpsAndNamesAfterSortingByClass) {
  ExtractionProblemBuilder b;
  const ClassId x = b.AddClass("x"), y = b.AddClass("y");
  const ClassId xs[] = {x}, xx[] = {x, x};
  b.AddNode(y, "Add", 3, xx, "sum");
  b.AddNode(x, "Input", 1, {});
  b.AddNode(y, "Relu", 2, xs);
  b.AddNode(x, "Add", 4, {}, "x-add");
  b.AddRoot(y);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->num_nodes(), 4u);
  ASSERT_EQ(p->class_begin(x), 0u);
  ASSERT_EQ(p->class_begin(y), 2u);
  EXPECT_EQ(p->op(0), "Input");
  EXPECT_EQ(p->node_name(0), "x.0");
  EXPECT_EQ(p->op(1), "Add");
  EXPECT_EQ(p->node_name(1), "x-add");
  EXPECT_EQ(p->cost(1), 4);
  EXPECT_EQ(p->op(2), "Add");
  EXPECT_EQ(p->node_name(2), "sum");
  EXPECT_EQ(p->children(2).size(), 2u);
  EXPECT_EQ(p->op(3), "Relu");
  EXPECT_EQ(p->node_name(3), "y.1");
  EXPECT_EQ(p->cost(3), 2);
  EXPECT_EQ(p->node_class(3), y);
  EXPECT_EQ(p->parents(x).size(), 3u);
}

// The same nodes added class by class (the layout Build moves instead of
// sorting) give the same problem, parents included.
TEST(ProblemTest, NodesAddedClassByClassGiveTheSameProblem) {
  auto build = [](bool grouped) {
    ExtractionProblemBuilder b;
    const ClassId x = b.AddClass("x"), y = b.AddClass("y"), z = b.AddClass("z");
    const ClassId xs[] = {x}, xy[] = {x, y}, yy[] = {y, y};
    auto add_x = [&] {
      b.AddNode(x, "Input", 1, {});
      b.AddNode(x, "Add", 4, {}, "x-add");
    };
    auto add_y = [&] {
      b.AddNode(y, "Relu", 2, xs, "relu");
      b.AddNode(y, "Add", 3, xs);
    };
    if (grouped) {
      add_x();
      add_y();
      b.AddNode(z, "Mul", 5, xy, "mul");
      b.AddNode(z, "Add", 6, yy);
    } else {
      b.AddNode(z, "Mul", 5, xy, "mul");
      add_y();
      b.AddNode(z, "Add", 6, yy);
      add_x();
    }
    b.AddRoot(z);
    absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
    EXPECT_TRUE(p.ok()) << p.status();
    return *std::move(p);
  };
  const ExtractionProblem g = build(true), s = build(false);
  ASSERT_EQ(g.num_nodes(), 6u);
  ASSERT_EQ(s.num_nodes(), 6u);
  for (ENodeId n = 0; n < 6; ++n) {
    EXPECT_EQ(g.op(n), s.op(n)) << n;
    EXPECT_EQ(g.node_name(n), s.node_name(n)) << n;
    EXPECT_EQ(g.cost(n), s.cost(n)) << n;
    EXPECT_EQ(g.node_class(n), s.node_class(n)) << n;
    EXPECT_TRUE(std::ranges::equal(g.children(n), s.children(n))) << n;
  }
  for (ClassId c = 0; c < 3; ++c) {
    EXPECT_EQ(g.class_begin(c), s.class_begin(c)) << c;
    EXPECT_TRUE(std::ranges::equal(g.parents(c), s.parents(c))) << c;
  }
  EXPECT_EQ(g.node_name(1), "x-add");
  EXPECT_EQ(g.node_name(3), "y.1");
  EXPECT_EQ(g.parents(1).size(), 3u);  // y: Mul once, Add twice
  EXPECT_EQ(g.op(5), "Add");
  EXPECT_EQ(g.cost(5), 6);
}

// A problem whose nodes have no explicit names keeps no name table (an
// e-graph's problem), and one whose first explicit name comes after unnamed
// nodes gives those their default names; both in either layout.
TEST(ProblemTest, NodesBeforeTheFirstExplicitNameKeepTheirDefaultNames) {
  for (const bool grouped : {true, false}) {
    for (const bool named : {true, false}) {
      ExtractionProblemBuilder b;
      const ClassId x = b.AddClass("x"), y = b.AddClass("y");
      const ClassId xs[] = {x};
      if (grouped) b.AddNode(x, "Input", 1, {});
      b.AddNode(y, "Relu", 2, xs);
      b.AddNode(y, "Exp", 3, xs, named ? "exp" : "");
      if (!grouped) b.AddNode(x, "Input", 1, {});
      b.AddNode(y, "Neg", 4, xs);
      b.AddRoot(y);
      absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
      ASSERT_TRUE(p.ok()) << p.status();
      ASSERT_EQ(p->num_nodes(), 4u);
      EXPECT_EQ(p->node_name(0), "x.0") << grouped << named;
      EXPECT_EQ(p->node_name(1), "y.0") << grouped << named;
      EXPECT_EQ(p->node_name(2), named ? "exp" : "y.1") << grouped << named;
      EXPECT_EQ(p->node_name(3), "y.2") << grouped << named;
      EXPECT_EQ(p->op(2), "Exp");
      EXPECT_EQ(p->cost(3), 4);
    }
  }
}

TEST(ProblemTest, BuildErrorsNameTheNode) {
  ExtractionProblemBuilder b;
  const ClassId x = b.AddClass("x");
  b.AddNode(x, "a", 1, {}, "first");
  b.AddNode(7, "b", 1, {}, "stray");
  b.AddRoot(x);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("node 'stray' names class index 7"));
}

}  // namespace
}  // namespace egret::extract
