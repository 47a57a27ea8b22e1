// ONNX activations egret keeps opaque: elementwise ones with attributes
// (Elu, Selu, Celu, ThresholdedRelu, Shrink, Softplus, Softsign), PRelu
// (slope broadcast to the input), Hardmax and MeanVarianceNormalization.
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/graph/shape_inference.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// out[i] = f(in[i]) where f reads the node's attributes.
template <typename F>
Result MapWith(const KernelContext& c, F f) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  std::vector<double> v = ReadReals(c.In(0));
  for (double& x : v) x = f(x);
  return OnnxResult(c, v);
}

// Gelu (opset 20): the exact erf form, or with approximate = "tanh"
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
Result Gelu(const KernelContext& c) {
  const std::string approximate = OnnxArgs(c).Str("approximate", "none");
  if (approximate == "tanh") {
    return MapWith(c, [](double x) {
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    });
  }
  if (approximate != "none") {
    return KernelError(c, absl::StrFormat("unknown approximate '%s'", approximate));
  }
  return MapWith(c, [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); });
}

Result Elu(const KernelContext& c) {
  const double alpha = OnnxArgs(c).Float("alpha", 1.0);
  return MapWith(c, [alpha](double x) { return x < 0 ? alpha * std::expm1(x) : x; });
}

Result Selu(const KernelContext& c) {
  const OnnxArgs args(c);
  const double alpha = args.Float("alpha", 1.67326319217681884765625);
  const double gamma = args.Float("gamma", 1.05070102214813232421875);
  return MapWith(c, [alpha, gamma](double x) {
    return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha);
  });
}

Result Celu(const KernelContext& c) {
  const double alpha = OnnxArgs(c).Float("alpha", 1.0);
  if (alpha == 0) return KernelError(c, "alpha must not be 0");
  return MapWith(c, [alpha](double x) {
    return std::max(0.0, x) + std::min(0.0, alpha * std::expm1(x / alpha));
  });
}

Result ThresholdedRelu(const KernelContext& c) {
  const double alpha = OnnxArgs(c).Float("alpha", 1.0);
  return MapWith(c, [alpha](double x) { return x > alpha ? x : 0.0; });
}

Result Shrink(const KernelContext& c) {
  const OnnxArgs args(c);
  const double bias = args.Float("bias", 0.0);
  const double lambd = args.Float("lambd", 0.5);
  return MapWith(c, [bias, lambd](double x) {
    return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0;
  });
}

// log(exp(x) + 1), without overflowing exp for large x.
Result Softplus(const KernelContext& c) {
  return MapWith(
      c, [](double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); });
}

Result Softsign(const KernelContext& c) {
  return MapWith(c, [](double x) { return x / (1 + std::abs(x)); });
}

// PRelu: x < 0 ? slope * x : x, the slope broadcast to x (unidirectionally).
Result PRelu(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const Dims& xd = c.InDims(0);
  const Dims& sd = c.InDims(1);
  absl::StatusOr<Dims> b = BroadcastDims(xd, sd);
  if (!b.ok() || *b != xd) {
    return KernelError(
        c, absl::StrFormat("slope %s does not broadcast to X %s", c.inputs[1].type->ToString(),
                           c.inputs[0].type->ToString()));
  }
  const std::vector<double> out =
      BroadcastBinary(ReadReals(c.In(0)), xd, ReadReals(c.In(1)), sd, xd,
                      [](double x, double slope) { return x < 0 ? slope * x : x; });
  return OnnxResult(c, out);
}

// Hardmax: 1 at the first maximum of each slice, 0 elsewhere. From opset 13
// a slice runs along `axis` (default -1); before, the input is seen as a
// matrix [prod(dims[:axis]), prod(dims[axis:])] (default axis 1) and a slice
// is a row.
Result Hardmax(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  const Dims& d = c.InDims(0);
  const int rank = static_cast<int>(d.size());
  const bool per_axis = args.Opset(13) >= 13;
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, args.Int("axis", per_axis ? -1 : 1), rank));
  int64_t outer = 1, len = 1, inner = 1;
  for (int i = 0; i < rank; ++i) {
    if (i < axis) {
      outer *= d[i];
    } else if (i == axis || !per_axis) {
      len *= d[i];
    } else {
      inner *= d[i];
    }
  }
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> out(v.size(), 0.0);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * len * inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < len; ++k) {
        if (v[base + k * inner] > v[base + best * inner]) best = k;
      }
      if (len > 0) out[base + best * inner] = 1.0;
    }
  }
  return OnnxResult(c, out);
}

// MeanVarianceNormalization: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9),
// the expectations taken over `axes` (default [0, 2, 3]).
Result MeanVarianceNormalization(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  const Dims& d = c.InDims(0);
  const int rank = static_cast<int>(d.size());
  const std::vector<int64_t> axes = args.Ints("axes").value_or(std::vector<int64_t>{0, 2, 3});
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    EGRET_ASSIGN_OR_RETURN(int n, OnnxAxis(c, a, rank));
    reduced[n] = true;
  }
  int64_t groups = 0;
  const std::vector<int64_t> group = ReductionGroups(d, reduced, &groups);
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> sum(groups, 0.0), sum_sq(groups, 0.0), count(groups, 0.0);
  for (size_t i = 0; i < v.size(); ++i) {
    sum[group[i]] += v[i];
    sum_sq[group[i]] += v[i] * v[i];
    count[group[i]] += 1;
  }
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t g = group[i];
    const double mean = sum[g] / count[g];
    const double var = std::max(0.0, sum_sq[g] / count[g] - mean * mean);  // no rounding below 0
    out[i] = (v[i] - mean) / (std::sqrt(var) + 1e-9);
  }
  return OnnxResult(c, out);
}

}  // namespace

void RegisterOnnxActivationKernels(KernelTable& t) {
  t.emplace("onnx.Gelu", Gelu);
  t.emplace("onnx.Elu", Elu);
  t.emplace("onnx.Selu", Selu);
  t.emplace("onnx.Celu", Celu);
  t.emplace("onnx.ThresholdedRelu", ThresholdedRelu);
  t.emplace("onnx.Shrink", Shrink);
  t.emplace("onnx.Softplus", Softplus);
  t.emplace("onnx.Softsign", Softsign);
  t.emplace("onnx.PRelu", PRelu);
  t.emplace("onnx.Hardmax", Hardmax);
  t.emplace("onnx.MeanVarianceNormalization", MeanVarianceNormalization);
}

}  // namespace egret::backend_internal
