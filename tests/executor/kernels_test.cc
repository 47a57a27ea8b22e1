// Each op of the reference executor against hand-computed values.
// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "egret/executor/executor.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::GraphBuilder;
using ::testing::Pointwise;

std::vector<double> Iota(int n, double first = 1) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

// Runs b's graph (graph inputs become the given float32 values) and returns
// the real values of output `k`; *dims receives its dims.
std::vector<double> RunGraph(GraphBuilder& b, std::vector<std::vector<double>> input_values = {},
                             Dims* dims = nullptr, size_t k = 0) {
  std::vector<Tensor> inputs;
  const Graph& g = b.graph();
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    Tensor t(g.node(g.inputs()[i]).outputs[0]);
    for (int64_t e = 0; e < t.num_elements(); ++e) t.SetReal(e, input_values.at(i).at(e));
    inputs.push_back(std::move(t));
  }
  auto out = Execute(g, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  const Tensor& t = out->at(k);
  if (dims) *dims = t.type().dims;
  std::vector<double> v;
  for (int64_t e = 0; e < t.num_elements(); ++e) v.push_back(t.GetReal(e));
  return v;
}

// A single-op graph over constant inputs; returns output 0.
std::vector<double> RunOp(GraphBuilder& b, ValueRef out, Dims* dims = nullptr) {
  b.Output(out);
  return RunGraph(b, {}, dims);
}

auto Near(const std::vector<double>& v) { return Pointwise(DoubleNear(1e-5), v); }

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

std::vector<double> BinaryOp(const std::string& op, Dims da, std::vector<double> a, Dims db,
                             std::vector<double> bv, Dims* d = nullptr) {
  GraphBuilder b;
  auto y = b.Op(op, {b.F32(std::move(da), std::move(a)), b.F32(std::move(db), std::move(bv))});
  return RunOp(b, y, d);
}

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

// ---------------------------------------------------------------------------
// Data movement.

