// FullyConnected and MatMul, computed by oneDNN's matmul primitive in
// float32 (dnnl_support.h); the double loops are the fallback for shapes
// oneDNN rejects.
#include <optional>

#include "egret/backend/kernels/dnnl_support.h"
#include "egret/backend/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// dst = src x weights (+ bias) on oneDNN's matmul for the given descriptors
// (row-major unless the caller's strides say otherwise), or nullopt when
// oneDNN rejects them.
std::optional<std::vector<float>> DnnlMatMul(const dnnl::memory::desc& ad, std::vector<float>& a,
                                             const dnnl::memory::desc& bd, std::vector<float>& b,
                                             const dnnl::memory::desc* biasd,
                                             std::vector<float>* bias, const dnnl::memory::desc& od,
                                             int64_t out_elements) {
  try {
    const dnnl::engine& eng = CpuEngine();
    auto d =
        biasd != nullptr ? dnnl::matmul::desc(ad, bd, *biasd, od) : dnnl::matmul::desc(ad, bd, od);
    dnnl::matmul::primitive_desc pd(d, eng);
    std::vector<float> out(static_cast<size_t>(out_elements));
    dnnl::stream s(eng);
    dnnl::memory amem(ad, eng, a.data()), bmem(bd, eng, b.data()), omem(od, eng, out.data());
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, amem}, {DNNL_ARG_WEIGHTS, bmem}, {DNNL_ARG_DST, omem}};
    if (biasd != nullptr) args.emplace(DNNL_ARG_BIAS, dnnl::memory(*biasd, eng, bias->data()));
    dnnl::matmul(pd).execute(s, args);
    s.wait();
    return out;
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

std::optional<std::vector<float>> DnnlFullyConnected(const KernelContext& c) {
  const int64_t units = c.InDims(1)[0], depth = c.InDims(1)[1];
  const int64_t n_in = c.In(0).num_elements();
  if (depth == 0 || units == 0 || n_in == 0) return std::nullopt;
  for (int i = 0; i < 3 && c.Has(i); ++i) {
    if (!FloatComputable(c.In(i).type())) return std::nullopt;
  }
  if (!FloatComputable(c.outputs[0])) return std::nullopt;
  const int64_t rows = n_in / depth;
  std::vector<float> x = ReadRealsAs<float>(c.In(0));
  std::vector<float> w = ReadRealsAs<float>(c.In(1));
  std::vector<float> bias(static_cast<size_t>(units), 0.0f);
  if (c.Has(2)) bias = ReadRealsAs<float>(c.In(2));
  const dnnl::memory::desc ad = StridedDesc({rows, depth}, {depth, 1});
  const dnnl::memory::desc bd = StridedDesc({depth, units}, {1, depth});  // weights[u, k]
  const dnnl::memory::desc biasd = StridedDesc({1, units}, {units, 1});
  const dnnl::memory::desc od = StridedDesc({rows, units}, {units, 1});
  return DnnlMatMul(ad, x, bd, w, &biasd, &bias, od, c.outputs[0].num_elements());
}

std::optional<std::vector<float>> DnnlBatchedMatMul(const KernelContext& c) {
  const Dims& ad = c.InDims(0);
  const Dims& bd = c.InDims(1);
  const Dims& od = c.outputs[0].dims;
  const size_t rank = od.size();
  if (ad.size() < 2 || bd.size() < 2 || rank < 2 || rank > DNNL_MAX_NDIMS) return std::nullopt;
  if (c.outputs[0].num_elements() == 0 || c.In(0).num_elements() == 0 ||
      c.In(1).num_elements() == 0) {
    return std::nullopt;
  }
  if (!FloatComputable(c.In(0).type()) || !FloatComputable(c.In(1).type()) ||
      !FloatComputable(c.outputs[0])) {
    return std::nullopt;
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
  std::vector<float> a = ReadRealsAs<float>(c.In(0));
  std::vector<float> b = ReadRealsAs<float>(c.In(1));
  return DnnlMatMul(StridedDesc(pa, row_major(pa)), a, StridedDesc(pb, row_major(pb)), b, nullptr,
                    nullptr, StridedDesc(po, row_major(po)), c.outputs[0].num_elements());
}

// out[n, u] = bias[u] + sum_k in[n, k] * weights[u, k], n over all leading dims.
Result FullyConnected(const KernelContext& c) {
  if (std::optional<std::vector<float>> f = DnnlFullyConnected(c)) {
    if (c.Has(3)) {
      EGRET_ASSIGN_OR_RETURN(auto lo, ReadFloatScalarParam(c.inputs[3], "act_min"));
      EGRET_ASSIGN_OR_RETURN(auto hi, ReadFloatScalarParam(c.inputs[4], "act_max"));
      ClampFloats(*f, lo, hi);
    }
    std::vector<Tensor> result;
    result.push_back(FloatsToTensor(c.outputs[0], *f));
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
  if (std::optional<std::vector<float>> f = DnnlBatchedMatMul(c)) {
    std::vector<Tensor> result;
    result.push_back(FloatsToTensor(c.outputs[0], *f));
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
