// TreeCostTies, and ComputeTreeCosts through it: of two nodes whose tree
// costs round to the same double (above a shared input of tree cost 2^71),
// the one whose own tree is cheaper is chosen, in either node order.
#include "egret/extract/tree_cost_ties.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/extract/choice.h"
#include "egret/extract/problem.h"
#include "egret/extract/tree_extractor.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

using Order = TreeCostTies::Order;

// Classes "<name>0" .. "<name><depth>", class i with one node of cost 1 over
// class i + 1 twice: class 0's tree cost is 2^(depth + 1) - 1, far above
// 2^53, where a double's steps are 2^(depth - 52) wide.
ClassId DoublingChain(ExtractionProblemBuilder& b, const std::string& name, int depth) {
  std::vector<ClassId> c;
  for (int i = 0; i <= depth; ++i) c.push_back(b.AddClass(absl::StrCat(name, i)));
  for (int i = 0; i < depth; ++i)
    b.AddNode(c[i], "double", 1, std::vector<ClassId>{c[i + 1], c[i + 1]});
  b.AddNode(c[depth], "leaf", 1, {});
  return c[0];
}

ExtractionProblem Build(ExtractionProblemBuilder b) {
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

// The node of class c whose op is `op`.
ENodeId NodeOf(const ExtractionProblem& p, ClassId c, const std::string& op) {
  for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) {
    if (p.op(n) == op) return n;
  }
  ADD_FAILURE() << "no " << op;
  return kNoENode;
}

// A fully connected layer over `x`: with its bias (cost 10), or as an add
// (cost 3) over one without (cost 10). The first is cheaper by 3, which is
// far below a double's step at x's tree cost.
struct Biased {
  ExtractionProblem p;
  ClassId top;
};
Biased FullyConnected(bool bias_first) {
  ExtractionProblemBuilder b;
  const ClassId x = DoublingChain(b, "x", 70);
  const ClassId w = b.AddClass("w"), bias = b.AddClass("b"), fc = b.AddClass("fc");
  const ClassId top = b.AddClass("top");
  b.AddNode(w, "const", 0, {});
  b.AddNode(bias, "const", 0, {});
  b.AddNode(fc, "fc", 10, std::vector<ClassId>{x, w});
  if (bias_first) b.AddNode(top, "fc_bias", 10, std::vector<ClassId>{x, w, bias});
  b.AddNode(top, "add", 3, std::vector<ClassId>{fc, bias});
  if (!bias_first) b.AddNode(top, "fc_bias", 10, std::vector<ClassId>{x, w, bias});
  b.AddRoot(top);
  return {Build(std::move(b)), top};
}

TEST(TreeCostTiesTest, TheCheaperTreeWinsWhereTheDoublesAgree) {
  for (bool bias_first : {true, false}) {
    const Biased f = FullyConnected(bias_first);
    absl::StatusOr<TreeCosts> t = ComputeTreeCosts(f.p);
    ASSERT_TRUE(t.ok()) << t.status();
    // The premise: as doubles, the two nodes cannot be told apart.
    const ClassId fc = static_cast<ClassId>(f.p.FindClass("fc"));
    const ClassId x = static_cast<ClassId>(f.p.FindClass("x0"));
    EXPECT_EQ(3 + t->cost[fc], 10 + t->cost[x]) << bias_first;
    EXPECT_EQ(f.p.op(t->choice.node[f.top]), "fc_bias") << bias_first;
  }
}

// The scale of an attention's scores, (q k) * s, against q scaled first,
// where q * s is also a new fully connected layer with scaled weights: the
// second saves the multiply, which shows only four classes down.
TEST(TreeCostTiesTest, TheDifferenceIsFoundBelowTheSharedClasses) {
  for (bool scale_last_first : {true, false}) {
    ExtractionProblemBuilder b;
    const ClassId x = DoublingChain(b, "x", 70);
    const ClassId w = b.AddClass("w"), w2 = b.AddClass("w2"), s = b.AddClass("s");
    const ClassId k = b.AddClass("k"), q = b.AddClass("q"), q2 = b.AddClass("q2");
    const ClassId tq = b.AddClass("tq"), tq2 = b.AddClass("tq2"), qk = b.AddClass("qk");
    const ClassId top = b.AddClass("top");
    for (ClassId c : {w, w2, s}) b.AddNode(c, "const", 0, {});
    b.AddNode(k, "k", 5, std::vector<ClassId>{x});
    b.AddNode(q, "fc", 2048, std::vector<ClassId>{x, w});
    b.AddNode(q2, "scale", 16, std::vector<ClassId>{q, s});
    b.AddNode(q2, "fc", 2048, std::vector<ClassId>{x, w2});
    b.AddNode(tq, "transpose", 32, std::vector<ClassId>{q});
    b.AddNode(tq2, "transpose", 32, std::vector<ClassId>{q2});
    b.AddNode(qk, "matmul", 2048, std::vector<ClassId>{tq, k});
    if (scale_last_first) b.AddNode(top, "scale", 16, std::vector<ClassId>{qk, s});
    b.AddNode(top, "matmul", 2048, std::vector<ClassId>{tq2, k});
    if (!scale_last_first) b.AddNode(top, "scale", 16, std::vector<ClassId>{qk, s});
    b.AddRoot(top);
    const ExtractionProblem p = Build(std::move(b));
    absl::StatusOr<TreeCosts> t = ComputeTreeCosts(p);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(p.op(t->choice.node[q2]), "fc") << scale_last_first;
    EXPECT_EQ(p.op(t->choice.node[top]), "matmul") << scale_last_first;
  }
}

