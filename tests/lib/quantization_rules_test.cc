// rules/lib/quantization.rules: a "Dequantize -> float op -> Quantize" island
// becomes the op on the quantized tensors, in the Quantize's encoding, with
// per-channel weights kept; requantizations fold. Each test builds the QDQ
// form a quantizer writes, optimizes it with the shipped library and checks
// what is left, and that the reference executor computes the same outputs
// within one quantization step.
#include <cmath>
#include <string>
#include <vector>

#include "egret/pipeline/optimize.h"
#include "egret/pipeline/strategies.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "shipped_library.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;

using testing::CountOp;
using testing::FindOp;

// A QUInt8 type; the dims are filled in by shape inference when left empty.
// (Built field by field: moving an empty Dims into the TensorType
// constructor trips a GCC false "uninitialized" warning.)
TensorType QU8(int32_t zero, float step, const Dims& d = Dims()) {
  TensorType t;
  t.dtype = DType::kQUInt8;
  t.dims = d;
  t.zero_offset = zero;
  t.stepsize = step;
  return t;
}

// Weights [3,3,cin,cout] as QInt8, symmetric, one stepsize per output channel.
ValueRef PerChannelWeights(GraphBuilder& b, int cin, int cout) {
  TensorType t(DType::kQInt8, {3, 3, cin, cout});
  std::vector<float> steps;
  for (int c = 0; c < cout; ++c) steps.push_back(0.01f + 0.002f * c);
  EXPECT_TRUE(t.SetPerAxis(3, steps, std::vector<int32_t>(cout, 0)).ok());
  std::vector<double> q(9 * cin * cout);
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<double>((i * 37) % 255) - 127;
  return b.Const(t, q);
}

// Int32 bias quantized per channel with stepsize in_step * weight step.
ValueRef Bias(GraphBuilder& b, int cout, float in_step) {
  TensorType t(DType::kQInt32, {cout});
  std::vector<float> steps;
  for (int c = 0; c < cout; ++c) steps.push_back(in_step * (0.01f + 0.002f * c));
  EXPECT_TRUE(t.SetPerAxis(0, steps, std::vector<int32_t>(cout, 0)).ok());
  std::vector<double> q;
  for (int c = 0; c < cout; ++c) q.push_back(100.0 * c - 300.0);
  return b.Const(t, q);
}

ValueRef Dq(GraphBuilder& b, ValueRef x) { return b.Op("Dequantize", {x}); }

// x (float) -> Q -> DQ -> Conv2d(DQ w, DQ b) -> Relu -> Q -> DQ: the QDQ form.
Graph QdqConvRelu(const std::string& conv) {
  GraphBuilder b;
  const int cin = 4, cout = conv == "DepthWiseConv2d" ? 4 : 8;
  ValueRef x = b.InputF32({1, 6, 6, cin});
  ValueRef xq = b.Op("Quantize", {x}, {QU8(128, 0.02f)});
  ValueRef w = PerChannelWeights(b, conv == "DepthWiseConv2d" ? 1 : cin, cout);
  ValueRef y = b.Op(conv, {Dq(b, xq), Dq(b, w), Dq(b, Bias(b, cout, 0.02f)), b.Shape({1, 1, 1, 1}),
                           b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})});
  ValueRef r = b.Op("Relu", {y});
  ValueRef yq = b.Op("Quantize", {r}, {QU8(0, 0.05f)});
  b.Output(Dq(b, yq));
  return std::move(b.graph());
}

// Optimizes with the library; the outputs agree within `atol` (one step of
// the output's encoding: the float island and the quantized op round once
// each, at different places). The quantized form must be cheaper.
OptimizeResult OptimizeAndVerify(const Graph& g, double atol) {
  OptimizeResult r = testing::OptimizeWithLibrary(g, 7, {.rtol = 0, .atol = atol});
  EXPECT_LT(r.output_cost, r.input_cost);
  return r;
}

