// TensorType's quantization encodings: per tensor and per axis (per channel),
// the conversions between stored and real values Tensor makes with them
// (ONNX's QuantizeLinear rounding: halves to even, saturated), and the JSON
// form of a per-axis encoding.
#include "egret/graph/tensor_type.h"

#include <string>
#include <vector>

#include "egret/graph/graph.h"
#include "egret/graph/graph_json.h"
#include "egret/graph/tensor.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

TensorType PerChannel(DType dt, Dims dims, int axis, std::vector<float> steps,
                      std::vector<int32_t> zeros) {
  TensorType t(dt, std::move(dims));
  absl::Status s = t.SetPerAxis(axis, std::move(steps), std::move(zeros));
  EXPECT_TRUE(s.ok()) << s;
  return t;
}

TEST(TensorTypeTest, PerAxisElementsUseTheirChannelsEncoding) {
  // [2,3] along axis 1: element (r, c) has channel c.
  TensorType t = PerChannel(DType::kQInt8, {2, 3}, 1, {0.5f, 1.0f, 2.0f}, {0, 1, -1});
  EXPECT_EQ(t.stepsize, 2.0f);  // the summary: the largest step
  Tensor x = Tensor::FromValues(t, {2, 2, 2, 4, 4, 4});
  EXPECT_DOUBLE_EQ(x.GetReal(0), 0.5 * 2);
  EXPECT_DOUBLE_EQ(x.GetReal(1), 1.0 * (2 - 1));
  EXPECT_DOUBLE_EQ(x.GetReal(2), 2.0 * (2 + 1));
  EXPECT_DOUBLE_EQ(x.GetReal(5), 2.0 * (4 + 1));
  x.SetReal(4, 3.0);  // channel 1: 3 / 1 + 1
  EXPECT_EQ(x.GetValue(4), 4);
}

TEST(TensorTypeTest, QuantizingRoundsHalvesToEvenAndSaturates) {
  Tensor x(TensorType(DType::kQUInt8, {5}, 10, 0.5f));
  const std::vector<double> reals = {0.25, 0.75, -0.25, 1000.0, -1000.0};
  for (int i = 0; i < 5; ++i) x.SetReal(i, reals[i]);
  EXPECT_EQ(x.GetValue(0), 10);   // 0.5 -> 0
  EXPECT_EQ(x.GetValue(1), 12);   // 1.5 -> 2
  EXPECT_EQ(x.GetValue(2), 10);   // -0.5 -> -0
  EXPECT_EQ(x.GetValue(3), 255);  // saturated
  EXPECT_EQ(x.GetValue(4), 0);
}

TEST(TensorTypeTest, PerAxisRejectsWhatCannotBeRepresented) {
  TensorType t(DType::kQInt8, {2, 3});
  EXPECT_FALSE(t.SetPerAxis(2, {1, 1, 1}, {0, 0, 0}).ok());    // no such axis
  EXPECT_FALSE(t.SetPerAxis(1, {1, 1}, {0, 0}).ok());          // 2 channels for 3
  EXPECT_FALSE(t.SetPerAxis(1, {1, 0, 1}, {0, 0, 0}).ok());    // a zero step
  EXPECT_FALSE(t.SetPerAxis(1, {1, 1, 1}, {0, 200, 0}).ok());  // 200 is no int8
  TensorType f(DType::kFloat32, {2, 3});
  EXPECT_FALSE(f.SetPerAxis(1, {1, 1, 1}, {0, 0, 0}).ok());
  EXPECT_EQ(t.per_axis, nullptr);
}

TEST(TensorTypeTest, EqualityHashAndPermutationFollowTheChannels) {
  TensorType a = PerChannel(DType::kQInt8, {3, 3, 4, 2}, 3, {0.1f, 0.2f}, {0, 0});
  TensorType b = PerChannel(DType::kQInt8, {3, 3, 4, 2}, 3, {0.1f, 0.2f}, {0, 0});
  TensorType c = PerChannel(DType::kQInt8, {3, 3, 4, 2}, 3, {0.1f, 0.3f}, {0, 0});
  TensorType per_tensor(DType::kQInt8, {3, 3, 4, 2}, 0, 0.2f);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(a.SameEncoding(b));
  EXPECT_NE(a, c);
  EXPECT_FALSE(a.SameEncoding(c));
  EXPECT_FALSE(a.SameEncoding(per_tensor));  // same summary, other encoding
  // [3,3,4,2] -> [2,4,3,3]: axis 3 moves to 0.
  TensorType p = a.Permuted({3, 2, 0, 1});
  EXPECT_EQ(p.dims, (Dims{2, 4, 3, 3}));
  ASSERT_NE(p.per_axis, nullptr);
  EXPECT_EQ(p.per_axis->axis, 0);
  EXPECT_EQ(p.ChannelOf(4 * 9), 1);
}

