// AUTOSPLIT lowering end to end (issue #7): a graph whose cheapest form under
// the VTCM capacity model is the AUTOSPLIT one is optimized with the shipped
// library; the lowered graph has the Slice_shape pieces and the Concat with
// the right shapes, every op has a registered implementation and its
// annotations, the memory plan validates and the reference executor computes
// the same outputs as the input graph.
#include <string>
#include <variant>
#include <vector>

#include "../lib/shipped_library.h"
#include "egret/backend/memory_plan.h"
#include "egret/cost/vtcm.h"
#include "egret/pipeline/optimize.h"
#include "gtest/gtest.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;

std::vector<double> Ramp(int64_t n, double from, double step) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = from + step * static_cast<double>(i % 89);
  return v;
}

// depthwise3x3([1,32,32,64]) with 256 KiB of VTCM: the depthwise conv's
// working set (input and output 256 KiB each) is twice the capacity.
Graph DepthwiseGraph() {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 32, 32, 64});
  ValueRef f = b.F32({3, 3, 1, 64}, Ramp(3 * 3 * 64, -0.5, 0.01));
  ValueRef bias = b.F32({64}, Ramp(64, -0.2, 0.01));
  ValueRef dw = b.Op("DepthWiseConv2d", {x, f, bias, b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})});
  b.Output(dw);
  b.graph().mutable_options()[std::string(cost::kVtcmBytesOption)] = int64_t{256} << 10;
  return b.graph();
}

std::vector<int64_t> ShapeValue(const Graph& g, ValueRef v) {
  const Node& n = g.node(v.node);
  EXPECT_EQ(n.op, kShapeOp);
  return std::vector<int64_t>(n.outputs[0].dims.begin(), n.outputs[0].dims.end());
}

TEST(AutosplitLoweringTest, SplitGraphIsLoweredAnnotatedPlannedAndVerified) {
  const Graph input = DepthwiseGraph();
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(input, testing::ShippedLibrary(), {}, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  const Graph& g = r->graph;
  ASSERT_TRUE(g.Validate().ok());
  EXPECT_LT(r->output_cost, r->input_cost);

  // Three pieces of 22, 22 and 20 channels: Slice_shape of the input with
  // start [0,0,0,c] and size [1,32,32,n], a DepthWiseConv2d each, one Concat
  // on axis 3 back to [1,32,32,64].
  std::vector<std::vector<int64_t>> starts, sizes;
  int concats = 0, convs = 0;
  for (const Node& n : g.nodes()) {
    if (n.op == "Slice_shape") {
      ASSERT_EQ(n.inputs.size(), 3u);
      EXPECT_EQ(g.TypeOf(n.inputs[0]).dims, (Dims{1, 32, 32, 64}));
      starts.push_back(ShapeValue(g, n.inputs[1]));
      sizes.push_back(ShapeValue(g, n.inputs[2]));
      EXPECT_EQ(n.outputs[0].dims, Dims(sizes.back().begin(), sizes.back().end()));
    } else if (n.op == "Concat") {
      ++concats;
      EXPECT_EQ(n.outputs[0].dims, (Dims{1, 32, 32, 64}));
      EXPECT_EQ(ShapeValue(g, n.inputs[0]), (std::vector<int64_t>{3}));
      ASSERT_EQ(n.inputs.size(), 4u);
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        EXPECT_EQ(g.node(n.inputs[i].node).op, "DepthWiseConv2d");
      }
    } else if (n.op == "DepthWiseConv2d") {
      ++convs;
    }
  }
  EXPECT_EQ(concats, 1);
  EXPECT_EQ(convs, 3);
  EXPECT_EQ(starts,
            (std::vector<std::vector<int64_t>>{{0, 0, 0, 0}, {0, 0, 0, 22}, {0, 0, 0, 44}}));
  EXPECT_EQ(sizes,
            (std::vector<std::vector<int64_t>>{{1, 32, 32, 22}, {1, 32, 32, 22}, {1, 32, 32, 20}}));

  // Every computing op is registered and annotated; the annotations add up to
  // the output cost (one pricing function for both).
  double annotated = 0;
  for (const Node& n : g.nodes()) {
    if (n.op == kInputOp || n.op == kConstOp || n.op == kShapeOp) continue;
    EXPECT_TRUE(testing::ShippedLibrary().ops.Contains(n.op)) << n.op;
    ASSERT_TRUE(n.attrs.contains(kImplAttr)) << n.op;
    ASSERT_TRUE(n.attrs.contains(kCostAttr)) << n.op;
    EXPECT_FALSE(std::get<std::string>(n.attrs.find(kImplAttr)->second).empty());
    annotated += std::get<double>(n.attrs.find(kCostAttr)->second);
  }
  EXPECT_NEAR(annotated, r->output_cost, 1e-9 * r->output_cost);

  // The memory plan of the lowered graph is valid and holds every piece.
  EXPECT_TRUE(ValidateMemoryPlan(g, r->memory).ok());
  EXPECT_GE(r->memory.peak_bytes, int64_t{256} << 10);

  testing::ExpectSameOutputs(input, g, 5, {.rtol = 1e-5, .atol = 1e-5});
}

}  // namespace
}  // namespace egret
