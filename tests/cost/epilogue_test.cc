// Epilogues in the latency model: an elementwise node computed from one
// matrix op's output alone (and constants) is applied in that op's output
// pass and takes no time of its own; one that also reads another tensor, or
// two matrix ops' outputs, is a node of its own.
#include <memory>
#include <string>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/cost/latency_model.h"
#include "gtest/gtest.h"
#include "tests/graph/graph_builder.h"

namespace egret::cost {
namespace {

using ::egret::testing::GraphBuilder;

// A 1x1 convolution of `x` ([1,8,8,16] Float32) to 16 channels.
ValueRef Conv(GraphBuilder& b, ValueRef x) {
  return b.Op("Conv2d", {x, b.F32({1, 1, 16, 16}, std::vector<double>(256, 0.5)),
                         b.F32({16}, std::vector<double>(16, 0)), b.Shape({1, 1, 1, 1}),
                         b.Shape({0, 0, 0, 0})});
}

bool IsEpilogue(const Graph& g, ValueRef v) { return GraphNodeProfile(g, g.node(v.node)).epilogue; }

TEST(EpilogueTest, ActivationsOfOneMatrixOutputAreEpiloguesAndOthersAreNot) {
  GraphBuilder b;
  const ValueRef x = b.InputF32({1, 8, 8, 16});
  const ValueRef conv = Conv(b, x);
  // LeakyRelu as the importer writes it: max(conv, 0.1 * conv).
  const ValueRef scaled = b.Op("ElementWiseMultiply", {conv, b.Scalar(0.1)});
  const ValueRef leaky = b.Op("ElementWiseMaximum", {conv, scaled});
  // Swish written out: conv * Sigmoid(conv).
  const ValueRef sigmoid = b.Op("Sigmoid", {conv});
  const ValueRef swish = b.Op("ElementWiseMultiply", {conv, sigmoid});
  // A residual: the convolution's output and another tensor.
  const ValueRef residual = b.Op("ElementWiseAdd", {conv, x});
  const ValueRef relu_of_residual = b.Op("Relu", {residual});
  // Two convolutions' outputs.
  const ValueRef sum_of_two = b.Op("ElementWiseAdd", {conv, Conv(b, x)});
  // An elementwise op of the graph input: no matrix op.
  const ValueRef relu_of_input = b.Op("Relu", {x});
  // Not elementwise, though it reads the convolution alone.
  const ValueRef pooled = b.Op("Transpose", {conv, b.Shape({0, 3, 1, 2})});
  const Graph& g = b.graph();

  EXPECT_TRUE(IsEpilogue(g, scaled));
  EXPECT_TRUE(IsEpilogue(g, leaky));
  EXPECT_TRUE(IsEpilogue(g, sigmoid));
  EXPECT_TRUE(IsEpilogue(g, swish));
  EXPECT_FALSE(IsEpilogue(g, residual));
  EXPECT_FALSE(IsEpilogue(g, relu_of_residual));
  EXPECT_FALSE(IsEpilogue(g, sum_of_two));
  EXPECT_FALSE(IsEpilogue(g, relu_of_input));
  EXPECT_FALSE(IsEpilogue(g, pooled));
  EXPECT_FALSE(IsEpilogue(g, conv));
}

// A value computed from constants alone (a Reshape of a weight, which the
// HTP computes while preparing the graph) is a constant: an elementwise op of
// a matrix op's output and such a value is an epilogue, and a node that reads
// only such values is computed while preparing, like one reading "$Const"s.
TEST(EpilogueTest, ValuesComputedFromConstantsAloneAreConstants) {
  GraphBuilder b;
  const ValueRef x = b.InputF32({1, 8, 8, 16});
  const ValueRef conv = Conv(b, x);
  const ValueRef scale = b.Op("Reshape", {b.F32({1}, {0.7}), b.Shape({1, 1, 1, 1})});
  const ValueRef scaled = b.Op("ElementWiseMultiply", {conv, scale});
  const ValueRef erf = b.Op("Erf", {scaled});
  const ValueRef folded = b.Op("Relu", {scale});
  const ValueRef of_input = b.Op("ElementWiseMultiply", {x, scale});
  const Graph& g = b.graph();

  EXPECT_TRUE(IsEpilogue(g, scaled));
  EXPECT_TRUE(IsEpilogue(g, erf));  // one elementwise op of the output, and a constant
  EXPECT_FALSE(IsEpilogue(g, of_input));
  const NodeProfile p = GraphNodeProfile(g, g.node(folded.node));
  EXPECT_TRUE(p.constant_inputs);
  EXPECT_TRUE(p.input_activation_bytes.empty());
  EXPECT_EQ(p.const_bytes, 4);
  const NodeProfile q = GraphNodeProfile(g, g.node(of_input.node));
  EXPECT_FALSE(q.constant_inputs);
  EXPECT_EQ(q.input_activation_bytes.size(), 1u);
}

TEST(EpilogueTest, AnEpilogueTakesNoTimeAndKeepsItsRuleCost) {
  GraphBuilder b;
  const ValueRef x = b.InputF32({1, 8, 8, 16});
  const ValueRef conv = Conv(b, x);
  const ValueRef fused = b.Op("Relu", {conv});
  const ValueRef alone = b.Op("Relu", {x});
  const Graph& g = b.graph();

  CostTable t;
  t.ops["Relu"] = {{"relu", 2, /*hvx=*/true}};
  t.ops["Conv2d"] = {{"conv", 16, /*hvx=*/true}};
  HvxCostModel model(t);
  auto device = std::make_shared<DeviceParams>(PublicPrior("test", "Test"));
  const NodeWork fused_work =
      NodeWorkOf(model, "Relu", GraphNodeProfile(g, g.node(fused.node)), device->vtcm_bytes);
  const NodeWork alone_work =
      NodeWorkOf(model, "Relu", GraphNodeProfile(g, g.node(alone.node)), device->vtcm_bytes);
  EXPECT_FALSE(fused_work.dispatched);
  EXPECT_EQ(NodeTimeNs(*device, fused_work), 0);
  EXPECT_EQ(fused_work.rule_cost, alone_work.rule_cost);
  EXPECT_GT(fused_work.rule_cost, 0);
  EXPECT_TRUE(alone_work.dispatched);
  EXPECT_GT(NodeTimeNs(*device, alone_work), 0);

  // With a device the model prices it so; the rule-cost model does not change.
  const NodeProfile fused_profile = GraphNodeProfile(g, g.node(fused.node));
  const double rule = model.Cost("Relu", fused_profile).cost;
  model.set_device(device);
  EXPECT_LT(model.Cost("Relu", fused_profile).cost, 1e-6);
  EXPECT_GT(model.Cost("Relu", GraphNodeProfile(g, g.node(alone.node))).cost, 1);
  EXPECT_EQ(model.RuleCost("Relu", fused_profile).cost, rule);
}

}  // namespace
}  // namespace egret::cost
