// ONNX's random ops: RandomNormal, RandomUniform, RandomNormalLike,
// RandomUniformLike, Bernoulli, Multinomial, and Dropout in training mode
// (its mask), drawn deterministically (onnx_kernels_internal.h, RandomKey).
//
// Draw i of a node is a function of its key and i alone (a counter-based
// generator: SplitMix64's finalizer of key + (i + 1) * golden ratio), so a
// node draws the same values whatever runs before it, on every platform and
// thread count. A uniform draw is the top 53 bits of that word over 2^53, in
// [0, 1); a normal one is Box-Muller's cos branch of the uniform draws 2i
// and 2i + 1. These are not numpy's or ONNX Runtime's streams: a model's
// random outputs are the same distribution, never the same values.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {

uint64_t RandomKey(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.HasAttr("seed")) return kUnseededRandomKey;
  // ONNX's seed is a float attribute: its float bits are the key.
  const float seed = static_cast<float>(a.Float("seed", 0.0));
  uint32_t bits;
  std::memcpy(&bits, &seed, 4);
  return uint64_t{bits} | (uint64_t{1} << 32);
}

uint64_t RandomBits(uint64_t key, uint64_t i) {
  uint64_t z = key + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double RandomUniform01(uint64_t key, uint64_t i) {
  return static_cast<double>(RandomBits(key, i) >> 11) * 0x1.0p-53;
}

namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

constexpr double kPi = 3.14159265358979323846;

double NormalDraw(uint64_t key, uint64_t i) {
  const double u1 = RandomUniform01(key, 2 * i), u2 = RandomUniform01(key, 2 * i + 1);
  return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * kPi * u2);
}

// The single output: n draws of `draw(key, i)`, stored in the declared type.
template <typename F>
Result Draws(const KernelContext& c, F draw) {
  const int64_t n = c.outputs[0].num_elements();
  const uint64_t key = RandomKey(c);
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = draw(key, static_cast<uint64_t>(i));
  return OnnxResult(c, v);
}

// RandomNormal, RandomNormalLike: mean + scale * N(0, 1). The output's dims
// are its declared ones (the shape attribute, or the input's).
Result RandomNormal(const KernelContext& c) {
  const OnnxArgs a(c);
  const double mean = a.Float("mean", 0.0), scale = a.Float("scale", 1.0);
  if (c.op == "onnx.RandomNormalLike") {
    EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
    EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, c.InDims(0)));
  }
  return Draws(c, [&](uint64_t key, uint64_t i) { return mean + scale * NormalDraw(key, i); });
}

// RandomUniform, RandomUniformLike: low + (high - low) * U[0, 1).
Result RandomUniform(const KernelContext& c) {
  const OnnxArgs a(c);
  const double low = a.Float("low", 0.0), high = a.Float("high", 1.0);
  if (c.op == "onnx.RandomUniformLike") {
    EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
    EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, c.InDims(0)));
  }
  return Draws(c, [&](uint64_t key, uint64_t i) {
    const double x = low + (high - low) * RandomUniform01(key, i);
    // Rounded to Float32, low + (high - low) * u may reach high: kept below
    // it, the range being half open. (A Float16 output may still round to
    // high.)
    return c.outputs[0].dtype == DType::kFloat32 && static_cast<float>(x) >= high
               ? static_cast<double>(std::nextafter(static_cast<float>(high), -INFINITY))
               : x;
  });
}

// Bernoulli: 1 where a uniform draw falls below the input probability p,
// else 0 (so p = 0 gives 0 and p = 1 gives 1, exactly).
Result Bernoulli(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, c.InDims(0)));
  const std::vector<double> p = ReadReals(c.In(0));
  return Draws(
      c, [&](uint64_t key, uint64_t i) { return RandomUniform01(key, i) < p[i] ? 1.0 : 0.0; });
}

// Multinomial: input [batch, classes] of unnormalized log-probabilities;
// output [batch, sample_size] of class indices, each the first class whose
// cumulative probability exceeds a uniform draw.
Result Multinomial(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  const Dims& d = c.InDims(0);
  if (d.size() != 2) return KernelError(c, "input must be [batch, classes]");
  const int64_t samples = a.Int("sample_size", 1);
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, {d[0], samples}));
  const std::vector<double> logits = ReadReals(c.In(0));
  const uint64_t key = RandomKey(c);
  std::vector<double> out(static_cast<size_t>(d[0] * samples));
  std::vector<double> cdf(static_cast<size_t>(d[1]));
  for (int64_t b = 0; b < d[0]; ++b) {
    double mx = -INFINITY;
    for (int64_t j = 0; j < d[1]; ++j) mx = std::max(mx, logits[b * d[1] + j]);
    double total = 0;
    for (int64_t j = 0; j < d[1]; ++j) {
      total += std::exp(logits[b * d[1] + j] - mx);
      cdf[j] = total;
    }
    for (int64_t s = 0; s < samples; ++s) {
      const double u = RandomUniform01(key, static_cast<uint64_t>(b * samples + s)) * total;
      int64_t j = 0;
      while (j + 1 < d[1] && cdf[j] <= u) ++j;
      out[b * samples + s] = static_cast<double>(j);
    }
  }
  return OnnxResult(c, out);
}

}  // namespace

void RegisterOnnxRandomKernels(KernelTable& t) {
  t.emplace("onnx.RandomNormal", RandomNormal);
  t.emplace("onnx.RandomNormalLike", RandomNormal);
  t.emplace("onnx.RandomUniform", RandomUniform);
  t.emplace("onnx.RandomUniformLike", RandomUniform);
  t.emplace("onnx.Bernoulli", Bernoulli);
  t.emplace("onnx.Multinomial", Multinomial);
}

}  // namespace egret::backend_internal
