// FullyConnected and MatMul, computed by oneDNN's matmul primitive in
// float32 (dnnl_support.h); the double loops are the fallback for shapes
// oneDNN rejects.
#include <optional>

#include "egret/executor/kernels/dnnl_support.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// dst = src x weights (+ bias) on oneDNN's matmul for the given descriptors
// (row-major unless the caller's strides say otherwise), written to `out`;
// false when oneDNN rejects them.
bool DnnlMatMul(const dnnl::memory::desc& ad, const float* a, const dnnl::memory::desc& bd,
                const float* b, const dnnl::memory::desc* biasd, const float* bias,
                const dnnl::memory::desc& od, float* out) {
  try {
    const dnnl::engine& eng = CpuEngine();
    auto d =
        biasd != nullptr ? dnnl::matmul::desc(ad, bd, *biasd, od) : dnnl::matmul::desc(ad, bd, od);
    dnnl::matmul::primitive_desc pd(d, eng);
    dnnl::stream s(eng);
    // oneDNN takes non-const handles; it only reads the operands.
    dnnl::memory amem(ad, eng, const_cast<float*>(a)), bmem(bd, eng, const_cast<float*>(b)),
        omem(od, eng, out);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, amem}, {DNNL_ARG_WEIGHTS, bmem}, {DNNL_ARG_DST, omem}};
    if (biasd != nullptr) {
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(*biasd, eng, const_cast<float*>(bias)));
    }
    dnnl::matmul(pd).execute(s, args);
    s.wait();
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

bool DnnlFullyConnected(const KernelContext& c, FloatsOut& out) {
  const int64_t units = c.InDims(1)[0], depth = c.InDims(1)[1];
  const int64_t n_in = c.In(0).num_elements();
  if (depth == 0 || units == 0 || n_in == 0) return false;
  for (int i = 0; i < 3 && c.Has(i); ++i) {
    if (!FloatComputable(c.In(i).type())) return false;
  }
  if (!FloatComputable(c.outputs[0])) return false;
  const int64_t rows = n_in / depth;
  const FloatsIn x(c.In(0));
  const FloatsIn w(c.In(1));
  std::vector<float> zeros;
  std::optional<FloatsIn> given_bias;
  const float* bias;
  if (c.Has(2)) {
    given_bias.emplace(c.In(2));
    bias = given_bias->data();
  } else {
    zeros.assign(static_cast<size_t>(units), 0.0f);
    bias = zeros.data();
  }
  const dnnl::memory::desc ad = StridedDesc({rows, depth}, {depth, 1});
  const dnnl::memory::desc bd = StridedDesc({depth, units}, {1, depth});  // weights[u, k]
  const dnnl::memory::desc biasd = StridedDesc({1, units}, {units, 1});
  const dnnl::memory::desc od = StridedDesc({rows, units}, {units, 1});
  return DnnlMatMul(ad, x.data(), bd, w.data(), &biasd, bias, od, out.data());
}

bool DnnlBatchedMatMul(const KernelContext& c, FloatsOut& out) {
  const Dims& ad = c.InDims(0);
  const Dims& bd = c.InDims(1);
  const Dims& od = c.outputs[0].dims;
  const size_t rank = od.size();
  if (ad.size() < 2 || bd.size() < 2 || rank < 2 || rank > DNNL_MAX_NDIMS) return false;
  if (c.outputs[0].num_elements() == 0 || c.In(0).num_elements() == 0 ||
      c.In(1).num_elements() == 0) {
    return false;
  }
  if (!FloatComputable(c.In(0).type()) || !FloatComputable(c.In(1).type()) ||
      !FloatComputable(c.outputs[0])) {
    return false;
  }
  // Both operands padded with leading 1s to the output's rank (oneDNN
  // broadcasts batch axes of size 1).
  auto padded = [&](const Dims& d) {
    dnnl::memory::dims p(rank - d.size(), 1);
    p.insert(p.end(), d.begin(), d.end());
    return p;
  };
  auto row_major = [](const dnnl::memory::dims& d) {
    dnnl::memory::dims s(d.size(), 1);
    for (int i = static_cast<int>(d.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * d[i + 1];
    return s;
  };
  const dnnl::memory::dims pa = padded(ad), pb = padded(bd), po(od.begin(), od.end());
  const FloatsIn a(c.In(0));
  const FloatsIn b(c.In(1));
  return DnnlMatMul(StridedDesc(pa, row_major(pa)), a.data(), StridedDesc(pb, row_major(pb)),
                    b.data(), nullptr, nullptr, StridedDesc(po, row_major(po)), out.data());
}

// out[n, u] = bias[u] + sum_k in[n, k] * weights[u, k], n over all leading dims.
Result FullyConnected(const KernelContext& c) {
  if (FloatsOut out(c.outputs[0]); DnnlFullyConnected(c, out)) {
    EGRET_ASSIGN_OR_RETURN(const std::optional<ActivationClamp> clamp, ReadActivationClamp(c, 3));
    if (clamp) ClampFloats(out.span(), clamp->lo, clamp->hi);
    std::vector<Tensor> result;
    result.push_back(out.Finish());
    return result;
  }
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
  if (FloatsOut out(c.outputs[0]); DnnlBatchedMatMul(c, out)) {
    std::vector<Tensor> result;
    result.push_back(out.Finish());
    return result;
  }
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
