// Recognition by meaning: each of these spellings of GELU (erf and tanh),
// RMSNorm, SiLU, LayerNorm, softmax (alone and in attention) and HardSwish,
// as exporters and people write them, becomes the one fused op
// with the shipped library, and computes the same outputs. One case per
// spelling, named after it; the cases are the examples of what the library
// recognizes (docs/rule-library.md says which rule or normalization does it).
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shipped_library.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;

// Builds expressions over one input x ([2, 4, 8], Float32) in a few words.
class Expr {
 public:
  explicit Expr(GraphBuilder& b) : b_(b), x_(b.InputF32({2, 4, 8})) {}

  ValueRef x() const { return x_; }
  // A scalar constant: rank 0 (as ONNX exporters write it) or [1, 1, 1].
  ValueRef K(double v) { return b_.F32({}, {v}); }
  ValueRef K3(double v) { return b_.F32({1, 1, 1}, {v}); }
  // A full [8] tensor of one value, as TF2ONNX and Paddle2ONNX write a
  // broadcast constant.
  ValueRef K8(double v) { return b_.F32({8}, std::vector<double>(8, v)); }
  ValueRef Add(ValueRef a, ValueRef c) { return b_.Op("ElementWiseAdd", {a, c}); }
  ValueRef Sub(ValueRef a, ValueRef c) { return b_.Op("ElementWiseSubtract", {a, c}); }
  ValueRef Mul(ValueRef a, ValueRef c) { return b_.Op("ElementWiseMultiply", {a, c}); }
  ValueRef Div(ValueRef a, ValueRef c) { return b_.Op("ElementWiseDivide", {a, c}); }
  ValueRef Pow(ValueRef a, double e) { return b_.Op("ElementWisePower", {a, K(e)}); }
  ValueRef Recip(ValueRef a) { return Div(K(1), a); }  // ONNX Reciprocal, as imported
  ValueRef MatMul(ValueRef a, ValueRef c) { return b_.Op("MatMul", {a, c}); }
  ValueRef Transpose(ValueRef a) { return b_.Op("Transpose", {a, b_.Shape({0, 2, 1})}); }
  // softmax's input where the causal Bool [4, 4] mask allows, else `masked`
  // (masked_fill, exported as Where).
  ValueRef CausalSelect(ValueRef s, double masked) {
    std::vector<double> keep;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) keep.push_back(j <= i ? 1 : 0);
    }
    ValueRef cond = b_.Const(TensorType(DType::kBool, {4, 4}), keep);
    return b_.Op("ElementWiseSelect", {cond, s, b_.F32({1, 1}, {masked})});
  }
  // A [4, 4] constant: attention's additive causal mask over 4 positions.
  ValueRef CausalMask(double masked) {
    std::vector<double> v;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) v.push_back(j > i ? masked : 0.0);
    }
    return b_.F32({4, 4}, v);
  }
  ValueRef Max(ValueRef a, ValueRef c) { return b_.Op("ElementWiseMaximum", {a, c}); }
  ValueRef Min(ValueRef a, ValueRef c) { return b_.Op("ElementWiseMinimum", {a, c}); }
  ValueRef Unary(const char* op, ValueRef a) { return b_.Op(op, {a}); }
  ValueRef Clip(ValueRef a, double lo, double hi) {
    return b_.Op("ReluMinMax", {a, K3(lo), K3(hi)});
  }
  ValueRef HardSigmoid(ValueRef a) { return b_.Op("HardSigmoid", {a, K(1.0 / 6), K(0.5)}); }
  // A reduction over the last axis with keep_dims, the axes given as a
  // "$Shape" {2} or an Int32 "$Const" {-1}.
  ValueRef Reduce(const char* op, ValueRef a, bool const_axes = false) {
    return b_.Op(op, {a, const_axes ? b_.Ints({-1}) : b_.Shape({2}), b_.Ints({1})});
  }
  // LayerNorm's scale and shift, [8].
  ValueRef Gamma() { return b_.F32({8}, {0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25}); }
  ValueRef Beta() { return b_.F32({8}, {-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75}); }

 private:
  GraphBuilder& b_;
  ValueRef x_;
};

struct Spelling {
  std::string name;
  std::string fused;     // the op it must become, once
  std::string replaced;  // an op of the spelling that must be gone
  std::function<ValueRef(Expr&)> build;
};

