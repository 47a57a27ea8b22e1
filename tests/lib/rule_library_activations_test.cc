// The shipped rule library on activations and normalizations as exporters
// spell them: HardSwish, GELU, clips, HardSigmoid, LayerNorm, powers.
#include <gtest/gtest.h>

#include "egret/pipeline/optimize.h"
#include "tests/graph/graph_builder.h"
#include "tests/lib/rule_library_test_util.h"
#include "tests/lib/shipped_library.h"

namespace egret {
namespace {

// x * clip(x + shift, 0, 6), then `scale_op` by `k` (HardSwish for shift 3
// and a division by 6 or a multiplication by 1/6).
ValueRef DecomposedHardSwish(GraphBuilder& b, ValueRef x, double shift, const char* scale_op,
                             double k) {
  ValueRef clip = b.Op("ReluMinMax", {b.Op("ElementWiseAdd", {x, b.F32({1, 1, 1, 1}, {shift})}),
                                      b.F32({1, 1, 1, 1}, {0.0}), b.F32({1, 1, 1, 1}, {6.0})});
  return b.Op(scale_op, {b.Op("ElementWiseMultiply", {x, clip}), b.F32({1, 1, 1, 1}, {k})});
}

TEST(RuleLibraryTest, DecomposedHardSwishAndGelu) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  b.Output(DecomposedHardSwish(b, x, 3.0, "ElementWiseDivide", 6.0));
  ValueRef e = b.Op("Erf", {b.Op("ElementWiseDivide", {x, b.F32({1, 1, 1, 1}, {1.41421356})})});
  ValueRef g = b.Op(
      "ElementWiseMultiply",
      {b.Op("ElementWiseMultiply", {x, b.Op("ElementWiseAdd", {e, b.F32({1, 1, 1, 1}, {1.0})})}),
       b.F32({1, 1, 1, 1}, {0.5})});
  b.Output(g);
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "HardSwish"), 1);
  EXPECT_EQ(CountOp(out, "Gelu"), 1);
  EXPECT_EQ(CountOp(out, "Erf"), 0);
}

TEST(RuleLibraryTest, GeluDividedBySqrt2OnARank3Tensor) {
  // The form ONNX exporters write, on a transformer's [1, T, C] with rank-0
  // constants: the reciprocal rule must keep the rank for Gelu to match.
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  TensorType scalar;
  scalar.dtype = DType::kFloat32;
  auto c = [&](double v) {
    return ValueRef{
        b.graph().AddConstant("", std::make_shared<const Tensor>(Tensor::FromValues(scalar, {v}))),
        0};
  };
  ValueRef e = b.Op("Erf", {b.Op("ElementWiseDivide", {x, c(1.41421356)})});
  b.Output(b.Op("ElementWiseMultiply",
                {b.Op("ElementWiseMultiply", {x, b.Op("ElementWiseAdd", {e, c(1.0)})}), c(0.5)}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Gelu"), 1);
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 0);
}

// GELU with the half distributed over 1 + erf: x/2 * erf(x/sqrt 2) + x/2,
// with the operands in either order and the half inside the product.
TEST(RuleLibraryTest, GeluWithTheHalfDistributed) {
  for (int spelling = 0; spelling < 3; ++spelling) {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 2, 2, 8});
    auto half = [&] { return b.F32({1, 1, 1, 1}, {0.5}); };
    ValueRef e = b.Op("Erf", {b.Op("ElementWiseDivide", {x, b.F32({1, 1, 1, 1}, {1.41421356})})});
    ValueRef h = b.Op("ElementWiseMultiply", {x, half()});
    ValueRef product =
        spelling == 0 ? b.Op("ElementWiseMultiply", {h, e})
        : spelling == 1
            ? b.Op("ElementWiseMultiply", {e, b.Op("ElementWiseMultiply", {half(), x})})
            : b.Op("ElementWiseMultiply", {x, b.Op("ElementWiseMultiply", {half(), e})});
    b.Output(spelling == 1 ? b.Op("ElementWiseAdd", {h, product})
                           : b.Op("ElementWiseAdd", {product, h}));
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(CountOp(out, "Gelu"), 1) << spelling;
    EXPECT_EQ(CountOp(out, "Erf"), 0) << spelling;
  }
}

