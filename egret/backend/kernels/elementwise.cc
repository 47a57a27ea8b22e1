// Binary elementwise ops with numpy broadcasting.
#include <cmath>

#include "egret/backend/kernels/kernels_internal.h"

namespace egret::backend_internal {
namespace {

// Per output axis, the stride of `in` (0 where `in` is broadcast).
std::vector<int64_t> BroadcastStrides(const Dims& in, const Dims& out) {
  std::vector<int64_t> s(out.size(), 0);
  const std::vector<int64_t> rs = RowMajorStrides(in);
  const size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) s[lead + d] = in[d] == 1 ? 0 : rs[d];
  return s;
}

bool IsIntegerType(DType t) { return t == DType::kInt32 || t == DType::kInt64; }

template <typename F>
absl::StatusOr<std::vector<Tensor>> Binary(const KernelContext& c, F f) {
  const std::vector<double> a = ReadReals(c.In(0));
  const std::vector<double> b = ReadReals(c.In(1));
  const Dims& od = c.outputs[0].dims;
  const int rank = static_cast<int>(od.size());
  const std::vector<int64_t> sa = BroadcastStrides(c.InDims(0), od);
  const std::vector<int64_t> sb = BroadcastStrides(c.InDims(1), od);
  const int64_t n = c.outputs[0].num_elements();
  std::vector<double> out(static_cast<size_t>(n));
  std::vector<int64_t> idx(rank, 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = f(a[ia], b[ib]);
    for (int d = rank - 1; d >= 0; --d) {
      ++idx[d];
      ia += sa[d];
      ib += sb[d];
      if (idx[d] < od[d]) break;
      ia -= sa[d] * od[d];
      ib -= sb[d] * od[d];
      idx[d] = 0;
    }
  }
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

absl::StatusOr<std::vector<Tensor>> Add(const KernelContext& c) {
  return Binary(c, [](double x, double y) { return x + y; });
}
absl::StatusOr<std::vector<Tensor>> Subtract(const KernelContext& c) {
  return Binary(c, [](double x, double y) { return x - y; });
}
absl::StatusOr<std::vector<Tensor>> Multiply(const KernelContext& c) {
  return Binary(c, [](double x, double y) { return x * y; });
}
absl::StatusOr<std::vector<Tensor>> Divide(const KernelContext& c) {
  // Integer division truncates toward zero, as in C and ONNX.
  if (IsIntegerType(c.outputs[0].dtype)) {
    return Binary(c, [](double x, double y) { return y == 0 ? 0.0 : std::trunc(x / y); });
  }
  return Binary(c, [](double x, double y) { return x / y; });
}
absl::StatusOr<std::vector<Tensor>> Maximum(const KernelContext& c) {
  return Binary(c, [](double x, double y) { return std::isnan(x) || x > y ? x : y; });
}
absl::StatusOr<std::vector<Tensor>> Minimum(const KernelContext& c) {
  return Binary(c, [](double x, double y) { return std::isnan(x) || x < y ? x : y; });
}
absl::StatusOr<std::vector<Tensor>> Power(const KernelContext& c) {
  return Binary(c, [](double x, double y) { return std::pow(x, y); });
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