constexpr double kRsqrt2 = 0.7071067811865476, kSqrt2 = 1.4142135623730951;

// GELU: x * Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2.
std::vector<Spelling> GeluSpellings() {
  auto erf = [](Expr& e) { return e.Unary("Erf", e.Div(e.x(), e.K(kSqrt2))); };
  return {
      {"GeluTorchExport", "Gelu", "Erf",
       [=](Expr& e) { return e.Mul(e.Mul(e.x(), e.Add(erf(e), e.K(1))), e.K(0.5)); }},
      {"GeluHalfFirst", "Gelu", "Erf",
       [=](Expr& e) { return e.Mul(e.Mul(e.K(0.5), e.x()), e.Add(e.K(1), erf(e))); }},
      {"GeluHalfInsidePhi", "Gelu", "Erf",
       [=](Expr& e) { return e.Mul(e.x(), e.Mul(e.K(0.5), e.Add(erf(e), e.K(1)))); }},
      {"GeluByTheReciprocalOfSqrt2", "Gelu", "Erf",
       [](Expr& e) {
         ValueRef r = e.Unary("Erf", e.Mul(e.x(), e.K(kRsqrt2)));
         return e.Mul(e.Mul(e.x(), e.Add(r, e.K(1))), e.K(0.5));
       }},
      {"GeluDividedByTwo", "Gelu", "Erf",
       [=](Expr& e) { return e.Div(e.Mul(e.x(), e.Add(erf(e), e.K(1))), e.K(2)); }},
      {"GeluHalfDistributed", "Gelu", "Erf",
       [=](Expr& e) {
         ValueRef h = e.Mul(e.x(), e.K(0.5));
         return e.Add(e.Mul(h, erf(e)), h);
       }},
      {"GeluConstantsAsFullTensors", "Gelu", "Erf",
       [](Expr& e) {  // TF2ONNX / Paddle2ONNX: each constant a full tensor
         ValueRef r = e.Unary("Erf", e.Div(e.x(), e.K8(kSqrt2)));
         return e.Mul(e.Mul(e.x(), e.K8(0.5)), e.Add(r, e.K8(1)));
       }},
      {"GeluPhiAsHalfPlusHalfErf", "Gelu", "Erf",
       [=](Expr& e) { return e.Mul(e.x(), e.Add(e.Mul(e.K(0.5), erf(e)), e.K(0.5))); }},
      {"GeluHalfDistributedHalfFirst", "Gelu", "Erf",
       [=](Expr& e) {
         ValueRef h = e.Mul(e.K(0.5), e.x());
         return e.Add(h, e.Mul(erf(e), h));
       }},
  };
}

// GELU's tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
std::vector<Spelling> GeluTanhSpellings() {
  constexpr double kS = 0.7978845608028654, kC = 0.044715;
  auto tanh_of = [](Expr& e, ValueRef inner) { return e.Unary("Tanh", inner); };
  auto poly = [](Expr& e, ValueRef cube) {
    return e.Mul(e.K(kS), e.Add(e.x(), e.Mul(e.K(kC), cube)));
  };
  auto pow3 = [](Expr& e) { return e.Pow(e.x(), 3); };
  auto times3 = [](Expr& e) { return e.Mul(e.Mul(e.x(), e.x()), e.x()); };
  return {
      {"GeluTanhTorchExport", "Gelu", "Tanh",
       [=](Expr& e) {
         ValueRef t = tanh_of(e, poly(e, pow3(e)));
         return e.Mul(e.Mul(e.x(), e.K(0.5)), e.Add(e.K(1), t));
       }},
      {"GeluTanhCubeAsAProduct", "Gelu", "Tanh",
       [=](Expr& e) {  // GPT-2 as TF2ONNX writes it
         ValueRef t = tanh_of(e, poly(e, times3(e)));
         return e.Mul(e.K(0.5), e.Mul(e.x(), e.Add(t, e.K(1))));
       }},
      {"GeluTanhHalfDistributed", "Gelu", "Tanh",
       [=](Expr& e) {
         ValueRef h = e.Mul(e.x(), e.K(0.5));
         return e.Add(h, e.Mul(h, tanh_of(e, poly(e, pow3(e)))));
       }},
      {"GeluTanhInnerFactored", "Gelu", "Tanh",
       [=](Expr& e) {  // Megatron's bias_gelu: k x (1 + c x x)
         ValueRef inner =
             e.Mul(e.Mul(e.K(kS), e.x()), e.Add(e.K(1), e.Mul(e.Mul(e.K(kC), e.x()), e.x())));
         return e.Mul(e.Mul(e.x(), e.K(0.5)), e.Add(e.K(1), tanh_of(e, inner)));
       }},
      {"GeluTanhCoefficientsFolded", "Gelu", "Tanh",
       [=](Expr& e) {  // sqrt(2/pi) multiplied into both terms
         ValueRef inner = e.Add(e.Mul(e.x(), e.K(kS)), e.Mul(times3(e), e.K(kS * kC)));
         return e.Mul(e.Mul(e.x(), e.K(0.5)), e.Add(e.K(1), tanh_of(e, inner)));
       }},
      {"GeluTanhDividedByTwo", "Gelu", "Tanh",
       [=](Expr& e) {
         ValueRef t = tanh_of(e, poly(e, pow3(e)));
         return e.Div(e.Mul(e.x(), e.Add(t, e.K(1))), e.K(2));
       }},
  };
}