TEST(TensorTypeTest, PerAxisEncodingRoundTripsThroughJson) {
  Graph g;
  TensorType t = PerChannel(DType::kQInt8, {2, 3}, 1, {0.5f, 0.25f, 0.125f}, {0, 1, 2});
  NodeId c = g.AddConstant(
      "w", std::make_shared<const Tensor>(Tensor::FromValues(t, {1, 2, 3, -4, -5, -6})));
  Node n;
  n.op = "Dequantize";
  n.inputs.push_back({c, 0});
  n.outputs.push_back(TensorType(DType::kFloat32, {2, 3}));
  g.AddOutput({g.AddNode(std::move(n)), 0});
  absl::StatusOr<std::string> text = GraphToJsonString(g);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("\"per_axis\""), std::string::npos);
  absl::StatusOr<Graph> back = ParseGraphJson(*text, "m.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->TypeOf({c, 0}), t);
  EXPECT_EQ(*back->node(c).constant, *g.node(c).constant);
}

TEST(TensorTypeTest, BlockedEncodingsGiveEachBlockItsPairAndFollowPermutations) {
  // [2, 5] in blocks of 2 along axis 1: grid [2, 3], the last block short.
  TensorType t(DType::kQUInt4, {2, 5});
  ASSERT_TRUE(t.SetPerAxis(1, {1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4, 5}, 2).ok());
  EXPECT_TRUE(t.blocked());
  EXPECT_EQ(t.BlockGridDims(), (std::vector<int64_t>{2, 3}));
  const std::vector<int64_t> cells = {0, 0, 1, 1, 2, 3, 3, 4, 4, 5};
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(t.ChannelOf(i), cells[i]) << i;
  Tensor q = Tensor::FromValues(t, {9, 9, 9, 9, 9, 9, 9, 9, 9, 9});
  EXPECT_EQ(q.GetReal(4), 3 * (9 - 2));  // block (0, 2)
  EXPECT_EQ(q.GetReal(9), 6 * (9 - 5));  // block (1, 2)
  // Transposed to [5, 2]: blocks along axis 0, the grid [3, 2].
  TensorType p = t.Permuted({1, 0});
  ASSERT_TRUE(p.blocked());
  EXPECT_EQ(p.per_axis->axis, 0);
  EXPECT_EQ(p.BlockGridDims(), (std::vector<int64_t>{3, 2}));
  // Element (j, r) of p is element (r, j) of t.
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t j = 0; j < 5; ++j) {
      EXPECT_EQ(p.StepsizeAt(p.ChannelOf(j * 2 + r)), t.StepsizeAt(t.ChannelOf(r * 5 + j)));
      EXPECT_EQ(p.ZeroOffsetAt(p.ChannelOf(j * 2 + r)), t.ZeroOffsetAt(t.ChannelOf(r * 5 + j)));
    }
  }
  // Blocks of 4 make a grid of 4 cells, blocks of 2 one of 6.
  TensorType other(DType::kQUInt4, {2, 5});
  EXPECT_FALSE(other.SetPerAxis(1, {1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4, 5}, 4).ok());
  EXPECT_FALSE(other.SetPerAxis(1, {1, 2}, {0, 0}, 2).ok());
  EXPECT_FALSE(other.SetPerAxis(1, {1}, {0}, 6).ok());  // longer than the axis
  // JSON keeps the block size.
  Graph g;
  NodeId c = g.AddConstant("w", std::make_shared<const Tensor>(q));
  g.AddOutput({c, 0});
  absl::StatusOr<std::string> text = GraphToJsonString(g);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("\"block_size\": 2"), std::string::npos) << *text;
  absl::StatusOr<Graph> back = ParseGraphJson(*text, "m.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->TypeOf({c, 0}), t);
}

TEST(TensorTypeTest, BadPerAxisJsonNamesThePlace) {
  const std::string text = R"({"format": "egret-graph", "version": 1, "nodes": [
    {"name": "x", "op": "*Input", "outputs": [{"dtype": "QInt8", "shape": [2, 3],
      "per_axis": {"axis": 1, "stepsizes": [1, 1], "zero_offsets": [0, 0]}}]}],
    "inputs": ["x"], "outputs": [{"value": "x", "name": "y"}]})";
  absl::StatusOr<Graph> g = ParseGraphJson(text, "bad.json", "");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("bad.json:"), std::string::npos) << g.status();
  EXPECT_NE(g.status().message().find("needs 3 stepsizes"), std::string::npos) << g.status();
}

}  // namespace
}  // namespace egret
