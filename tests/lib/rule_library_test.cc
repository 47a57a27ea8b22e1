// The shipped rule library (rules/lib/*.rules): each rule fires where it
// should and not where it should not, the optimized graph is cheaper, and the
// reference executor computes the same outputs before and after.
#include <cmath>
#include <string>
#include <vector>

#include "tests/graph/graph_builder.h"
#include "egret/pipeline/optimize.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "shipped_library.h"

namespace egret {
namespace {

using testing::GraphBuilder;

const rules::RuleSet& Library() { return testing::ShippedLibrary(); }

using testing::CountOp;

// Optimizes `g` with the library and checks what must hold for every rule
// (testing::OptimizeWithLibrary).
Graph OptimizeAndVerify(const Graph& g) {
  return std::move(testing::OptimizeWithLibrary(g, 7, {.rtol = 1e-4, .atol = 1e-5}).graph);
}

std::vector<double> Ramp(int n, double from, double step) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = from + step * i;
  return v;
}

// A 3x3 convolution of an [1,6,6,4] input to 8 channels, with or without
// dilation (6 or 5 inputs).
ValueRef Conv(GraphBuilder& b, ValueRef in, const std::string& op, bool dilation) {
  const int cout = 8, fcin = op == "DepthWiseConv2d" ? 1 : 4;
  ValueRef f = b.F32({3, 3, fcin, cout}, Ramp(9 * fcin * cout, -0.5, 0.01));
  ValueRef bias = b.F32({cout}, Ramp(cout, -0.2, 0.05));
  std::vector<ValueRef> ins = {in, f, bias, b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})};
  if (dilation) ins.push_back(b.Shape({1, 1, 1, 1}));
  return b.Op(op, ins);
}

TEST(RuleLibraryTest, ImplementationsCoverTheOpVocabulary) {
  const rules::OpRegistry& reg = Library().ops;
  for (const char* op : {"Conv2d", "DepthWiseConv2d", "FullyConnected", "MatMul", "ElementWiseAdd",
                         "Relu", "ReluMinMax", "Softmax", "Batchnorm", "Reshape", "Transpose",
                         "Concat", "PoolMax2d", "PoolAvg2d", "Gelu", "HardSwish", "Cast"}) {
    EXPECT_TRUE(reg.Contains(op)) << op;
  }
}

// Neg is an involution in the op table (graph/ops_elementwise.cc), so the e-graph's
// built-in rewrites cancel a double negation.
TEST(RuleLibraryTest, DoubleNegationCancels) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  b.Output(b.Op("Relu", {b.Op("Neg", {b.Op("Neg", {x})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Neg"), 0);
  EXPECT_EQ(CountOp(out, "Relu"), 1);
}

TEST(RuleLibraryTest, ConvBatchnormReluFoldsIntoOneConv) {
  for (const char* op : {"Conv2d", "DepthWiseConv2d"}) {
    for (bool dilation : {false, true}) {
      GraphBuilder b;
      ValueRef x = b.InputF32({1, 6, 6, 4});
      ValueRef c = Conv(b, x, op, dilation);
      ValueRef bn =
          b.Op("Batchnorm", {c, b.F32({8}, Ramp(8, 0.5, 0.1)), b.F32({8}, Ramp(8, -1, 0.3))});
      b.Output(b.Op("Relu", {bn}));
      Graph out = OptimizeAndVerify(b.graph());
      EXPECT_EQ(CountOp(out, "Batchnorm"), 0) << op;
      EXPECT_EQ(CountOp(out, "Relu") + CountOp(out, "ReluMinMax"), 0) << op;
      EXPECT_EQ(CountOp(out, op), 1) << op;
    }
  }
}

TEST(RuleLibraryTest, BatchnormIsNotFoldedIntoANonConstantFilter) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 6, 4});
  ValueRef f = b.InputF32({3, 3, 4, 8});  // a runtime filter: nothing to fold into
  ValueRef c = b.Op(
      "Conv2d", {x, f, b.F32({8}, Ramp(8, 0, 0.1)), b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})});
  b.Output(b.Op("Batchnorm", {c, b.F32({8}, Ramp(8, 0.5, 0.1)), b.F32({8}, Ramp(8, 0, 0.1))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Batchnorm"), 1);
}

// ShuffleNet's channel shuffle as the importer writes it for an NCHW model:
// NHWC -> NCHW, [b,g,k,h,w], swap g and k, [b,c,h,w], back to NHWC.
Graph ChannelShuffle(std::vector<double> p2) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 5, 6});
  ValueRef y = b.Op("ElementWiseAdd", {x, x});  // so that the shuffle reads a computed tensor
  ValueRef t1 = b.Op("Transpose", {y, b.Shape({0, 3, 1, 2})});
  ValueRef r1 = b.Op("Reshape", {t1, b.Shape({1, 2, 3, 4, 5})});
  Dims p2d(p2.begin(), p2.end());
  ValueRef t2 = b.Op("Transpose", {r1, b.Shape(p2d)});
  ValueRef r2 = b.Op("Reshape", {t2, b.Shape({1, 6, 4, 5})});
  b.Output(b.Op("Transpose", {r2, b.Shape({0, 2, 3, 1})}));
  return b.graph();
}

