// ONNX normalizations kept opaque (a form the importer does not map onto
// egret's LayerNorm/Batchnorm): LayerNormalization (with its optional Mean
// and InvStdDev outputs), InstanceNormalization and GroupNormalization. Each
// normalizes contiguous groups of elements: (x - mean) / sqrt(var + epsilon),
// the variance the biased one, then applies scale and bias.
#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// Normalizes each of the `groups` runs of `size` consecutive values of `x` in
// place; writes each run's mean and 1 / sqrt(var + epsilon).
void NormalizeRuns(std::vector<double>& x, int64_t groups, int64_t size, double epsilon,
                   std::vector<double>* mean, std::vector<double>* inv_std) {
  mean->assign(groups, 0);
  inv_std->assign(groups, 0);
  for (int64_t g = 0; g < groups; ++g) {
    double* v = x.data() + g * size;
    double m = 0;
    for (int64_t i = 0; i < size; ++i) m += v[i];
    m /= static_cast<double>(size);
    double var = 0;
    for (int64_t i = 0; i < size; ++i) var += (v[i] - m) * (v[i] - m);
    var /= static_cast<double>(size);
    const double inv = 1.0 / std::sqrt(var + epsilon);
    for (int64_t i = 0; i < size; ++i) v[i] = (v[i] - m) * inv;
    (*mean)[g] = m;
    (*inv_std)[g] = inv;
  }
}

// The values of `t` broadcast (numpy rules, right-aligned) to `dims`.
absl::StatusOr<std::vector<double>> BroadcastTo(const KernelContext& c, const Tensor& t,
                                                const Dims& dims, std::string_view what) {
  const Dims& td = t.type().dims;
  if (td.size() > dims.size()) {
    return KernelError(c,
                       absl::StrFormat("%s has rank %d, above %d", what, td.size(), dims.size()));
  }
  const size_t off = dims.size() - td.size();
  for (size_t i = 0; i < td.size(); ++i) {
    if (td[i] != 1 && td[i] != dims[off + i]) {
      return KernelError(c, absl::StrFormat("%s does not broadcast to the normalized dims", what));
    }
  }
  const std::vector<double> v = ReadReals(t);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<double> out(n);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, idx = 0, stride = 1;
    for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
      const int64_t coord = rest % dims[i];
      rest /= dims[i];
      if (i >= static_cast<int>(off)) {
        const int64_t td_i = td[i - off];
        if (td_i != 1) idx += coord * stride;
        stride *= td_i;
      }
    }
    out[flat] = v[idx];
  }
  return out;
}

Result LayerNormalization(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  const Dims& d = c.InDims(0);
  const int rank = static_cast<int>(d.size());
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, args.Int("axis", -1), rank));
  const Dims inner_dims(d.begin() + axis, d.end());
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < rank; ++i) (i < axis ? outer : inner) *= d[i];
  std::vector<double> x = ReadReals(c.In(0));
  std::vector<double> mean, inv_std;
  NormalizeRuns(x, outer, inner, args.Float("epsilon", 1e-5), &mean, &inv_std);
  EGRET_ASSIGN_OR_RETURN(std::vector<double> scale,
                         BroadcastTo(c, *args.Input(1), inner_dims, "Scale"));
  std::vector<double> bias(inner, 0.0);
  if (args.Has(2)) {
    EGRET_ASSIGN_OR_RETURN(bias, BroadcastTo(c, *args.Input(2), inner_dims, "B"));
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double& v = x[o * inner + i];
      v = v * scale[i] + bias[i];
    }
  }
  Dims stat_dims(d.begin(), d.begin() + axis);
  stat_dims.resize(rank, 1);
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor y, OnnxOutput(c, 0, d, x));
  out.push_back(std::move(y));
  if (c.outputs.size() > 1) {
    EGRET_ASSIGN_OR_RETURN(Tensor m, OnnxOutput(c, 1, stat_dims, mean));
    out.push_back(std::move(m));
  }
  if (c.outputs.size() > 2) {
    EGRET_ASSIGN_OR_RETURN(Tensor s, OnnxOutput(c, 2, stat_dims, inv_std));
    out.push_back(std::move(s));
  }
  return out;
}

// x [N, C, ...] normalized per (n, group of C / groups channels); scale and
// bias per channel (`per_channel`) or per group.
Result NormalizeChannelGroups(const KernelContext& c, int64_t groups, double epsilon) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 3));
  const Dims& d = c.InDims(0);
  if (d.size() < 2) return KernelError(c, "the input must have a channel dim");
  const int64_t n = d[0], ch = d[1];
  if (groups <= 0 || ch % groups != 0) {
    return KernelError(c, absl::StrFormat("%d channels do not split into %d groups", ch, groups));
  }
  int64_t spatial = 1;
  for (size_t i = 2; i < d.size(); ++i) spatial *= d[i];
  const std::vector<double> scale = ReadReals(c.In(1)), bias = ReadReals(c.In(2));
  const bool per_channel = static_cast<int64_t>(scale.size()) == ch;
  if ((!per_channel && static_cast<int64_t>(scale.size()) != groups) ||
      bias.size() != scale.size()) {
    return KernelError(c, "scale and bias must hold one value per channel or per group");
  }
  std::vector<double> x = ReadReals(c.In(0));
  std::vector<double> mean, inv_std;
  const int64_t run = ch / groups * spatial;
  NormalizeRuns(x, n * groups, run, epsilon, &mean, &inv_std);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t k = 0; k < ch; ++k) {
      const int64_t p = per_channel ? k : k / (ch / groups);
      double* v = x.data() + (b * ch + k) * spatial;
      for (int64_t i = 0; i < spatial; ++i) v[i] = v[i] * scale[p] + bias[p];
    }
  }
  return OnnxResult(c, x);
}

Result InstanceNormalization(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const Dims& d = c.InDims(0);
  return NormalizeChannelGroups(c, d.size() >= 2 ? d[1] : 0, OnnxArgs(c).Float("epsilon", 1e-5));
}

Result GroupNormalization(const KernelContext& c) {
  const OnnxArgs args(c);
  return NormalizeChannelGroups(c, args.Int("num_groups", 0), args.Float("epsilon", 1e-5));
}

}  // namespace

void RegisterOnnxNormKernels(KernelTable& t) {
  t.emplace("onnx.LayerNormalization", LayerNormalization);
  t.emplace("onnx.InstanceNormalization", InstanceNormalization);
  t.emplace("onnx.GroupNormalization", GroupNormalization);
}

}  // namespace egret::backend_internal
