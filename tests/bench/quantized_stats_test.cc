// The quantized table's counts (bench/quantized_stats.h) on small QDQ graphs
// built by hand: which ops count as computing in float, which Quantize nodes
// close a "Dequantize -> op -> Quantize" island, and each output's step.
#include "bench/quantized_stats.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;

TensorType QU8(int32_t zero, float step) {
  TensorType t;
  t.dtype = DType::kQUInt8;
  t.zero_offset = zero;
  t.stepsize = step;
  return t;
}

// x -> Q -> DQ -> Transpose -> Relu -> Q(a) -> DQ -> Reshape -> Sigmoid -> Add(+DQ(a)) ->
// Q(0.05) -> DQ -> output 0; the Sigmoid's float result is also output 1.
Graph Network() {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 2});
  ValueRef xq = b.Op("Quantize", {x}, {QU8(128, 0.02f)});
  ValueRef t = b.Op("Transpose", {b.Op("Dequantize", {xq}), b.Shape({0, 2, 3, 1})});
  ValueRef relu = b.Op("Relu", {t});
  ValueRef a = b.Op("Quantize", {relu}, {QU8(0, 0.01f)});  // island: Relu, through the Transpose
  ValueRef da = b.Op("Dequantize", {a});
  ValueRef r = b.Op("Reshape", {da, b.Shape({1, 32})});
  ValueRef rq = b.Op("Quantize", {r}, {QU8(0, 0.01f)});  // island: Reshape
  ValueRef s = b.Op("Sigmoid", {b.Op("Dequantize", {rq})});
  ValueRef sum = b.Op("ElementWiseAdd", {s, b.Op("Reshape", {da, b.Shape({1, 32})})});
  ValueRef q = b.Op("Quantize", {sum}, {QU8(0, 0.05f)});  // not an island: s is float
  b.Output(b.Op("Dequantize", {q}));
  b.Output(s);
  return std::move(b.graph());
}

TEST(QuantizedStatsTest, CountsFloatOpsIslandsAndConversions) {
  Graph g = Network();
  EXPECT_TRUE(IsQuantizedNetwork(g));
  QuantizedStats s = CountQuantizedStats(g);
  EXPECT_EQ(s.quantize, 4);
  EXPECT_EQ(s.dequantize, 4);
  // Relu, Sigmoid and the Add compute in float; Transpose and Reshapes move
  // data.
  EXPECT_EQ(s.float_ops,
            (std::map<std::string, int64_t>{{"ElementWiseAdd", 1}, {"Relu", 1}, {"Sigmoid", 1}}));
  EXPECT_EQ(s.num_float_ops(), 3);
  // The Relu reads its Dequantize through a Transpose; the Reshape's $Shape
  // operand is a parameter; the Add reads a float op.
  EXPECT_EQ(s.islands, (std::map<std::string, int64_t>{{"Relu", 1}, {"Reshape", 1}}));
  EXPECT_EQ(s.num_islands(), 2);
  EXPECT_EQ(TopKinds(s.float_ops, 2), "ElementWiseAdd x1, Relu x1 (+1 more)");
  EXPECT_EQ(TopKinds({}, 3), "none");
}

TEST(QuantizedStatsTest, OutputStepIsTheStepOfTheTensorTheLastDequantizeReads) {
  Graph g = Network();
  std::vector<double> steps = OutputSteps(g);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_FLOAT_EQ(steps[0], 0.05);
  EXPECT_EQ(steps[1], 0);  // a float output
}

TEST(QuantizedStatsTest, FloatNetworkIsNotQuantized) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 8});
  b.Output(b.Op("Sigmoid", {b.Op("Relu", {x})}));
  EXPECT_FALSE(IsQuantizedNetwork(b.graph()));
  QuantizedStats s = CountQuantizedStats(b.graph());
  EXPECT_EQ(s.num_float_ops(), 2);
  EXPECT_EQ(s.num_islands(), 0);
  EXPECT_EQ(TopKinds(s.float_ops, 4), "Relu x1, Sigmoid x1");
}

TEST(QuantizedStatsTest, DequantizedWeightsMakeANetworkQuantized) {
  // A dynamically quantized network: the activations' DynamicQuantizeLinear
  // is opaque, the weights are Dequantized constants.
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 8});
  TensorType wt = QU8(128, 0.5f);
  wt.dims = {1, 8};
  ValueRef w = b.Op("Dequantize", {b.Const(wt, {1, 2, 3, 4, 5, 6, 7, 8})});
  b.Output(b.Op("ElementWiseMultiply", {x, w}));
  EXPECT_TRUE(IsQuantizedNetwork(b.graph()));
}

}  // namespace
}  // namespace egret
