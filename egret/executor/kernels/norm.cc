// Softmax, LayerNorm and Batchnorm.
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/simd.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

int64_t Product(const Dims& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= d[i];
  return p;
}

Result Softmax(const KernelContext& c) {
  const Dims& d = c.InDims(0);
  int64_t axis_raw = -1;
  if (c.Has(1)) {
    EGRET_ASSIGN_OR_RETURN(auto a, ReadIntScalarParam(c.inputs[1], "Softmax axis"));
    axis_raw = a;
  }
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, static_cast<int>(d.size()), "axis"));
  std::vector<double> v = ReadReals(c.In(0));
  const int64_t outer = Product(d, 0, axis), len = d[axis], inner = Product(d, axis + 1, d.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double* p = &v[o * len * inner + i];
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < len; ++k) mx = std::max(mx, p[k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < len; ++k) sum += p[k * inner] = std::exp(p[k * inner] - mx);
      for (int64_t k = 0; k < len; ++k) p[k * inner] /= sum;
    }
  }
  std::vector<Tensor> out;
  out.push_back(MakeTensor(c.outputs[0], v));
  return out;
}

// gamma/beta broadcast to the normalized dims, as a flat array of their size.
std::vector<double> Expand(const Tensor& t, const Dims& to) {
  std::vector<std::vector<int64_t>> map(to.size());
  const Dims& from = t.type().dims;
  const size_t lead = to.size() - from.size();
  Dims padded(lead, 1);
  padded.insert(padded.end(), from.begin(), from.end());
  for (size_t d = 0; d < to.size(); ++d) {
    for (int64_t i = 0; i < to[d]; ++i) map[d].push_back(padded[d] == 1 ? 0 : i);
  }
  return GatherAxes(ReadReals(t), padded, map, 0.0);
}

// x normalized over dims axis..end (input 4, default -1) with epsilon
// (input 3), then * gamma + beta (inputs 1 and 2): each row becomes
// (x - center) * inv, where stats(row, n, eps) gives {center, inv}. Shared
// by LayerNorm and RmsNorm; `name` names the op in errors.
template <typename Stats>
Result NormalizeTrailingDims(const KernelContext& c, const std::string& name, Stats stats) {
  const Dims& d = c.InDims(0);
  int64_t axis_raw = -1;
  if (c.Has(4)) {
    EGRET_ASSIGN_OR_RETURN(auto a, ReadIntScalarParam(c.inputs[4], absl::StrCat(name, " axis")));
    axis_raw = a;
  }
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, static_cast<int>(d.size()), "axis"));
  EGRET_ASSIGN_OR_RETURN(auto eps,
                         ReadFloatScalarParam(c.inputs[3], absl::StrCat(name, " epsilon")));
  const Dims norm(d.begin() + axis, d.end());
  const std::vector<double> gamma = Expand(c.In(1), norm);
  const std::vector<double> beta = Expand(c.In(2), norm);
  std::vector<double> v = ReadReals(c.In(0));
  const int64_t inner = Product(d, axis, d.size());
  const int64_t outer = inner == 0 ? 0 : static_cast<int64_t>(v.size()) / inner;
  for (int64_t o = 0; o < outer; ++o) {
    double* p = &v[o * inner];
    const auto [center, inv] = stats(p, inner, eps);
    for (int64_t i = 0; i < inner; ++i) p[i] = (p[i] - center) * inv * gamma[i] + beta[i];
  }
  std::vector<Tensor> out;
  out.push_back(MakeTensor(c.outputs[0], v));
  return out;
}

// (x - mean) / sqrt(var + eps) * gamma + beta over dims axis..end.
Result LayerNorm(const KernelContext& c) {
  return NormalizeTrailingDims(c, "LayerNorm", [](const double* p, int64_t n, double eps) {
    double mean = 0;
    for (int64_t i = 0; i < n; ++i) mean += p[i];
    mean /= static_cast<double>(n);
    double var = 0;
    for (int64_t i = 0; i < n; ++i) var += (p[i] - mean) * (p[i] - mean);
    var /= static_cast<double>(n);
    return std::pair<double, double>(mean, 1.0 / std::sqrt(var + eps));
  });
}