// The other spelling, x * (clip(x + 3, 0, 6) / 6): the scale applies to the
// clip before the product. With the broadcasting [1,1,1,1] constant,
// associativity across broadcasting makes it one class with
// (x * clip) * (1/6), which the HardSwish rule matches.
TEST(RuleLibraryTest, HardSwishWithTheScaleInsideTheProduct) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  ValueRef clip = b.Op("ReluMinMax", {b.Op("ElementWiseAdd", {x, b.F32({1, 1, 1, 1}, {3.0})}),
                                      b.F32({1, 1, 1, 1}, {0.0}), b.F32({1, 1, 1, 1}, {6.0})});
  b.Output(b.Op("ElementWiseMultiply",
                {x, b.Op("ElementWiseDivide", {clip, b.F32({1, 1, 1, 1}, {6.0})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "HardSwish"), 1);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 0);
}

// Semantic CSE across broadcasting: (x * c) * z and x * (c * z), with c a
// per-channel constant, are one value, computed once.
TEST(RuleLibraryTest, ProductsWithABroadcastConstantAreOneValue) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  ValueRef z = b.InputF32({1, 2, 2, 8});
  ValueRef c = b.F32({1, 1, 1, 8}, {0.5, 1.5, 2, 3, 4, 5, 6, 7});
  b.Output(b.Op("ElementWiseMultiply", {b.Op("ElementWiseMultiply", {x, c}), z}));
  b.Output(b.Op("ElementWiseMultiply", {x, b.Op("ElementWiseMultiply", {c, z})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);
}

// The clip spelled as Minimum(Maximum(x, 0), 6) and as Maximum(Minimum(x, 6),
// 0) (ONNX Max and Min) is the same ReluMinMax, and HardSwish through it;
// bounds the wrong way round (min(max(x, 6), 0) is the constant 0) are not a
// clip.
TEST(RuleLibraryTest, ClipsSpelledWithMaxAndMin) {
  for (bool max_first : {true, false}) {
    SCOPED_TRACE(max_first ? "min(max(x, 0), 6)" : "max(min(x, 6), 0)");
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 2, 2, 8});
    auto clip = [&](ValueRef v, double lo, double hi) {
      ValueRef l = b.F32({1, 1, 1, 1}, {lo}), h = b.F32({1, 1, 1, 1}, {hi});
      return max_first ? b.Op("ElementWiseMinimum", {b.Op("ElementWiseMaximum", {v, l}), h})
                       : b.Op("ElementWiseMaximum", {b.Op("ElementWiseMinimum", {v, h}), l});
    };
    ValueRef shifted = b.Op("ElementWiseAdd", {x, b.F32({1, 1, 1, 1}, {3.0})});
    b.Output(b.Op("ElementWiseDivide", {b.Op("ElementWiseMultiply", {x, clip(shifted, 0, 6)}),
                                        b.F32({1, 1, 1, 1}, {6.0})}));
    b.Output(clip(b.Op("Neg", {x}), 6, 0));  // not a clip
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(CountOp(out, "HardSwish"), 1);
    EXPECT_EQ(CountOp(out, "ReluMinMax"), 0);
    EXPECT_EQ(CountOp(out, "ElementWiseMaximum") + CountOp(out, "ElementWiseMinimum"), 2);
  }
}

// clip(x * a + b, 0, 1) is HardSigmoid(x, a, b), and x times it with a = 1/6,
// b = 1/2 a HardSwish (tests/lib/spellings_test.cc); another upper bound, or
// a per-channel slope, is not a hard sigmoid.
TEST(RuleLibraryTest, HardSigmoidSpelledOut) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  auto clip = [&](ValueRef slope, double hi) {
    ValueRef lin = b.Op("ElementWiseAdd", {b.Op("ElementWiseMultiply", {x, slope}), b.Scalar(0.5)});
    return b.Op("ReluMinMax", {lin, b.Scalar(0), b.Scalar(hi)});
  };
  b.Output(clip(b.Scalar(0.2), 1));
  b.Output(clip(b.Scalar(0.25), 2));
  b.Output(clip(b.F32({8}, Ramp(8, 0.1, 0.05)), 1));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "HardSigmoid"), 1);
  EXPECT_EQ(CountOp(out, "ReluMinMax"), 2);
}

TEST(RuleLibraryTest, HardSwishNeedsTheRightConstants) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  b.Output(DecomposedHardSwish(b, x, 2.0, "ElementWiseMultiply", 1.0 / 6));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "HardSwish"), 0);
}

