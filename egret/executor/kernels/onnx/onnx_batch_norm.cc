// ONNX BatchNormalization of any rank: X [N, C, d1, ..., dk] normalized per
// channel, Y = scale (X - mean) / sqrt(var + epsilon) + B.
//
// Inference (training_mode 0) uses the input_mean and input_var operands.
// Training mode uses the batch statistics over every axis but 1 (population
// variance) and also returns the running statistics
// running = input * momentum + batch * (1 - momentum) as outputs 1 and 2;
// the outputs 3 and 4 of older opsets (saved mean and variance) are the batch
// statistics.
#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

Result BatchNormalization(const KernelContext& c) {
  const OnnxArgs a(c);
  for (int k = 0; k < 5; ++k) {
    if (!a.Has(k)) return KernelError(c, "needs X, scale, B, input_mean and input_var");
  }
  const Dims& dims = a.Input(0)->type().dims;
  if (dims.size() < 2) return KernelError(c, "X must have rank 2 or more");
  const int64_t n = dims[0], channels = dims[1];
  for (int k = 1; k < 5; ++k) {
    if (a.Input(k)->type().dims != Dims{channels}) {
      return KernelError(c, absl::StrFormat("input %d is %s, expected [%d]", k,
                                            a.Input(k)->type().ToString(), channels));
    }
  }
  const std::vector<double> x = ReadReals(*a.Input(0));
  const std::vector<double> scale = ReadReals(*a.Input(1));
  const std::vector<double> bias = ReadReals(*a.Input(2));
  std::vector<double> mean = ReadReals(*a.Input(3));
  std::vector<double> var = ReadReals(*a.Input(4));
  const double epsilon = a.Float("epsilon", 1e-5);
  const double momentum = a.Float("momentum", 0.9);
  const bool training = a.Int("training_mode", 0) != 0;
  if (c.outputs.size() > 5 || (!training && c.outputs.size() > 1)) {
    return KernelError(c, absl::StrFormat("has %d outputs (training_mode %d)", c.outputs.size(),
                                          training ? 1 : 0));
  }
  const int64_t inner = n * channels == 0 ? 0 : static_cast<int64_t>(x.size()) / (n * channels);

  std::vector<double> batch_mean(channels, 0.0), batch_var(channels, 0.0);
  if (training) {
    const double count = static_cast<double>(n * inner);
    for (int64_t ch = 0; ch < channels; ++ch) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t d = 0; d < inner; ++d) sum += x[(i * channels + ch) * inner + d];
      }
      batch_mean[ch] = sum / count;
      double sq = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t d = 0; d < inner; ++d) {
          const double e = x[(i * channels + ch) * inner + d] - batch_mean[ch];
          sq += e * e;
        }
      }
      batch_var[ch] = sq / count;
    }
  }
  const std::vector<double>& use_mean = training ? batch_mean : mean;
  const std::vector<double>& use_var = training ? batch_var : var;
  std::vector<double> y(x.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < channels; ++ch) {
      const double k = scale[ch] / std::sqrt(use_var[ch] + epsilon);
      for (int64_t d = 0; d < inner; ++d) {
        const int64_t at = (i * channels + ch) * inner + d;
        y[at] = k * (x[at] - use_mean[ch]) + bias[ch];
      }
    }
  }
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor yt, OnnxOutput(c, 0, dims, y));
  out.push_back(std::move(yt));
  if (training) {
    for (int64_t ch = 0; ch < channels; ++ch) {
      mean[ch] = mean[ch] * momentum + batch_mean[ch] * (1.0 - momentum);
      var[ch] = var[ch] * momentum + batch_var[ch] * (1.0 - momentum);
    }
    const std::vector<double>* stats[] = {&mean, &var, &batch_mean, &batch_var};
    for (int k = 1; k < static_cast<int>(c.outputs.size()); ++k) {
      EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, k, Dims{channels}, *stats[k - 1]));
      out.push_back(std::move(t));
    }
  }
  return out;
}

}  // namespace

void RegisterOnnxBatchNormKernels(KernelTable& t) {
  t.emplace("onnx.BatchNormalization", BatchNormalization);
}

}  // namespace egret::backend_internal
