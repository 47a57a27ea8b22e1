// Recognition by meaning: each of these spellings of GELU, LayerNorm, softmax
// and HardSwish, as exporters and people write them, becomes the one fused op
// with the shipped library, and computes the same outputs. One case per
// spelling, named after it; the cases are the examples of what the library
// recognizes (docs/rule-library.md says which rule or normalization does it).
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "../backend/graph_builder.h"
#include "gtest/gtest.h"
#include "shipped_library.h"

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
  ValueRef Add(ValueRef a, ValueRef c) { return b_.Op("ElementWiseAdd", {a, c}); }
  ValueRef Sub(ValueRef a, ValueRef c) { return b_.Op("ElementWiseSubtract", {a, c}); }
  ValueRef Mul(ValueRef a, ValueRef c) { return b_.Op("ElementWiseMultiply", {a, c}); }
  ValueRef Div(ValueRef a, ValueRef c) { return b_.Op("ElementWiseDivide", {a, c}); }
  ValueRef Pow(ValueRef a, double e) { return b_.Op("ElementWisePower", {a, K(e)}); }
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
  };
}

std::vector<Spelling> AllSpellings() {
  std::vector<Spelling> all;
  for (auto part :
       {GeluSpellings(), LayerNormSpellings(), SoftmaxSpellings(), HardSwishSpellings()}) {
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