// RMSNorm over the last axis: x / sqrt(mean(x^2) + eps) * gamma.
std::vector<Spelling> RmsNormSpellings() {
  auto ms = [](Expr& e, bool product, bool const_axes) {
    ValueRef sq = product ? e.Mul(e.x(), e.x()) : e.Pow(e.x(), 2);
    return e.Add(e.Reduce("ReduceMean", sq, const_axes), e.K(1e-6));
  };
  return {
      {"RmsNormLlamaExport", "RmsNorm", "ReduceMean",
       [=](Expr& e) {  // x * rsqrt(..), rsqrt exported as Sqrt and Reciprocal
         return e.Mul(e.Gamma(), e.Mul(e.x(), e.Recip(e.Unary("Sqrt", ms(e, false, false)))));
       }},
      {"RmsNormDividedByTheRoot", "RmsNorm", "ReduceMean",
       [=](Expr& e) {
         return e.Mul(e.Div(e.x(), e.Unary("Sqrt", ms(e, false, false))), e.Gamma());
       }},
      {"RmsNormSquareAsAProduct", "RmsNorm", "ReduceMean",
       [=](Expr& e) {
         return e.Mul(e.Mul(e.x(), e.Recip(e.Unary("Sqrt", ms(e, true, false)))), e.Gamma());
       }},
      {"RmsNormReciprocalSquareRootAsAPower", "RmsNorm", "ReduceMean",
       [=](Expr& e) { return e.Mul(e.Mul(e.x(), e.Pow(ms(e, false, false), -0.5)), e.Gamma()); }},
      {"RmsNormAxesAsAConstant", "RmsNorm", "ReduceMean",
       [=](Expr& e) {
         return e.Mul(e.Gamma(), e.Mul(e.x(), e.Recip(e.Unary("Sqrt", ms(e, false, true)))));
       }},
      {"RmsNormScaleBeforeTheNormalization", "RmsNorm", "ReduceMean",
       [=](Expr& e) {  // (gamma * x) * rsqrt(..)
         return e.Mul(e.Mul(e.Gamma(), e.x()), e.Recip(e.Unary("Sqrt", ms(e, true, false))));
       }},
      {"RmsNormGemmaOnePlusWeight", "RmsNorm", "ReduceMean",
       [=](Expr& e) {  // Gemma scales by (1 + weight)
         ValueRef n = e.Mul(e.x(), e.Recip(e.Unary("Sqrt", ms(e, false, false))));
         return e.Mul(n, e.Add(e.K(1), e.Gamma()));
       }},
      {"RmsNormMeanAsASumOverTheWidth", "RmsNorm", "ReduceSum",
       [](Expr& e) {  // hand-built: x.pow(2).sum(-1, keepdim=True) / x.shape[-1]
         ValueRef ms = e.Div(e.Reduce("ReduceSum", e.Pow(e.x(), 2)), e.K(8));
         ValueRef n = e.Div(e.x(), e.Unary("Sqrt", e.Add(ms, e.K(1e-6))));
         return e.Mul(n, e.Gamma());
       }},
      {"RmsNormRootAsAPower", "RmsNorm", "ReduceMean",
       [=](Expr& e) { return e.Mul(e.Div(e.x(), e.Pow(ms(e, true, false), 0.5)), e.Gamma()); }},
  };
}

