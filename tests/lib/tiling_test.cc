// rules/lib/tiling.rules: ops whose working set exceeds the VTCM capacity
// (option "tcm_size_for_tiling", set small here) are split by AUTOSPLIT, the
// extractor takes the split because the HVX cost model charges the spill, and
// the split graph computes the same outputs; ops that fit are left alone.
#include <string>
#include <vector>

#include "egret/pipeline/optimize.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "shipped_library.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;

using testing::CountOp;

std::vector<double> Ramp(int64_t n, double from, double step) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = from + step * static_cast<double>(i % 97);
  return v;
}

// Optimizes `g` with the shipped library and checks the result on the
// reference executor.
OptimizeResult OptimizeAndVerify(const Graph& g) {
  return testing::OptimizeWithLibrary(g, 11, {.rtol = 1e-4, .atol = 1e-4});
}

// The output dims of the pieces a Concat joins, in order.
std::vector<Dims> ConcatPieces(const Graph& g) {
  std::vector<Dims> out;
  for (const Node& n : g.nodes()) {
    if (n.op != "Concat") continue;
    for (size_t i = 1; i < n.inputs.size(); ++i) out.push_back(g.TypeOf(n.inputs[i]).dims);
  }
  return out;
}

// A 3x3 `op` (Conv2d or DepthWiseConv2d) of `in` with `filter` (Float32),
// stride 1, one pixel of padding; capacity 0 leaves the option unset.
Graph OneConv(const std::string& op, Dims in, Dims filter, int64_t capacity) {
  GraphBuilder b;
  ValueRef x = b.InputF32(in);
  const int64_t cout = filter[3];
  ValueRef f = b.F32(filter, Ramp(filter[0] * filter[1] * filter[2] * cout, -0.3, 0.006));
  ValueRef bias = b.F32({cout}, Ramp(cout, -0.2, 0.01));
  b.Output(b.Op(op, {x, f, bias, b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})}));
  if (capacity > 0) b.graph().mutable_options()["tcm_size_for_tiling"] = capacity;
  return b.graph();
}

// Conv2d of [1,16,16,32] to 64 channels: input 32 KiB, filter 72 KiB,
// output 64 KiB.
Graph BigConv(int64_t capacity) {
  return OneConv("Conv2d", {1, 16, 16, 32}, {3, 3, 32, 64}, capacity);
}

