// ONNX unary math ops egret keeps opaque: out[i] = f(in[i]) with ONNX's
// definition of f.
#include <cmath>

#include "egret/backend/kernels/onnx/onnx_kernels_internal.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

template <double (*F)(double)>
Result Map(const KernelContext& c) {
  return MapUnary(c, F);
}

double Sin(double x) { return std::sin(x); }
double Cos(double x) { return std::cos(x); }

}  // namespace

void RegisterOnnxMathKernels(KernelTable& t) {
  t.emplace("onnx.Sin", Map<Sin>);
  t.emplace("onnx.Cos", Map<Cos>);
}

}  // namespace egret::backend_internal