// The decomposed LayerNorm ONNX exporters write (PP-OCR's recognizer has it).
// The variance's square as d^two, or as d * d when `two` is 0; the
// deviation divided by the root, or multiplied by its reciprocal.
// (Axes given as a constant: tests/lib/spellings_test.cc.)
ValueRef DecomposedLayerNorm(GraphBuilder& b, ValueRef x, double two, bool reciprocal = false) {
  ValueRef ax = b.Shape({2});
  ValueRef kd = b.Ints({1});
  ValueRef d = b.Op("ElementWiseSubtract", {x, b.Op("ReduceMean", {x, ax, kd})});
  ValueRef square =
      two == 0 ? b.Op("ElementWiseMultiply", {d, d}) : b.Op("ElementWisePower", {d, b.Scalar(two)});
  ValueRef var = b.Op("ReduceMean", {square, ax, kd});
  ValueRef den = b.Op("Sqrt", {b.Op("ElementWiseAdd", {var, b.Scalar(1e-5)})});
  ValueRef n =
      reciprocal ? b.Op("ElementWiseMultiply", {d, b.Op("ElementWiseDivide", {b.Scalar(1.0), den})})
                 : b.Op("ElementWiseDivide", {d, den});
  ValueRef g = b.Op("ElementWiseMultiply", {n, b.F32({8}, Ramp(8, 0.5, 0.25))});
  return b.Op("ElementWiseAdd", {g, b.F32({8}, Ramp(8, -1, 0.25))});
}

TEST(RuleLibraryTest, DecomposedLayerNorm) {
  for (double two : {2.0, 0.0}) {  // the square as d^2 and as d * d
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 6, 8});
    b.Output(DecomposedLayerNorm(b, x, two));
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(CountOp(out, "LayerNorm"), 1) << two;
    EXPECT_EQ(CountOp(out, "ReduceMean"), 0) << two;
    EXPECT_EQ(CountOp(out, "Sqrt"), 0) << two;
  }
}

// The deviation times the reciprocal of the root: x * (1 / y) is x / y
// (algebra.rules), so the same LayerNorm.
TEST(RuleLibraryTest, LayerNormWithTheReciprocalOfTheRoot) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 8});
  b.Output(DecomposedLayerNorm(b, x, 2.0, /*reciprocal=*/true));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "LayerNorm"), 1);
  EXPECT_EQ(CountOp(out, "Sqrt"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 0);
}

// x^2 alone becomes x * x (a multiply is cheaper than a power), and x^3
// x * (x * x), sharing the square; x^4 stays.
TEST(RuleLibraryTest, SquareAndCubeAreMultiplies) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(b.Op("ElementWisePower", {x, b.Scalar(2.0)}));
  b.Output(b.Op("ElementWisePower", {x, b.Scalar(3.0)}));
  b.Output(b.Op("ElementWisePower", {x, b.Scalar(4.0)}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWisePower"), 1);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);
}

// TensorFlow's folded form x * a + (beta - mean * a) is a LayerNorm
// (tests/lib/spellings_test.cc) only when the mean is x's own.
TEST(RuleLibraryTest, NotALayerNormWhenTheFoldedMeanIsAnotherTensors) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 8}), z = b.InputF32({1, 6, 8});
  ValueRef ax = b.Shape({2}), kd = b.Ints({1});
  ValueRef mean = b.Op("ReduceMean", {x, ax, kd});
  ValueRef d = b.Op("ElementWiseSubtract", {x, mean});
  ValueRef var = b.Op("ReduceMean", {b.Op("ElementWiseMultiply", {d, d}), ax, kd});
  ValueRef root = b.Op("Sqrt", {b.Op("ElementWiseAdd", {var, b.Scalar(1e-5)})});
  ValueRef a = b.Op("ElementWiseDivide", {b.F32({8}, Ramp(8, 0.5, 0.25)), root});
  ValueRef other = b.Op("ReduceMean", {z, ax, kd});
  b.Output(b.Op("ElementWiseAdd",
                {b.Op("ElementWiseMultiply", {x, a}),
                 b.Op("ElementWiseSubtract",
                      {b.F32({8}, Ramp(8, -1, 0.25)), b.Op("ElementWiseMultiply", {other, a})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "LayerNorm"), 0);
}

TEST(RuleLibraryTest, NotALayerNormWithAnotherPower) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 8});
  b.Output(DecomposedLayerNorm(b, x, 3.0));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "LayerNorm"), 0);
}

}  // namespace
}  // namespace egret
