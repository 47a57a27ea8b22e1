// Convolutions of 8-bit quantized operands (Conv2d, DepthWiseConv2d), which
// the executor computes in integers: each output is the exact sum of
// (qx - zx) * (qw - zw) over the taps inside the input, times sx * sw[c],
// plus the bias, in double, rounded once to float. The cases cover what the
// integer path must get right: padding (a padded tap contributes 0, not
// -zx * w), input zero offsets of both signs, unsigned and signed inputs,
// per-channel filters, unsigned filters with a zero offset, groups and
// depthwise multipliers, and channel counts large enough for oneDNN's
// vectorized kernels. Also: a convolution of Dequantize outputs is computed
// as the convolution of the quantized values (the Dequantize nodes are not
// run), and the run cache of laid-out filters changes no bit.
//
// ctest runs this file twice: as is, and as QuantizedConvWithoutVnni with
// DNNL_MAX_CPU_ISA=AVX2, where oneDNN's int8 kernels add products in pairs in
// a saturating int16 and the executor gives them each filter as two halves
// of 7-bit values and each signed input as unsigned (dnnl_support.h,
// DnnlInt8WeightLimit). The exact-bits checks above fail if either is wrong.
// GCC 12 reports a false "maybe uninitialized" inside absl::InlinedVector's
// move when TensorType{dtype, Dims{...}} temporaries are inlined (as in
// dnnl_kernels_test.cc).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/executor/kernels/dnnl_support.h"
#include "egret/graph/tensor.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;
using testing::RandomStorage;

struct QConv {
  std::string op = "Conv2d";
  Dims x, f;  // NHWC input, filter [fh, fw, cin / groups, cout]
  Dims stride = {1, 1, 1, 1}, pads = {0, 0, 0, 0}, dilation = {1, 1, 1, 1};
  DType xdtype = DType::kQUInt8;
  int32_t xzero = 128;
  DType fdtype = DType::kQInt8;
  int32_t fzero = 0;        // per-tensor filter zero offset
  bool per_channel = true;  // else one filter stepsize
};

struct Operands {
  TensorType x, f, bias;
  std::vector<double> xq, fq, bias_q;  // storage values
};

Operands MakeOperands(const QConv& k, std::mt19937& rng) {
  Operands o;
  o.x = TensorType(k.xdtype, k.x, k.xzero, 0.0123f);
  o.f = TensorType(k.fdtype, k.f, k.fzero, 0.0071f);
  const int64_t cout = k.f[3];
  if (k.per_channel) {
    std::uniform_real_distribution<float> step(0.001f, 0.02f);
    std::vector<float> steps(cout);
    for (float& s : steps) s = step(rng);
    EXPECT_TRUE(o.f.SetPerAxis(3, steps, std::vector<int32_t>(cout, k.fzero)).ok());
  }
  // An Int32 bias quantized with stepsize sx * sw[c], as ONNX Runtime's
  // quantizer writes it.
  o.bias = TensorType(DType::kQInt32, {cout});
  std::vector<float> bsteps(cout);
  for (int64_t c = 0; c < cout; ++c) bsteps[c] = o.x.stepsize * o.f.StepsizeAt(c);
  EXPECT_TRUE(o.bias.SetPerAxis(0, bsteps, std::vector<int32_t>(cout, 0)).ok());
  o.xq = RandomStorage(o.x, rng);
  o.fq = RandomStorage(o.f, rng);
  std::uniform_int_distribution<int> b(-5000, 5000);
  for (int64_t c = 0; c < cout; ++c) o.bias_q.push_back(b(rng));
  return o;
}

Dims OutDims(const QConv& k) {
  auto out = [&](int64_t in, int64_t f, int64_t s, int64_t d, int64_t p0, int64_t p1) {
    return (in + p0 + p1 - (f - 1) * d - 1) / s + 1;
  };
  return {k.x[0], out(k.x[1], k.f[0], k.stride[1], k.dilation[1], k.pads[0], k.pads[1]),
          out(k.x[2], k.f[1], k.stride[2], k.dilation[2], k.pads[2], k.pads[3]), k.f[3]};
}

