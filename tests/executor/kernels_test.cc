// The reference executor's arithmetic ops against hand-computed values:
// convolutions, matrix products, elementwise ops, activations,
// normalizations and reductions (data movement: kernels_movement_test.cc;
// logic and indexing: kernels_logic_test.cc).
#include "tests/executor/kernels_test_util.h"

namespace egret {
namespace {

// ---------------------------------------------------------------------------
// Convolutions.

ValueRef Conv(GraphBuilder& b, std::string op, ValueRef x, ValueRef f, ValueRef bias, Dims stride,
              Dims pads, Dims dilation = {1, 1, 1, 1}) {
  return b.Op(std::move(op),
              {x, f, bias, b.Shape(stride), b.Shape(pads), b.Shape(std::move(dilation))});
}

TEST(Conv2d, Valid) {
  GraphBuilder b;
  auto y = Conv(b, "Conv2d", b.F32({1, 3, 3, 1}, Iota(9)), b.F32({2, 2, 1, 1}, {1, 1, 1, 1}),
                b.F32({1}, {0}), {1, 1, 1, 1}, {0, 0, 0, 0});
  Dims d;
  EXPECT_THAT(RunOp(b, y, &d), ElementsAre(12, 16, 24, 28));
  EXPECT_EQ(d, (Dims{1, 2, 2, 1}));
}

TEST(Conv2d, StridePaddingBias) {
  GraphBuilder b;
  auto y = Conv(b, "Conv2d", b.F32({1, 3, 3, 1}, Iota(9)),
                b.F32({3, 3, 1, 1}, std::vector<double>(9, 1)), b.F32({1}, {1}), {1, 2, 2, 1},
                {1, 1, 1, 1});
  EXPECT_THAT(RunOp(b, y), ElementsAre(13, 17, 25, 29));
}

TEST(Conv2d, AsymmetricPads) {
  // Pad only the bottom and right: the 2x2 ones filter sees 3x3 + a zero rim.
  GraphBuilder b;
  auto y = Conv(b, "Conv2d", b.F32({1, 2, 2, 1}, {1, 2, 3, 4}), b.F32({2, 2, 1, 1}, {1, 1, 1, 1}),
                b.F32({1}, {0}), {1, 1, 1, 1}, {0, 1, 0, 1});
  Dims d;
  EXPECT_THAT(RunOp(b, y, &d), ElementsAre(10, 6, 7, 4));
  EXPECT_EQ(d, (Dims{1, 2, 2, 1}));
}

TEST(Conv2d, Dilation) {
  GraphBuilder b;
  auto y = Conv(b, "Conv2d", b.F32({1, 3, 3, 1}, Iota(9)), b.F32({2, 2, 1, 1}, {1, 10, 100, 1000}),
                b.F32({1}, {0}), {1, 1, 1, 1}, {0, 0, 0, 0}, {1, 2, 2, 1});
  EXPECT_THAT(RunOp(b, y), ElementsAre(9731));
}

TEST(Conv2d, MultipleChannels) {
  // 1x1 conv, 2 in -> 3 out: out[o] = sum_k x[k] * w[k][o].
  GraphBuilder b;
  auto y = Conv(b, "Conv2d", b.F32({1, 1, 1, 2}, {1, 2}), b.F32({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}),
                b.F32({3}, {0, 0, 100}), {1, 1, 1, 1}, {0, 0, 0, 0});
  EXPECT_THAT(RunOp(b, y), ElementsAre(9, 12, 115));
}

TEST(Conv2d, Groups) {
  GraphBuilder b;
  auto y = Conv(b, "Conv2d", b.F32({1, 1, 1, 4}, {1, 2, 3, 4}), b.F32({1, 1, 2, 2}, {1, 2, 3, 4}),
                b.F32({2}, {0, 0}), {1, 1, 1, 1}, {0, 0, 0, 0});
  EXPECT_THAT(RunOp(b, y), ElementsAre(7, 22));
}

TEST(Conv2d, FusedActivationClamp) {
  // out = (9, 12, 115) before the clamp into [10, 100].
  GraphBuilder b;
  auto y = b.Op("Conv2d", {b.F32({1, 1, 1, 2}, {1, 2}), b.F32({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}),
                           b.F32({3}, {0, 0, 100}), b.Shape({1, 1, 1, 1}), b.Shape({0, 0, 0, 0}),
                           b.Shape({1, 1, 1, 1}), b.Scalar(10), b.Scalar(100)});
  EXPECT_THAT(RunOp(b, y), ElementsAre(10, 12, 100));
}

TEST(FullyConnected, FusedActivationClamp) {
  // out = (1*1 + 2*2 - 10, -(1*1 + 2*2) + 1) = (-5, -4) before the clamp into [-4.5, inf).
  GraphBuilder b;
  auto y = b.Op("FullyConnected",
                {b.F32({1, 2}, {1, 2}), b.F32({2, 2}, {1, 2, -1, -2}), b.F32({2}, {-10, 1}),
                 b.Scalar(-4.5), b.Scalar(std::numeric_limits<double>::infinity())});
  EXPECT_THAT(RunOp(b, y), ElementsAre(-4.5, -4));
}

TEST(DepthWiseConv2d, PerChannelAndMultiplier) {
  GraphBuilder b;
  auto y =
      Conv(b, "DepthWiseConv2d", b.F32({1, 1, 2, 2}, {1, 2, 3, 4}),
           b.F32({1, 2, 1, 2}, {1, 10, 100, 1000}), b.F32({2}, {0, 0}), {1, 1, 1, 1}, {0, 0, 0, 0});
  EXPECT_THAT(RunOp(b, y), ElementsAre(301, 4020));
  GraphBuilder m;
  auto z = Conv(m, "DepthWiseConv2d", m.F32({1, 1, 1, 1}, {3}), m.F32({1, 1, 1, 2}, {2, 5}),
                m.F32({2}, {0, 1}), {1, 1, 1, 1}, {0, 0, 0, 0});
  EXPECT_THAT(RunOp(m, z), ElementsAre(6, 16));
}

TEST(TransposeConv2d, Stride2) {
  GraphBuilder b;
  auto y = Conv(b, "TransposeConv2d", b.F32({1, 2, 2, 1}, {1, 2, 3, 4}),
                b.F32({2, 2, 1, 1}, {1, 2, 3, 4}), b.F32({1}, {0.5}), {1, 2, 2, 1}, {0, 0, 0, 0});
  Dims d;
  std::vector<double> want = {1, 2, 2, 4, 3, 4, 6, 8, 3, 6, 4, 8, 9, 12, 12, 16};
  for (double& w : want) w += 0.5;
  EXPECT_THAT(RunOp(b, y, &d), ElementsAreArray(want));
  EXPECT_EQ(d, (Dims{1, 4, 4, 1}));
}

TEST(TransposeConv2d, OverlapPadsAndOutputPadding) {
  GraphBuilder b;
  auto y = Conv(b, "TransposeConv2d", b.F32({1, 1, 2, 1}, {1, 2}), b.F32({1, 2, 1, 1}, {1, 10}),
                b.F32({1}, {0}), {1, 1, 1, 1}, {0, 0, 0, 0});
  EXPECT_THAT(RunOp(b, y), ElementsAre(1, 12, 20));
  // Pad 1 on the left crops the first column; output_padding adds one at the end.
  GraphBuilder c;
  auto z = c.Op("TransposeConv2d", {c.F32({1, 1, 2, 1}, {1, 2}), c.F32({1, 2, 1, 1}, {1, 10}),
                                    c.F32({1}, {0}), c.Shape({1, 1, 1, 1}), c.Shape({0, 0, 1, 0}),
                                    c.Shape({1, 1, 1, 1}), c.Shape({0, 0, 1, 0})});
  Dims d;
  EXPECT_THAT(RunOp(c, z, &d), ElementsAre(12, 20, 0));
  EXPECT_EQ(d, (Dims{1, 1, 3, 1}));
}

TEST(TransposeConv2d, GroupsMapInputGroupToOutputGroup) {
  // 2 groups, 1 channel each: out[g] = x[g] * w[0, g].
  GraphBuilder b;
  auto y = Conv(b, "TransposeConv2d", b.F32({1, 1, 1, 2}, {2, 3}), b.F32({1, 1, 1, 2}, {5, 7}),
                b.F32({2}, {0, 0}), {1, 1, 1, 1}, {0, 0, 0, 0});
  EXPECT_THAT(RunOp(b, y), ElementsAre(10, 21));
}

// ---------------------------------------------------------------------------
// Matrix products.

TEST(FullyConnected, WeightsAreUnitsByDepth) {
  GraphBuilder b;
  auto y = b.Op("FullyConnected",
                {b.F32({2, 3}, Iota(6)), b.F32({2, 3}, {1, 0, 1, 0, 1, 0}), b.F32({2}, {10, 20})});
  EXPECT_THAT(RunOp(b, y), ElementsAre(14, 22, 20, 25));
  GraphBuilder nb;  // without bias
  auto z = nb.Op("FullyConnected", {nb.F32({1, 2}, {1, 2}), nb.F32({1, 2}, {3, 4})});
  EXPECT_THAT(RunOp(nb, z), ElementsAre(11));
}

TEST(MatMul, BroadcastBatch) {
  GraphBuilder b;
  auto y = b.Op("MatMul", {b.F32({2, 1, 2}, {1, 2, 3, 4}), b.F32({2, 2}, {1, 2, 3, 4})});
  Dims d;
  EXPECT_THAT(RunOp(b, y, &d), ElementsAre(7, 10, 15, 22));
  EXPECT_EQ(d, (Dims{2, 1, 2}));
}

// ---------------------------------------------------------------------------
// Elementwise.

TEST(ElementWise, BroadcastAdd) {
  Dims d;
  EXPECT_THAT(BinaryOp("ElementWiseAdd", {2, 1}, {1, 2}, {3}, {10, 20, 30}, &d),
              ElementsAre(11, 21, 31, 12, 22, 32));
  EXPECT_EQ(d, (Dims{2, 3}));
  EXPECT_THAT(BinaryOp("ElementWiseAdd", {}, {5}, {2, 2}, {1, 2, 3, 4}), ElementsAre(6, 7, 8, 9));
}

TEST(ElementWise, AllOps) {
  EXPECT_THAT(BinaryOp("ElementWiseSubtract", {1, 3}, {1, 2, 3}, {2, 1}, {1, 10}),
              ElementsAre(0, 1, 2, -9, -8, -7));
  EXPECT_THAT(BinaryOp("ElementWiseMultiply", {3}, {1, 2, 3}, {1}, {-2}), ElementsAre(-2, -4, -6));
  EXPECT_THAT(BinaryOp("ElementWiseDivide", {3}, {1, 2, 3}, {3}, {4, 4, 2}),
              ElementsAre(0.25, 0.5, 1.5));
  EXPECT_THAT(BinaryOp("ElementWiseMaximum", {3}, {1, 5, 3}, {3}, {4, 4, 4}), ElementsAre(4, 5, 4));
  EXPECT_THAT(BinaryOp("ElementWiseMinimum", {3}, {1, 5, 3}, {3}, {4, 4, 4}), ElementsAre(1, 4, 3));
  EXPECT_THAT(BinaryOp("ElementWisePower", {3}, {2, 3, 4}, {1}, {2}), ElementsAre(4, 9, 16));
}

TEST(ElementWise, IntegerDivideTruncates) {
  GraphBuilder b;
  auto y = b.Op("ElementWiseDivide", {b.Ints({7, -7}), b.Ints({2, 2})});
  EXPECT_THAT(RunOp(b, y), ElementsAre(3, -3));
}

// ---------------------------------------------------------------------------
// Activations.

std::vector<double> Unary(const std::string& op, std::vector<double> x,
                          std::vector<double> params = {}) {
  GraphBuilder b;
  std::vector<ValueRef> in = {b.F32({static_cast<int64_t>(x.size())}, x)};
  for (double p : params) in.push_back(b.Scalar(p));
  return RunOp(b, b.Op(op, in));
}

// Unary with one integer parameter.
std::vector<double> UnaryInt(const std::string& op, std::vector<double> x, int64_t param) {
  GraphBuilder b;
  return RunOp(b, b.Op(op, {b.F32({static_cast<int64_t>(x.size())}, x), b.Int(param)}));
}

TEST(Activation, ReluFamily) {
  const std::vector<double> x = {-2, -0.5, 0.5, 7};
  EXPECT_THAT(Unary("Relu", x), ElementsAre(0, 0, 0.5, 7));
  EXPECT_THAT(Unary("Relu1", x), ElementsAre(-1, -0.5, 0.5, 1));
  EXPECT_THAT(Unary("Relu6", x), ElementsAre(0, 0, 0.5, 6));
  EXPECT_THAT(Unary("ReluX", x, {4}), ElementsAre(0, 0, 0.5, 4));
  EXPECT_THAT(Unary("ReluMinMax", x, {-1, 2}), ElementsAre(-1, -0.5, 0.5, 2));
  EXPECT_THAT(Unary("Relu.fp16", x), ElementsAre(0, 0, 0.5, 7));  // implementation suffix
}

TEST(Activation, Smooth) {
  EXPECT_THAT(Unary("Sigmoid", {0, 2}), Near({0.5, 0.8807971}));
  EXPECT_THAT(Unary("Tanh", {0, 1}), Near({0, 0.7615942}));
  EXPECT_THAT(Unary("HardSigmoid", {-3, -0.5, 0.5, 3}, {0.2, 0.5}), Near({0, 0.4, 0.6, 1}));
  EXPECT_THAT(Unary("HardSwish", {-4, -2, -0.5, 0.5, 7}),
              Near({0, -1.0 / 3, -0.2083333, 0.2916667, 7}));
  EXPECT_THAT(Unary("Gelu", {-1, 0, 1}), Near({-0.1586553, 0, 0.8413447}));
  EXPECT_THAT(UnaryInt("Gelu", {-1, 0, 1}, 0), Near({-0.1586553, 0, 0.8413447}));
  // approximate 1: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  EXPECT_THAT(UnaryInt("Gelu", {-1, 0, 1}, 1), Near({-0.1588080, 0, 0.8411920}));
  EXPECT_THAT(Unary("Swish", {-1, 0, 2}), Near({-0.2689414, 0, 1.7615942}));
  EXPECT_THAT(Unary("ElementWiseRsqrt", {4, 0.25}), Near({0.5, 2}));
  EXPECT_THAT(Unary("Erf", {-0.5, 0, 0.5}), Near({-0.5204999, 0, 0.5204999}));
  EXPECT_THAT(Unary("Exp", {0, 1}), Near({1, 2.7182818}));
  EXPECT_THAT(Unary("Log", {1, 2.7182818}), Near({0, 1}));
  EXPECT_THAT(Unary("Sqrt", {4, 2.25}), Near({2, 1.5}));
  EXPECT_THAT(Unary("Neg", {1, -2}), ElementsAre(-1, 2));
  EXPECT_THAT(Unary("Abs", {1, -2}), ElementsAre(1, 2));
}

// ---------------------------------------------------------------------------
// Normalization and reductions.

TEST(Softmax, LastAxisAndAxis0) {
  GraphBuilder b;
  EXPECT_THAT(RunOp(b, b.Op("Softmax", {b.F32({1, 3}, {1, 2, 3})})),
              Near({0.0900306, 0.2447285, 0.6652410}));
  GraphBuilder c;
  EXPECT_THAT(RunOp(c, c.Op("Softmax", {c.F32({2, 2}, {1, 2, 3, 4}), c.Int(0)})),
              Near({0.1192029, 0.1192029, 0.8807971, 0.8807971}));
}

TEST(LayerNorm, NormalizesTrailingAxesWithBroadcastGammaBeta) {
  GraphBuilder b;
  auto y = b.Op("LayerNorm", {b.F32({1, 4}, {1, 2, 3, 4}), b.F32({4}, {1, 1, 2, 2}),
                              b.F32({1}, {0.5}), b.Scalar(0)});
  EXPECT_THAT(RunOp(b, y), Near({-0.841641, 0.052786, 1.394427, 3.183282}));
  // Axis 0 of a [2,2]: all four values together (mean 2.5, var 1.25), eps 0.75.
  GraphBuilder c;
  auto z = c.Op("LayerNorm", {c.F32({2, 2}, {1, 2, 3, 4}), c.F32({1}, {1}), c.F32({1}, {0}),
                              c.Scalar(0.75), c.Int(0)});
  EXPECT_THAT(RunOp(c, z), Near({-1.060660, -0.353553, 0.353553, 1.060660}));
}

TEST(RmsNorm, NormalizesByTheRootMeanSquareWithBroadcastGammaBeta) {
  GraphBuilder b;
  // mean square 7.5, eps 0.
  auto y = b.Op("RmsNorm", {b.F32({1, 4}, {1, 2, 3, 4}), b.F32({4}, {1, 1, 2, 2}),
                            b.F32({1}, {0.5}), b.Scalar(0)});
  EXPECT_THAT(RunOp(b, y), Near({0.8651484, 1.2302967, 2.6908902, 3.4211870}));
  // Axis 0 of a [2,2]: all four values together (mean square 7.5), eps 0.5.
  GraphBuilder c;
  auto z = c.Op("RmsNorm", {c.F32({2, 2}, {1, 2, 3, 4}), c.F32({1}, {1}), c.F32({1}, {0}),
                            c.Scalar(0.5), c.Int(0)});
  EXPECT_THAT(RunOp(c, z), Near({0.3535534, 0.7071068, 1.0606602, 1.4142136}));
}

TEST(Batchnorm, ScaleAndOffsetPerChannel) {
  GraphBuilder b;
  auto y = b.Op("Batchnorm",
                {b.F32({1, 1, 2, 2}, {1, 2, 3, 4}), b.F32({2}, {2, 3}), b.F32({2}, {1, -1})});
  EXPECT_THAT(RunOp(b, y), ElementsAre(3, 5, 7, 11));
}

TEST(LRN, AcrossChannels) {
  // size 3, alpha/size = 1, beta 1, bias 1: x / (1 + sum of squares of the
  // channel and its neighbours): 1/(1+1+4), 2/(1+1+4+9), 3/(1+4+9).
  GraphBuilder b;
  auto y = b.Op("LRN",
                {b.F32({1, 1, 1, 3}, {1, 2, 3}), b.Int(3), b.Scalar(3), b.Scalar(1), b.Scalar(1)});
  EXPECT_THAT(RunOp(b, y), Near({1.0 / 6, 2.0 / 15, 3.0 / 14}));
  // Even size 2: the window is the channel and the next one.
  GraphBuilder e;
  auto z = e.Op("LRN",
                {e.F32({1, 1, 1, 3}, {1, 2, 3}), e.Int(2), e.Scalar(2), e.Scalar(1), e.Scalar(1)});
  EXPECT_THAT(RunOp(e, z), Near({1.0 / 6, 2.0 / 14, 3.0 / 10}));
}

TEST(Reduce, SumMeanMax) {
  Dims d;
  GraphBuilder s;
  EXPECT_THAT(RunOp(s, s.Op("ReduceSum", {s.F32({2, 3}, Iota(6)), s.Shape({1})}), &d),
              ElementsAre(6, 15));
  EXPECT_EQ(d, (Dims{2, 1}));
  GraphBuilder m;
  EXPECT_THAT(RunOp(m, m.Op("ReduceMean", {m.F32({2, 3}, Iota(6)), m.Ints({0}), m.Int(0)}), &d),
              ElementsAre(2.5, 3.5, 4.5));
  EXPECT_EQ(d, (Dims{3}));
  GraphBuilder x;
  EXPECT_THAT(
      RunOp(x, x.Op("ReduceMax", {x.F32({2, 3}, {1, 9, 3, -4, 5, 6}), x.Ints({}), x.Int(0)}), &d),
      ElementsAre(9));
  EXPECT_EQ(d, (Dims{}));
  GraphBuilder y;
  EXPECT_THAT(RunOp(y, y.Op("ReduceMax", {y.F32({2, 2, 2}, Iota(8)), y.Ints({0, 2})})),
              ElementsAre(6, 8));
}

}  // namespace
}  // namespace egret
