// The ONNX-semantics kernels of the quantized ops (opaque "onnx.<Op>" and
// "onnx.com.microsoft.<Op>" nodes): rounding halves to even, saturation,
// per-axis and blocked scales, DynamicQuantizeLinear's range, the integer
// convolution and matrix product against a direct evaluation of ONNX's
// formula, and the com.microsoft QLinear ops. ONNX's uint8 / int8 are
// egret's QUInt8 / QInt8 with the plain encoding; the kernels read and write
// the stored integers.
// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "onnx_node.h"

namespace egret {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

TensorType F32(Dims d) { return TensorType(DType::kFloat32, std::move(d)); }
TensorType U8(Dims d) { return TensorType(DType::kQUInt8, std::move(d)); }
TensorType I8(Dims d) { return TensorType(DType::kQInt8, std::move(d)); }
TensorType I32(Dims d) { return TensorType(DType::kInt32, std::move(d)); }

using In = testing::OnnxInput;
using testing::ErrorOf;
using testing::RunOnnx;

// The stored values of a tensor (for an ONNX integer tensor, its integers).
std::vector<double> Stored(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.num_elements(); ++i) v.push_back(t.GetValue(i));
  return v;
}

In Scalar(float v) { return {F32({}), {v}}; }

TEST(OnnxQuantizeKernels, QuantizeLinearRoundsHalvesToEven) {
  auto r = RunOnnx(
      "onnx.QuantizeLinear",
      {{F32({8}), {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, 2.6}}, Scalar(1.0f), {U8({}), {128}}},
      {U8({8})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Stored((*r)[0]), ElementsAre(126, 126, 128, 128, 130, 130, 130, 131));
  // The division happens first: 3 / 2 = 1.5 rounds to 2, 5 / 2 = 2.5 to 2.
  auto halves = RunOnnx("onnx.QuantizeLinear", {{F32({2}), {3, 5}}, Scalar(2.0f)}, {U8({2})});
  ASSERT_TRUE(halves.ok()) << halves.status();
  EXPECT_THAT(Stored((*halves)[0]), ElementsAre(2, 2));
}

TEST(OnnxQuantizeKernels, QuantizeLinearSaturatesToTheOutputType) {
  const In x{F32({4}), {300, -10, 127.6, -1000}};
  auto u8 = RunOnnx("onnx.QuantizeLinear", {x, Scalar(1.0f)}, {U8({4})});
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_THAT(Stored((*u8)[0]), ElementsAre(255, 0, 128, 0));
  auto i8 = RunOnnx("onnx.QuantizeLinear", {x, Scalar(1.0f), {I8({}), {-1}}}, {I8({4})});
  ASSERT_TRUE(i8.ok()) << i8.status();
  EXPECT_THAT(Stored((*i8)[0]), ElementsAre(127, -11, 127, -128));
  const TensorType i16(DType::kQInt16, {4});
  auto wide = RunOnnx("onnx.QuantizeLinear",
                      {x, Scalar(0.01f), {TensorType(DType::kQInt16, {}), {0}}}, {i16});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_THAT(Stored((*wide)[0]), ElementsAre(30000, -1000, 12760, -32768));
}

TEST(OnnxQuantizeKernels, QuantizeLinearPerAxisAndBlocked) {
  // x [2, 3]; per column (axis 1, also as -1): scales 1, 2, 4, zero points 0, 10, 20.
  const In x{F32({2, 3}), {8, 8, 8, -8, -8, -8}};
  const In scales{F32({3}), {1, 2, 4}};
  const In zeros{U8({3}), {0, 10, 20}};
  for (int64_t axis : {1, -1}) {
    auto r = RunOnnx("onnx.QuantizeLinear", {x, scales, zeros}, {U8({2, 3})}, {{"axis", axis}});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(Stored((*r)[0]), ElementsAre(8, 14, 22, 0, 6, 18));
  }
  // Per row (axis 0).
  auto rows =
      RunOnnx("onnx.QuantizeLinear", {x, {F32({2}), {1, 4}}}, {U8({2, 3})}, {{"axis", int64_t{0}}});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(Stored((*rows)[0]), ElementsAre(8, 8, 8, 0, 0, 0));
  // Blocks of 2 along axis 1 (opset 21): x [1, 4] uses scales [1, 2] as 1, 1, 2, 2.
  auto blocked =
      RunOnnx("onnx.QuantizeLinear", {{F32({1, 4}), {4, 4, 4, 4}}, {F32({1, 2}), {1, 2}}},
              {U8({1, 4})}, {{"axis", int64_t{1}}, {"block_size", int64_t{2}}});
  ASSERT_TRUE(blocked.ok()) << blocked.status();
  EXPECT_THAT(Stored((*blocked)[0]), ElementsAre(4, 4, 2, 2));
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.QuantizeLinear", {x, {F32({2}), {1, 2}}}, {U8({2, 3})})),
              HasSubstr("a per-axis scale must be 1-D of x's dim 3 along axis 1"));
}

