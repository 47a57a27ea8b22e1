// Quantized graph I/O in the latency model: the Quantize of a graph input and
// the Dequantize of a graph output take no time, the data movement between
// an output and its last Dequantize moves 8-bit bytes, and nothing else
// changes; without the option (or in a float graph) every node is priced.
#include "egret/cost/quantized_io.h"

#include <memory>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/cost/latency_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/graph/graph_builder.h"

namespace egret::cost {
namespace {

using ::egret::testing::GraphBuilder;

const TensorType kQ(DType::kQUInt8, {1, 8, 8, 16}, 128, 0.05f);
const TensorType kF(DType::kFloat32, {1, 8, 8, 16});

CostTable Table() {
  CostTable t;
  for (const char* op : {"Quantize", "Dequantize", "Relu", "Transpose", "Reshape"}) {
    t.ops[op] = {{op, 4, /*hvx=*/true}};
  }
  return t;
}

// in -> Quantize -> Relu -> Dequantize -> Reshape -> Transpose -> out, and a
// second output Relu -> Dequantize that is also read by another node.
struct Net {
  GraphBuilder b;
  ValueRef quantize, relu, dequantize, reshape, transpose, shared_dq, reader;
  Net() {
    const ValueRef x = b.InputF32({1, 8, 8, 16});
    quantize = b.Op("Quantize", {x}, {kQ});
    relu = b.Op("Relu", {quantize});
    dequantize = b.Op("Dequantize", {relu}, {kF});
    reshape = b.Op("Reshape", {dequantize, b.Shape({1, 8, 8, 4, 4})});
    transpose = b.Op("Transpose", {reshape, b.Shape({0, 1, 3, 2, 4})});
    b.Output(transpose);
    shared_dq = b.Op("Dequantize", {b.Op("Relu", {relu})}, {kF});
    reader = b.Op("Relu", {shared_dq});
    b.Output(shared_dq);
    b.Output(reader);
  }
};

TEST(QuantizedIoTest, BoundaryConversionsAreOffTheGraphAndOutputDataMovementIsEightBit) {
  Net n;
  const std::vector<IoPricing> io = QuantizedIoPricing(n.b.graph());
  EXPECT_EQ(io[n.quantize.node], IoPricing::kOffGraph);
  EXPECT_EQ(io[n.dequantize.node], IoPricing::kOffGraph);
  EXPECT_EQ(io[n.reshape.node], IoPricing::kEightBit);
  EXPECT_EQ(io[n.transpose.node], IoPricing::kEightBit);
  EXPECT_EQ(io[n.relu.node], IoPricing::kAsIs);
  // A graph output that another node also reads is computed on the HTP.
  EXPECT_EQ(io[n.shared_dq.node], IoPricing::kAsIs);
  EXPECT_EQ(io[n.reader.node], IoPricing::kAsIs);
}

TEST(QuantizedIoTest, AFloatGraphIsPricedAsItIs) {
  GraphBuilder b;
  const ValueRef x = b.InputF32({1, 8, 8, 16});
  b.Output(b.Op("Transpose", {b.Op("Relu", {x}), b.Shape({0, 3, 1, 2})}));
  for (IoPricing p : QuantizedIoPricing(b.graph())) EXPECT_EQ(p, IoPricing::kAsIs);
}

TEST(QuantizedIoTest, GraphWorkOfPricesTheBoundaryOnlyWithTheOption) {
  Net n;
  const HvxCostModel model(Table());
  const DeviceParams d = PublicPrior("test", "Test");
  const GraphWork on_htp = GraphWorkOf(n.b.graph(), model, d.vtcm_bytes);
  const GraphWork quantized = GraphWorkOf(n.b.graph(), model, d.vtcm_bytes, true);
  ASSERT_EQ(on_htp.work.size(), quantized.work.size());
  ASSERT_EQ(on_htp.ops, quantized.ops);
  double saved_ns = 0, rule_on_htp = 0, rule_quantized = 0;
  for (size_t i = 0; i < on_htp.work.size(); ++i) {
    const NodeWork &a = on_htp.work[i], &q = quantized.work[i];
    rule_on_htp += a.rule_cost;
    rule_quantized += q.rule_cost;
    EXPECT_TRUE(a.dispatched) << on_htp.ops[i];
    if (on_htp.ops[i] == "Quantize") {
      EXPECT_FALSE(q.dispatched);
      EXPECT_EQ(NodeTimeNs(d, q), 0);
    }
    if (on_htp.ops[i] == "Reshape" || on_htp.ops[i] == "Transpose") {
      EXPECT_TRUE(q.dispatched);
      EXPECT_DOUBLE_EQ(q.vector_cycles, a.vector_cycles / 2) << on_htp.ops[i];
    }
    if (on_htp.ops[i] == "Relu") {
      EXPECT_DOUBLE_EQ(q.vector_cycles, a.vector_cycles);
    }
    saved_ns += NodeTimeNs(d, a) - NodeTimeNs(d, q);
  }
  // The rule-cost model's price is the graph's, whatever its I/O.
  EXPECT_EQ(rule_on_htp, rule_quantized);
  EXPECT_GT(saved_ns, 0);
  EXPECT_NEAR(PredictMs(d, on_htp.work) - PredictMs(d, quantized.work), saved_ns / 1e6, 1e-12);
}

}  // namespace
}  // namespace egret::cost
