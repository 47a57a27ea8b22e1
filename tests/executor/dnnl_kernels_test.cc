// The oneDNN-backed kernels (convolutions, matrix products, pooling) against
// straightforward double-precision loops on small random tensors, in every
// shape variant they map onto oneDNN (padding, stride, dilation, groups,
// depthwise multiplier, output padding, broadcast batches), for Float32,
// Float16 and quantized operands; and their determinism.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/executor/kernels/dnnl_support.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;

// A constant of `type` holding random values in [-1, 1) (for a quantized
// type, random storage values).
ValueRef Random(GraphBuilder& b, const TensorType& type, std::mt19937& rng) {
  Tensor t(type);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetReal(i, u(rng));
  if (IsQuantized(type.dtype)) {
    std::uniform_int_distribution<int> q(0, 255);
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      t.SetValue(i, type.dtype == DType::kQInt8 ? q(rng) - 128 : q(rng));
    }
  }
  std::vector<double> v;
  for (int64_t i = 0; i < t.num_elements(); ++i) v.push_back(t.GetValue(i));
  return b.Const(type, v);
}

std::vector<double> Reals(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.num_elements(); ++i) v.push_back(t.GetReal(i));
  return v;
}

// The real values of constant `v` of b's graph.
std::vector<double> ConstReals(GraphBuilder& b, ValueRef v) {
  return Reals(*b.graph().node(v.node).constant);
}

