// ReduceMean, ReduceSum and ReduceMax over a set of axes.
#include <algorithm>
#include <limits>

#include "egret/executor/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

Result Reduce(const KernelContext& c) {
  const Dims& d = c.InDims(0);
  const int rank = static_cast<int>(d.size());
  EGRET_ASSIGN_OR_RETURN(auto axes, ReadIntParam(c.inputs[1], "axes"));
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    EGRET_ASSIGN_OR_RETURN(auto n, NormalizeAxis(a, rank, "axes"));
    reduced[n] = true;
  }
  // Output strides over the input's axes: 0 on reduced axes.
  std::vector<int64_t> ostride(rank, 0);
  int64_t s = 1, count = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (reduced[i]) {
      count *= d[i];
    } else {
      ostride[i] = s;
      s *= d[i];
    }
  }
  const bool is_max = c.op == "ReduceMax";
  std::vector<double> acc(static_cast<size_t>(s),
                          is_max ? -std::numeric_limits<double>::infinity() : 0.0);
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<int64_t> idx(rank, 0);
  int64_t o = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    acc[o] = is_max ? std::max(acc[o], v[i]) : acc[o] + v[i];
    for (int k = rank - 1; k >= 0; --k) {
      ++idx[k];
      o += ostride[k];
      if (idx[k] < d[k]) break;
      o -= ostride[k] * d[k];
      idx[k] = 0;
    }
  }
  if (c.op == "ReduceMean" && count > 0) {
    for (double& x : acc) x /= static_cast<double>(count);
  }
  std::vector<Tensor> out;
  out.push_back(MakeTensor(c.outputs[0], acc));
  return out;
}

}  // namespace

void RegisterReduceKernels(KernelTable& t) {
  t.emplace("ReduceMean", Reduce);
  t.emplace("ReduceSum", Reduce);
  t.emplace("ReduceMax", Reduce);
}

}  // namespace egret::backend_internal
