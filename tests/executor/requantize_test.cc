// The fused requantization of an integer convolution's sums
// (kernels/requantize.h) stores, byte for byte, what its definition does:
// the affine map in double rounded once to float, the fused clamp, and the
// quantization Tensor::SetReal performs. The cases are those where a faster
// form would differ: quotients next to a tie, sums near the int32 limits,
// infinite and NaN biases, clamp bounds that are not floats, zero offsets
// of both signs (one outside the storage range), and channel counts that
// leave a partial vector at the end of every row.
// GCC 12 reports a false "maybe uninitialized" inside absl::InlinedVector's
// move when TensorType{dtype, Dims{...}} temporaries are inlined (as in
// dnnl_kernels_test.cc).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "egret/executor/kernels/requantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/simd.h"
#include "egret/graph/tensor.h"

namespace egret {
namespace {

using backend_internal::ActivationClamp;
using backend_internal::Int8Requantizer;

struct Case {
  int64_t rows = 0, channels = 0;
  std::vector<int32_t> sums;
  std::vector<double> scale, bias;
  std::optional<ActivationClamp> clamp;
};

// The definition, element by element, with Tensor::SetReal as the quantizer.
Tensor Expected(const Case& c, const TensorType& type) {
  Tensor want(TensorType(type.dtype, {c.rows, c.channels}, type.zero_offset, type.stepsize));
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t k = 0; k < c.channels; ++k) {
      const int64_t i = r * c.channels + k;
      const size_t ku = static_cast<size_t>(k);
      float v = static_cast<float>(
          c.scale[ku] * static_cast<double>(c.sums[static_cast<size_t>(i)]) + c.bias[ku]);
      if (c.clamp) {
        v = static_cast<float>(
            std::min(std::max(static_cast<double>(v), c.clamp->lo), c.clamp->hi));
      }
      want.SetReal(i, static_cast<double>(v));
    }
  }
  return want;
}