TEST(RuleLibraryTest, ChannelShuffleBecomesOneTranspose) {
  Graph out = OptimizeAndVerify(ChannelShuffle({0, 2, 1, 3, 4}));
  EXPECT_EQ(CountOp(out, "Transpose"), 1);
  for (const Node& n : out.nodes()) {
    if (n.op == "Transpose") {
      EXPECT_EQ(n.outputs[0].dims, (Dims{1, 4, 5, 3, 2}));
    }
  }
}

TEST(RuleLibraryTest, OtherTransposeReshapeChainsAreKept) {
  // Swapping h and w instead of the groups is not a channel shuffle.
  Graph out = OptimizeAndVerify(ChannelShuffle({0, 1, 2, 4, 3}));
  EXPECT_EQ(CountOp(out, "Transpose"), 3);
}

TEST(RuleLibraryTest, ScaleAfterBatchnormFoldsIntoIt) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  ValueRef bn = b.Op("Batchnorm", {x, b.F32({8}, Ramp(8, 0.5, 0.1)), b.F32({8}, Ramp(8, 0, 0.1))});
  ValueRef m = b.Op("ElementWiseMultiply", {bn, b.F32({1, 1, 1, 8}, Ramp(8, 2, -0.25))});
  b.Output(b.Op("ElementWiseAdd", {m, b.F32({1, 1, 1, 8}, Ramp(8, -1, 0.25))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Batchnorm"), 1);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseAdd"), 0);
}