std::vector<Tensor> RunGraph(GraphBuilder& b, ValueRef out, int threads = 0) {
  if (b.graph().outputs().empty()) b.Output(out);
  ExecuteOptions options;
  options.threads = threads;
  auto r = Execute(b.graph(), {}, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : std::vector<Tensor>{};
}

// Expects `got` (of type `type`) to hold `want` (computed in double) stored
// in that type, up to float32 accumulation: a relative 1e-5 of the largest
// magnitude for Float32, one unit in the last place for Float16, one step
// for a quantized type.
void ExpectClose(const Tensor& got, const std::vector<double>& want) {
  const TensorType& type = got.type();
  ASSERT_EQ(got.num_elements(), static_cast<int64_t>(want.size()));
  Tensor rounded(type);
  double scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    rounded.SetReal(static_cast<int64_t>(i), want[i]);
    scale = std::max(scale, std::abs(want[i]));
  }
  int mismatches = 0;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    const double g = got.GetReal(i), w = rounded.GetReal(i);
    double tol = 1e-5 * std::max(scale, 1.0);
    if (type.dtype == DType::kFloat16) tol = std::max(std::abs(w), 6.1e-5) * 0x1p-10;
    if (IsQuantized(type.dtype)) tol = type.stepsize * 1.0001;
    if (std::abs(g - w) > tol && ++mismatches <= 5) {
      ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w << " (exact " << want[i]
                    << ")";
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// ---------------------------------------------------------------------------
// Convolutions: NHWC input, filter [fh, fw, cin / groups, cout].

struct ConvCase {
  std::string op;
  Dims x, f;  // input and filter dims
  Dims stride, pads, dilation, output_padding;
  DType dtype = DType::kFloat32;
};

// Conv2d / DepthWiseConv2d by definition.
std::vector<double> RefConv(const ConvCase& k, const std::vector<double>& x,
                            const std::vector<double>& w, const std::vector<double>& bias,
                            const Dims& od) {
  const int64_t cin = k.x[3], fh = k.f[0], fw = k.f[1], fcin = k.f[2], cout = k.f[3];
  const bool dw = k.op == "DepthWiseConv2d";
  const int64_t og = dw ? cout / cin : cout / (cin / fcin);
  std::vector<double> out;
  for (int64_t n = 0; n < od[0]; ++n)
    for (int64_t oy = 0; oy < od[1]; ++oy)
      for (int64_t ox = 0; ox < od[2]; ++ox)
        for (int64_t o = 0; o < cout; ++o) {
          double acc = bias[o];
          const int64_t g = o / og;
          for (int64_t ky = 0; ky < fh; ++ky)
            for (int64_t kx = 0; kx < fw; ++kx)
              for (int64_t i = 0; i < fcin; ++i) {
                const int64_t iy = oy * k.stride[1] - k.pads[0] + ky * k.dilation[1];
                const int64_t ix = ox * k.stride[2] - k.pads[2] + kx * k.dilation[2];
                if (iy < 0 || ix < 0 || iy >= k.x[1] || ix >= k.x[2]) continue;
                const int64_t c = dw ? g : g * fcin + i;
                acc += x[((n * k.x[1] + iy) * k.x[2] + ix) * cin + c] *
                       w[((ky * fw + kx) * fcin + i) * cout + o];
              }
          out.push_back(acc);
        }
  return out;
}

// TransposeConv2d by definition: out[oy] gathers x[iy] where
// oy = iy * stride - pad + ky * dilation.
std::vector<double> RefTransposeConv(const ConvCase& k, const std::vector<double>& x,
                                     const std::vector<double>& w, const std::vector<double>& bias,
                                     const Dims& od) {
  const int64_t cin = k.x[3], fh = k.f[0], fw = k.f[1], fcin = k.f[2], cout = k.f[3];
  const int64_t og = cout / (cin / fcin);
  std::vector<double> out;
  for (int64_t n = 0; n < od[0]; ++n)
    for (int64_t oy = 0; oy < od[1]; ++oy)
      for (int64_t ox = 0; ox < od[2]; ++ox)
        for (int64_t o = 0; o < cout; ++o) {
          double acc = bias[o];
          const int64_t g = o / og;
          for (int64_t iy = 0; iy < k.x[1]; ++iy)
            for (int64_t ix = 0; ix < k.x[2]; ++ix)
              for (int64_t ky = 0; ky < fh; ++ky)
                for (int64_t kx = 0; kx < fw; ++kx) {
                  if (iy * k.stride[1] - k.pads[0] + ky * k.dilation[1] != oy) continue;
                  if (ix * k.stride[2] - k.pads[2] + kx * k.dilation[2] != ox) continue;
                  for (int64_t i = 0; i < fcin; ++i) {
                    acc += x[((n * k.x[1] + iy) * k.x[2] + ix) * cin + g * fcin + i] *
                           w[((ky * fw + kx) * fcin + i) * cout + o];
                  }
                }
          out.push_back(acc);
        }
  return out;
}

ConvCase Case(std::string op, Dims x, Dims f, Dims stride, Dims pads, Dims dilation,
              Dims output_padding = {}, DType dtype = DType::kFloat32) {
  ConvCase k;
  k.op = std::move(op);
  k.x = std::move(x);
  k.f = std::move(f);
  k.stride = std::move(stride);
  k.pads = std::move(pads);
  k.dilation = std::move(dilation);
  k.output_padding = std::move(output_padding);
  k.dtype = dtype;
  return k;
}

void CheckConv(const ConvCase& k, int seed) {
  SCOPED_TRACE(k.op + " case " + std::to_string(seed));
  std::mt19937 rng(seed);
  GraphBuilder b;
  const bool quantized = IsQuantized(k.dtype);
  const TensorType xt(k.dtype, k.x, quantized ? 128 : 0, quantized ? 1.0f / 64 : 1.0f);
  const TensorType ft(quantized ? DType::kQInt8 : k.dtype, k.f, 0, quantized ? 1.0f / 128 : 1.0f);
  const TensorType bt(k.dtype == DType::kFloat16 ? DType::kFloat16 : DType::kFloat32, {k.f[3]});
  ValueRef x = Random(b, xt, rng), f = Random(b, ft, rng), bias = Random(b, bt, rng);
  std::vector<ValueRef> in = {x, f, bias, b.Shape(k.stride), b.Shape(k.pads), b.Shape(k.dilation)};
  if (!k.output_padding.empty()) in.push_back(b.Shape(k.output_padding));
  std::vector<TensorType> declared;
  if (quantized) declared.push_back(TensorType(k.dtype, {}, 100, 1.0f / 16));
  ValueRef y = b.Op(k.op, in, declared);
  std::vector<Tensor> out = RunGraph(b, y);
  ASSERT_EQ(out.size(), 1u);
  const Dims od = out[0].type().dims;
  const auto xr = ConstReals(b, x), fr = ConstReals(b, f), br = ConstReals(b, bias);
  ExpectClose(out[0], k.op == "TransposeConv2d" ? RefTransposeConv(k, xr, fr, br, od)
                                                : RefConv(k, xr, fr, br, od));
}

TEST(DnnlConv2d, PaddingStrideDilation) {
  CheckConv(Case("Conv2d", {2, 9, 8, 5}, {3, 3, 5, 7}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}),
            1);
  CheckConv(Case("Conv2d", {1, 11, 10, 3}, {3, 2, 3, 4}, {1, 2, 3, 1}, {2, 0, 1, 1}, {1, 1, 1, 1}),
            2);
  CheckConv(Case("Conv2d", {1, 12, 12, 4}, {3, 3, 4, 6}, {1, 1, 2, 1}, {2, 2, 1, 2}, {1, 2, 3, 1}),
            3);
  // Large enough for oneDNN's vectorized paths (16 channels and more).
  CheckConv(
      Case("Conv2d", {1, 10, 10, 32}, {3, 3, 32, 48}, {1, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}), 4);
}

TEST(DnnlConv2d, Groups) {
  CheckConv(Case("Conv2d", {1, 7, 6, 8}, {3, 3, 2, 12}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}),
            5);
  CheckConv(Case("Conv2d", {2, 9, 9, 32}, {3, 3, 16, 32}, {1, 2, 2, 1}, {0, 1, 0, 1}, {1, 1, 1, 1}),
            6);
}