// SiLU / Swish: x * sigmoid(x).
std::vector<Spelling> SwishSpellings() {
  auto logistic = [](Expr& e, ValueRef neg) { return e.Add(e.K(1), e.Unary("Exp", neg)); };
  return {
      {"SwishTorchExport", "Swish", "Sigmoid",
       [](Expr& e) { return e.Mul(e.x(), e.Unary("Sigmoid", e.x())); }},
      {"SwishSigmoidFirst", "Swish", "Sigmoid",
       [](Expr& e) { return e.Mul(e.Unary("Sigmoid", e.x()), e.x()); }},
      {"SwishWithABetaOfOne", "Swish", "Sigmoid",
       [](Expr& e) {  // Paddle2ONNX: x * sigmoid(beta * x), beta 1
         return e.Mul(e.x(), e.Unary("Sigmoid", e.Mul(e.x(), e.K(1))));
       }},
      {"SwishLogisticSpelledOut", "Swish", "Exp",
       [=](Expr& e) { return e.Div(e.x(), logistic(e, e.Unary("Neg", e.x()))); }},
      {"SwishNegationAsAProduct", "Swish", "Exp",
       [=](Expr& e) { return e.Div(e.x(), logistic(e, e.Mul(e.x(), e.K(-1)))); }},
      {"SwishTimesTheReciprocalOfTheLogistic", "Swish", "Exp",
       [=](Expr& e) { return e.Mul(e.x(), e.Recip(logistic(e, e.Sub(e.K(0), e.x())))); }},
  };
}

// LayerNorm over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta.
std::vector<Spelling> LayerNormSpellings() {
  // The normalized value, written several ways; `square` spells d^2.
  auto norm = [](Expr& e, std::function<ValueRef(Expr&, ValueRef)> square, bool const_axes,
                 bool reciprocal) {
    ValueRef d = e.Sub(e.x(), e.Reduce("ReduceMean", e.x(), const_axes));
    ValueRef var = e.Reduce("ReduceMean", square(e, d), const_axes);
    ValueRef root = e.Unary("Sqrt", e.Add(var, e.K(1e-5)));
    return reciprocal ? e.Mul(d, e.Div(e.K(1), root)) : e.Div(d, root);
  };
  auto pow2 = [](Expr& e, ValueRef d) { return e.Pow(d, 2); };
  auto times = [](Expr& e, ValueRef d) { return e.Mul(d, d); };
  return {
      {"LayerNormExport", "LayerNorm", "ReduceMean",
       [=](Expr& e) { return e.Add(e.Mul(norm(e, pow2, false, false), e.Gamma()), e.Beta()); }},
      {"LayerNormSquareAsAProduct", "LayerNorm", "ReduceMean",
       [=](Expr& e) { return e.Add(e.Mul(norm(e, times, false, false), e.Gamma()), e.Beta()); }},
      {"LayerNormReciprocalOfTheRoot", "LayerNorm", "ReduceMean",
       [=](Expr& e) { return e.Add(e.Mul(norm(e, pow2, false, true), e.Gamma()), e.Beta()); }},
      {"LayerNormAxesAsAConstant", "LayerNorm", "ReduceMean",
       [=](Expr& e) { return e.Add(e.Mul(norm(e, pow2, true, false), e.Gamma()), e.Beta()); }},
      {"LayerNormReciprocalSquareRootAsAPower", "LayerNorm", "ReduceMean",
       [](Expr& e) {
         ValueRef d = e.Sub(e.x(), e.Reduce("ReduceMean", e.x()));
         ValueRef var = e.Reduce("ReduceMean", e.Mul(d, d));
         ValueRef n = e.Mul(d, e.Pow(e.Add(var, e.K(1e-5)), -0.5));
         return e.Add(e.Mul(n, e.Gamma()), e.Beta());
       }},
      {"LayerNormRootAsAPower", "LayerNorm", "ReduceMean",
       [](Expr& e) {
         ValueRef d = e.Sub(e.x(), e.Reduce("ReduceMean", e.x()));
         ValueRef var = e.Reduce("ReduceMean", e.Pow(d, 2));
         ValueRef n = e.Div(d, e.Pow(e.Add(var, e.K(1e-5)), 0.5));
         return e.Add(e.Mul(n, e.Gamma()), e.Beta());
       }},
      {"LayerNormFoldedAsTensorFlowDoes", "LayerNorm", "ReduceMean",
       [](Expr& e) {  // x * a + (beta - mean * a), a = gamma / sqrt(var + eps)
         ValueRef mean = e.Reduce("ReduceMean", e.x());
         ValueRef d = e.Sub(e.x(), mean);
         ValueRef var = e.Reduce("ReduceMean", e.Mul(d, d));
         ValueRef a = e.Div(e.Gamma(), e.Unary("Sqrt", e.Add(var, e.K(1e-5))));
         return e.Add(e.Mul(e.x(), a), e.Sub(e.Beta(), e.Mul(mean, a)));
       }},
      {"LayerNormScaleFirst", "LayerNorm", "ReduceMean",
       [=](Expr& e) { return e.Add(e.Beta(), e.Mul(e.Gamma(), norm(e, pow2, false, false))); }},
  };
}

