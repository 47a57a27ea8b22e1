// Weights as graph pricing sees them: a value computed from constants alone
// by known ops (a slice of a dequantized weight, which greedy tiling
// writes) is folded into a weight when the graph is prepared, so its reader
// pays its bytes from DDR like any weight's, and the node computing it is
// free; a Gather reads only the slices it takes of its table.
#include <vector>

#include "egret/cost/graph_cost.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/graph/tensor_type.h"
#include "gtest/gtest.h"
#include "tests/graph/graph_builder.h"

namespace egret::cost {
namespace {

using ::egret::testing::GraphBuilder;

TEST(FoldedWeightTest, ASliceOfADequantizedWeightIsAWeightOfItsReader) {
  GraphBuilder b;
  const ValueRef x = b.InputF32({1, 1, 1, 16});
  const TensorType q(DType::kQInt8, {1, 1, 16, 64}, 0, 0.5f);
  const ValueRef deq = b.Op("Dequantize", {b.Const(q, std::vector<double>(16 * 64, 1))});
  const ValueRef slice =
      b.Op("Slice_shape", {deq, b.Shape({0, 0, 0, 32}), b.Shape({1, 1, 16, 32})});
  const ValueRef conv = b.Op("Conv2d", {x, slice, b.F32({32}, std::vector<double>(32, 0)),
                                        b.Shape({1, 1, 1, 1}), b.Shape({0, 0, 0, 0})});
  // The same convolution with a weight computed from the graph's input.
  const ValueRef y = b.InputF32({1, 1, 16, 64});
  const ValueRef computed =
      b.Op("Slice_shape", {y, b.Shape({0, 0, 0, 32}), b.Shape({1, 1, 16, 32})});
  const ValueRef conv2 = b.Op("Conv2d", {x, computed, b.F32({32}, std::vector<double>(32, 0)),
                                         b.Shape({1, 1, 1, 1}), b.Shape({0, 0, 0, 0})});
  const Graph& g = b.graph();

  const NodeProfile folded = GraphNodeProfile(g, g.node(conv.node));
  // The slice's 16 x 32 Float32 elements and the bias's 32.
  EXPECT_EQ(folded.const_bytes, (16 * 32 + 32) * 4);
  ASSERT_EQ(folded.input_activation_bytes.size(), 1u);
  EXPECT_EQ(folded.input_activation_bytes[0], 16 * 4);
  EXPECT_TRUE(GraphNodeProfile(g, g.node(slice.node)).constant_inputs);

  const NodeProfile activation = GraphNodeProfile(g, g.node(conv2.node));
  EXPECT_EQ(activation.const_bytes, 32 * 4);
  EXPECT_EQ(activation.input_activation_bytes.size(), 2u);
  EXPECT_FALSE(GraphNodeProfile(g, g.node(computed.node)).constant_inputs);
}

TEST(FoldedWeightTest, AGatherReadsTheRowsItTakesNotItsWholeTable) {
  GraphBuilder b;
  const ValueRef table = b.F32({1000, 64}, std::vector<double>(1000 * 64, 0.25));
  const ValueRef ids = b.Input(TensorType(DType::kInt32, {1, 4}));
  const ValueRef rows = b.Op("Gather", {table, ids});
  const Graph& g = b.graph();
  const NodeProfile p = GraphNodeProfile(g, g.node(rows.node));
  EXPECT_EQ(p.output_bytes, 4 * 64 * 4);
  EXPECT_EQ(p.const_bytes, 4 * 64 * 4);
  EXPECT_EQ(p.input_bytes, 4 * 64 * 4 + 4 * 4);

  // A table smaller than the rows taken is read whole, once.
  GraphBuilder b2;
  const ValueRef small = b2.F32({2, 64}, std::vector<double>(2 * 64, 0.25));
  const ValueRef many = b2.Input(TensorType(DType::kInt32, {1, 8}));
  const ValueRef taken = b2.Op("Gather", {small, many});
  const NodeProfile p2 = GraphNodeProfile(b2.graph(), b2.graph().node(taken.node));
  EXPECT_EQ(p2.const_bytes, 2 * 64 * 4);
}

}  // namespace
}  // namespace egret::cost