TEST(RuleLibraryTest, FullPlaneMultiplyAfterBatchnormIsKept) {
  // The constant varies over h and w: not a per-channel scale.
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  ValueRef bn = b.Op("Batchnorm", {x, b.F32({8}, Ramp(8, 0.5, 0.1)), b.F32({8}, Ramp(8, 0, 0.1))});
  b.Output(b.Op("ElementWiseMultiply", {bn, b.F32({1, 2, 2, 8}, Ramp(32, 1, 0.1))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 1);
}

TEST(RuleLibraryTest, ActivationFusesIntoFullyConnected) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2, 16});
  ValueRef fc = b.Op("FullyConnected",
                     {x, b.F32({4, 16}, Ramp(64, -0.3, 0.01)), b.F32({4}, Ramp(4, 0, 0.1))});
  b.Output(b.Op("Relu6", {fc}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Relu6") + CountOp(out, "ReluMinMax"), 0);
  ASSERT_EQ(CountOp(out, "FullyConnected"), 1);
}

TEST(RuleLibraryTest, SharedConvKeepsItsRelu) {
  // The conv's raw output is also a graph output: fusing would compute the
  // conv twice, which costs more than the Relu.
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 6, 4});
  ValueRef c = Conv(b, x, "Conv2d", true);
  b.Output(c);
  b.Output(b.Op("Relu", {c}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Conv2d"), 1);
  EXPECT_EQ(CountOp(out, "Relu") + CountOp(out, "ReluMinMax"), 1);
}

TEST(RuleLibraryTest, ReshapeAndTransposeCleanup) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  ValueRef r1 = b.Op("Reshape", {x, b.Shape({16, 8})});
  ValueRef r2 = b.Op("Reshape", {r1, b.Shape({1, 128})});
  b.Output(b.Op("Softmax", {r2}));
  ValueRef t1 = b.Op("Transpose", {x, b.Shape({0, 3, 1, 2})});
  ValueRef t2 = b.Op("Transpose", {t1, b.Shape({0, 2, 3, 1})});
  b.Output(b.Op("Relu", {t2}));
  // Not inverse permutations: both stay.
  ValueRef u1 = b.Op("Transpose", {x, b.Shape({0, 2, 1, 3})});
  b.Output(b.Op("Transpose", {u1, b.Shape({0, 3, 1, 2})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Reshape"), 1);
  EXPECT_EQ(CountOp(out, "Transpose"), 2);
}

TEST(RuleLibraryTest, AlgebraIdentitiesAndReciprocal) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  ValueRef m = b.Op("ElementWiseMultiply", {x, b.F32({1, 1, 1, 1}, {1.0})});
  ValueRef a = b.Op("ElementWiseAdd", {m, b.F32({1, 1, 1, 1}, {0.0})});
  b.Output(b.Op("ElementWiseDivide", {a, b.F32({1, 1, 1, 1}, {4.0})}));
  // x * 2 is not an identity.
  b.Output(b.Op("ElementWiseMultiply", {x, b.F32({1, 1, 1, 1}, {2.0})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseAdd"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);  // x * 0.25 and x * 2
}

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

// --- The identities of algebra.rules that recognition composes
// (tests/lib/spellings_test.cc has the compositions).

// a / b is a * (1 / b): the reciprocal is computed on b, here the [1,64,1]
// row sums, and the quotient of the [1,64,256] tensor becomes a multiply.
TEST(RuleLibraryTest, QuotientIsAProductWithTheReciprocal) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 64, 256});
  ValueRef s = b.Op("ReduceSum", {b.Op("Abs", {x}), b.Shape({2}), b.Ints({1})});
  b.Output(b.Op("ElementWiseDivide", {x, b.Op("ElementWiseAdd", {s, b.Scalar(1.0)})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 1);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 1);
  // The remaining division is the reciprocal of the [1,64,1] sums.
  for (const Node& n : out.nodes()) {
    if (n.op == "ElementWiseDivide") {
      EXPECT_EQ(n.outputs[0].num_elements(), 64);
    }
  }
}

// 1 / sqrt(y) is ElementWiseRsqrt(y).
TEST(RuleLibraryTest, ReciprocalOfTheRootIsRsqrt) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(b.Op("ElementWiseDivide", {b.Scalar(1.0), b.Op("Sqrt", {b.Op("Abs", {x})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseRsqrt"), 1);
  EXPECT_EQ(CountOp(out, "Sqrt"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 0);
}

// x * -1 and 0 - x are Neg(x); x * -2 is not.
TEST(RuleLibraryTest, NegationsAreNeg) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(b.Op("ElementWiseMultiply", {x, b.Scalar(-1.0)}));
  b.Output(b.Op("ElementWiseSubtract", {b.Scalar(0.0), b.Op("Abs", {x})}));
  b.Output(b.Op("ElementWiseMultiply", {x, b.Scalar(-2.0)}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Neg"), 2);
  EXPECT_EQ(CountOp(out, "ElementWiseSubtract"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 1);
}

// log(exp(x)) is x.
TEST(RuleLibraryTest, LogOfExpIsTheArgument) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(b.Op("Relu", {b.Op("Log", {b.Op("Exp", {x})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Log"), 0);
  EXPECT_EQ(CountOp(out, "Exp"), 0);
}

// exp(log(s)) is s only where s is a sum of exponentials (positive): not for
// an arbitrary s, where the logarithm of a negative value is NaN.
TEST(RuleLibraryTest, ExpOfLogCancelsOnlyForASumOfExponentials) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  ValueRef s = b.Op("ReduceSum", {b.Op("Exp", {x}), b.Shape({2}), b.Ints({1})});
  b.Output(b.Op("Exp", {b.Op("Log", {s})}));
  b.Output(b.Op("Exp", {b.Op("Log", {b.Op("Neg", {x})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Log"), 1);
  EXPECT_EQ(CountOp(out, "Exp"), 2);  // the summed exponentials and exp(log(-x))
}

// 1 / (1 + exp(-x)) is Sigmoid(x).
TEST(RuleLibraryTest, LogisticIsSigmoid) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  ValueRef d = b.Op("ElementWiseAdd", {b.Scalar(1.0), b.Op("Exp", {b.Op("Neg", {x})})});
  b.Output(b.Op("ElementWiseDivide", {b.Scalar(1.0), d}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Sigmoid"), 1);
  EXPECT_EQ(CountOp(out, "Exp"), 0);
}

// exp(a - b) = exp(a) / exp(b), x - (a + b) = (x - a) - b and a*c + c =
// (a + 1)*c change nothing alone (the extractor keeps the cheaper form);
// tests/lib/spellings_test.cc shows what each enables (SoftmaxThroughLog-
// SumExp, SoftmaxThroughStableLogSumExp, GeluTanh*, GeluPhiAsHalfPlusHalfErf).

// A constant tensor of one repeated value is its scalar (pipeline/
// uniform_constant.h): x * [1, 1, ..., 1] is x, and the division by a full
// tensor of 4s a multiply by 0.25; a tensor of different values stays.
TEST(RuleLibraryTest, UniformConstantTensorIsItsScalar) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(
      b.Op("Relu", {b.Op("ElementWiseMultiply", {x, b.F32({8}, std::vector<double>(8, 1.0))})}));
  b.Output(b.Op("ElementWiseDivide", {x, b.F32({8}, std::vector<double>(8, 4.0))}));
  b.Output(b.Op("ElementWiseMultiply", {x, b.F32({8}, Ramp(8, 1.0, 1.0))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);
}

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

TEST(RuleLibraryTest, BiasAfterFullyConnectedJoinsIt) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 16});
  ValueRef fc = b.Op("FullyConnected", {x, b.F32({4, 16}, Ramp(64, -0.3, 0.01))});
  b.Output(b.Op("ElementWiseAdd", {fc, b.F32({4}, Ramp(4, 1, 0.5))}));
  // A full-shape addend is not a bias.
  ValueRef fc2 = b.Op("FullyConnected", {x, b.F32({4, 16}, Ramp(64, 0.2, -0.01))});
  b.Output(b.Op("ElementWiseAdd", {fc2, b.F32({1, 6, 4}, Ramp(24, 0, 0.1))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "FullyConnected"), 2);
  EXPECT_EQ(CountOp(out, "ElementWiseAdd"), 1);
}

// A Pad of an [1,6,6,cin] input: `pads` [b0,b1,h0,h1,w0,w1,c0,c1]; no
// mode/value inputs when `value` is null, else mode `mode` and `value`.
ValueRef PadOf(GraphBuilder& b, ValueRef x, const std::vector<int64_t>& pads, int mode,
               const double* value) {
  std::vector<ValueRef> ins = {x, b.Shape(Dims(pads.begin(), pads.end()))};
  if (value != nullptr) {
    ins.push_back(b.Ints({static_cast<double>(mode)}));
    ins.push_back(b.Scalar(*value));
  }
  return b.Op("Pad", ins);
}

// A zero Pad of the spatial dims before a convolution becomes the
// convolution's padding (MLSD's TF-style "same" padding), with the Pad's
// defaults or its value written out, with and without dilation.
TEST(RuleLibraryTest, ZeroPadFoldsIntoConvolution) {
  const double zero = 0;
  for (const char* op : {"Conv2d", "DepthWiseConv2d"}) {
    for (bool dilation : {false, true}) {
      for (const double* value : {static_cast<const double*>(nullptr), &zero}) {
        GraphBuilder b;
        ValueRef x = b.InputF32({1, 5, 5, 4});
        ValueRef c = Conv(b, PadOf(b, x, {0, 0, 0, 1, 1, 0, 0, 0}, 0, value), op, dilation);
        b.Output(b.Op("Sigmoid", {c}));
        Graph out = OptimizeAndVerify(b.graph());
        EXPECT_EQ(CountOp(out, "Pad"), 0) << op << dilation << (value != nullptr);
        EXPECT_EQ(CountOp(out, op), 1) << op;
      }
    }
  }
}

// The Pad stays where the convolution's zero padding would compute something
// else: a non-zero value, a reflect pad, channel padding, or a combined pad
// as large as the filter (an output reading padding only).
TEST(RuleLibraryTest, PadThatIsNotConvolutionPaddingStays) {
  const double half = 0.5, zero = 0;
  struct Case {
    const char* what;
    std::vector<int64_t> pads;
    int mode;
    const double* value;
    int cin;
  };
  const Case cases[] = {
      {"non-zero value", {0, 0, 1, 1, 1, 1, 0, 0}, 0, &half, 4},
      {"reflect", {0, 0, 1, 1, 1, 1, 0, 0}, 2, &zero, 4},
      {"channels", {0, 0, 0, 0, 0, 0, 1, 0}, 0, &zero, 3},
      {"as large as the filter", {0, 0, 2, 0, 0, 0, 0, 0}, 0, &zero, 4},
  };
  for (const Case& k : cases) {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 5, 5, k.cin});
    b.Output(b.Op("Sigmoid", {Conv(b, PadOf(b, x, k.pads, k.mode, k.value), "Conv2d", false)}));
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(CountOp(out, "Pad"), 1) << k.what;
  }
}

// A 3x3 pool with stride 2 and pads [0,0,0,0] of `in`.
ValueRef Pool(GraphBuilder& b, ValueRef in, const char* op, int count_pad) {
  std::vector<ValueRef> ins = {in, b.Shape({1, 3, 3, 1}), b.Shape({1, 2, 2, 1}),
                               b.Shape({0, 0, 0, 0})};
  if (count_pad >= 0) ins.push_back(b.Ints({static_cast<double>(count_pad)}));
  return b.Op(op, ins);
}

// A Pad before a pool becomes the pool's padding: -inf before a max pool; a
// value no larger than the Relu before it; zeros before an average pool,
// which then counts the padding (count_pad 1).
TEST(RuleLibraryTest, PadFoldsIntoPooling) {
  const double neg_inf = -INFINITY, zero = 0;
  const std::vector<int64_t> pads = {0, 0, 1, 1, 0, 2, 0, 0};
  struct Case {
    const char* what;
    const char* op;
    const double* value;
    bool relu;
    int count_pad;  // -1: not given
  };
  const Case cases[] = {
      {"max, -inf", "PoolMax2d", &neg_inf, false, -1},
      {"max after Relu, 0", "PoolMax2d", &zero, true, -1},
      {"avg, 0, count_pad 0", "PoolAvg2d", &zero, false, 0},
      {"avg, 0, no count_pad", "PoolAvg2d", &zero, false, -1},
      {"avg, 0, count_pad 1", "PoolAvg2d", &zero, false, 1},
  };
  for (const Case& k : cases) {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 7, 7, 4});
    if (k.relu) x = b.Op("Relu", {x});
    b.Output(b.Op("Sigmoid", {Pool(b, PadOf(b, x, pads, 0, k.value), k.op, k.count_pad)}));
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(CountOp(out, "Pad"), 0) << k.what;
    EXPECT_EQ(CountOp(out, k.op), 1) << k.what;
  }
}

// A zero Pad before a max pool of any input would let the padding win; an
// average pool that does not count its own padding cannot count the Pad's.
TEST(RuleLibraryTest, PadThatIsNotPoolPaddingStays) {
  const double zero = 0, neg_inf = -INFINITY;
  {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 7, 7, 4});
    b.Output(b.Op("Sigmoid",
                  {Pool(b, PadOf(b, x, {0, 0, 1, 1, 1, 1, 0, 0}, 0, &zero), "PoolMax2d", -1)}));
    EXPECT_EQ(CountOp(OptimizeAndVerify(b.graph()), "Pad"), 1) << "max, 0";
  }
  {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 7, 7, 4});
    ValueRef p = PadOf(b, x, {0, 0, 1, 1, 1, 1, 0, 0}, 0, &zero);
    b.Output(b.Op("Sigmoid", {b.Op("PoolAvg2d", {p, b.Shape({1, 3, 3, 1}), b.Shape({1, 2, 2, 1}),
                                                 b.Shape({1, 1, 1, 1}), b.Ints({0})})}));
    EXPECT_EQ(CountOp(OptimizeAndVerify(b.graph()), "Pad"), 1) << "avg with own pads";
  }
  {
    // Channel padding with -inf.
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 7, 7, 4});
    b.Output(b.Op("Sigmoid",
                  {Pool(b, PadOf(b, x, {0, 0, 0, 0, 0, 0, 0, 2}, 0, &neg_inf), "PoolMax2d", -1)}));
    EXPECT_EQ(CountOp(OptimizeAndVerify(b.graph()), "Pad"), 1) << "channels";
  }
}

}  // namespace
}  // namespace egret
