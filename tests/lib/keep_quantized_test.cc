// pipeline/keep_quantized.h: a graph for a file keeps integer weights
// behind their Dequantize instead of the floats constant folding makes.
#include <vector>

#include "egret/pipeline/optimize.h"
#include "gtest/gtest.h"
#include "shipped_library.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::CountOp;
using testing::GraphBuilder;

// A float Conv2d whose [3,3,4,8] filter is a Dequantize of uint8 weights.
Graph ConvOfDequantizedWeights() {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 8, 8, 4});
  std::vector<double> q(3 * 3 * 4 * 8);
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<double>((i * 37) % 256);
  ValueRef w = b.Const(TensorType(DType::kQUInt8, {3, 3, 4, 8}, 128, 0.01f), q);
  ValueRef wf = b.Op("Dequantize", {w});
  ValueRef bias = b.F32({8}, std::vector<double>(8, 0.1));
  b.Output(b.Op("Conv2d", {x, wf, bias, b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})}));
  return b.graph();
}

OptimizeResult Optimized(const Graph& g, bool keep) {
  OptimizeOptions options;
  options.keep_quantized_weights = keep;
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(g, testing::ShippedLibrary(), options, &diags);
  EXPECT_TRUE(r.ok()) << r.status() << diags.ToString();
  return r.ok() ? *std::move(r) : OptimizeResult();
}

// The constant feeding the Conv2d's filter, through a Dequantize or not.
DType FilterStorage(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (n.op.rfind("Conv2d", 0) != 0) continue;
    const Node* p = &g.node(n.inputs[1].node);
    if (p->op.rfind("Dequantize", 0) == 0) p = &g.node(p->inputs[0].node);
    return p->op == kConstOp ? p->constant->type().dtype : DType::kUnknown;
  }
  return DType::kUnknown;
}

TEST(KeepQuantizedTest, ForAFileTheIntegerWeightsStay) {
  const Graph g = ConvOfDequantizedWeights();
  // For the HTP: folded to floats (the Dequantize would run every time).
  const OptimizeResult htp = Optimized(g, false);
  EXPECT_EQ(CountOp(htp.graph, "Dequantize"), 0);
  EXPECT_EQ(FilterStorage(htp.graph), DType::kFloat32);
  // For a file: the uint8 weights and their Dequantize, priced as they run.
  const OptimizeResult file = Optimized(g, true);
  EXPECT_EQ(CountOp(file.graph, "Dequantize"), 1);
  EXPECT_EQ(FilterStorage(file.graph), DType::kQUInt8);
  EXPECT_GT(file.output_cost, htp.output_cost);
}

}  // namespace
}  // namespace egret