TEST(QuantizationRulesTest, ConvIslandBecomesQuantizedConvWithPerChannelWeights) {
  for (const char* conv : {"Conv2d", "DepthWiseConv2d"}) {
    SCOPED_TRACE(conv);
    Graph in = QdqConvRelu(conv);
    OptimizeResult r = OptimizeAndVerify(in, 0.05 + 1e-6);  // one output step
    const Graph& out = r.graph;
    const Node* c = FindOp(out, conv);
    ASSERT_NE(c, nullptr);
    // The convolution reads the quantized input and weights and writes the
    // Quantize's encoding; the Relu is its fused clamp.
    EXPECT_EQ(out.TypeOf(c->inputs[0]).dtype, DType::kQUInt8);
    const TensorType& wt = out.TypeOf(c->inputs[1]);
    EXPECT_EQ(wt.dtype, DType::kQInt8);
    ASSERT_NE(wt.per_axis, nullptr);
    EXPECT_EQ(wt.per_axis->axis, 3);
    EXPECT_EQ(out.TypeOf(c->inputs[2]).dtype, DType::kQInt32);
    EXPECT_EQ(c->outputs[0], QU8(0, 0.05f, {1, 6, 6, std::string(conv) == "Conv2d" ? 8 : 4}));
    EXPECT_EQ(CountOp(out, "Relu") + CountOp(out, "ReluMinMax"), 0);
    // Only the graph's own boundary conversions are left.
    EXPECT_EQ(CountOp(out, "Quantize"), 1);
    EXPECT_EQ(CountOp(out, "Dequantize"), 1);
  }
}

// Greedy rewriting (egret compare's HTP-style baseline) reaches the same
// quantized convolution: it folds a weight's Dequantize to float only after
// its last pass, as the HTP's converter hands the passes quantized weights.
// (Folded in the first pass, the island would stay in Float32.)
TEST(QuantizationRulesTest, GreedyAlsoQuantizesTheConvIsland) {
  const Graph in = QdqConvRelu("Conv2d");
  DiagnosticList diags;
  StrategyOptions options;
  options.verify = {.rtol = 0, .atol = 0.05 + 1e-6};
  absl::StatusOr<StrategyResult> r =
      RunStrategy(Strategy::kGreedy, in, testing::ShippedLibrary(), options, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->verified) << r->verify_message;
  const Node* c = FindOp(r->graph, "Conv2d");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->outputs[0].dtype, DType::kQUInt8);
  EXPECT_EQ(r->graph.TypeOf(c->inputs[1]).dtype, DType::kQInt8);
  EXPECT_EQ(CountOp(r->graph, "Dequantize"), 1);

  // A convolution whose output is not quantized stays in Float32, and after
  // the last pass its weights' and bias's Dequantize are folded to float
  // constants: only the input's is left.
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 6, 4});
  ValueRef xq = b.Op("Quantize", {x}, {QU8(128, 0.02f)});
  b.Output(b.Op("Conv2d", {Dq(b, xq), Dq(b, PerChannelWeights(b, 4, 8)), Dq(b, Bias(b, 8, 0.02f)),
                           b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})}));
  r = RunStrategy(Strategy::kGreedy, b.graph(), testing::ShippedLibrary(), options, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->verified) << r->verify_message;
  EXPECT_EQ(CountOp(r->graph, "Dequantize"), 1);
}

// `op` is left in `out` once, reading a QUInt8 operand and writing `type`,
// and only the graph output's Dequantize is left.
void ExpectQuantizedOp(const Graph& out, const std::string& op, const TensorType& type) {
  const Node* n = FindOp(out, op);
  ASSERT_NE(n, nullptr) << op;
  EXPECT_EQ(out.TypeOf(n->inputs[0]).dtype, DType::kQUInt8);
  EXPECT_EQ(n->outputs[0], type);
  EXPECT_EQ(CountOp(out, "Dequantize"), 1);
}