TEST(ShapeOps, ReshapeAndTranspose) {
  Dims d;
  GraphBuilder r;
  EXPECT_THAT(RunOp(r, r.Op("Reshape", {r.F32({2, 3}, Iota(6)), r.Shape({3, 2})}), &d),
              ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_EQ(d, (Dims{3, 2}));
  GraphBuilder t;
  EXPECT_THAT(RunOp(t, t.Op("Transpose", {t.F32({2, 3}, Iota(6)), t.Shape({1, 0})})),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // [2,1,3] -> perm [2,0,1] -> [3,2,1]: out[k][i][0] = in[i][0][k].
  GraphBuilder u;
  EXPECT_THAT(RunOp(u, u.Op("Transpose", {u.F32({2, 1, 3}, Iota(6)), u.Ints({2, 0, 1})}), &d),
              ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_EQ(d, (Dims{3, 2, 1}));
}

TEST(ShapeOps, Concat) {
  GraphBuilder b;
  EXPECT_THAT(
      RunOp(b, b.Op("Concat", {b.Int(1), b.F32({2, 1}, {1, 2}), b.F32({2, 2}, {3, 4, 5, 6})})),
      ElementsAre(1, 3, 4, 2, 5, 6));
  GraphBuilder c;
  EXPECT_THAT(RunOp(c, c.Op("Concat", {c.Shape({0}), c.F32({1, 2}, {1, 2}), c.F32({1, 2}, {3, 4}),
                                       c.F32({1, 2}, {5, 6})})),
              ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(ShapeOps, Slices) {
  GraphBuilder s;
  EXPECT_THAT(
      RunOp(s, s.Op("Slice_shape", {s.F32({3, 3}, Iota(9)), s.Shape({1, 1}), s.Shape({2, 2})})),
      ElementsAre(5, 6, 8, 9));
  GraphBuilder t;  // rows 0, 2; columns 3, 1
  EXPECT_THAT(RunOp(t, t.Op("StridedSlice", {t.F32({3, 4}, Iota(12, 0)), t.Ints({0, 3}),
                                             t.Ints({3, -100}), t.Ints({2, -2})})),
              ElementsAre(3, 1, 11, 9));
  GraphBuilder u;  // x[-2:, :2]
  EXPECT_THAT(RunOp(u, u.Op("StridedSlice", {u.F32({3, 4}, Iota(12, 0)), u.Ints({-2, 0}),
                                             u.Ints({2147483647, 2}), u.Ints({1, 1})})),
              ElementsAre(4, 5, 8, 9));
}

TEST(ShapeOps, SplitIntoSeveralOutputs) {
  GraphBuilder b;
  NodeId s = b.OpNode("Split", {b.F32({2, 3}, Iota(6)), b.Int(1), b.Shape({1, 2})});
  ASSERT_EQ(b.graph().node(s).outputs.size(), 2u);
  b.Output({s, 0});
  b.Output({s, 1});
  Dims d;
  EXPECT_THAT(RunGraph(b, {}, &d, 0), ElementsAre(1, 4));
  EXPECT_EQ(d, (Dims{2, 1}));
  EXPECT_THAT(RunGraph(b, {}, &d, 1), ElementsAre(2, 3, 5, 6));
}

TEST(ShapeOps, SplitAsMultiWithOut) {
  GraphBuilder b;
  ValueRef multi = b.Op("Split", {b.F32({4}, Iota(4)), b.Int(0), b.Ints({1, 3})},
                        {TensorType(DType::kMulti, {})});
  ValueRef second = b.Op("$Out", {multi, b.Shape({0, 0, 2, 1})});
  ValueRef first = b.Op("$Out", {multi, b.Shape({0, 0, 2, 0})});
  b.Output(b.Op("Relu", {second}));
  b.Output(first);
  EXPECT_THAT(RunGraph(b, {}, nullptr, 0), ElementsAre(2, 3, 4));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(1));
}

TEST(ShapeOps, PadModes) {
  auto pad = [](int64_t mode, double value) {
    GraphBuilder b;
    return RunOp(b, b.Op("Pad", {b.F32({2, 3}, Iota(6)), b.Shape({0, 0, 2, 1}), b.Int(mode),
                                 b.Scalar(value)}));
  };
  EXPECT_THAT(pad(0, 9), ElementsAre(9, 9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9));
  EXPECT_THAT(pad(1, 0), ElementsAre(2, 1, 1, 2, 3, 3, 5, 4, 4, 5, 6, 6));
  EXPECT_THAT(pad(2, 0), ElementsAre(3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5));
  EXPECT_THAT(pad(3, 0), ElementsAre(1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6));
  GraphBuilder b;  // defaults: constant 0; pads on both dims
  Dims d;
  EXPECT_THAT(RunOp(b, b.Op("Pad", {b.F32({1, 2}, {1, 2}), b.Ints({1, 0, 0, 1})}), &d),
              ElementsAre(0, 0, 0, 1, 2, 0));
  EXPECT_EQ(d, (Dims{2, 3}));
}

// ---------------------------------------------------------------------------
// Pooling and resizing.

std::vector<double> Pool(const std::string& op, Dims window, Dims stride, Dims pads,
                         int count_pad = -1) {
  GraphBuilder b;
  std::vector<ValueRef> in = {b.F32({1, 3, 3, 1}, Iota(9)), b.Shape(window), b.Shape(stride),
                              b.Shape(pads)};
  if (count_pad >= 0) in.push_back(b.Int(count_pad));
  return RunOp(b, b.Op(op, in));
}

TEST(Pool, Max) {
  EXPECT_THAT(Pool("PoolMax2d", {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}), ElementsAre(5, 6, 8, 9));
  EXPECT_THAT(Pool("PoolMax2d", {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}), ElementsAre(5, 6, 8, 9));
}

TEST(Pool, AverageExcludesOrCountsPadding) {
  EXPECT_THAT(Pool("PoolAvg2d", {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}), ElementsAre(3, 4, 6, 7));
  EXPECT_THAT(Pool("PoolAvg2d", {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}), ElementsAre(3, 4, 6, 7));
  EXPECT_THAT(Pool("PoolAvg2d", {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, 1),
              Near({12.0 / 9, 16.0 / 9, 24.0 / 9, 28.0 / 9}));
  EXPECT_THAT(Pool("PoolAvg2d", {1, 3, 3, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}), ElementsAre(5));
}

std::vector<double> Resize(Dims in_dims, std::vector<double> x, Dims size, int mode,
                           std::vector<int> extra = {}) {
  GraphBuilder b;
  std::vector<ValueRef> in = {b.F32(std::move(in_dims), std::move(x)), b.Shape(std::move(size)),
                              b.Int(mode)};
  for (int e : extra) in.push_back(b.Int(e));
  return RunOp(b, b.Op("Resize", in));
}

TEST(Resize, Nearest) {
  EXPECT_THAT(Resize({1, 2, 2, 1}, {1, 2, 3, 4}, {1, 4, 4, 1}, 0),
              ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
  // Downsampling 4 -> 2: half_pixel sources are 0.5 and 2.5.
  EXPECT_THAT(Resize({1, 1, 4, 1}, {1, 2, 3, 4}, {1, 1, 2, 1}, 0), ElementsAre(1, 3));
  EXPECT_THAT(Resize({1, 1, 4, 1}, {1, 2, 3, 4}, {1, 1, 2, 1}, 0, {0, 1}), ElementsAre(2, 4));
  // Asymmetric + floor (ONNX Upsample): 2 -> 3 sources 0, 0.67, 1.33.
  EXPECT_THAT(Resize({1, 1, 2, 1}, {1, 2}, {1, 1, 3, 1}, 0, {2, 2}), ElementsAre(1, 1, 2));
}

TEST(Resize, Bilinear) {
  EXPECT_THAT(Resize({1, 1, 2, 1}, {0, 10}, {1, 1, 4, 1}, 1), Near({0, 2.5, 7.5, 10}));
  EXPECT_THAT(Resize({1, 1, 2, 1}, {0, 10}, {1, 1, 4, 1}, 1, {1}),
              Near({0, 10.0 / 3, 20.0 / 3, 10}));
  EXPECT_THAT(Resize({1, 2, 2, 1}, {0, 10, 20, 30}, {1, 3, 3, 1}, 1, {1}),
              Near({0, 5, 10, 10, 15, 20, 20, 25, 30}));
  GraphBuilder b;  // the QNN-named variant, two channels
  EXPECT_THAT(RunOp(b, b.Op("ResizeBilinear",
                            {b.F32({1, 1, 2, 2}, {0, 1, 10, 2}), b.Shape({1, 1, 3, 2}), b.Int(1)})),
              Near({0, 1, 5, 1.5, 10, 2}));
}

// ---------------------------------------------------------------------------
// Types and quantization.

TEST(Quantization, QuantizeDequantizeRoundTrip) {
  const TensorType q8(DType::kQUInt8, {5}, 128, 1.0f / 128);
  GraphBuilder b;
  ValueRef x = b.F32({5}, {-1, 0, 0.5, 1.0, 2.0});
  ValueRef q = b.Op("Quantize", {x}, {q8});
  b.Output(q);
  b.Output(b.Op("Dequantize", {q}));
  auto out = Execute(b.graph(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> stored;
  for (int i = 0; i < 5; ++i) stored.push_back((*out)[0].GetValue(i));
  EXPECT_THAT(stored, ElementsAre(0, 128, 192, 255, 255));
  EXPECT_EQ((*out)[1].type(), TensorType(DType::kFloat32, {5}));
  std::vector<double> back;
  for (int i = 0; i < 5; ++i) back.push_back((*out)[1].GetReal(i));
  EXPECT_THAT(back, ElementsAre(-1, 0, 0.5, 0.9921875, 0.9921875));
}

TEST(Quantization, QuantizedAddRequantizes) {
  GraphBuilder b;
  ValueRef a = b.Const(TensorType(DType::kQUInt8, {2}, 0, 0.5f), {2, 4});      // 1, 2
  ValueRef c = b.Const(TensorType(DType::kQUInt8, {2}, 10, 0.25f), {14, 18});  // 1, 2
  ValueRef y = b.Op("ElementWiseAdd", {a, c}, {TensorType(DType::kQUInt8, {}, 5, 0.1f)});
  b.Output(y);
  auto out = Execute(b.graph(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].type(), TensorType(DType::kQUInt8, {2}, 5, 0.1f));
  EXPECT_EQ((*out)[0].GetValue(0), 25);  // 2.0 / 0.1 + 5
  EXPECT_EQ((*out)[0].GetValue(1), 45);  // 4.0 / 0.1 + 5
}

TEST(Quantization, QuantizedConvUsesRealValues) {
  // QUInt8 input (z=10, s=0.5) storage [12, 14] = reals [1, 2]; QInt32 bias.
  GraphBuilder b;
  auto y = b.Op("Conv2d",
                {b.Const(TensorType(DType::kQUInt8, {1, 1, 2, 1}, 10, 0.5f), {12, 14}),
                 b.Const(TensorType(DType::kQUInt8, {1, 1, 1, 1}, 0, 0.25f), {8}),  // 2
                 b.Const(TensorType(DType::kQInt32, {1}, 0, 0.125f), {8}),          // 1
                 b.Shape({1, 1, 1, 1}), b.Shape({0, 0, 0, 0})},
                {TensorType(DType::kQUInt8, {}, 0, 0.5f)});
  b.Output(y);
  auto out = Execute(b.graph(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].GetValue(0), 6);   // (1*2 + 1) / 0.5
  EXPECT_EQ((*out)[0].GetValue(1), 10);  // (2*2 + 1) / 0.5
}

TEST(Cast, TruncatesToIntegersAndTestsBool) {
  GraphBuilder b;
  ValueRef x = b.F32({3}, {1.7, -1.7, 0});
  b.Output(b.Op("Cast", {x}, {TensorType(DType::kInt32, {})}));
  b.Output(b.Op("Cast", {x}, {TensorType(DType::kBool, {})}));
  b.Output(b.Op("Cast", {b.Ints({3, -2})}, {TensorType(DType::kFloat16, {})}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 0), ElementsAre(1, -1, 0));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(1, 1, 0));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 2), ElementsAre(3, -2));
}

TEST(Float16, ComputedThroughFloat) {
  GraphBuilder b;
  ValueRef x = b.Input(TensorType(DType::kFloat16, {3}));
  b.Output(b.Op("ElementWiseMultiply", {x, x}));
  Dims d;
  EXPECT_THAT(RunGraph(b, {{-1.5, 0.25, 3}}, &d), ElementsAre(2.25, 0.0625, 9));
}

// ---------------------------------------------------------------------------
// Comparison, logic and selection.

ValueRef Bools(GraphBuilder& b, Dims d, std::vector<double> v) {
  return b.Const(TensorType(DType::kBool, std::move(d)), std::move(v));
}

// An Int64 constant built from its bytes (values above 2^53 are exact).
ValueRef I64(GraphBuilder& b, Dims d, const std::vector<int64_t>& v) {
  std::vector<uint8_t> bytes(v.size() * 8);
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  auto t = Tensor::FromBytes(TensorType(DType::kInt64, std::move(d)), bytes);
  EXPECT_TRUE(t.ok()) << t.status();
  return {b.graph().AddConstant("", std::make_shared<Tensor>(*std::move(t))), 0};
}

std::vector<int64_t> Int64s(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  if (!v.empty()) std::memcpy(v.data(), t.bytes().data(), v.size() * 8);
  return v;
}

TEST(Logic, ComparisonsBroadcastIntoBool) {
  const std::vector<double> a = {1, 2, 3, 3, 2, 1};
  const std::vector<double> b = {2, 2, 2};
  Dims d;
  EXPECT_THAT(BinaryOp("ElementWiseEqual", {2, 3}, a, {3}, b, &d), ElementsAre(0, 1, 0, 0, 1, 0));
  EXPECT_EQ(d, (Dims{2, 3}));
  EXPECT_THAT(BinaryOp("ElementWiseNotEqual", {2, 3}, a, {3}, b), ElementsAre(1, 0, 1, 1, 0, 1));
  EXPECT_THAT(BinaryOp("ElementWiseLess", {2, 3}, a, {3}, b), ElementsAre(1, 0, 0, 0, 0, 1));
  EXPECT_THAT(BinaryOp("ElementWiseLessEqual", {2, 3}, a, {3}, b), ElementsAre(1, 1, 0, 0, 1, 1));
  EXPECT_THAT(BinaryOp("ElementWiseGreater", {2, 3}, a, {3}, b), ElementsAre(0, 0, 1, 1, 0, 0));
  EXPECT_THAT(BinaryOp("ElementWiseGreaterEqual", {2, 3}, a, {3}, b),
              ElementsAre(0, 1, 1, 1, 1, 0));
  GraphBuilder g;
  ValueRef eq = g.Op("ElementWiseLess", {g.F32({2, 1}, {1, 2}), g.F32({3}, {0, 1, 2})});
  EXPECT_EQ(g.graph().TypeOf(eq), TensorType(DType::kBool, {2, 3}));
}

TEST(Logic, NanComparesUnequalToEverything) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"ElementWiseEqual", "ElementWiseLess", "ElementWiseLessEqual",
                         "ElementWiseGreater", "ElementWiseGreaterEqual"}) {
    EXPECT_THAT(BinaryOp(op, {2}, {nan, 1}, {1}, {nan}), ElementsAre(0, 0)) << op;
  }
  EXPECT_THAT(BinaryOp("ElementWiseNotEqual", {2}, {nan, 1}, {1}, {nan}), ElementsAre(1, 1));
}

TEST(Logic, Int64ComparesExactlyAbove2To53) {
  GraphBuilder b;
  const int64_t big = (int64_t{1} << 53) + 1;
  ValueRef x = I64(b, {2}, {big, big - 1});
  ValueRef y = I64(b, {}, {big - 1});
  b.Output(b.Op("ElementWiseEqual", {x, y}));
  b.Output(b.Op("ElementWiseGreater", {x, y}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 0), ElementsAre(0, 1));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(1, 0));
}

TEST(Logic, BoolOps) {
  GraphBuilder b;
  ValueRef x = Bools(b, {2, 2}, {0, 0, 1, 1});
  ValueRef y = Bools(b, {2}, {0, 1});
  b.Output(b.Op("ElementWiseAnd", {x, y}));
  b.Output(b.Op("ElementWiseOr", {x, y}));
  b.Output(b.Op("ElementWiseXor", {x, y}));
  b.Output(b.Op("ElementWiseNot", {x}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 0), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(0, 1, 1, 1));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 2), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 3), ElementsAre(1, 1, 0, 0));
}