TEST(DnnlDepthWiseConv2d, MultiplierPaddingDilation) {
  CheckConv(
      Case("DepthWiseConv2d", {1, 8, 9, 6}, {3, 3, 1, 6}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}),
      7);
  CheckConv(
      Case("DepthWiseConv2d", {1, 9, 7, 4}, {3, 3, 1, 8}, {1, 2, 2, 1}, {1, 0, 1, 2}, {1, 2, 1, 1}),
      8);
  CheckConv(Case("DepthWiseConv2d", {1, 12, 12, 32}, {5, 5, 1, 32}, {1, 2, 2, 1}, {2, 2, 2, 2},
                 {1, 1, 1, 1}),
            9);
}

TEST(DnnlTransposeConv2d, StridePadsOutputPaddingGroups) {
  CheckConv(
      Case("TransposeConv2d", {1, 4, 5, 3}, {3, 3, 3, 4}, {1, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}),
      10);
  CheckConv(Case("TransposeConv2d", {1, 4, 4, 4}, {2, 3, 2, 6}, {1, 2, 3, 1}, {0, 1, 1, 0},
                 {1, 1, 1, 1}, {0, 1, 2, 0}),
            11);
  CheckConv(Case("TransposeConv2d", {2, 5, 5, 16}, {4, 4, 16, 16}, {1, 2, 2, 1}, {1, 1, 1, 1},
                 {1, 1, 1, 1}, {0, 1, 1, 0}),
            12);
  CheckConv(
      Case("TransposeConv2d", {1, 3, 4, 2}, {3, 3, 2, 3}, {1, 1, 2, 1}, {0, 0, 1, 1}, {1, 2, 2, 1}),
      13);
}

TEST(DnnlConv2d, Float16) {
  CheckConv(Case("Conv2d", {1, 9, 8, 16}, {3, 3, 16, 16}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1},
                 {}, DType::kFloat16),
            14);
  CheckConv(Case("DepthWiseConv2d", {1, 9, 8, 16}, {3, 3, 1, 16}, {1, 2, 2, 1}, {1, 1, 1, 1},
                 {1, 1, 1, 1}, {}, DType::kFloat16),
            15);
  CheckConv(Case("TransposeConv2d", {1, 4, 4, 8}, {2, 2, 8, 8}, {1, 2, 2, 1}, {0, 0, 0, 0},
                 {1, 1, 1, 1}, {}, DType::kFloat16),
            16);
}

TEST(DnnlConv2d, Quantized) {
  CheckConv(Case("Conv2d", {1, 7, 7, 8}, {3, 3, 8, 8}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {},
                 DType::kQUInt8),
            17);
  CheckConv(Case("DepthWiseConv2d", {1, 7, 7, 8}, {3, 3, 1, 8}, {1, 2, 2, 1}, {1, 1, 1, 1},
                 {1, 1, 1, 1}, {}, DType::kQUInt8),
            18);
}

// ---------------------------------------------------------------------------
// Matrix products.

TEST(DnnlFullyConnected, MatchesDefinition) {
  for (DType dt : {DType::kFloat32, DType::kFloat16}) {
    std::mt19937 rng(20);
    GraphBuilder b;
    ValueRef x = Random(b, TensorType(dt, {3, 5, 40}), rng);
    ValueRef w = Random(b, TensorType(dt, {24, 40}), rng);
    ValueRef bias = Random(b, TensorType(dt, {24}), rng);
    std::vector<Tensor> out = RunGraph(b, b.Op("FullyConnected", {x, w, bias}));
    ASSERT_EQ(out.size(), 1u);
    const auto xr = ConstReals(b, x), wr = ConstReals(b, w), br = ConstReals(b, bias);
    std::vector<double> want;
    for (int64_t n = 0; n < 15; ++n)
      for (int64_t u = 0; u < 24; ++u) {
        double acc = br[u];
        for (int64_t k = 0; k < 40; ++k) acc += xr[n * 40 + k] * wr[u * 40 + k];
        want.push_back(acc);
      }
    ExpectClose(out[0], want);
  }
}