// Optimized with the library, `op` is left in Float32 (the rules did not
// quantize it).
void ExpectFloatOp(const Graph& in, const std::string& op) {
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(in, testing::ShippedLibrary(), {}, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  const Node* n = FindOp(r->graph, op);
  ASSERT_NE(n, nullptr) << op;
  EXPECT_EQ(n->outputs[0].dtype, DType::kFloat32);
}

TEST(QuantizationRulesTest, AddIslandBecomesQuantizedAdd) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  ValueRef z = b.InputF32({1, 4, 4, 8});
  ValueRef xq = b.Op("Quantize", {x}, {QU8(120, 0.03f)});
  ValueRef zq = b.Op("Quantize", {z}, {QU8(130, 0.025f)});
  ValueRef s = b.Op("ElementWiseAdd", {Dq(b, xq), Dq(b, zq)});
  b.Output(Dq(b, b.Op("Quantize", {s}, {QU8(128, 0.05f)})));
  OptimizeResult r = OptimizeAndVerify(b.graph(), 0.05 + 1e-6);
  ExpectQuantizedOp(r.graph, "ElementWiseAdd", QU8(128, 0.05f, {1, 4, 4, 8}));
}

// LeakyRelu, which the importer writes max(x, alpha * x), between a
// Dequantize and a Quantize: the maximum and the product in the Quantize's
// encoding, so every element rounds once, as the float form rounds it. The
// result matches the QDQ graph exactly (atol 0), not just within a step.
TEST(QuantizationRulesTest, LeakyReluIslandIsQuantizedAndRoundsOnce) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  ValueRef xq = b.Op("Quantize", {x}, {QU8(120, 0.03f)});
  ValueRef d = Dq(b, xq);
  ValueRef m =
      b.Op("ElementWiseMaximum", {d, b.Op("ElementWiseMultiply", {d, b.F32({1, 1, 1, 1}, {0.2})})});
  b.Output(Dq(b, b.Op("Quantize", {m}, {QU8(40, 0.02f)})));
  OptimizeResult r = OptimizeAndVerify(b.graph(), 0);
  const Node* max = FindOp(r.graph, "ElementWiseMaximum");
  const Node* mul = FindOp(r.graph, "ElementWiseMultiply");
  ASSERT_NE(max, nullptr);
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(max->outputs[0], QU8(40, 0.02f, {1, 4, 4, 8}));
  EXPECT_EQ(mul->outputs[0], QU8(40, 0.02f, {1, 4, 4, 8}));
  EXPECT_EQ(r.graph.TypeOf(mul->inputs[0]).dtype, DType::kQUInt8);
  EXPECT_EQ(CountOp(r.graph, "Dequantize"), 1);
}

// A Concat of five quantized tensors (a dense block's) becomes one quantized
// Concat in the Quantize's encoding.
TEST(QuantizationRulesTest, FiveWayConcatIslandIsQuantized) {
  GraphBuilder b;
  std::vector<ValueRef> parts = {b.Shape({3})};
  for (int i = 0; i < 5; ++i) {
    ValueRef x = b.InputF32({1, 4, 4, 2});
    parts.push_back(Dq(b, b.Op("Quantize", {x}, {QU8(100 + 5 * i, 0.02f + 0.005f * i)})));
  }
  ValueRef c = b.Op("Concat", parts);
  b.Output(Dq(b, b.Op("Quantize", {c}, {QU8(128, 0.03f)})));
  OptimizeResult r = OptimizeAndVerify(b.graph(), 0.03 + 1e-6);
  const Node* concat = FindOp(r.graph, "Concat");
  ASSERT_NE(concat, nullptr);
  EXPECT_EQ(concat->outputs[0], QU8(128, 0.03f, {1, 4, 4, 10}));
  EXPECT_EQ(CountOp(r.graph, "Dequantize"), 1);
}

