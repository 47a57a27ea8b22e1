// FullyConnected and MatMul.
#include "egret/backend/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// out[n, u] = bias[u] + sum_k in[n, k] * weights[u, k], n over all leading dims.
Result FullyConnected(const KernelContext& c) {
  const std::vector<double> x = ReadReals(c.In(0));
  const std::vector<double> w = ReadReals(c.In(1));
  const int64_t units = c.InDims(1)[0], depth = c.InDims(1)[1];
  std::vector<double> bias(static_cast<size_t>(units), 0.0);
  if (c.Has(2)) bias = ReadReals(c.In(2));
  const int64_t rows = depth == 0 ? 0 : static_cast<int64_t>(x.size()) / depth;
  std::vector<double> out(static_cast<size_t>(c.outputs[0].num_elements()));
  for (int64_t n = 0; n < rows; ++n) {
    for (int64_t u = 0; u < units; ++u) {
      double acc = bias[u];
      for (int64_t k = 0; k < depth; ++k) acc += x[n * depth + k] * w[u * depth + k];
      out[n * units + u] = acc;
    }
  }
  EGRET_RETURN_IF_ERROR(ApplyActivationClamp(c, 3, out));
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

// numpy matmul for rank >= 2 with broadcast batch dims.
Result MatMul(const KernelContext& c) {
  const std::vector<double> a = ReadReals(c.In(0));
  const std::vector<double> b = ReadReals(c.In(1));
  const Dims& ad = c.InDims(0);
  const Dims& bd = c.InDims(1);
  const Dims& od = c.outputs[0].dims;
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  const int batch_rank = static_cast<int>(od.size()) - 2;
  // Per output batch axis: the matrix stride of a and b (0 when broadcast).
  auto batch_strides = [&](const Dims& d) {
    std::vector<int64_t> s(batch_rank, 0);
    const int lead = batch_rank - (static_cast<int>(d.size()) - 2);
    int64_t stride = 1;
    for (int i = static_cast<int>(d.size()) - 3; i >= 0; --i) {
      s[lead + i] = d[i] == 1 ? 0 : stride;
      stride *= d[i];
    }
    return s;
  };
  const std::vector<int64_t> sa = batch_strides(ad), sb = batch_strides(bd);
  int64_t batches = 1;
  for (int i = 0; i < batch_rank; ++i) batches *= od[i];
  std::vector<double> out(static_cast<size_t>(c.outputs[0].num_elements()));
  std::vector<int64_t> idx(batch_rank, 0);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t ma = 0, mb = 0;
    for (int i = 0; i < batch_rank; ++i) {
      ma += idx[i] * sa[i];
      mb += idx[i] * sb[i];
    }
    const double* ap = &a[ma * m * k];
    const double* bp = &b[mb * k * n];
    double* op = &out[bi * m * n];
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t t = 0; t < k; ++t) acc += ap[i * k + t] * bp[t * n + j];
        op[i * n + j] = acc;
      }
    }
    for (int i = batch_rank - 1; i >= 0; --i) {
      if (++idx[i] < od[i]) break;
      idx[i] = 0;
    }
  }
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

}  // namespace

void RegisterMatMulKernels(KernelTable& t) {
  t.emplace("FullyConnected", FullyConnected);
  t.emplace("MatMul", MatMul);
}

}  // namespace egret::backend_internal