TEST(Logic, BoolOpsRejectOtherTypes) {
  TensorType f(DType::kFloat32, {2}), t(DType::kBool, {2});
  std::vector<OperandInfo> ops(2);
  ops[0].type = &f;
  ops[1].type = &t;
  auto r = InferOutputTypes("ElementWiseAnd", ops);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("a must be Bool"));
  EXPECT_FALSE(InferOutputTypes("ElementWiseNot", {&ops[0], 1}).ok());
  // A declared output of a comparison must be Bool.
  std::vector<TensorType> declared = {TensorType(DType::kFloat32, {})};
  InferOptions io;
  io.declared = declared;
  ops[1].type = &f;
  EXPECT_FALSE(InferOutputTypes("ElementWiseEqual", ops, io).ok());
}

TEST(Logic, SelectBroadcastsAllThree) {
  GraphBuilder b;
  ValueRef y = b.Op("ElementWiseSelect",
                    {Bools(b, {2, 1}, {1, 0}), b.F32({1, 3}, {1, 2, 3}), b.F32({}, {-1})});
  Dims d;
  EXPECT_THAT(RunOp(b, y, &d), ElementsAre(1, 2, 3, -1, -1, -1));
  EXPECT_EQ(d, (Dims{2, 3}));
}

TEST(Logic, SelectCopiesInt64Exactly) {
  GraphBuilder b;
  const int64_t big = (int64_t{1} << 60) + 7;
  ValueRef y = b.Op("ElementWiseSelect",
                    {Bools(b, {3}, {1, 0, 1}), I64(b, {3}, {big, 1, -big}), I64(b, {}, {42})});
  b.Output(y);
  auto out = Execute(b.graph(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Int64s(out->at(0)), ElementsAre(big, 42, -big));
}

// ---------------------------------------------------------------------------
// Indexing and scans.

TEST(Index, TileRepeatsEachDim) {
  GraphBuilder b;
  Dims d;
  EXPECT_THAT(RunOp(b, b.Op("Tile", {b.F32({2, 2}, {1, 2, 3, 4}), b.Shape({2, 3})}), &d),
              ElementsAre(1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,  //
                          1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4));
  EXPECT_EQ(d, (Dims{4, 6}));
}

TEST(Index, GatherAlongAxisWithNegativeAndNdIndices) {
  GraphBuilder b;
  ValueRef data = b.F32({2, 3}, {1, 2, 3, 4, 5, 6});
  ValueRef idx = b.Const(TensorType(DType::kInt64, {2, 2}), {0, -1, 1, 1});
  Dims d;
  EXPECT_THAT(RunOp(b, b.Op("Gather", {data, idx, b.Int(1)}), &d),
              ElementsAre(1, 3, 2, 2, 4, 6, 5, 5));
  EXPECT_EQ(d, (Dims{2, 2, 2}));
  GraphBuilder r;  // rows (axis 0, the default): an embedding lookup
  EXPECT_THAT(RunOp(r, r.Op("Gather", {r.F32({3, 2}, Iota(6)), r.Ints({2, 0})}), &d),
              ElementsAre(5, 6, 1, 2));
  EXPECT_EQ(d, (Dims{2, 2}));
}

TEST(Index, GatherOutOfRangeIsAnError) {
  GraphBuilder b;
  b.Output(b.Op("Gather", {b.F32({3}, {1, 2, 3}), b.Ints({3})}));
  auto out = Execute(b.graph(), {});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("index 3 is outside"));
}