TEST(DnnlMatMul, BroadcastBatches) {
  std::mt19937 rng(21);
  GraphBuilder b;
  // a [2, 1, 3, 7] x b [4, 7, 5] -> [2, 4, 3, 5]
  ValueRef a = Random(b, TensorType(DType::kFloat32, {2, 1, 3, 7}), rng);
  ValueRef m = Random(b, TensorType(DType::kFloat32, {4, 7, 5}), rng);
  std::vector<Tensor> out = RunGraph(b, b.Op("MatMul", {a, m}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type().dims, (Dims{2, 4, 3, 5}));
  const auto ar = ConstReals(b, a), mr = ConstReals(b, m);
  std::vector<double> want;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t c = 0; c < 5; ++c) {
          double acc = 0;
          for (int64_t k = 0; k < 7; ++k) acc += ar[(i * 3 + r) * 7 + k] * mr[(j * 7 + k) * 5 + c];
          want.push_back(acc);
        }
  ExpectClose(out[0], want);
}

// ---------------------------------------------------------------------------
// Pooling: padded positions never win a max and count in an average only
// with count_pad 1.

void CheckPool(const std::string& op, Dims xd, Dims window, Dims stride, Dims pads, int count_pad,
               DType dtype, int seed) {
  SCOPED_TRACE(op + " case " + std::to_string(seed));
  std::mt19937 rng(seed);
  GraphBuilder b;
  const bool quantized = IsQuantized(dtype);
  const TensorType xt(dtype, xd, quantized ? 128 : 0, quantized ? 1.0f / 64 : 1.0f);
  ValueRef x = Random(b, xt, rng);
  std::vector<ValueRef> in = {x, b.Shape(window), b.Shape(stride), b.Shape(pads)};
  if (count_pad >= 0) in.push_back(b.Int(count_pad));
  std::vector<Tensor> out = RunGraph(b, b.Op(op, in));
  ASSERT_EQ(out.size(), 1u);
  const Dims od = out[0].type().dims;
  const auto xr = ConstReals(b, x);
  std::vector<double> want;
  for (int64_t n = 0; n < od[0]; ++n)
    for (int64_t oy = 0; oy < od[1]; ++oy)
      for (int64_t ox = 0; ox < od[2]; ++ox)
        for (int64_t c = 0; c < od[3]; ++c) {
          double acc = op == "PoolMax2d" ? -std::numeric_limits<double>::infinity() : 0;
          int64_t cnt = 0;
          for (int64_t ky = 0; ky < window[1]; ++ky)
            for (int64_t kx = 0; kx < window[2]; ++kx) {
              const int64_t iy = oy * stride[1] - pads[0] + ky;
              const int64_t ix = ox * stride[2] - pads[2] + kx;
              if (iy < 0 || ix < 0 || iy >= xd[1] || ix >= xd[2]) continue;
              const double v = xr[((n * xd[1] + iy) * xd[2] + ix) * xd[3] + c];
              acc = op == "PoolMax2d" ? std::max(acc, v) : acc + v;
              ++cnt;
            }
          if (op == "PoolAvg2d") acc /= count_pad == 1 ? window[1] * window[2] : cnt;
          want.push_back(acc);
        }
  ExpectClose(out[0], want);
}