// The definition, written out: exact integer sums, then one double
// expression rounded to float.
std::vector<float> Exact(const QConv& k, const Operands& o) {
  const Dims od = OutDims(k);
  const int64_t cin = k.x[3], fh = k.f[0], fw = k.f[1], fcin = k.f[2], cout = k.f[3];
  const bool dw = k.op == "DepthWiseConv2d";
  const int64_t og = dw ? cout / cin : cout / (cin / fcin);
  std::vector<float> out;
  for (int64_t n = 0; n < od[0]; ++n)
    for (int64_t oy = 0; oy < od[1]; ++oy)
      for (int64_t ox = 0; ox < od[2]; ++ox)
        for (int64_t c = 0; c < cout; ++c) {
          int64_t sum = 0;
          const int64_t g = c / og;
          for (int64_t ky = 0; ky < fh; ++ky)
            for (int64_t kx = 0; kx < fw; ++kx)
              for (int64_t i = 0; i < fcin; ++i) {
                const int64_t iy = oy * k.stride[1] - k.pads[0] + ky * k.dilation[1];
                const int64_t ix = ox * k.stride[2] - k.pads[2] + kx * k.dilation[2];
                if (iy < 0 || ix < 0 || iy >= k.x[1] || ix >= k.x[2]) continue;
                const int64_t ch = dw ? g : g * fcin + i;
                const auto xq =
                    static_cast<int64_t>(o.xq[((n * k.x[1] + iy) * k.x[2] + ix) * cin + ch]);
                const auto wq = static_cast<int64_t>(o.fq[((ky * fw + kx) * fcin + i) * cout + c]);
                sum += (xq - k.xzero) * (wq - k.fzero);
              }
          const double scale = static_cast<double>(o.x.stepsize) * o.f.StepsizeAt(c);
          const double bias = static_cast<double>(o.bias.StepsizeAt(c)) * o.bias_q[c];
          out.push_back(static_cast<float>(scale * static_cast<double>(sum) + bias));
        }
  return out;
}

std::vector<ValueRef> ConvParams(GraphBuilder& b, const QConv& k) {
  return {b.Shape(k.stride), b.Shape(k.pads), b.Shape(k.dilation)};
}

std::vector<float> Floats(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.num_elements()));
  std::memcpy(v.data(), t.bytes().data(), v.size() * sizeof(float));
  return v;
}

