// Optimizer steps of the ai.onnx.preview.training domain: Momentum, Adam and
// Adagrad, as opaque "onnx.ai.onnx.preview.training.<Op>" nodes.
//
// Each takes the learning rate R and the update count T (scalars), then n
// tensors to optimize X1..Xn, their gradients G1..Gn and the optimizer's
// state tensors (Momentum: V; Adagrad: H; Adam: V then H), each group n
// long. It returns the new X1..Xn, then the new state tensors in the same
// group order. Every group i is updated elementwise on its own.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// One optimizer's update of element j: reads x, g and the state values
// (s[0..states)), writes the new x and state in place.
struct Step {
  virtual ~Step() = default;
  virtual void Update(double& x, double g, double* s) const = 0;
};

// Runs `step` over every group of a node with `states` state tensors per
// optimized tensor.
Result RunOptimizer(const KernelContext& c, int states, const Step& step) {
  const int groups = 2 + states;  // X, G, state...
  const int inputs = static_cast<int>(c.inputs.size()) - 2;
  if (inputs <= 0 || inputs % groups != 0) {
    return KernelError(c, absl::StrFormat("has %d inputs; expected R, T and %d groups of n",
                                          c.inputs.size(), groups));
  }
  const int n = inputs / groups;
  if (static_cast<int>(c.outputs.size()) > n * (1 + states)) {
    return KernelError(
        c, absl::StrFormat("has %d outputs, at most %d", c.outputs.size(), n * (1 + states)));
  }
  std::vector<std::vector<double>> x(n), state(static_cast<size_t>(n * states));
  for (int i = 0; i < n; ++i) {
    const Dims& dims = c.InDims(2 + i);
    for (int k = 1; k < groups; ++k) {
      if (c.InDims(2 + k * n + i) != dims) {
        return KernelError(
            c, absl::StrFormat("input %d is %s, expected the dims of input %d (%s)", 2 + k * n + i,
                               c.inputs[2 + k * n + i].type->ToString(), 2 + i,
                               c.inputs[2 + i].type->ToString()));
      }
    }
    x[i] = ReadReals(c.In(2 + i));
    const std::vector<double> g = ReadReals(c.In(2 + n + i));
    for (int s = 0; s < states; ++s) state[s * n + i] = ReadReals(c.In(2 + (2 + s) * n + i));
    std::vector<double> sv(static_cast<size_t>(states));
    for (size_t j = 0; j < x[i].size(); ++j) {
      for (int s = 0; s < states; ++s) sv[s] = state[s * n + i][j];
      step.Update(x[i][j], g[j], sv.data());
      for (int s = 0; s < states; ++s) state[s * n + i][j] = sv[s];
    }
  }
  std::vector<Tensor> out;
  for (int k = 0; k < static_cast<int>(c.outputs.size()); ++k) {
    const int i = k % n;
    const std::vector<double>& v = k < n ? x[i] : state[k - n];
    EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, k, c.InDims(2 + i), v));
    out.push_back(std::move(t));
  }
  return out;
}

absl::StatusOr<std::pair<double, double>> RateAndCount(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, static_cast<int>(c.inputs.size())));
  if (c.inputs.size() < 2 || c.In(0).num_elements() != 1 || c.In(1).num_elements() != 1) {
    return KernelError(c, "R and T must be scalars");
  }
  return std::make_pair(ReadReals(c.In(0))[0], ReadReals(c.In(1))[0]);
}

// V_new = alpha V + beta' G', G' = G + norm_coefficient X, beta' = (T > 0 ? beta : 1);
// standard: X_new = X - R V_new; nesterov: X_new = X - R (G' + alpha V_new).
struct MomentumStep : Step {
  double r, t, alpha, beta, norm;
  bool nesterov;
  void Update(double& x, double g, double* s) const override {
    const double gr = norm * x + g;
    double& v = s[0];
    v = alpha * v + (t > 0 ? beta : 1.0) * gr;
    x -= nesterov ? r * (gr + alpha * v) : r * v;
  }
};

Result Momentum(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(auto rt, RateAndCount(c));
  MomentumStep step;
  step.r = rt.first;
  step.t = rt.second;
  step.alpha = a.Float("alpha", 0.0);
  step.beta = a.Float("beta", 0.0);
  step.norm = a.Float("norm_coefficient", 0.0);
  const std::string mode = a.Str("mode", "standard");
  if (mode != "standard" && mode != "nesterov") {
    return KernelError(c, absl::StrFormat("unknown mode '%s'", mode));
  }
  step.nesterov = mode == "nesterov";
  return RunOptimizer(c, 1, step);
}

// R' = R / (1 + T decay_factor), G' = G + norm_coefficient X, H_new = H + G'^2,
// X_new = X - R' G' / (sqrt(H_new) + epsilon).
struct AdagradStep : Step {
  double r, epsilon, norm;
  void Update(double& x, double g, double* s) const override {
    const double gr = norm * x + g;
    double& h = s[0];
    h += gr * gr;
    x -= r * gr / (std::sqrt(h) + epsilon);
  }
};

Result Adagrad(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(auto rt, RateAndCount(c));
  AdagradStep step;
  step.r = rt.first / (1.0 + rt.second * a.Float("decay_factor", 0.0));
  step.epsilon = a.Float("epsilon", 1e-6);
  step.norm = a.Float("norm_coefficient", 0.0);
  return RunOptimizer(c, 1, step);
}

// G' = G + norm_coefficient X, V_new = alpha V + (1 - alpha) G',
// H_new = beta H + (1 - beta) G'^2, R' = R sqrt(1 - beta^T) / (1 - alpha^T)
// when T > 0 (else R), X_new = (1 - norm_coefficient_post) (X - R' V_new /
// (sqrt(H_new) + epsilon)).
struct AdamStep : Step {
  double r, alpha, beta, epsilon, norm, norm_post;
  void Update(double& x, double g, double* s) const override {
    const double gr = norm * x + g;
    double& v = s[0];
    double& h = s[1];
    v = alpha * v + (1.0 - alpha) * gr;
    h = beta * h + (1.0 - beta) * gr * gr;
    x = (1.0 - norm_post) * (x - r * v / (std::sqrt(h) + epsilon));
  }
};

Result Adam(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(auto rt, RateAndCount(c));
  AdamStep step;
  step.alpha = a.Float("alpha", 0.9);
  step.beta = a.Float("beta", 0.999);
  step.epsilon = a.Float("epsilon", 1e-6);
  step.norm = a.Float("norm_coefficient", 0.0);
  step.norm_post = a.Float("norm_coefficient_post", 0.0);
  const double t = rt.second;
  step.r =
      t > 0 ? rt.first * std::sqrt(1.0 - std::pow(step.beta, t)) / (1.0 - std::pow(step.alpha, t))
            : rt.first;
  return RunOptimizer(c, 2, step);
}

}  // namespace

void RegisterOnnxTrainingKernels(KernelTable& t) {
  t.emplace("onnx.ai.onnx.preview.training.Momentum", Momentum);
  t.emplace("onnx.ai.onnx.preview.training.Adagrad", Adagrad);
  t.emplace("onnx.ai.onnx.preview.training.Adam", Adam);
}

}  // namespace egret::backend_internal
