// Unary elementwise ops: activations and math functions.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

double Clamp(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }
// In float when every operand is Float32 (a selection: exact, see
// AllFloats): the bounds rounded to float, which monotone rounding allows.
template <typename T>
T ClampAs(T x, double lo, double hi) {
  return std::min(std::max(x, static_cast<T>(lo)), static_cast<T>(hi));
}

Result Relu(const KernelContext& c) {
  return MapUnaryExactInFloat(c, [](auto x) { return std::max(x, decltype(x){0}); });
}
Result Relu1(const KernelContext& c) {
  return MapUnaryExactInFloat(c, [](auto x) { return ClampAs(x, -1.0, 1.0); });
}
Result Relu6(const KernelContext& c) {
  return MapUnaryExactInFloat(c, [](auto x) { return ClampAs(x, 0.0, 6.0); });
}
Result ReluX(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto hi, ReadFloatScalarParam(c.inputs[1], "ReluX max"));
  return MapUnaryExactInFloat(c, [hi](auto x) { return ClampAs(x, 0.0, hi); });
}
Result ReluMinMax(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto lo, ReadFloatScalarParam(c.inputs[1], "ReluMinMax min"));
  EGRET_ASSIGN_OR_RETURN(auto hi, ReadFloatScalarParam(c.inputs[2], "ReluMinMax max"));
  return MapUnaryExactInFloat(c, [lo, hi](auto x) { return ClampAs(x, lo, hi); });
}
Result Sigmoid(const KernelContext& c) {
  return MapUnary(c, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}
Result Tanh(const KernelContext& c) {
  return MapUnary(c, [](double x) { return std::tanh(x); });
}
Result HardSigmoid(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto alpha, ReadFloatScalarParam(c.inputs[1], "HardSigmoid alpha"));
  EGRET_ASSIGN_OR_RETURN(auto beta, ReadFloatScalarParam(c.inputs[2], "HardSigmoid beta"));
  return MapUnary(c, [alpha, beta](double x) { return Clamp(alpha * x + beta, 0.0, 1.0); });
}
Result HardSwish(const KernelContext& c) {
  return MapUnary(c, [](double x) { return x * Clamp(x + 3.0, 0.0, 6.0) / 6.0; });
}
// approximate 0: the erf form; 1: the tanh form (ONNX Gelu's approximate="tanh").
Result Gelu(const KernelContext& c) {
  int64_t approximate = 0;
  if (c.Has(1)) {
    EGRET_ASSIGN_OR_RETURN(auto a, ReadIntScalarParam(c.inputs[1], "Gelu approximate"));
    approximate = a;
  }
  if (approximate == 1) {
    const double k = std::sqrt(2.0 / M_PI);
    return MapUnary(
        c, [k](double x) { return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x))); });
  }
  if (approximate != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Gelu approximate must be 0 or 1, got ", approximate));
  }
  return MapUnary(c, [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); });
}
Result Swish(const KernelContext& c) {
  return MapUnary(c, [](double x) { return x / (1.0 + std::exp(-x)); });
}
Result Rsqrt(const KernelContext& c) {
  return MapUnary(c, [](double x) { return 1.0 / std::sqrt(x); });
}
Result Erf(const KernelContext& c) {
  return MapUnary(c, [](double x) { return std::erf(x); });
}
Result Exp(const KernelContext& c) {
  return MapUnary(c, [](double x) { return std::exp(x); });
}
Result Sin(const KernelContext& c) {
  return MapUnary(c, [](double x) { return std::sin(x); });
}
Result Cos(const KernelContext& c) {
  return MapUnary(c, [](double x) { return std::cos(x); });
}
Result Log(const KernelContext& c) {
  return MapUnary(c, [](double x) { return std::log(x); });
}
Result Sqrt(const KernelContext& c) {
  return MapUnary(c, [](double x) { return std::sqrt(x); });
}
Result Neg(const KernelContext& c) {
  return MapUnaryExactInFloat(c, [](auto x) { return -x; });
}
Result Abs(const KernelContext& c) {
  return MapUnaryExactInFloat(c, [](auto x) { return std::fabs(x); });
}

}  // namespace

void RegisterActivationKernels(KernelTable& t) {
  t.emplace("Relu", Relu);
  t.emplace("Relu1", Relu1);
  t.emplace("Relu6", Relu6);
  t.emplace("ReluX", ReluX);
  t.emplace("ReluMinMax", ReluMinMax);
  t.emplace("Sigmoid", Sigmoid);
  t.emplace("Tanh", Tanh);
  t.emplace("HardSigmoid", HardSigmoid);
  t.emplace("HardSwish", HardSwish);
  t.emplace("Gelu", Gelu);
  t.emplace("Swish", Swish);
  t.emplace("ElementWiseRsqrt", Rsqrt);
  t.emplace("Erf", Erf);
  t.emplace("Exp", Exp);
  t.emplace("ElementWiseSin", Sin);
  t.emplace("ElementWiseCos", Cos);
  t.emplace("Log", Log);
  t.emplace("Sqrt", Sqrt);
  t.emplace("Neg", Neg);
  t.emplace("Abs", Abs);
}

}  // namespace egret::backend_internal