TEST(OnnxQuantizeKernels, DequantizeLinearPerAxisWithZeroPoints) {
  auto r = RunOnnx("onnx.DequantizeLinear",
                   {{I8({2, 2}), {-128, 127, 0, 5}}, {F32({2}), {0.5, 0.25}}, {I8({2}), {-128, 1}}},
                   {F32({2, 2})}, {{"axis", int64_t{0}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Stored((*r)[0]), ElementsAre(0, 127.5, -0.25, 1));
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.DequantizeLinear", {{I8({1}), {1}}, Scalar(1), {U8({}), {0}}},
                              {F32({1})})),
              HasSubstr("x_zero_point QUInt8[](z=0,s=1) does not have x's type QInt8"));
}

// DynamicQuantizeLinear's range always includes 0: an all-positive x has
// zero point 0, an all-negative one 255.
TEST(OnnxQuantizeKernels, DynamicQuantizeLinearOfOneSignedTensors) {
  const std::vector<TensorType> outs = {U8({4}), F32({}), U8({})};
  auto pos = RunOnnx("onnx.DynamicQuantizeLinear", {{F32({4}), {0.5, 1, 2, 2.55}}}, outs);
  ASSERT_TRUE(pos.ok()) << pos.status();
  const float pos_scale = 2.55f / 255.0f;  // (max(x) - 0) / 255
  EXPECT_EQ((*pos)[1].GetValue(0), pos_scale);
  EXPECT_THAT(Stored((*pos)[2]), ElementsAre(0));
  EXPECT_THAT(Stored((*pos)[0]), ElementsAre(50, 100, 200, 255));

  auto neg = RunOnnx("onnx.DynamicQuantizeLinear", {{F32({4}), {-1, -2.55, -0.5, -0.25}}}, outs);
  ASSERT_TRUE(neg.ok()) << neg.status();
  const float neg_scale = (0.0f - -2.55f) / 255.0f;  // (0 - min(x)) / 255
  EXPECT_EQ((*neg)[1].GetValue(0), neg_scale);
  EXPECT_THAT(Stored((*neg)[2]), ElementsAre(255));  // round(0 - min / scale)
  EXPECT_THAT(Stored((*neg)[0]), ElementsAre(155, 0, 205, 230));

  // No range at all: scale 1, zero point 0 (as ONNX Runtime).
  auto zeros = RunOnnx("onnx.DynamicQuantizeLinear", {{F32({4}), {0, 0, 0, 0}}}, outs);
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  EXPECT_EQ((*zeros)[1].GetValue(0), 1.0);
  EXPECT_THAT(Stored((*zeros)[0]), ElementsAre(0, 0, 0, 0));
}