TEST(DnnlPool, MaxAndAverageWithPadding) {
  CheckPool("PoolMax2d", {2, 9, 8, 5}, {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, -1,
            DType::kFloat32, 30);
  CheckPool("PoolMax2d", {1, 7, 7, 16}, {1, 2, 3, 1}, {1, 1, 2, 1}, {0, 1, 1, 1}, -1,
            DType::kFloat16, 31);
  CheckPool("PoolAvg2d", {2, 9, 8, 5}, {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, 0, DType::kFloat32,
            32);
  CheckPool("PoolAvg2d", {1, 10, 9, 16}, {1, 3, 2, 1}, {1, 2, 1, 1}, {1, 2, 1, 0}, 1,
            DType::kFloat32, 33);
  CheckPool("PoolAvg2d", {1, 8, 8, 8}, {1, 8, 8, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}, -1,
            DType::kFloat16, 34);
  CheckPool("PoolAvg2d", {1, 7, 7, 8}, {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, 0, DType::kQUInt8,
            35);
  CheckPool("PoolMax2d", {1, 7, 7, 8}, {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, -1, DType::kQUInt8,
            36);
}

// The last input rows and columns unread (ResNet's 1x1 stride-2 projection
// over an even size, a 3x3 stride-2 window that ends one row short): oneDNN
// gets no trailing padding for these and must still agree.
TEST(DnnlConv2d, StrideLeavesTheLastRowsUnread) {
  EXPECT_EQ(backend_internal::DnnlTrailingPad(2, 2), 2);
  EXPECT_EQ(backend_internal::DnnlTrailingPad(-1, 2), 0);
  EXPECT_EQ(backend_internal::DnnlTrailingPad(-2, 3), 0);
  EXPECT_EQ(backend_internal::DnnlTrailingPad(-2, 2), std::nullopt);
  CheckConv(Case("Conv2d", {1, 8, 8, 16}, {1, 1, 16, 32}, {1, 2, 2, 1}, {0, 0, 0, 0}, {1, 1, 1, 1}),
            5);
  CheckConv(Case("Conv2d", {1, 8, 9, 4}, {3, 3, 4, 8}, {1, 2, 3, 1}, {0, 0, 0, 0}, {1, 1, 1, 1}),
            6);
  CheckPool("PoolMax2d", {1, 8, 8, 16}, {1, 3, 3, 1}, {1, 2, 2, 1}, {0, 0, 0, 0}, -1,
            DType::kFloat32, 37);
  CheckPool("PoolAvg2d", {1, 8, 8, 16}, {1, 3, 3, 1}, {1, 2, 2, 1}, {0, 0, 0, 0}, 1,
            DType::kFloat32, 38);
}

// ---------------------------------------------------------------------------
// Determinism: the same graph gives the same bytes run after run, and (for
// these forward primitives) with one thread or two.

TEST(DnnlDeterminism, SameBytesEveryRunAndThreadCount) {
  std::mt19937 rng(40);
  GraphBuilder b;
  ValueRef x = Random(b, TensorType(DType::kFloat32, {1, 24, 24, 32}), rng);
  ValueRef f = Random(b, TensorType(DType::kFloat32, {3, 3, 32, 64}), rng);
  ValueRef bias = Random(b, TensorType(DType::kFloat32, {64}), rng);
  ValueRef c = b.Op(
      "Conv2d", {x, f, bias, b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})});
  ValueRef w = Random(b, TensorType(DType::kFloat32, {10, 64}), rng);
  ValueRef y = b.Op("FullyConnected", {c, w});
  b.Output(y);
  const std::vector<Tensor> first = RunGraph(b, y, 1);
  ASSERT_EQ(first.size(), 1u);
  for (int threads : {1, 2, 0}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    for (int rep = 0; rep < 2; ++rep) {
      const std::vector<Tensor> again = RunGraph(b, y, threads);
      ASSERT_EQ(again.size(), 1u);
      EXPECT_TRUE(again[0] == first[0]);
    }
  }
}

// ---------------------------------------------------------------------------
// The fast Float16 conversions every kernel uses agree bit for bit with
// egret's reference conversions (egret/graph/tensor.h).

TEST(HalfConversions, AgreeWithTensorConversions) {
  int mismatches = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float want = HalfToFloat(static_cast<uint16_t>(h));
    const float got = backend_internal::WidenHalf(static_cast<uint16_t>(h));
    if (std::memcmp(&want, &got, sizeof(float)) != 0) ++mismatches;
    // Each half, the midpoints to its neighbour (ties to even) and values
    // just beside them narrow as FloatToHalf narrows them.
    const float next = HalfToFloat(static_cast<uint16_t>(h + 1));
    const float mid = want + (next - want) / 2;
    for (float f : {want, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, next)}) {
      if (backend_internal::NarrowToHalf(f) != FloatToHalf(f)) ++mismatches;
    }
  }
  std::mt19937 rng(50);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 100000; ++i) {
    const uint32_t b = bits(rng);
    float f;
    std::memcpy(&f, &b, sizeof(f));
    if (backend_internal::NarrowToHalf(f) != FloatToHalf(f)) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace egret
