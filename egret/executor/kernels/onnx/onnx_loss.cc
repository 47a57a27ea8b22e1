// ONNX losses over class scores: NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss.
//
// Both take an input of shape [N, C] or [N, C, d1, ..., dk] and integer
// targets [N] or [N, d1, ..., dk]. Each target position n, d picks the class
// t = target[n][d]: its loss is -input[n][t][d] * weight[t] (weight 1 without
// the weight input), and positions whose target is ignore_index weigh 0.
// reduction "none" keeps the per-position losses (shape of target), "sum"
// adds them, "mean" divides the sum by the sum of the weights used.
// SoftmaxCrossEntropyLoss applies that to log(softmax(scores)) over axis 1 and
// can also return those log-probabilities (output 1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// The negative log-likelihood of `log_prob` (dims [N, C, d...]) at the
// node's targets, reduced as the node asks; output 0 of both ops.
absl::StatusOr<Tensor> NllLoss(const KernelContext& c, const OnnxArgs& a,
                               const std::vector<double>& log_prob, const Dims& dims) {
  const Tensor* target = a.Input(1);
  if (target == nullptr) return KernelError(c, "needs a target input");
  if (dims.size() < 2) return KernelError(c, "the input must have rank 2 or more");
  const int64_t n = dims[0], classes = dims[1];
  Dims tdims{n};
  tdims.insert(tdims.end(), dims.begin() + 2, dims.end());
  if (target->type().dims != tdims) {
    return KernelError(c, absl::StrFormat("target is %s, expected dims [%s] for input %s",
                                          target->type().ToString(), absl::StrJoin(tdims, ","),
                                          c.inputs[0].type->ToString()));
  }
  std::vector<double> weight(static_cast<size_t>(classes), 1.0);
  if (const Tensor* w = a.Input(2)) {
    if (w->type().dims != Dims{classes}) {
      return KernelError(
          c, absl::StrFormat("weight is %s, expected [%d]", w->type().ToString(), classes));
    }
    weight = ReadReals(*w);
  }
  std::optional<int64_t> ignore;
  if (c.attrs != nullptr && c.attrs->contains("ignore_index")) ignore = a.Int("ignore_index", 0);
  const std::string reduction = a.Str("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return KernelError(c, absl::StrFormat("unknown reduction '%s'", reduction));
  }

  const std::vector<int64_t> t = ReadInts(*target);
  const int64_t inner = static_cast<int64_t>(t.size()) / std::max<int64_t>(n, 1);
  std::vector<double> loss(t.size(), 0.0);
  double loss_sum = 0, weight_sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t pos = i * inner + d;
      const int64_t cls = t[pos];
      if (ignore && cls == *ignore) continue;
      if (cls < 0 || cls >= classes) {
        return KernelError(c, absl::StrFormat("target %d is outside [0, %d)", cls, classes));
      }
      const double w = weight[cls];
      loss[pos] = -log_prob[(i * classes + cls) * inner + d] * w;
      loss_sum += loss[pos];
      weight_sum += w;
    }
  }
  if (reduction == "none") return OnnxOutput(c, 0, tdims, loss);
  const double reduced = reduction == "sum" ? loss_sum : loss_sum / weight_sum;
  return OnnxOutput(c, 0, Dims{}, {reduced});
}

Result NegativeLogLikelihoodLoss(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0)) return KernelError(c, "needs an input");
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor loss,
                         NllLoss(c, a, ReadReals(*a.Input(0)), a.Input(0)->type().dims));
  out.push_back(std::move(loss));
  return out;
}

Result SoftmaxCrossEntropyLoss(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0)) return KernelError(c, "needs scores");
  const Dims& dims = a.Input(0)->type().dims;
  if (dims.size() < 2) return KernelError(c, "the scores must have rank 2 or more");
  std::vector<double> v = ReadReals(*a.Input(0));
  // log(softmax) over axis 1, with the maximum subtracted first.
  const int64_t n = dims[0], classes = dims[1];
  const int64_t inner = n * classes == 0 ? 0 : static_cast<int64_t>(v.size()) / (n * classes);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t d = 0; d < inner; ++d) {
      auto at = [&](int64_t k) -> double& { return v[(i * classes + k) * inner + d]; };
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < classes; ++k) mx = std::max(mx, at(k));
      double sum = 0;
      for (int64_t k = 0; k < classes; ++k) sum += std::exp(at(k) - mx);
      const double log_sum = std::log(sum);
      for (int64_t k = 0; k < classes; ++k) at(k) = at(k) - mx - log_sum;
    }
  }
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor loss, NllLoss(c, a, v, dims));
  out.push_back(std::move(loss));
  if (c.outputs.size() > 1) {
    EGRET_ASSIGN_OR_RETURN(Tensor log_prob, OnnxOutput(c, 1, dims, v));
    out.push_back(std::move(log_prob));
  }
  return out;
}

}  // namespace

void RegisterOnnxLossKernels(KernelTable& t) {
  t.emplace("onnx.NegativeLogLikelihoodLoss", NegativeLogLikelihoodLoss);
  t.emplace("onnx.SoftmaxCrossEntropyLoss", SoftmaxCrossEntropyLoss);
}

}  // namespace egret::backend_internal