TEST(TilingTest, ConvOverCapacitySplitsAlongChannels) {
  // 64 KiB: the input (32 KiB) fits, input + filter + output does not; five
  // pieces of 13/13/13/13/12 channels make each piece fit.
  OptimizeResult r = OptimizeAndVerify(BigConv(64 << 10));
  EXPECT_EQ(CountOp(r.graph, "Concat"), 1);
  EXPECT_EQ(CountOp(r.graph, "Conv2d"), 5);
  std::vector<Dims> pieces = ConcatPieces(r.graph);
  ASSERT_EQ(pieces.size(), 5u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(pieces[i], (Dims{1, 16, 16, 13}));
  EXPECT_EQ(pieces[4], (Dims{1, 16, 16, 12}));
  EXPECT_LT(r.output_cost, r.input_cost);  // the spill saved outweighs the Concat
}

// A graph for other runtimes (`optimize -o OUT.onnx`, OptimizeOptions::
// device_lowering false) leaves the tiling passes out: the same conv is not
// split, and the result counts every rule of tiling.rules as left out.
TEST(TilingTest, WithoutDeviceLoweringNothingIsSplit) {
  DiagnosticList diags;
  OptimizeOptions options;
  options.device_lowering = false;
  absl::StatusOr<OptimizeResult> r =
      Optimize(BigConv(64 << 10), testing::ShippedLibrary(), options, &diags);
  ASSERT_TRUE(r.ok()) << r.status() << diags.ToString();
  EXPECT_EQ(CountOp(r->graph, "Concat"), 0);
  EXPECT_EQ(CountOp(r->graph, "Conv2d"), 1);
  size_t tiling_rules = 0;
  for (const rules::Rule& rule : testing::ShippedLibrary().rules) {
    tiling_rules += rule.loc().file.ends_with("tiling.rules");
  }
  EXPECT_GT(tiling_rules, 0u);
  EXPECT_EQ(r->rules_left_out.device_lowering, tiling_rules);
  EXPECT_EQ(r->rules_left_out.count, 0u);
  EXPECT_THAT(r->rules_left_out.ToString(), ::testing::HasSubstr("device-lowering rules left out"));
  EXPECT_EQ(ToJson(*r)["rules_left_out"]["device_lowering"], tiling_rules);
}

TEST(TilingTest, ConvThatFitsIsNotSplit) {
  for (int64_t capacity : {int64_t{0}, int64_t{256} << 10}) {  // 0: the 8 MiB default
    OptimizeResult r = OptimizeAndVerify(BigConv(capacity));
    EXPECT_EQ(CountOp(r.graph, "Concat"), 0) << capacity;
    EXPECT_EQ(CountOp(r.graph, "Conv2d"), 1) << capacity;
  }
}

TEST(TilingTest, ConvWhoseInputAloneExceedsCapacityIsNotChannelSplit) {
  // 16 KiB < the 32 KiB input: a channel split cannot make a piece fit.
  OptimizeResult r = OptimizeAndVerify(BigConv(16 << 10));
  EXPECT_EQ(CountOp(r.graph, "Concat"), 0);
  EXPECT_EQ(CountOp(r.graph, "Conv2d"), 1);
}

TEST(TilingTest, GroupedConvIsNotSplit) {
  // Two groups: output channel o reads input channels of its group only.
  OptimizeResult r =
      OptimizeAndVerify(OneConv("Conv2d", {1, 16, 16, 32}, {3, 3, 16, 64}, 48 << 10));
  EXPECT_EQ(CountOp(r.graph, "Concat"), 0);
}

// DepthWiseConv2d of [1,32,32,64] (256 KiB in and out).
Graph BigDepthwise(int64_t capacity) {
  return OneConv("DepthWiseConv2d", {1, 32, 32, 64}, {3, 3, 1, 64}, capacity);
}

TEST(TilingTest, DepthwiseOverCapacitySplitsInputAndOutputChannels) {
  OptimizeResult r = OptimizeAndVerify(BigDepthwise(256 << 10));
  EXPECT_EQ(CountOp(r.graph, "Concat"), 1);
  EXPECT_EQ(CountOp(r.graph, "DepthWiseConv2d"), 3);
  EXPECT_EQ(CountOp(r.graph, "Slice_shape"), 3);  // of the input: a runtime tensor
  EXPECT_EQ(ConcatPieces(r.graph),
            (std::vector<Dims>{{1, 32, 32, 22}, {1, 32, 32, 22}, {1, 32, 32, 20}}));
  EXPECT_LT(r.output_cost, r.input_cost);
}

TEST(TilingTest, DepthwiseThatFitsIsNotSplit) {
  OptimizeResult r = OptimizeAndVerify(BigDepthwise(0));
  EXPECT_EQ(CountOp(r.graph, "Concat"), 0);
}

TEST(TilingTest, FullyConnectedOverCapacitySplitsAlongUnits) {
  // [4,1024] x [512,1024]^T: 2 MiB of weights against 1 MiB of VTCM.
  GraphBuilder b;
  ValueRef x = b.InputF32({4, 1024});
  ValueRef w = b.F32({512, 1024}, Ramp(512 * 1024, -0.05, 0.001));
  ValueRef bias = b.F32({512}, Ramp(512, -0.2, 0.01));
  b.Output(b.Op("FullyConnected", {x, w, bias}));
  b.graph().mutable_options()["tcm_size_for_tiling"] = int64_t{1} << 20;
  OptimizeResult r = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(r.graph, "Concat"), 1);
  // Three pieces by the working set, in chunks of 160 units (a multiple of 32).
  EXPECT_EQ(ConcatPieces(r.graph), (std::vector<Dims>{{4, 160}, {4, 160}, {4, 160}, {4, 32}}));
  EXPECT_LT(r.output_cost, r.input_cost);
}

TEST(TilingTest, ElementwiseOverCapacitySplitsAlongHeight) {
  auto build = [](int64_t capacity) {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 64, 64, 32});
    ValueRef y = b.InputF32({1, 64, 64, 32});
    b.Output(b.Op("ElementWiseAdd", {x, y}));
    b.graph().mutable_options()["tcm_size_for_tiling"] = capacity;
    return b.graph();
  };
  // 1.5 MiB of operands against 1 MiB: two halves of 32 rows.
  OptimizeResult r = OptimizeAndVerify(build(int64_t{1} << 20));
  EXPECT_EQ(CountOp(r.graph, "ElementWiseAdd"), 2);
  EXPECT_EQ(CountOp(r.graph, "Slice_shape"), 4);
  EXPECT_EQ(ConcatPieces(r.graph), (std::vector<Dims>{{1, 32, 64, 32}, {1, 32, 64, 32}}));
  EXPECT_LT(r.output_cost, r.input_cost);
  OptimizeResult fits = OptimizeAndVerify(build(int64_t{2} << 20));
  EXPECT_EQ(CountOp(fits.graph, "ElementWiseAdd"), 1);
  EXPECT_EQ(CountOp(fits.graph, "Concat"), 0);
}

}  // namespace
}  // namespace egret