TEST(Index, ArgmaxArgminFirstOrLastOfEquals) {
  auto arg = [](const char* op, int64_t axis, int64_t keep, int64_t last, Dims* d) {
    GraphBuilder b;
    ValueRef x = b.F32({2, 3}, {1, 5, 5, 7, 0, 7});
    return RunOp(b, b.Op(op, {x, b.Int(axis), b.Int(keep), b.Int(last)}), d);
  };
  Dims d;
  EXPECT_THAT(arg("Argmax", 1, 1, 0, &d), ElementsAre(1, 0));
  EXPECT_EQ(d, (Dims{2, 1}));
  EXPECT_THAT(arg("Argmax", -1, 0, 1, &d), ElementsAre(2, 2));
  EXPECT_EQ(d, (Dims{2}));
  EXPECT_THAT(arg("Argmin", 0, 0, 0, &d), ElementsAre(0, 1, 0));
  EXPECT_THAT(arg("Argmin", 1, 0, 1, &d), ElementsAre(0, 1));
  // Int32 by default; Int64 when declared.
  GraphBuilder b;
  ValueRef x = b.F32({3}, {1, 3, 2});
  ValueRef i32 = b.Op("Argmax", {x, b.Int(0)});
  ValueRef i64 = b.Op("Argmax", {x, b.Int(0)}, {TensorType(DType::kInt64, {})});
  EXPECT_EQ(b.graph().TypeOf(i32), TensorType(DType::kInt32, {1}));
  EXPECT_EQ(b.graph().TypeOf(i64), TensorType(DType::kInt64, {1}));
  EXPECT_THAT(RunOp(b, i64), ElementsAre(1));
}

