// Binary elementwise ops with numpy broadcasting.
#include <cmath>

#include "egret/backend/kernels/kernels_internal.h"

namespace egret::backend_internal {
namespace {

bool IsIntegerType(DType t) { return t == DType::kInt32 || t == DType::kInt64; }

// f is a generic lambda: called with floats when the operation is exact in
// float (exact_in_float, see AllFloats) and every operand is Float32 or Float16, with
// doubles otherwise.
template <typename F>
absl::StatusOr<std::vector<Tensor>> Binary(const KernelContext& c, F f,
                                           bool exact_in_float = true) {
  std::vector<Tensor> result;
  if (exact_in_float && AllFloats(c)) {
    const FloatsIn a(c.In(0));
    const FloatsIn b(c.In(1));
    // In place over an operand of the output's shape the executor gives up.
    const Dims& od = c.outputs[0].dims;
    Tensor* reuse = c.InDims(0) == od ? c.Reusable(0) : nullptr;
    if (reuse == nullptr && c.InDims(1) == od) reuse = c.Reusable(1);
    FloatsOut out(c.outputs[0], reuse);
    BroadcastBinaryInto<float>(a.data(), c.InDims(0), b.data(), c.InDims(1), od, out.data(), f);
    result.push_back(out.Finish());
    return result;
  }
  const std::vector<double> out = BroadcastBinary(
      ReadReals(c.In(0)), c.InDims(0), ReadReals(c.In(1)), c.InDims(1), c.outputs[0].dims, f);
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

absl::StatusOr<std::vector<Tensor>> Add(const KernelContext& c) {
  return Binary(c, [](auto x, auto y) { return x + y; });
}
absl::StatusOr<std::vector<Tensor>> Subtract(const KernelContext& c) {
  return Binary(c, [](auto x, auto y) { return x - y; });
}
absl::StatusOr<std::vector<Tensor>> Multiply(const KernelContext& c) {
  return Binary(c, [](auto x, auto y) { return x * y; });
}
absl::StatusOr<std::vector<Tensor>> Divide(const KernelContext& c) {
  // Integer division truncates toward zero, as in C and ONNX.
  if (IsIntegerType(c.outputs[0].dtype)) {
    return Binary(c, [](double x, double y) { return y == 0 ? 0.0 : std::trunc(x / y); });
  }
  return Binary(c, [](auto x, auto y) { return x / y; });
}
absl::StatusOr<std::vector<Tensor>> Maximum(const KernelContext& c) {
  return Binary(c, [](auto x, auto y) { return std::isnan(x) || x > y ? x : y; });
}
absl::StatusOr<std::vector<Tensor>> Minimum(const KernelContext& c) {
  return Binary(c, [](auto x, auto y) { return std::isnan(x) || x < y ? x : y; });
}
absl::StatusOr<std::vector<Tensor>> Power(const KernelContext& c) {
  return Binary(
      c, [](double x, double y) { return std::pow(x, y); }, /*exact_in_float=*/false);
}

}  // namespace

void RegisterElementwiseKernels(KernelTable& t) {
  t.emplace("ElementWiseAdd", Add);
  t.emplace("ElementWiseSubtract", Subtract);
  t.emplace("ElementWiseMultiply", Multiply);
  t.emplace("ElementWiseDivide", Divide);
  t.emplace("ElementWiseMaximum", Maximum);
  t.emplace("ElementWiseMinimum", Minimum);
  t.emplace("ElementWisePower", Power);
}

}  // namespace egret::backend_internal