// Compare itself, given every class final and the rounding counts the tree
// pass keeps (a class's chosen node's children's largest plus its number of
// children).
class CompareTest : public ::testing::Test {
 protected:
  void Load(ExtractionProblem p) {
    p_ = std::move(p);
    absl::StatusOr<TreeCosts> t = ComputeTreeCosts(p_);
    ASSERT_TRUE(t.ok()) << t.status();
    tree_ = *std::move(t);
    rounds_.assign(p_.num_classes(), 0);
    final_.assign(p_.num_classes(), 1);
    std::vector<char> known(p_.num_classes(), 0);
    for (ClassId c = 0; c < p_.num_classes(); ++c) Rounds(c, known);
  }
  uint32_t Rounds(ClassId c, std::vector<char>& known) {
    if (known[c]) return rounds_[c];
    const ENodeId n = tree_.choice.node[c];
    uint32_t r = 0;
    for (ClassId ch : p_.children(n)) r = std::max(r, Rounds(ch, known));
    known[c] = 1;
    return rounds_[c] = r + static_cast<uint32_t>(p_.children(n).size());
  }
  Order Compare(ENodeId a, ENodeId b) {
    TreeCostTies ties(p_, tree_.cost, tree_.choice, rounds_, final_);
    return ties.Compare(a, b);
  }
  ExtractionProblem p_;
  TreeCosts tree_;
  std::vector<uint32_t> rounds_;
  std::vector<uint8_t> final_;
};

TEST_F(CompareTest, OrdersTheBiasedLayerBothWays) {
  Load(FullyConnected(true).p);
  const ClassId top = static_cast<ClassId>(p_.FindClass("top"));
  const ENodeId fused = NodeOf(p_, top, "fc_bias"), add = NodeOf(p_, top, "add");
  EXPECT_EQ(Compare(fused, add), Order::kLess);
  EXPECT_EQ(Compare(add, fused), Order::kGreater);
  EXPECT_EQ(Compare(add, add), Order::kEqual);
  // A class that is not final stops the walk where it is needed.
  final_[static_cast<ClassId>(p_.FindClass("fc"))] = 0;
  EXPECT_EQ(Compare(fused, add), Order::kUnknown);
}

TEST_F(CompareTest, ArgumentOrderIsATie) {
  ExtractionProblemBuilder b;
  const ClassId x = DoublingChain(b, "x", 70);
  const ClassId y = b.AddClass("y"), top = b.AddClass("top");
  b.AddNode(y, "const", 7, {});
  b.AddNode(top, "add", 3, std::vector<ClassId>{x, y});
  b.AddNode(top, "add", 3, std::vector<ClassId>{y, x});
  b.AddRoot(top);
  Load(Build(std::move(b)));
  const ENodeId first = p_.class_begin(top);
  EXPECT_EQ(Compare(first, first + 1), Order::kEqual);
}

// Two nodes over two chains that share nothing, of the same tree cost: the
// difference would take both whole chains; Compare gives up after its steps
// and the tree pass keeps the first node.
TEST_F(CompareTest, UnrelatedTreesAreUnknown) {
  ExtractionProblemBuilder b;
  const ClassId top = b.AddClass("top");
  const ClassId x = DoublingChain(b, "x", 70), y = DoublingChain(b, "y", 70);
  b.AddNode(top, "on_x", 0, std::vector<ClassId>{x});
  b.AddNode(top, "on_y", 0, std::vector<ClassId>{y});
  b.AddRoot(top);
  Load(Build(std::move(b)));
  EXPECT_EQ(Compare(p_.class_begin(top), p_.class_begin(top) + 1), Order::kUnknown);
  EXPECT_EQ(p_.op(tree_.choice.node[top]), "on_x");
}

TEST(TreeCostTiesCloseTest, WithinTheRoundingOfBoth) {
  const double big = 0x1p71;
  EXPECT_TRUE(TreeCostTies::Close(big, 2, big + 0x1p19, 2));
  EXPECT_FALSE(TreeCostTies::Close(big, 2, big * (1 + 0x1p-40), 2));
  EXPECT_FALSE(TreeCostTies::Close(1, 5, 2, 5));
  EXPECT_TRUE(TreeCostTies::Close(3, 0, 3, 0));
}

}  // namespace
}  // namespace egret::extract