// Softmax over the last axis: exp(x - max) / sum(exp(x - max)).
std::vector<Spelling> SoftmaxSpellings() {
  auto stable = [](Expr& e, bool const_axes) {
    return e.Unary("Exp", e.Sub(e.x(), e.Reduce("ReduceMax", e.x(), const_axes)));
  };
  return {
      {"SoftmaxExport", "Softmax", "Exp",
       [=](Expr& e) {
         ValueRef p = stable(e, false);
         return e.Div(p, e.Reduce("ReduceSum", p));
       }},
      {"SoftmaxAxesAsAConstant", "Softmax", "Exp",
       [=](Expr& e) {
         ValueRef p = stable(e, true);
         return e.Div(p, e.Reduce("ReduceSum", p, true));
       }},
      {"SoftmaxWithoutTheMaximum", "Softmax", "Exp",
       [](Expr& e) {
         ValueRef p = e.Unary("Exp", e.x());
         return e.Div(p, e.Reduce("ReduceSum", p));
       }},
      {"SoftmaxTimesTheReciprocalOfTheSum", "Softmax", "Exp",
       [=](Expr& e) {
         ValueRef p = stable(e, false);
         return e.Mul(p, e.Div(e.K(1), e.Reduce("ReduceSum", p)));
       }},
      {"SoftmaxThroughLogSumExp", "Softmax", "Exp",
       [](Expr& e) {  // exp(x - log(sum(exp(x))))
         ValueRef lse = e.Unary("Log", e.Reduce("ReduceSum", e.Unary("Exp", e.x())));
         return e.Unary("Exp", e.Sub(e.x(), lse));
       }},
      {"SoftmaxThroughStableLogSumExp", "Softmax", "Exp",
       [](Expr& e) {  // exp(x - (m + log(sum(exp(x - m))))), m = max(x)
         ValueRef m = e.Reduce("ReduceMax", e.x());
         ValueRef s = e.Reduce("ReduceSum", e.Unary("Exp", e.Sub(e.x(), m)));
         return e.Unary("Exp", e.Sub(e.x(), e.Add(m, e.Unary("Log", s))));
       }},
  };
}

// Scaled-dot-product attention of x with itself (q = k = v = x, [2, 4, 8]):
// softmax(q k^T / sqrt 8 + mask) v. Its canonical form is MatMul, Softmax,
// MatMul: the softmax fused, the scale a multiply on q (fusion.rules).
std::vector<Spelling> AttentionSpellings() {
  auto attend = [](Expr& e, std::function<ValueRef(Expr&, ValueRef)> scale,
                   std::function<ValueRef(Expr&, ValueRef)> mask) {
    ValueRef s = mask(e, scale(e, e.MatMul(e.x(), e.Transpose(e.x()))));
    ValueRef m = e.Reduce("ReduceMax", s);
    ValueRef p = e.Unary("Exp", e.Sub(s, m));
    return e.MatMul(e.Div(p, e.Reduce("ReduceSum", p)), e.x());
  };
  auto divided = [](Expr& e, ValueRef s) { return e.Div(s, e.K(kSqrt2 * 2)); };
  auto times = [](Expr& e, ValueRef s) { return e.Mul(s, e.K(1 / (kSqrt2 * 2))); };
  auto none = [](Expr&, ValueRef s) { return s; };
  auto causal = [](Expr& e, ValueRef s) { return e.Add(s, e.CausalMask(-1e9)); };
  auto selected = [](Expr& e, ValueRef s) { return e.CausalSelect(s, -1e9); };
  return {
      {"AttentionScaledByDivision", "Softmax", "Exp",
       [=](Expr& e) { return attend(e, divided, none); }},
      {"AttentionScaledByMultiplication", "Softmax", "Exp",
       [=](Expr& e) { return attend(e, times, none); }},
      {"AttentionWithAnAdditiveCausalMask", "Softmax", "Exp",
       [=](Expr& e) { return attend(e, divided, causal); }},
      {"AttentionWithACausalMaskByWhere", "Softmax", "Exp",
       [=](Expr& e) { return attend(e, times, selected); }},
  };
}