TEST(Index, TopKLargestAndSmallestWithIndices) {
  GraphBuilder b;
  ValueRef x = b.F32({2, 4}, {3, 1, 4, 1, 5, 9, 2, 6});
  NodeId top = b.OpNode("TopK", {x, b.Int(2)}, {TensorType(), TensorType(DType::kInt64, {})});
  NodeId low = b.OpNode("TopK", {x, b.Int(3), b.Int(1), b.Int(0)});
  b.Output({top, 0});
  b.Output({top, 1});
  b.Output({low, 0});
  b.Output({low, 1});
  Dims d;
  EXPECT_THAT(RunGraph(b, {}, &d, 0), ElementsAre(4, 3, 9, 6));
  EXPECT_EQ(d, (Dims{2, 2}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(2, 0, 1, 3));
  EXPECT_EQ(b.graph().node(top).outputs[1].dtype, DType::kInt64);
  // Smallest first; the two 1s keep their index order.
  EXPECT_THAT(RunGraph(b, {}, nullptr, 2), ElementsAre(1, 1, 3, 2, 5, 6));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 3), ElementsAre(1, 3, 0, 2, 0, 3));
  EXPECT_EQ(b.graph().node(low).outputs[1].dtype, DType::kInt32);
}

TEST(Index, TopKAlongAxis0) {
  GraphBuilder b;
  NodeId top = b.OpNode("TopK", {b.F32({3, 2}, {1, 6, 5, 2, 3, 4}), b.Int(1), b.Int(0)});
  b.Output({top, 0});
  b.Output({top, 1});
  Dims d;
  EXPECT_THAT(RunGraph(b, {}, &d, 0), ElementsAre(5, 6));
  EXPECT_EQ(d, (Dims{1, 2}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(1, 0));
}

TEST(Index, CumulativeSumExclusiveAndReverse) {
  auto cum = [](int64_t axis, int64_t exclusive, int64_t reverse) {
    GraphBuilder b;
    ValueRef x = b.F32({2, 3}, {1, 2, 3, 4, 5, 6});
    return RunOp(b, b.Op("CumulativeSum", {x, b.Int(axis), b.Int(exclusive), b.Int(reverse)}));
  };
  EXPECT_THAT(cum(1, 0, 0), ElementsAre(1, 3, 6, 4, 9, 15));
  EXPECT_THAT(cum(1, 1, 0), ElementsAre(0, 1, 3, 0, 4, 9));
  EXPECT_THAT(cum(1, 0, 1), ElementsAre(6, 5, 3, 15, 11, 6));
  EXPECT_THAT(cum(-1, 1, 1), ElementsAre(5, 3, 0, 11, 6, 0));
  EXPECT_THAT(cum(0, 0, 0), ElementsAre(1, 2, 3, 5, 7, 9));
}

}  // namespace
}  // namespace egret