// Runs b's single output on one thread (with `cache` when given).
std::vector<float> RunOnce(GraphBuilder& b, ExecuteStats* stats = nullptr,
                           ExecuteCache* cache = nullptr) {
  ExecuteOptions options;
  options.threads = 1;
  options.stats = stats;
  options.cache = cache;
  auto r = Execute(b.graph(), {}, options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ((*r)[0].type().dtype, DType::kFloat32);
  return Floats((*r)[0]);
}

void ExpectSameBits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  int mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && ++mismatches <= 5) {
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// The convolution of the dequantized constants, with a Float32 output (a
// quantized Conv2d's output is quantized; this is how ONNX QDQ graphs
// import: the convolution reads the quantized values, DequantizeReadThrough).
// With `clamp`, the fused activation inputs act_min = -0.25, act_max = 0.5.
std::vector<float> RunQuantized(const QConv& k, const Operands& o, ExecuteStats* stats = nullptr,
                                bool clamp = false) {
  GraphBuilder b;
  const TensorType f32(DType::kFloat32, {});
  std::vector<ValueRef> in = {b.Op("Dequantize", {b.Const(o.x, o.xq)}, {f32}),
                              b.Op("Dequantize", {b.Const(o.f, o.fq)}, {f32}),
                              b.Op("Dequantize", {b.Const(o.bias, o.bias_q)}, {f32})};
  for (ValueRef p : ConvParams(b, k)) in.push_back(p);
  if (clamp) {
    in.push_back(b.Scalar(-0.25));
    in.push_back(b.Scalar(0.5));
  }
  b.Output(b.Op(k.op, in, {f32}));
  return RunOnce(b, stats);
}

// The same convolution with a quantized output (as egret's optimized graphs
// have it), on `threads` threads: the exact values stored once in the
// output type.
void CheckQuantizedOutput(const QConv& k, const Operands& o, const std::vector<float>& exact,
                          int threads = 1) {
  GraphBuilder b;
  std::vector<ValueRef> in = {b.Const(o.x, o.xq), b.Const(o.f, o.fq), b.Const(o.bias, o.bias_q)};
  for (ValueRef p : ConvParams(b, k)) in.push_back(p);
  const TensorType out_type(DType::kQUInt8, {}, 120, 0.05f);
  b.Output(b.Op(k.op, in, {out_type}));
  ExecuteOptions options;
  options.threads = threads;
  auto r = Execute(b.graph(), {}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  Tensor want((*r)[0].type());
  for (size_t i = 0; i < exact.size(); ++i) want.SetReal(static_cast<int64_t>(i), exact[i]);
  EXPECT_TRUE((*r)[0] == want);
}

void Check(const QConv& k, int seed) {
  SCOPED_TRACE(k.op + " case " + std::to_string(seed));
  std::mt19937 rng(seed);
  const Operands o = MakeOperands(k, rng);
  const std::vector<float> exact = Exact(k, o);
  ExpectSameBits(RunQuantized(k, o), exact);
  CheckQuantizedOutput(k, o, exact);
}

TEST(QuantizedConv, SumsAreExactWithPaddingStrideAndDilation) {
  QConv k;
  k.x = {2, 9, 8, 5};
  k.f = {3, 3, 5, 7};
  k.pads = {1, 1, 1, 1};
  Check(k, 1);
  k.x = {1, 11, 10, 3};
  k.f = {3, 2, 3, 4};
  k.stride = {1, 2, 3, 1};
  k.pads = {2, 0, 1, 1};
  Check(k, 2);
  k.x = {1, 12, 12, 4};
  k.f = {3, 3, 4, 6};
  k.stride = {1, 1, 2, 1};
  k.pads = {2, 2, 1, 2};
  k.dilation = {1, 2, 3, 1};
  Check(k, 3);
}

TEST(QuantizedConv, LargeChannelCountsTakeTheVectorizedKernels) {
  QConv k;
  k.x = {1, 10, 10, 64};
  k.f = {3, 3, 64, 48};
  k.stride = {1, 2, 2, 1};
  k.pads = {1, 1, 1, 1};
  Check(k, 4);
  k.x = {1, 14, 14, 96};
  k.f = {1, 1, 96, 80};
  k.stride = {1, 1, 1, 1};
  k.pads = {0, 0, 0, 0};
  Check(k, 5);
}

TEST(QuantizedConv, InputZeroOffsetsAndSignednessAndFilterZeroOffsets) {
  QConv k;
  k.x = {1, 8, 8, 32};
  k.f = {3, 3, 32, 32};
  k.pads = {1, 1, 1, 1};
  k.xzero = 3;  // far from the middle: padding must add 0, not -3 * w
  Check(k, 6);
  k.xdtype = DType::kQInt8;
  k.xzero = -7;
  Check(k, 7);
  // An unsigned filter with zero offset 128 (q - 128 fits int8).
  k.xdtype = DType::kQUInt8;
  k.xzero = 200;
  k.fdtype = DType::kQUInt8;
  k.fzero = 128;
  k.per_channel = false;
  Check(k, 8);
  // A signed filter with a non-zero offset whose q - zero leaves int8: the
  // float path computes it, close to the exact value.
  k.fdtype = DType::kQInt8;
  k.fzero = 5;
  std::mt19937 rng(9);
  const Operands o = MakeOperands(k, rng);
  const std::vector<float> got = RunQuantized(k, o), want = Exact(k, o);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;
}

// A fused activation clamps the exact value (compared in double).
TEST(QuantizedConv, FusedClampBoundsTheExactValues) {
  QConv k;
  k.x = {1, 16, 16, 32};
  k.f = {3, 3, 32, 32};
  k.pads = {1, 1, 1, 1};
  std::mt19937 rng(16);
  const Operands o = MakeOperands(k, rng);
  std::vector<float> want = Exact(k, o);
  for (float& v : want) v = static_cast<float>(std::min(std::max<double>(v, -0.25), 0.5));
  ExpectSameBits(RunQuantized(k, o, nullptr, /*clamp=*/true), want);
}

// A quantized output of more than 2^17 sums per image is computed in bands
// of output rows (conv.cc, kBandSums), and on two threads the bands run
// concurrently: the first and last bands of an image take the padding, a
// band's input rows overlap its neighbours' (3x3 windows, dilation), and
// the last band is shorter. Two images, so that bands restart per image.
TEST(QuantizedConv, LargeOutputsAreComputedInBandsOfRows) {
  QConv plain;
  plain.x = {2, 40, 40, 16};
  plain.f = {3, 3, 16, 96};
  plain.pads = {1, 1, 1, 1};
  QConv strided;
  strided.x = {1, 83, 81, 8};
  strided.f = {3, 3, 8, 80};
  strided.stride = {1, 2, 1, 1};
  strided.dilation = {1, 2, 2, 1};
  strided.pads = {3, 1, 2, 2};
  QConv depthwise;
  depthwise.op = "DepthWiseConv2d";
  depthwise.x = {1, 48, 48, 64};
  depthwise.f = {3, 3, 1, 64};
  depthwise.pads = {1, 1, 1, 1};
  // Padding deeper than a band: the first bands read no input row.
  QConv padded = plain;
  padded.x = {1, 40, 40, 16};
  padded.pads = {40, 1, 1, 1};
  std::mt19937 rng(21);
  for (const QConv& k : {plain, strided, depthwise, padded}) {
    SCOPED_TRACE(k.op + " of " + std::to_string(k.x[1]) + "x" + std::to_string(k.x[2]));
    const Operands o = MakeOperands(k, rng);
    const std::vector<float> exact = Exact(k, o);
    CheckQuantizedOutput(k, o, exact, 1);
    CheckQuantizedOutput(k, o, exact, 2);
  }
}

TEST(QuantizedConv, GroupsAndDepthwiseMultipliers) {
  QConv k;
  k.x = {1, 7, 6, 8};
  k.f = {3, 3, 2, 12};
  k.pads = {1, 1, 1, 1};
  Check(k, 10);
  k.op = "DepthWiseConv2d";
  k.x = {1, 9, 7, 4};
  k.f = {3, 3, 1, 8};
  k.stride = {1, 2, 2, 1};
  k.pads = {1, 0, 1, 2};
  k.dilation = {1, 2, 1, 1};
  Check(k, 11);
  k.x = {1, 12, 12, 32};
  k.f = {5, 5, 1, 32};
  k.stride = {1, 2, 2, 1};
  k.pads = {2, 2, 2, 2};
  k.dilation = {1, 1, 1, 1};
  k.xzero = 17;
  Check(k, 12);
}

// x, filter and bias through Dequantize nodes (as ONNX QDQ graphs import):
// the same bits as the convolution of the quantized values, and the
// Dequantize nodes not run, unless another node reads one.
TEST(DequantizeReadThrough, ConvOfDequantizedValuesIsConvOfTheQuantizedValues) {
  QConv k;
  k.x = {1, 8, 8, 16};
  k.f = {3, 3, 16, 24};
  k.pads = {1, 1, 1, 1};
  std::mt19937 rng(13);
  const Operands o = MakeOperands(k, rng);
  ExecuteStats stats;
  const std::vector<float> want = RunQuantized(k, o, &stats);
  ExpectSameBits(want, Exact(k, o));
  EXPECT_EQ(stats.nodes_run, 1);  // the convolution alone
  const TensorType f32(DType::kFloat32, {});

  // The dequantized input also read by a Relu: that Dequantize runs.
  GraphBuilder b2;
  ValueRef x2 = b2.Op("Dequantize", {b2.Const(o.x, o.xq)}, {f32});
  ValueRef f2 = b2.Op("Dequantize", {b2.Const(o.f, o.fq)}, {f32});
  ValueRef bias2 = b2.Op("Dequantize", {b2.Const(o.bias, o.bias_q)}, {f32});
  std::vector<ValueRef> in2 = {x2, f2, bias2};
  for (ValueRef p : ConvParams(b2, k)) in2.push_back(p);
  ValueRef conv = b2.Op(k.op, in2, {f32});
  b2.Output(conv);
  b2.Output(b2.Op("Relu", {x2}));
  ExecuteOptions options;
  options.threads = 1;
  options.stats = &stats;
  auto r = Execute(b2.graph(), {}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectSameBits(Floats((*r)[0]), want);
  EXPECT_EQ(stats.nodes_run, 3);  // Dequantize of x, the convolution, Relu
}

// A convolution whose Float32 result only a Quantize reads stores it in the
// Quantize's type itself: the same bytes as the Quantize of the floats (a
// graph where the floats are also an output, so both run), the Quantize not
// run; with and without a fused activation clamp, and for a float filter
// (the float kernel) as well as the int8 one.
TEST(StoreThroughQuantize, ConvStoresTheQuantizeTypeItself) {
  QConv k;
  k.x = {1, 9, 9, 24};
  k.f = {3, 3, 24, 40};
  k.pads = {1, 1, 1, 1};
  std::mt19937 rng(15);
  const Operands o = MakeOperands(k, rng);
  const TensorType f32(DType::kFloat32, {});
  const TensorType q8(DType::kQUInt8, {}, 77, 0.011f);
  for (bool clamp : {false, true}) {
    for (bool float_filter : {false, true}) {
      SCOPED_TRACE(std::string(clamp ? "clamped" : "") + (float_filter ? " float filter" : ""));
      // Builds DQ(x), filter, DQ(bias) -> conv -> Quantize; `also_float`
      // makes the conv's floats a graph output too.
      auto build = [&](GraphBuilder& b, bool also_float) {
        ValueRef filter = b.Op("Dequantize", {b.Const(o.f, o.fq)}, {f32});
        if (float_filter) filter = b.Op("Relu", {filter});  // not a Dequantize: read as floats
        std::vector<ValueRef> in = {b.Op("Dequantize", {b.Const(o.x, o.xq)}, {f32}), filter,
                                    b.Op("Dequantize", {b.Const(o.bias, o.bias_q)}, {f32})};
        for (ValueRef p : ConvParams(b, k)) in.push_back(p);
        if (clamp) {
          in.push_back(b.Scalar(-0.25));
          in.push_back(b.Scalar(0.5));
        }
        ValueRef conv = b.Op(k.op, in, {f32});
        b.Output(b.Op("Quantize", {conv}, {q8}));
        if (also_float) b.Output(conv);
      };
      GraphBuilder fused, apart;
      build(fused, false);
      build(apart, true);
      ExecuteOptions options;
      options.threads = 1;
      ExecuteStats stats;
      options.stats = &stats;
      auto a = Execute(apart.graph(), {}, options);
      ASSERT_TRUE(a.ok()) << a.status();
      const int64_t apart_run = stats.nodes_run;
      auto f = Execute(fused.graph(), {}, options);
      ASSERT_TRUE(f.ok()) << f.status();
      EXPECT_TRUE((*f)[0] == (*a)[0]);
      EXPECT_EQ(stats.nodes_run, apart_run - 1);  // the Quantize
    }
  }
}

// An ONNX QDQ graph's input: the quantized NCHW image dequantized, then
// transposed to NHWC for the convolution. The Transpose runs on the
// quantized bytes (the Dequantize not run) and the convolution reads it
// through, in integers: the same bits as the convolution of the transposed
// quantized image's Dequantize. Not when something else also reads the
// Transpose's floats: the convolution then computes on floats (close to the
// exact value, as the float path is).
TEST(DequantizeReadThrough, TransposeOfADequantizeRunsOnTheQuantizedBytes) {
  QConv k;
  k.x = {1, 9, 10, 6};
  k.f = {3, 3, 6, 16};
  k.pads = {1, 1, 1, 1};
  std::mt19937 rng(17);
  const Operands o = MakeOperands(k, rng);
  const std::vector<float> exact = Exact(k, o);
  // The NCHW image whose NHWC transpose is o.x.
  const TensorType nchw(o.x.dtype, {1, 6, 9, 10}, o.x.zero_offset, o.x.stepsize);
  std::vector<double> xq_nchw(o.xq.size());
  for (int64_t h = 0; h < 9; ++h)
    for (int64_t w = 0; w < 10; ++w)
      for (int64_t c = 0; c < 6; ++c) xq_nchw[(c * 9 + h) * 10 + w] = o.xq[(h * 10 + w) * 6 + c];
  const TensorType f32(DType::kFloat32, {});
  const TensorType q8(DType::kQUInt8, {}, 77, 0.011f);
  for (bool also_relu : {false, true}) {
    SCOPED_TRACE(also_relu ? "the transposed floats also read by a Relu" : "");
    GraphBuilder b;
    ValueRef image = b.Op("Dequantize", {b.Const(nchw, xq_nchw)}, {f32});
    ValueRef nhwc = b.Op("Transpose", {image, b.Shape({0, 2, 3, 1})});
    std::vector<ValueRef> in = {nhwc, b.Op("Dequantize", {b.Const(o.f, o.fq)}, {f32}),
                                b.Op("Dequantize", {b.Const(o.bias, o.bias_q)}, {f32})};
    for (ValueRef p : ConvParams(b, k)) in.push_back(p);
    ValueRef conv = b.Op(k.op, in, {f32});
    b.Output(b.Op("Quantize", {conv}, {q8}));
    if (also_relu) b.Output(b.Op("Relu", {nhwc}));
    ExecuteStats stats;
    ExecuteOptions options;
    options.threads = 1;
    options.stats = &stats;
    auto r = Execute(b.graph(), {}, options);
    ASSERT_TRUE(r.ok()) << r.status();
    const Tensor& got = (*r)[0];
    Tensor want(got.type());
    for (size_t i = 0; i < exact.size(); ++i) want.SetReal(static_cast<int64_t>(i), exact[i]);
    if (!also_relu) {
      EXPECT_TRUE(got == want);
      EXPECT_EQ(stats.nodes_run, 2);  // the Transpose and the convolution
    } else {
      int far = 0;
      for (int64_t i = 0; i < got.num_elements(); ++i) {
        if (std::abs(got.GetValue(i) - want.GetValue(i)) > 1) ++far;
      }
      EXPECT_EQ(far, 0);
      EXPECT_EQ(stats.nodes_run, 4);  // and the Dequantize and the Relu
    }
  }
}

// Runs with a cache take the filters laid out, and the primitives made, by
// the first run: the same bits as runs without one, and no new entries
// after the first run. Two float convolutions of identical input, filter
// and output shapes differ only in dilation and padding: a primitive made
// for one must not serve the other.
TEST(ExecuteCacheTest, LaidOutFiltersAreReusedWithoutChangingABit) {
  QConv k;
  k.x = {1, 10, 10, 32};
  k.f = {3, 3, 32, 32};
  k.pads = {1, 1, 1, 1};
  std::mt19937 rng(14);
  const Operands o = MakeOperands(k, rng);
  GraphBuilder b;
  // One quantized convolution and one float convolution of its result.
  const TensorType f32(DType::kFloat32, {});
  std::vector<ValueRef> in = {b.Op("Dequantize", {b.Const(o.x, o.xq)}, {f32}),
                              b.Op("Dequantize", {b.Const(o.f, o.fq)}, {f32}),
                              b.Op("Dequantize", {b.Const(o.bias, o.bias_q)}, {f32})};
  for (ValueRef p : ConvParams(b, k)) in.push_back(p);
  ValueRef y = b.Op(k.op, in, {f32});
  std::vector<double> wf(3 * 3 * 32 * 8), bf(8, 0.25);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : wf) v = u(rng);
  std::vector<ValueRef> in2 = {y, b.F32({3, 3, 32, 8}, wf), b.F32({8}, bf)};
  for (ValueRef p : ConvParams(b, k)) in2.push_back(p);
  ValueRef z = b.Op("Conv2d", in2);
  // 3x3 taps dilated by 2, padded by 2: the same 10x10 output.
  QConv dilated = k;
  dilated.pads = {2, 2, 2, 2};
  dilated.dilation = {1, 2, 2, 1};
  std::vector<ValueRef> in3 = {y, b.F32({3, 3, 32, 8}, wf), b.F32({8}, bf)};
  for (ValueRef p : ConvParams(b, dilated)) in3.push_back(p);
  b.Output(b.Op("ElementWiseAdd", {z, b.Op("Conv2d", in3)}));

  const std::vector<float> plain = RunOnce(b);
  ExecuteCache cache;
  ExpectSameBits(RunOnce(b, nullptr, &cache), plain);
  const int64_t bytes = cache.bytes();
  EXPECT_GT(bytes, 0);
  ExpectSameBits(RunOnce(b, nullptr, &cache), plain);
  EXPECT_EQ(cache.bytes(), bytes);
}

// The run without VNNI really is one: oneDNN took DNNL_MAX_CPU_ISA, and the
// executor sums 7-bit filter values only.
TEST(QuantizedConv, WithoutVnniTheFilterValuesAreSevenBits) {
  const char* isa = std::getenv("DNNL_MAX_CPU_ISA");
  if (isa == nullptr || std::string(isa) != "AVX2") {
    GTEST_SKIP() << "run by the ctest QuantizedConvWithoutVnni (DNNL_MAX_CPU_ISA=AVX2)";
  }
  EXPECT_EQ(backend_internal::DnnlInt8WeightLimit(), 64);
}

}  // namespace
}  // namespace egret