// Long inputs take the vectorized range and quantize loops: every element is
// ONNX's formula, saturate(round(x / scale) + zero) in float32 with halves
// to even, written out here; a NaN anywhere gives 0 for it (ONNX Runtime's
// saturation of NaN), and leaves the range of the others alone.
TEST(OnnxQuantizeKernels, DynamicQuantizeLinearOfLongInputsIsTheFormula) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-3.0f, 7.0f);
  for (int64_t n : {16, 1000, 4099}) {
    for (bool with_nan : {false, true}) {
      SCOPED_TRACE(std::to_string(n) + (with_nan ? " with NaN" : ""));
      std::vector<double> x;
      for (int64_t i = 0; i < n; ++i) x.push_back(u(rng));
      x[n / 3] = 2.5f;  // a quotient at a half, probably not; a value anyway
      if (with_nan) x[n - 7] = std::nan("");
      float lo = 0, hi = 0;
      for (double v : x) {
        lo = std::isnan(v) ? lo : std::min(lo, static_cast<float>(v));
        hi = std::isnan(v) ? hi : std::max(hi, static_cast<float>(v));
      }
      const float scale = (hi - lo) / 255.0f;
      const float zero = std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
      const std::vector<TensorType> outs = {U8({n}), F32({}), U8({})};
      auto r = RunOnnx("onnx.DynamicQuantizeLinear", {{F32({n}), x}}, outs);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ((*r)[1].GetValue(0), scale);
      EXPECT_EQ((*r)[2].GetValue(0), zero);
      int mismatches = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float q = std::nearbyint(static_cast<float>(x[i]) / scale) + zero;
        const double want = std::isnan(x[i]) ? 0.0 : std::clamp(q, 0.0f, 255.0f);
        if ((*r)[0].GetValue(i) != want && ++mismatches <= 5) {
          ADD_FAILURE() << "element " << i << " (x " << x[i] << "): got " << (*r)[0].GetValue(i)
                        << ", want " << want;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Integer convolution against ONNX's formula, evaluated directly.

struct ConvCase {
  std::string name;
  Dims x, w;  // [N, C, D...], [M, C / group, k...]
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads;  // empty: the defaults
  std::string auto_pad = "NOTSET";
  bool signed_w = false;  // int8 weights
  bool per_channel_zero = false;
};

// y[n][m][o...] = sum over c, k... of (x[n][g*C/group + c][o*s - pad + k*d] - xz) * (w[m][c][k] -
// wz[m]), the x term 0 outside x.
std::vector<double> DirectConv(const ConvCase& cc, const std::vector<double>& x, double xz,
                               const std::vector<double>& w, const std::vector<double>& wz,
                               const std::vector<int64_t>& pad, const Dims& out) {
  const int sd = static_cast<int>(cc.x.size()) - 2;
  const int64_t cg = cc.w[1], mg = cc.w[0] / cc.group;
  std::vector<int64_t> stride = cc.strides.empty() ? std::vector<int64_t>(sd, 1) : cc.strides;
  std::vector<int64_t> dil = cc.dilations.empty() ? std::vector<int64_t>(sd, 1) : cc.dilations;
  auto count = [](const Dims& d, int from) {
    int64_t n = 1;
    for (size_t i = from; i < d.size(); ++i) n *= d[i];
    return n;
  };
  std::vector<double> y;
  std::vector<int64_t> o(sd), k(sd);
  for (int64_t n = 0; n < cc.x[0]; ++n) {
    for (int64_t m = 0; m < cc.w[0]; ++m) {
      const int64_t g = m / mg;
      for (int64_t oi = 0; oi < count(out, 2); ++oi) {
        for (int64_t d = sd - 1, r = oi; d >= 0; --d) o[d] = r % out[2 + d], r /= out[2 + d];
        double sum = 0;
        for (int64_t c = 0; c < cg; ++c) {
          for (int64_t ki = 0; ki < count(cc.w, 2); ++ki) {
            for (int64_t d = sd - 1, r = ki; d >= 0; --d) k[d] = r % cc.w[2 + d], r /= cc.w[2 + d];
            int64_t xi = n * cc.x[1] + g * cg + c;
            bool inside = true;
            for (int d = 0; d < sd; ++d) {
              const int64_t p = o[d] * stride[d] - pad[d] + k[d] * dil[d];
              inside = inside && p >= 0 && p < cc.x[2 + d];
              xi = xi * cc.x[2 + d] + p;
            }
            if (!inside) continue;
            const double wv = w[(m * cg + c) * count(cc.w, 2) + ki];
            sum += (x[xi] - xz) * (wv - wz[wz.size() == 1 ? 0 : m]);
          }
        }
        y.push_back(sum);
      }
    }
  }
  return y;
}

TEST(OnnxQuantizeKernels, ConvIntegerMatchesTheFormula) {
  const std::vector<ConvCase> cases = {
      {"3x3 padded", {1, 2, 5, 6}, {3, 2, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {"stride 2, asymmetric pads", {2, 3, 7, 8}, {4, 3, 3, 2}, 1, {2, 2}, {}, {0, 1, 2, 0}},
      {"dilation 2", {1, 2, 9, 9}, {2, 2, 3, 3}, 1, {}, {2, 2}, {2, 2, 2, 2}},
      {"2 groups, per-channel zero, int8 w",
       {1, 4, 5, 5},
       {6, 2, 3, 3},
       2,
       {},
       {},
       {1, 1, 1, 1},
       "NOTSET",
       true,
       true},
      {"depthwise", {1, 3, 6, 6}, {3, 1, 3, 3}, 3, {}, {}, {1, 1, 1, 1}},
      {"SAME_LOWER stride 2", {1, 2, 6, 7}, {2, 2, 4, 4}, 1, {2, 2}, {}, {}, "SAME_LOWER"},
      {"SAME_UPPER", {1, 1, 5, 5}, {1, 1, 2, 2}, 1, {}, {}, {}, "SAME_UPPER"},
      {"1-D", {1, 2, 11}, {3, 2, 4}, 1, {3}, {}, {2, 1}},
      {"3-D", {1, 2, 4, 5, 6}, {2, 2, 2, 3, 2}, 1, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}},
      {"sums of 360 terms", {1, 40, 4, 4}, {2, 40, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {"sums of 1350 terms", {1, 150, 3, 3}, {2, 150, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {"rows of 40", {1, 1, 2, 40}, {2, 1, 1, 3}, 1, {}, {}, {0, 1, 0, 1}},
  };
  std::mt19937 rng(7);
  for (const ConvCase& cc : cases) {
    SCOPED_TRACE(cc.name);
    const int sd = static_cast<int>(cc.x.size()) - 2;
    auto fill = [&](const Dims& d, int lo, int hi) {
      int64_t n = 1;
      for (int64_t e : d) n *= e;
      std::vector<double> v(n);
      for (double& e : v) e = lo + static_cast<int>(rng() % (hi - lo + 1));
      return v;
    };
    const std::vector<double> x = fill(cc.x, 0, 255),
                              w = cc.signed_w ? fill(cc.w, -128, 127) : fill(cc.w, 0, 255);
    const double xz = 131;
    const std::vector<double> wz = cc.per_channel_zero
                                       ? fill({cc.w[0]}, -20, 20)
                                       : std::vector<double>{cc.signed_w ? -3.0 : 120.0};
    // Output dims and leading pads as ONNX defines them.
    std::vector<int64_t> stride = cc.strides.empty() ? std::vector<int64_t>(sd, 1) : cc.strides;
    std::vector<int64_t> dil = cc.dilations.empty() ? std::vector<int64_t>(sd, 1) : cc.dilations;
    std::vector<int64_t> pads = cc.pads.empty() ? std::vector<int64_t>(2 * sd, 0) : cc.pads;
    Dims out = {cc.x[0], cc.w[0]};
    std::vector<int64_t> lead(sd);
    for (int d = 0; d < sd; ++d) {
      const int64_t in = cc.x[2 + d], extent = (cc.w[2 + d] - 1) * dil[d] + 1;
      if (cc.auto_pad == "NOTSET") {
        lead[d] = pads[d];
        out.push_back((in + pads[d] + pads[sd + d] - extent) / stride[d] + 1);
      } else {
        const int64_t o = (in + stride[d] - 1) / stride[d];
        const int64_t total = std::max<int64_t>(0, (o - 1) * stride[d] + extent - in);
        lead[d] = cc.auto_pad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
        out.push_back(o);
      }
    }
    Attributes attrs = {{"group", cc.group}, {"auto_pad", cc.auto_pad}};
    if (!cc.strides.empty()) attrs["strides"] = cc.strides;
    if (!cc.dilations.empty()) attrs["dilations"] = cc.dilations;
    if (!cc.pads.empty()) attrs["pads"] = cc.pads;
    const TensorType wt = cc.signed_w ? I8(cc.w) : U8(cc.w);
    const TensorType wzt(wt.dtype, cc.per_channel_zero ? Dims{cc.w[0]} : Dims{});
    auto r = RunOnnx("onnx.ConvInteger", {{U8(cc.x), x}, {wt, w}, {U8({}), {xz}}, {wzt, wz}},
                     {I32(out)}, attrs);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(Stored((*r)[0]), ElementsAreArray(DirectConv(cc, x, xz, w, wz, lead, out)));
  }
}

TEST(OnnxQuantizeKernels, ConvIntegerChecksTheDeclaredOutput) {
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.ConvInteger", {{U8({1, 1, 3, 3}), {}}, {U8({1, 1, 2, 2}), {}}},
                              {I32({1, 1, 3, 3})})),
              HasSubstr("onnx.ConvInteger: the convolution gives [1,1,2,2], the output is "
                        "declared Int32[1,1,3,3]"));
  EXPECT_THAT(
      ErrorOf(RunOnnx(
          "onnx.ConvInteger",
          {{U8({1, 2, 3, 3}), {}}, {U8({2, 2, 1, 1}), {}}, {U8({}), {0}}, {U8({3}), {0, 0, 0}}},
          {I32({1, 2, 3, 3})})),
      HasSubstr("w_zero_point must be a scalar or have one entry per output channel (2)"));
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.ConvInteger", {{U8({1, 1, 3, 3}), {}}, {U8({1, 1, 0, 1}), {}}},
                              {I32({1, 1, 3, 3})})),
              HasSubstr("w [1,1,0,1] has an empty kernel"));
  // No input channels: every sum is empty.
  auto empty = RunOnnx("onnx.ConvInteger", {{U8({1, 0, 2, 2}), {}}, {U8({1, 0, 1, 1}), {}}},
                       {I32({1, 1, 2, 2})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(Stored((*empty)[0]), ElementsAre(0, 0, 0, 0));
}

// QLinearConv: the sums plus the bias, times x_scale * w_scale[m] / y_scale,
// rounded half to even, plus y_zero_point, saturated.
TEST(OnnxQuantizeKernels, QLinearConvRequantizesPerOutputChannel) {
  // x [1, 1, 1, 2] = 1, 3 (zero point 0); w [2, 1, 1, 1] = 1 per channel;
  // channel 0: multiplier 1 * 1 / 2; channel 1: 1 * 300 / 2, bias -1.
  auto r = RunOnnx("onnx.QLinearConv",
                   {{U8({1, 1, 1, 2}), {1, 3}},
                    Scalar(1.0f),
                    {U8({}), {0}},
                    {U8({2, 1, 1, 1}), {1, 1}},
                    {F32({2}), {1, 300}},
                    {U8({2}), {0, 0}},
                    Scalar(2.0f),
                    {U8({}), {10}},
                    {I32({2}), {0, -1}}},
                   {U8({1, 2, 1, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  // 1 / 2 = 0.5 -> 0 (+10), 3 / 2 = 1.5 -> 2 (+10); (1 - 1) * 150 = 0 (+10), (3 - 1) * 150 -> 255.
  EXPECT_THAT(Stored((*r)[0]), ElementsAre(10, 12, 10, 255));
}

TEST(OnnxQuantizeKernels, MatMulIntegerBroadcastsBatchesAndZeroPoints) {
  // A [2, 2, 3] with a per-row zero point (2 rows), B [3, 2] with a per-column one.
  const std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<double> b = {1, 0, 2, 1, 3, 2};
  const std::vector<double> az = {1, 2}, bz = {0, 1};
  auto r = RunOnnx("onnx.MatMulInteger",
                   {{U8({2, 2, 3}), a}, {U8({3, 2}), b}, {U8({2}), az}, {U8({2}), bz}},
                   {I32({2, 2, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> want;
  for (int bi = 0; bi < 2; ++bi) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += (a[(bi * 2 + i) * 3 + k] - az[i]) * (b[k * 2 + j] - bz[j]);
        want.push_back(s);
      }
    }
  }
  EXPECT_THAT(Stored((*r)[0]), ElementsAreArray(want));
  EXPECT_THAT(
      ErrorOf(RunOnnx("onnx.MatMulInteger", {{U8({2, 3}), {}}, {U8({2, 2}), {}}}, {I32({2, 2})})),
      HasSubstr("cannot multiply [2,3] by [2,2]: the inner dims differ"));
}

TEST(OnnxQuantizeKernels, QLinearMatMulRoundsHalvesToEvenAndSaturates) {
  // a [3, 1] times b [1, 1] = 3 - 2 (its zero point), y_scale 2, y_zero_point 200.
  auto r = RunOnnx("onnx.QLinearMatMul",
                   {{U8({3, 1}), {1, 5, 200}},
                    Scalar(1.0f),
                    {U8({}), {0}},
                    {U8({1, 1}), {3}},
                    Scalar(1.0f),
                    {U8({}), {2}},
                    Scalar(2.0f),
                    {U8({}), {200}}},
                   {U8({3, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  // 1 / 2 = 0.5 -> 0; 5 / 2 = 2.5 -> 2; 200 / 2 = 100, + 200 saturates.
  EXPECT_THAT(Stored((*r)[0]), ElementsAre(200, 202, 255));
}

// ---------------------------------------------------------------------------
// com.microsoft

TEST(OnnxQuantizeKernels, QLinearAddBroadcastsInRealValues) {
  // A [2, 2] (scale 0.5, zero 10) + B [2] (scale 1, zero 0), C scale 0.25, zero 100.
  auto r = RunOnnx("onnx.com.microsoft.QLinearAdd",
                   {{U8({2, 2}), {10, 12, 20, 0}},
                    Scalar(0.5f),
                    {U8({}), {10}},
                    {U8({2}), {1, 2}},
                    Scalar(1.0f),
                    {U8({}), {0}},
                    Scalar(0.25f),
                    {U8({}), {100}}},
                   {U8({2, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  // Reals: A = 0, 1, 5, -5; + B (1, 2) = 1, 3, 6, -3; / 0.25 + 100 = 104, 112, 124, 88.
  EXPECT_THAT(Stored((*r)[0]), ElementsAre(104, 112, 124, 88));
  auto mul = RunOnnx("onnx.com.microsoft.QLinearMul",
                     {{I8({2}), {-4, 6}},
                      Scalar(0.5f),
                      {I8({}), {0}},
                      {I8({2}), {3, 100}},
                      Scalar(1.0f),
                      {I8({}), {0}},
                      Scalar(1.0f),
                      {I8({}), {0}}},
                     {I8({2})});
  ASSERT_TRUE(mul.ok()) << mul.status();
  EXPECT_THAT(Stored((*mul)[0]), ElementsAre(-6, 127));
}

TEST(OnnxQuantizeKernels, QLinearSigmoidAndLeakyRelu) {
  const In x{U8({3}), {0, 128, 255}};
  auto s =
      RunOnnx("onnx.com.microsoft.QLinearSigmoid",
              {x, Scalar(0.1f), {U8({}), {128}}, Scalar(1.0f / 256), {U8({}), {0}}}, {U8({3})});
  ASSERT_TRUE(s.ok()) << s.status();
  auto want = [](double v) { return std::min(255.0, std::nearbyint(256 / (1 + std::exp(-v)))); };
  EXPECT_THAT(Stored((*s)[0]), ElementsAre(want(-12.8), 128, want(12.7)));
  auto l = RunOnnx("onnx.com.microsoft.QLinearLeakyRelu",
                   {x, Scalar(1.0f), {U8({}), {128}}, Scalar(1.0f), {U8({}), {128}}}, {U8({3})},
                   {{"alpha", 0.25}});
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_THAT(Stored((*l)[0]), ElementsAre(96, 128, 255));  // -128 * 0.25 = -32; 127
}

TEST(OnnxQuantizeKernels, QLinearConcatRequantizesEachInput) {
  // Y: scale 1, zero 0. Input 0 is already in Y's quantization; input 1
  // (scale 2, zero 1) is requantized.
  auto r = RunOnnx("onnx.com.microsoft.QLinearConcat",
                   {Scalar(1.0f),
                    {U8({}), {0}},
                    {U8({2, 1}), {7, 8}},
                    Scalar(1.0f),
                    {U8({}), {0}},
                    {U8({2, 2}), {1, 2, 3, 200}},
                    Scalar(2.0f),
                    {U8({}), {1}}},
                   {U8({2, 3})}, {{"axis", int64_t{1}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Stored((*r)[0]), ElementsAre(7, 0, 2, 8, 4, 255));
}

TEST(OnnxQuantizeKernels, QLinearAveragePools) {
  // X [1, 1, 2, 3], scale 1, zero 0; Y scale 1, zero 0.
  const In x{U8({1, 1, 2, 3}), {1, 2, 4, 3, 5, 8}};
  const std::vector<In> q = {x, Scalar(1.0f), {U8({}), {0}}, Scalar(1.0f), {U8({}), {0}}};
  // 2x2 windows, stride 1: (1+2+3+5)/4 = 2.75 -> 3, (2+4+5+8)/4 = 4.75 -> 5.
  auto pool = RunOnnx("onnx.com.microsoft.QLinearAveragePool", q, {U8({1, 1, 1, 2})},
                      {{"kernel_shape", std::vector<int64_t>{2, 2}}});
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_THAT(Stored((*pool)[0]), ElementsAre(3, 5));
  // Padded windows count only the input's elements unless count_include_pad.
  const Attributes padded = {{"kernel_shape", std::vector<int64_t>{1, 2}},
                             {"pads", std::vector<int64_t>{0, 1, 0, 0}},
                             {"strides", std::vector<int64_t>{1, 2}}};
  auto excl = RunOnnx("onnx.com.microsoft.QLinearAveragePool", q, {U8({1, 1, 2, 2})}, padded);
  ASSERT_TRUE(excl.ok()) << excl.status();
  EXPECT_THAT(Stored((*excl)[0]), ElementsAre(1, 3, 3, 6));  // 1, 3, 3, 6.5 -> 6
  Attributes incl = padded;
  incl["count_include_pad"] = int64_t{1};
  auto with_pad = RunOnnx("onnx.com.microsoft.QLinearAveragePool", q, {U8({1, 1, 2, 2})}, incl);
  ASSERT_TRUE(with_pad.ok()) << with_pad.status();
  EXPECT_THAT(Stored((*with_pad)[0]), ElementsAre(0, 3, 2, 6));  // 0.5 -> 0, 1.5 -> 2
  // The whole image: (1+2+4+3+5+8) / 6 = 3.83 -> 4, also channels-last.
  auto global = RunOnnx("onnx.com.microsoft.QLinearGlobalAveragePool", q, {U8({1, 1, 1, 1})});
  ASSERT_TRUE(global.ok()) << global.status();
  EXPECT_THAT(Stored((*global)[0]), ElementsAre(4));
  auto nhwc = RunOnnx("onnx.com.microsoft.QLinearGlobalAveragePool",
                      {{U8({1, 2, 1, 2}), {1, 10, 3, 20}}, q[1], q[2], q[3], q[4]},
                      {U8({1, 1, 1, 2})}, {{"channels_last", int64_t{1}}});
  ASSERT_TRUE(nhwc.ok()) << nhwc.status();
  EXPECT_THAT(Stored((*nhwc)[0]), ElementsAre(2, 15));
}

}  // namespace
}  // namespace egret