// HardSwish: x * clip(x + 3, 0, 6) / 6.
std::vector<Spelling> HardSwishSpellings() {
  auto relu6 = [](Expr& e) { return e.Clip(e.Add(e.x(), e.K3(3)), 0, 6); };
  return {
      {"HardSwishDividedBySix", "HardSwish", "ReluMinMax",
       [=](Expr& e) { return e.Div(e.Mul(e.x(), relu6(e)), e.K3(6)); }},
      {"HardSwishTimesASixth", "HardSwish", "ReluMinMax",
       [=](Expr& e) { return e.Mul(e.Mul(e.x(), relu6(e)), e.K3(1.0 / 6)); }},
      {"HardSwishScaleInside", "HardSwish", "ReluMinMax",
       [=](Expr& e) { return e.Mul(e.x(), e.Div(relu6(e), e.K3(6))); }},
      {"HardSwishWithRelu6", "HardSwish", "Relu6",
       [](Expr& e) {
         ValueRef r = e.Unary("Relu6", e.Add(e.K3(3), e.x()));
         return e.Div(e.Mul(r, e.x()), e.K3(6));
       }},
      {"HardSwishWithMaxAndMin", "HardSwish", "ElementWiseMinimum",
       [](Expr& e) {
         ValueRef c = e.Min(e.Max(e.Add(e.x(), e.K3(3)), e.K3(0)), e.K3(6));
         return e.Div(e.Mul(e.x(), c), e.K3(6));
       }},
      {"HardSwishWithHardSigmoid", "HardSwish", "HardSigmoid",
       [](Expr& e) { return e.Mul(e.x(), e.HardSigmoid(e.x())); }},
      {"HardSwishWithTheSigmoidSpelledOut", "HardSwish", "ReluMinMax",
       [](Expr& e) {
         return e.Mul(e.x(), e.Clip(e.Add(e.Mul(e.x(), e.K3(1.0 / 6)), e.K3(0.5)), 0, 1));
       }},
      {"HardSwishConstantsAsFullTensors", "HardSwish", "ReluMinMax",
       [](Expr& e) { return e.Div(e.Mul(e.x(), e.Clip(e.Add(e.x(), e.K8(3)), 0, 6)), e.K8(6)); }},
  };
}

std::vector<Spelling> AllSpellings() {
  std::vector<Spelling> all;
  for (auto part :
       {GeluSpellings(), GeluTanhSpellings(), RmsNormSpellings(), SwishSpellings(),
        LayerNormSpellings(), SoftmaxSpellings(), AttentionSpellings(), HardSwishSpellings()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

void PrintTo(const Spelling& s, std::ostream* os) { *os << s.name; }

class SpellingTest : public ::testing::TestWithParam<Spelling> {};

TEST_P(SpellingTest, BecomesTheFusedOp) {
  GraphBuilder b;
  Expr e(b);
  b.Output(GetParam().build(e));
  OptimizeResult r = testing::OptimizeWithLibrary(b.graph(), 3, {.rtol = 1e-4, .atol = 1e-5});
  EXPECT_EQ(testing::CountOp(r.graph, GetParam().fused), 1);
  EXPECT_EQ(testing::CountOp(r.graph, GetParam().replaced), 0);
}

INSTANTIATE_TEST_SUITE_P(Library, SpellingTest, ::testing::ValuesIn(AllSpellings()),
                         [](const ::testing::TestParamInfo<Spelling>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace egret