// Runs the fused loop; false (with a skip message) where it does not apply.
void ExpectLikeDefinition(const Case& c, const TensorType& type) {
  SCOPED_TRACE(testing::Message() << type.ToString() << ", " << c.channels << " channels"
                                  << (c.clamp ? ", clamped" : ""));
  const Tensor want = Expected(c, type);
  std::vector<uint8_t> got(static_cast<size_t>(c.rows * c.channels), 0xA5);
  const std::optional<Int8Requantizer> requantizer = Int8Requantizer::Make(
      c.channels, c.scale.data(), c.bias.data(), c.clamp ? &*c.clamp : nullptr, type);
  ASSERT_TRUE(requantizer.has_value());
  requantizer->Run(c.sums.data(), c.rows, got.data());
  int mismatches = 0;
  for (int64_t i = 0; i < c.rows * c.channels; ++i) {
    const uint8_t expected = want.bytes()[static_cast<size_t>(i)];
    if (got[static_cast<size_t>(i)] != expected && ++mismatches <= 3) {
      const size_t k = static_cast<size_t>(i % c.channels);
      ADD_FAILURE() << "element " << i << ": sum " << c.sums[static_cast<size_t>(i)] << " * "
                    << c.scale[k] << " + " << c.bias[k] << " stored "
                    << static_cast<int>(got[static_cast<size_t>(i)]) << ", the definition "
                    << static_cast<int>(expected);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

std::vector<TensorType> OutputTypes() {
  return {TensorType(DType::kQUInt8, {}, 77, 0.011f), TensorType(DType::kQInt8, {}, -3, 0.05f),
          TensorType(DType::kQUInt8, {}, 0, 1.0f / 3.0f),
          TensorType(DType::kQUInt8, {}, 300, 0.02f)};  // a zero outside the storage range
}

std::vector<std::optional<ActivationClamp>> Clamps() {
  return {std::nullopt, ActivationClamp{-0.25, 0.5}, ActivationClamp{0.0, 6.0},
          ActivationClamp{0.1, 1e300}, ActivationClamp{-1e300, -0.3}};
}

bool Applies() { return backend_internal::HasAvx512(); }

TEST(Int8Requantizer, RandomSumsScalesAndBiases) {
  if (!Applies()) GTEST_SKIP() << "no AVX-512 on this CPU: the fused loop is not used";
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> sum(-400000, 400000);
  std::uniform_real_distribution<double> log_scale(-16.0, -6.0), bias(-2.0, 2.0);
  for (int64_t channels : {1, 7, 16, 24, 33, 128}) {
    Case c;
    c.rows = 9;
    c.channels = channels;
    for (int64_t i = 0; i < c.rows * channels; ++i) c.sums.push_back(sum(rng));
    for (int64_t k = 0; k < channels; ++k) {
      c.scale.push_back(std::exp2(log_scale(rng)));
      c.bias.push_back(bias(rng));
    }
    for (const auto& clamp : Clamps()) {
      c.clamp = clamp;
      for (const TensorType& t : OutputTypes()) ExpectLikeDefinition(c, t);
    }
  }
}

// Sums whose quotient plus zero offset falls next to n + 1/2, for every n
// the storage range reaches: per channel, a random scale (2^-17 to 2^-10
// steps per unit of sum, so that neighbouring sums move the quotient by less
// than a float estimate's error) and bias, and the six sums around the one
// that would hit the tie. Channel 0 has scale step / 1024 and bias step / 2,
// whose quotients are exact ties.
TEST(Int8Requantizer, QuotientsNextToATie) {
  if (!Applies()) GTEST_SKIP() << "no AVX-512 on this CPU: the fused loop is not used";
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> log_scale(-17.0, -10.0), bias(-3.0, 3.0);
  for (const TensorType& t : OutputTypes()) {
    Case c;
    c.channels = 19;
    const double step = static_cast<double>(t.stepsize);
    for (int64_t k = 0; k < c.channels; ++k) {
      c.scale.push_back(k == 0 ? step / 1024 : step * std::exp2(log_scale(rng)));
      c.bias.push_back(k == 0 ? step / 2 : step * bias(rng));
    }
    const int64_t lo = StorageMin(t.dtype), hi = StorageMax(t.dtype);
    for (int64_t n = lo - 2; n <= hi + 1; ++n) {
      for (int32_t d = -2; d <= 3; ++d) {
        for (int64_t k = 0; k < c.channels; ++k) {
          const size_t ku = static_cast<size_t>(k);
          const double tie =
              ((static_cast<double>(n - t.zero_offset) + 0.5) * step - c.bias[ku]) / c.scale[ku];
          c.sums.push_back(static_cast<int32_t>(std::floor(tie)) + d);
        }
        ++c.rows;
      }
    }
    for (const auto& clamp : Clamps()) {
      c.clamp = clamp;
      ExpectLikeDefinition(c, t);
    }
  }
}

// Rows of 1000 channels, every sum the one nearest a tie: every block is
// redone exactly, more of them per row than the loop lists at a time.
TEST(Int8Requantizer, RowsWithManyBlocksNearTies) {
  if (!Applies()) GTEST_SKIP() << "no AVX-512 on this CPU: the fused loop is not used";
  const TensorType t(DType::kQUInt8, {}, 77, 0.011f);
  const double step = static_cast<double>(t.stepsize);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> log_scale(-17.0, -10.0), bias(-3.0, 3.0);
  std::uniform_int_distribution<int> level(0, 255);
  Case c;
  c.channels = 1000;
  for (int64_t k = 0; k < c.channels; ++k) {
    c.scale.push_back(step * std::exp2(log_scale(rng)));
    c.bias.push_back(step * bias(rng));
  }
  for (c.rows = 0; c.rows < 8; ++c.rows) {
    for (int64_t k = 0; k < c.channels; ++k) {
      const size_t ku = static_cast<size_t>(k);
      const double tie = ((level(rng) - t.zero_offset + 0.5) * step - c.bias[ku]) / c.scale[ku];
      c.sums.push_back(static_cast<int32_t>(std::nearbyint(tie)));
    }
  }
  ExpectLikeDefinition(c, t);
}

// Sums at the int32 limits, scales that overflow float, infinite and NaN
// biases: saturation both ways, and NaN to the (saturated) zero offset.
TEST(Int8Requantizer, SaturationInfinitiesAndNaN) {
  if (!Applies()) GTEST_SKIP() << "no AVX-512 on this CPU: the fused loop is not used";
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Case c;
  c.channels = 6;
  c.scale = {1.0, 1e-3, 1e300, 1.0, 1.0, 1.0};
  c.bias = {0.0, 0.0, 0.0, kInf, -kInf, std::numeric_limits<double>::quiet_NaN()};
  for (int32_t s : {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), 0, -1,
                    1, 16777217, -16777217}) {
    for (int64_t k = 0; k < c.channels; ++k) c.sums.push_back(s);
    ++c.rows;
  }
  for (const auto& clamp : Clamps()) {
    c.clamp = clamp;
    for (const TensorType& t : OutputTypes()) ExpectLikeDefinition(c, t);
  }
}

// Types the fused loop does not take are left to the portable path.
TEST(Int8Requantizer, DeclinesOtherTypes) {
  const double scale[2] = {1, 1}, bias[2] = {0, 0};
  const ActivationClamp nan_bound{std::nan(""), 1.0};
  TensorType per_axis(DType::kQUInt8, {1, 2});
  ASSERT_TRUE(per_axis.SetPerAxis(1, {0.1f, 0.2f}, {0, 0}).ok());
  for (const TensorType& t :
       {TensorType(DType::kQUInt16, {}, 0, 0.1f), TensorType(DType::kQInt32, {}, 0, 0.1f),
        TensorType(DType::kFloat32, {}), TensorType(DType::kQUInt8, {}, 0, 1e-40f),
        TensorType(DType::kQUInt8, {}, 1 << 20, 0.1f), per_axis}) {
    SCOPED_TRACE(t.ToString());
    EXPECT_FALSE(Int8Requantizer::Make(2, scale, bias, nullptr, t).has_value());
  }
  EXPECT_FALSE(
      Int8Requantizer::Make(2, scale, bias, &nan_bound, TensorType(DType::kQUInt8, {}, 0, 0.1f))
          .has_value());
  if (Applies()) {
    EXPECT_TRUE(
        Int8Requantizer::Make(2, scale, bias, nullptr, TensorType(DType::kQUInt8, {}, 0, 0.1f))
            .has_value());
  }
}

}  // namespace
}  // namespace egret