// The importer's Resize (an ONNX Resize or Upsample: Real-ESRGAN's and
// FFNet's upsampling) between a Dequantize and a Quantize runs quantized in
// nearest mode, with and without its optional operands; in bilinear mode the
// island stays in float (quantization.rules says why).
TEST(QuantizationRulesTest, NearestResizeIslandIsQuantizedBilinearIsNot) {
  for (int mode : {0, 1}) {
    for (int extra : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << "mode " << mode << ", optional operands " << extra);
      GraphBuilder b;
      ValueRef x = b.InputF32({1, 4, 4, 8});
      ValueRef xq = b.Op("Quantize", {x}, {QU8(120, 0.03f)});
      std::vector<ValueRef> ins = {Dq(b, xq), b.Shape({1, 8, 8, 8}), b.Ints({1.0 * mode})};
      if (extra >= 1) ins.push_back(b.Ints({2}));  // asymmetric
      if (extra >= 2) ins.push_back(b.Ints({0}));
      ValueRef y = b.Op("Resize", ins);
      b.Output(Dq(b, b.Op("Quantize", {y}, {QU8(128, 0.03f)})));
      if (mode == 0) {
        OptimizeResult r = OptimizeAndVerify(b.graph(), 0.03 + 1e-6);
        ExpectQuantizedOp(r.graph, "Resize", QU8(128, 0.03f, {1, 8, 8, 8}));
        continue;
      }
      ExpectFloatOp(b.graph(), "Resize");
    }
  }
}

// A float scalar constant (x * 1/6 in a HardSwish the quantizer left in
// float) is quantized exactly: QInt8 with stepsize |c| storing +-1.
TEST(QuantizationRulesTest, ScalarConstantIsQuantizedExactly) {
  for (double c : {1.0 / 6, -2.5}) {
    SCOPED_TRACE(c);
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 4, 4, 8});
    ValueRef xq = b.Op("Quantize", {x}, {QU8(120, 0.03f)});
    ValueRef m = b.Op("ElementWiseMultiply", {Dq(b, xq), b.F32({1, 1, 1, 1}, {c})});
    b.Output(Dq(b, b.Op("Quantize", {m}, {QU8(128, 0.02f)})));
    OptimizeResult r = OptimizeAndVerify(b.graph(), 0.02 + 1e-6);
    const Node* mul = FindOp(r.graph, "ElementWiseMultiply");
    ASSERT_NE(mul, nullptr);
    const TensorType& k = r.graph.TypeOf(mul->inputs[1]);
    EXPECT_EQ(k.dtype, DType::kQInt8);
    EXPECT_FLOAT_EQ(k.stepsize, static_cast<float>(std::abs(c)));
    EXPECT_EQ(mul->outputs[0].dtype, DType::kQUInt8);
  }
}

// A float op with no quantized operand is left alone: the rules need a
// Dequantize on every data input.
TEST(QuantizationRulesTest, FloatOperandKeepsTheIslandFloat) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  ValueRef z = b.InputF32({1, 4, 4, 8});
  ValueRef xq = b.Op("Quantize", {x}, {QU8(120, 0.03f)});
  ValueRef s = b.Op("ElementWiseAdd", {Dq(b, xq), z});
  b.Output(Dq(b, b.Op("Quantize", {s}, {QU8(128, 0.05f)})));
  ExpectFloatOp(b.graph(), "ElementWiseAdd");
}

// Quantize(Dequantize(x)) into another encoding is one requantizing
// Quantize; into x's own encoding it is x.
TEST(QuantizationRulesTest, RequantizationFolds) {
  GraphBuilder b;
  ValueRef x = b.Input(QU8(100, 0.02f, {1, 4, 4, 8}));
  ValueRef same = b.Op("Quantize", {Dq(b, x)}, {QU8(100, 0.02f)});
  ValueRef other = b.Op("Quantize", {Dq(b, x)}, {QU8(90, 0.04f)});
  b.Output(same);
  b.Output(other);
  OptimizeResult r = OptimizeAndVerify(b.graph(), 0.04 + 1e-6);
  EXPECT_EQ(CountOp(r.graph, "Dequantize"), 0);
  EXPECT_EQ(CountOp(r.graph, "Quantize"), 1);
}

}  // namespace
}  // namespace egret
