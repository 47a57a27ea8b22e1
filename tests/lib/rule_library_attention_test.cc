// The shipped rule library on attention: grouped KV-head repeats, rotary
// embeddings, decomposed softmax, and the scores' scale.
#include <gtest/gtest.h>

#include <vector>

#include "egret/pipeline/optimize.h"
#include "tests/graph/graph_builder.h"
#include "tests/lib/rule_library_test_util.h"
#include "tests/lib/shipped_library.h"

namespace egret {
namespace {

// Grouped-query attention with 4 query heads and 2 key/value heads: the
// repeat of each KV head (Unsqueeze, Expand, Reshape: a Tile between two
// Reshapes once imported) becomes a broadcast of the MatMuls' batch dims,
// for the keys (through their transpose) and the values.
TEST(RuleLibraryTest, GroupedKvRepeatIsABroadcastNotACopy) {
  GraphBuilder b;
  ValueRef q = b.InputF32({1, 4, 8, 16});
  ValueRef k = b.InputF32({1, 2, 8, 16});
  ValueRef v = b.InputF32({1, 2, 8, 16});
  auto repeat = [&b](ValueRef t) {
    ValueRef u = b.Op("Reshape", {t, b.Shape({1, 2, 1, 8, 16})});
    ValueRef e = b.Op("Tile", {u, b.Shape({1, 1, 2, 1, 1})});
    return b.Op("Reshape", {e, b.Shape({1, 4, 8, 16})});
  };
  ValueRef kt = b.Op("Transpose", {repeat(k), b.Shape({0, 1, 3, 2})});
  ValueRef s = b.Op("ElementWiseMultiply", {b.Op("MatMul", {q, kt}), b.Scalar(0.25)});
  ValueRef p = b.Op("Softmax", {s});
  b.Output(b.Op("MatMul", {p, repeat(v)}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Tile"), 0);
  EXPECT_EQ(CountOp(out, "MatMul"), 2);
  EXPECT_EQ(CountOp(out, "Softmax"), 1);
}

// The same attention as torch's scaled_dot_product_attention exports it:
// q and kᵀ each scaled by √(1/√d) before the MatMul. The factors move past
// the MatMul (algebra.rules), so the keys' repeat still meets it.
TEST(RuleLibraryTest, GroupedKvRepeatUnderSdpaScalingIsABroadcast) {
  GraphBuilder b;
  ValueRef q = b.InputF32({1, 4, 1, 16});
  ValueRef k = b.InputF32({1, 2, 8, 16});
  ValueRef v = b.InputF32({1, 2, 8, 16});
  auto repeat = [&b](ValueRef t) {
    ValueRef u = b.Op("Reshape", {t, b.Shape({1, 2, 1, 8, 16})});
    ValueRef e = b.Op("Tile", {u, b.Shape({1, 1, 2, 1, 1})});
    return b.Op("Reshape", {e, b.Shape({1, 4, 8, 16})});
  };
  ValueRef kt = b.Op("Transpose", {repeat(k), b.Shape({0, 1, 3, 2})});
  ValueRef qs = b.Op("ElementWiseMultiply", {q, b.Scalar(0.5)});
  ValueRef ks = b.Op("ElementWiseMultiply", {kt, b.Scalar(0.5)});
  ValueRef p = b.Op("Softmax", {b.Op("MatMul", {qs, ks})});
  b.Output(b.Op("MatMul", {p, repeat(v)}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Tile"), 0);
  EXPECT_EQ(CountOp(out, "MatMul"), 2);
  // The two factors, on the scores [1, 4, 1, 8] rather than the keys.
  EXPECT_LE(CountOp(out, "ElementWiseMultiply"), 2);
}

// A rotary embedding (rotate-half) keeps its canonical form x * cos +
// Concat(-x2, x1) * sin, whichever way the exporter negated the half:
// x2 * -1 and 0 - x2 are both Neg(x2).
TEST(RuleLibraryTest, RotateHalfNegatesWithNeg) {
  for (const bool by_product : {true, false}) {
    SCOPED_TRACE(by_product ? "x2 * -1" : "0 - x2");
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 2, 8, 16});
    ValueRef x1 = b.Op("StridedSlice",
                       {x, b.Shape({0, 0, 0, 0}), b.Shape({1, 2, 8, 8}), b.Shape({1, 1, 1, 1})});
    ValueRef x2 = b.Op("StridedSlice",
                       {x, b.Shape({0, 0, 0, 8}), b.Shape({1, 2, 8, 16}), b.Shape({1, 1, 1, 1})});
    ValueRef neg = by_product ? b.Op("ElementWiseMultiply", {x2, b.Scalar(-1.0)})
                              : b.Op("ElementWiseSubtract", {b.Scalar(0.0), x2});
    ValueRef rh = b.Op("Concat", {b.Ints({3}), neg, x1});
    ValueRef cos = b.F32({8, 16}, Ramp(128, -1.0, 1.0 / 64));
    ValueRef sin = b.F32({8, 16}, Ramp(128, 1.0, -1.0 / 64));
    b.Output(b.Op("ElementWiseAdd",
                  {b.Op("ElementWiseMultiply", {x, cos}), b.Op("ElementWiseMultiply", {rh, sin})}));
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(CountOp(out, "Neg"), 1);
    EXPECT_EQ(CountOp(out, "ElementWiseSubtract"), 0);
    EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);
  }
}

// The interleaved rotary embedding (GPT-J's rotate_every_two): x1 = x[..., 0::2],
// x2 = x[..., 1::2], rot = stack(-x2, x1) flattened, out = x * cos + rot *
// sin. Its canonical form is this one too, the negation one Neg.
TEST(RuleLibraryTest, InterleavedRotaryNegatesWithNeg) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 8, 16});
  ValueRef x1 = b.Op("StridedSlice",
                     {x, b.Shape({0, 0, 0, 0}), b.Shape({1, 2, 8, 16}), b.Shape({1, 1, 1, 2})});
  ValueRef x2 = b.Op("StridedSlice",
                     {x, b.Shape({0, 0, 0, 1}), b.Shape({1, 2, 8, 16}), b.Shape({1, 1, 1, 2})});
  ValueRef neg = b.Op("ElementWiseMultiply", {x2, b.Scalar(-1.0)});
  auto unsqueezed = [&b](ValueRef t) { return b.Op("Reshape", {t, b.Shape({1, 2, 8, 8, 1})}); };
  ValueRef stacked = b.Op("Concat", {b.Ints({4}), unsqueezed(neg), unsqueezed(x1)});
  ValueRef rot = b.Op("Reshape", {stacked, b.Shape({1, 2, 8, 16})});
  ValueRef cos = b.F32({8, 16}, Ramp(128, -1.0, 1.0 / 64));
  ValueRef sin = b.F32({8, 16}, Ramp(128, 1.0, -1.0 / 64));
  b.Output(b.Op("ElementWiseAdd",
                {b.Op("ElementWiseMultiply", {x, cos}), b.Op("ElementWiseMultiply", {rot, sin})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Neg"), 1);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);
}

// The axis of the one Softmax in `g` (an omitted axis is the last), or -2
// when there is none.
int64_t SoftmaxAxis(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (n.op != "Softmax") continue;
    if (n.inputs.size() == 1) return static_cast<int64_t>(n.outputs[0].rank()) - 1;
    const Node& p = g.node(n.inputs[1].node);
    return p.constant == nullptr ? -3 : static_cast<int64_t>(p.constant->GetValue(0));
  }
  return -2;
}

// exp(x - max(x)) / sum(exp(x - max(x))) over one axis is Softmax over that
// axis, however the axes are given.
TEST(RuleLibraryTest, DecomposedSoftmaxOverAnyAxis) {
  for (int64_t axis : {2, 1, 0}) {
    for (bool const_axes : {false, true}) {
      GraphBuilder b;
      ValueRef x = b.InputF32({3, 4, 8});
      ValueRef ax = const_axes ? b.Ints({static_cast<double>(axis - 3)}) : b.Shape({axis});
      ValueRef kd = b.Ints({1});
      ValueRef e = b.Op("Exp", {b.Op("ElementWiseSubtract", {x, b.Op("ReduceMax", {x, ax, kd})})});
      b.Output(b.Op("ElementWiseDivide", {e, b.Op("ReduceSum", {e, ax, kd})}));
      Graph out = OptimizeAndVerify(b.graph());
      EXPECT_EQ(SoftmaxAxis(out), axis) << axis << " " << const_axes;
      EXPECT_EQ(CountOp(out, "Exp"), 0) << axis << " " << const_axes;
      EXPECT_EQ(CountOp(out, "ReduceMax"), 0) << axis << " " << const_axes;
    }
  }
}

// Not over two axes at once, nor with keep_dims 0 (the division would not
// broadcast back).
TEST(RuleLibraryTest, NoSoftmaxOverTwoAxes) {
  GraphBuilder b;
  ValueRef x = b.InputF32({3, 4, 8});
  ValueRef ax = b.Shape({1, 2});
  ValueRef kd = b.Ints({1});
  ValueRef e = b.Op("Exp", {b.Op("ElementWiseSubtract", {x, b.Op("ReduceMax", {x, ax, kd})})});
  b.Output(b.Op("ElementWiseDivide", {e, b.Op("ReduceSum", {e, ax, kd})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Softmax"), 0);
  EXPECT_EQ(CountOp(out, "Exp"), 1);
}

// exp(x) / sum(exp(x)) without the maximum subtracted is the same Softmax.
TEST(RuleLibraryTest, SoftmaxWithoutTheMaximumSubtracted) {
  for (int64_t axis : {2, 1}) {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 4, 8});
    ValueRef e = b.Op("Exp", {x});
    b.Output(b.Op("ElementWiseDivide", {e, b.Op("ReduceSum", {e, b.Shape({axis}), b.Ints({1})})}));
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(SoftmaxAxis(out), axis) << axis;
    EXPECT_EQ(CountOp(out, "Exp"), 0) << axis;
  }
}

// Attention's scores MatMul(q, k) * (1 / sqrt d): the scale moves onto q,
// through the Transpose and Reshape that split the heads, into the query
// projection's constant weights and bias, where it costs nothing.
ValueRef ScaledScores(GraphBuilder& b, ValueRef x, ValueRef scale, bool constant_weights) {
  auto head = [&](double from, std::vector<double> perm) {
    ValueRef w = constant_weights ? b.F32({16, 16}, Ramp(256, from, 0.01)) : b.InputF32({16, 16});
    ValueRef fc = b.Op("FullyConnected", {x, w, b.F32({16}, Ramp(16, -0.1, 0.02))});
    ValueRef split = b.Op("Reshape", {fc, b.Shape({1, 4, 2, 8})});
    return b.Op("Transpose", {split, b.Shape(Dims(perm.begin(), perm.end()))});
  };
  ValueRef q = head(-1.2, {0, 2, 1, 3}), k = head(0.4, {0, 2, 3, 1});
  return b.Op("ElementWiseMultiply", {b.Op("MatMul", {q, k}), scale});
}

TEST(RuleLibraryTest, AttentionScaleFoldsIntoTheQueryProjection) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 16});
  b.Output(ScaledScores(b, x, b.Scalar(0.35355339), /*constant_weights=*/true));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 0);
  EXPECT_EQ(CountOp(out, "FullyConnected"), 2);
}

TEST(RuleLibraryTest, AttentionScaleStaysWithoutConstantWeightsOrWhenNotScalar) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 16});
  // Runtime weights: the scale may move, but a multiply remains.
  b.Output(ScaledScores(b, x, b.Scalar(0.5), /*constant_weights=*/false));
  // A scale per key position is not a scalar.
  b.Output(ScaledScores(b, x, b.F32({4}, {0.5, 1, 1.5, 2}), /*constant_weights=*/true));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);
}

}  // namespace
}  // namespace egret
