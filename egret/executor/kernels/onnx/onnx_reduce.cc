// ONNX reductions egret keeps opaque: ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceSumSquare, ReduceLogSum and ReduceLogSumExp; and ReduceSum,
// ReduceMean and ReduceMax, which egret maps when their axes are constants
// (opaque when a model computes the axes input).
//
// The axes come from the "axes" attribute (before opset 18) or from input 1
// (opset 18 on, ReduceSum's from opset 13); no axes reduce every axis, unless noop_with_empty_axes
// is set, which makes the op the identity. keepdims only changes the output's dims, which the
// importer declared: the values are the same either way. A reduction over no elements yields the
// operation's identity (+inf for ReduceMin, -inf for ReduceMax, 1 for ReduceProd, 0 for sums, NaN
// for ReduceMean, -inf for the logarithms).
#include <algorithm>
#include <cmath>
#include <limits>

#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

constexpr double kInf = std::numeric_limits<double>::infinity();

// One reduction: acc starts at `init`, takes every element through `step`,
// and ends through `finish`.
struct Reduction {
  double init;
  double (*step)(double acc, double x);
  double (*finish)(double acc);
};

double Identity(double acc) { return acc; }

const Reduction kMin = {kInf, [](double a, double x) { return std::isnan(x) || x < a ? x : a; },
                        Identity};
const Reduction kMax = {-kInf, [](double a, double x) { return std::isnan(x) || x > a ? x : a; },
                        Identity};
const Reduction kSum = {0.0, [](double a, double x) { return a + x; }, Identity};
const Reduction kProd = {1.0, [](double a, double x) { return a * x; }, Identity};
const Reduction kL1 = {0.0, [](double a, double x) { return a + std::abs(x); }, Identity};
const Reduction kL2 = {0.0, [](double a, double x) { return a + x * x; },
                       [](double a) { return std::sqrt(a); }};
const Reduction kSumSquare = {0.0, [](double a, double x) { return a + x * x; }, Identity};
const Reduction kLogSum = {0.0, [](double a, double x) { return a + x; },
                           [](double a) { return std::log(a); }};

// The reduced axes of input 0, or nullopt for the identity
// (noop_with_empty_axes with no axes).
absl::StatusOr<std::optional<std::vector<bool>>> ReducedAxes(const KernelContext& c) {
  const OnnxArgs args(c);
  const int rank = static_cast<int>(c.InDims(0).size());
  std::vector<int64_t> axes;
  if (auto attr = args.Ints("axes")) {
    axes = *attr;
  } else if (const Tensor* t = args.Input(1)) {
    axes = ReadInts(*t);
  }
  if (axes.empty() && args.Int("noop_with_empty_axes", 0) != 0) return std::nullopt;
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    EGRET_ASSIGN_OR_RETURN(int n, OnnxAxis(c, a, rank));
    reduced[n] = true;
  }
  return reduced;
}

// Reduces input 0 over its reduced axes: a group's elements go through
// `per_group(group, values, acc)`.
template <typename F>
Result ReduceWith(const KernelContext& c, F per_group) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  EGRET_ASSIGN_OR_RETURN(auto reduced, ReducedAxes(c));
  std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> out;
  if (!reduced) {
    out = std::move(v);
  } else {
    int64_t groups = 0;
    const std::vector<int64_t> group = ReductionGroups(c.InDims(0), *reduced, &groups);
    out = per_group(groups, group, v);
  }
  return OnnxResult(c, out);
}

template <const Reduction& R>
Result Reduce(const KernelContext& c) {
  return ReduceWith(
      c, [](int64_t groups, const std::vector<int64_t>& group, const std::vector<double>& v) {
        std::vector<double> acc(static_cast<size_t>(groups), R.init);
        for (size_t i = 0; i < v.size(); ++i) acc[group[i]] = R.step(acc[group[i]], v[i]);
        for (double& a : acc) a = R.finish(a);
        return acc;
      });
}

// The mean of each group (NaN for an empty one, 0 / 0).
Result ReduceMean(const KernelContext& c) {
  return ReduceWith(
      c, [](int64_t groups, const std::vector<int64_t>& group, const std::vector<double>& v) {
        std::vector<double> sum(static_cast<size_t>(groups), 0.0), n(sum.size(), 0.0);
        for (size_t i = 0; i < v.size(); ++i) {
          sum[group[i]] += v[i];
          n[group[i]] += 1;
        }
        for (size_t g = 0; g < sum.size(); ++g) sum[g] /= n[g];
        return sum;
      });
}

// log(sum(exp(x))), computed as max + log(sum(exp(x - max))) so that exp
// cannot overflow.
Result ReduceLogSumExp(const KernelContext& c) {
  return ReduceWith(
      c, [](int64_t groups, const std::vector<int64_t>& group, const std::vector<double>& v) {
        std::vector<double> mx(static_cast<size_t>(groups), -kInf);
        for (size_t i = 0; i < v.size(); ++i) mx[group[i]] = std::max(mx[group[i]], v[i]);
        std::vector<double> sum(static_cast<size_t>(groups), 0.0);
        for (size_t i = 0; i < v.size(); ++i) {
          if (std::isfinite(mx[group[i]])) sum[group[i]] += std::exp(v[i] - mx[group[i]]);
        }
        for (size_t g = 0; g < sum.size(); ++g) {
          sum[g] = std::isfinite(mx[g]) ? mx[g] + std::log(sum[g]) : mx[g];
        }
        return sum;
      });
}

}  // namespace

void RegisterOnnxReduceKernels(KernelTable& t) {
  t.emplace("onnx.ReduceMin", Reduce<kMin>);
  t.emplace("onnx.ReduceMax", Reduce<kMax>);
  t.emplace("onnx.ReduceSum", Reduce<kSum>);
  t.emplace("onnx.ReduceMean", ReduceMean);
  t.emplace("onnx.ReduceProd", Reduce<kProd>);
  t.emplace("onnx.ReduceL1", Reduce<kL1>);
  t.emplace("onnx.ReduceL2", Reduce<kL2>);
  t.emplace("onnx.ReduceSumSquare", Reduce<kSumSquare>);
  t.emplace("onnx.ReduceLogSum", Reduce<kLogSum>);
  t.emplace("onnx.ReduceLogSumExp", ReduceLogSumExp);
}

}  // namespace egret::backend_internal