// x / sqrt(mean(x^2) + eps) * gamma + beta over dims axis..end.
Result RmsNorm(const KernelContext& c) {
  return NormalizeTrailingDims(c, "RmsNorm", [](const double* p, int64_t n, double eps) {
    double squares = 0;
    for (int64_t i = 0; i < n; ++i) squares += p[i] * p[i];
    return std::pair<double, double>(0.0, 1.0 / std::sqrt(squares / static_cast<double>(n) + eps));
  });
}

// out = x * scale[c] + offset[c] over the last (channel) axis.
Result Batchnorm(const KernelContext& c) {
  const std::vector<double> scale = ReadReals(c.In(1));
  const std::vector<double> offset = ReadReals(c.In(2));
  const size_t ch = scale.size();
  std::vector<Tensor> out;
  if (c.In(0).type().dtype == DType::kFloat32 && c.outputs[0].dtype == DType::kFloat32 && ch > 0 &&
      c.In(0).num_elements() % static_cast<int64_t>(ch) == 0) {
    // The same arithmetic (in double, rounded once) without a double copy of
    // the tensor, one channel row at a time.
    const FloatsIn x(c.In(0));
    FloatsOut y(c.outputs[0], c.Reusable(0));
    const int64_t rows = static_cast<int64_t>(y.size() / ch);
    ParallelFor(rows, std::max<int64_t>(1, kElementwiseGrain / static_cast<int64_t>(ch)),
                [&](int64_t first, int64_t last) {
                  WithWidestVectors([&]() __attribute__((always_inline)) {
                    const double* __restrict sc = scale.data();
                    const double* __restrict of = offset.data();
                    const int64_t n = static_cast<int64_t>(ch);
                    for (int64_t row = first; row < last; ++row) {
                      const float* p = x.data() + row * n;  // may be q: in place
                      float* q = y.data() + row * n;
                      for (int64_t k = 0; k < n; ++k) {
                        q[k] = static_cast<float>(static_cast<double>(p[k]) * sc[k] + of[k]);
                      }
                    }
                  });
                });
    out.push_back(y.Finish());
    return out;
  }
  std::vector<double> v = ReadReals(c.In(0));
  for (size_t i = 0; i < v.size(); ++i) v[i] = v[i] * scale[i % ch] + offset[i % ch];
  out.push_back(MakeTensor(c.outputs[0], v));
  return out;
}

// Local response normalization across channels (NHWC, ONNX's LRN):
// out = x / (bias + alpha / size * sum of x^2 over the channels
// [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta.
Result Lrn(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto size, ReadIntScalarParam(c.inputs[1], "LRN size"));
  EGRET_ASSIGN_OR_RETURN(auto alpha, ReadFloatScalarParam(c.inputs[2], "LRN alpha"));
  EGRET_ASSIGN_OR_RETURN(auto beta, ReadFloatScalarParam(c.inputs[3], "LRN beta"));
  EGRET_ASSIGN_OR_RETURN(auto bias, ReadFloatScalarParam(c.inputs[4], "LRN bias"));
  const std::vector<double> x = ReadReals(c.In(0));
  const int64_t ch = c.InDims(0).back();
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  std::vector<double> out(x.size());
  for (size_t base = 0; base < x.size(); base += ch) {
    for (int64_t k = 0; k < ch; ++k) {
      double sq = 0;
      for (int64_t j = std::max<int64_t>(0, k - before); j <= std::min(ch - 1, k + after); ++j) {
        sq += x[base + j] * x[base + j];
      }
      out[base + k] = x[base + k] / std::pow(bias + alpha / size * sq, beta);
    }
  }
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

}  // namespace

void RegisterNormKernels(KernelTable& t) {
  t.emplace("LRN", Lrn);
  t.emplace("Softmax", Softmax);
  t.emplace("LayerNorm", LayerNorm);
  t.emplace("RmsNorm", RmsNorm);
  t.emplace("Batchnorm", Batchnorm);
}

}  // namespace egret::backend_internal
