// The ONNX reader's op mapping and NHWC layout conversion: Conv, Gemm, Sum,
// Clip and Flatten, checked numerically against NCHW reference loops through
// the reference executor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "egret/onnx/onnx_reader.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/onnx_reader_test_util.h"

namespace egret {
namespace {

using testing::OnnxBuilder;

TEST(OnnxReader, ConvBecomesNhwcWithBoundaryTransposes) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 6, 5});
  std::vector<float> w = Iota(4 * 3 * 3 * 3);
  b.Initializer("w", {4, 3, 3, 3}, w);
  auto* conv = b.Node("Conv", {"x", "w"}, {"y"}, "conv1");
  OnnxBuilder::AttrInts(conv, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"y"}, {"z"});
  b.Output("z");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  // The interface keeps ONNX's NCHW types.
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->node(g->inputs()[0]).outputs[0], TensorType(DType::kFloat32, {1, 3, 6, 5}));
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {1, 4, 6, 5}));
  EXPECT_EQ(g->outputs()[0].name, "z");
  // Inside: NHWC, with one Transpose at each boundary.
  auto h = Histogram(*g);
  EXPECT_EQ(h["Transpose"], 2);
  EXPECT_EQ(h["Conv2d"], 1);
  const Node& c = g->node(FindOp(*g, "Conv2d"));
  EXPECT_EQ(c.outputs[0].dims, (Dims{1, 6, 5, 4}));
  const Node& filter = g->node(c.inputs[1].node);
  ASSERT_TRUE(filter.constant);
  EXPECT_EQ(filter.outputs[0].dims, (Dims{3, 3, 3, 4}));
  // filter[ky,kx,i,o] == W[o,i,ky,kx]
  EXPECT_FLOAT_EQ(filter.constant->GetValue(((2 * 3 + 1) * 3 + 2) * 4 + 3),
                  w[((3 * 3 + 2) * 3 + 2) * 3 + 1]);
  EXPECT_EQ(g->node(g->outputs()[0].value.node).op, "Transpose");
  // Numerically the same as the NCHW definition.
  std::vector<float> x = Iota(1 * 3 * 6 * 5, 0.05f);
  std::vector<double> want = ConvNchw(x, {1, 3, 6, 5}, w, {4, 3, 3, 3}, 1, 1, 1);
  for (double& v : want) v = std::max(v, 0.0);
  ExpectNear(RunGraph(*g, {FloatTensor({1, 3, 6, 5}, x)}), want);
}

TEST(OnnxReader, ConvGroupsPickDepthwiseOrGroupedConv) {
  struct Case {
    int64_t group, cout, cin_per_group;
    const char* op;
  };
  for (Case k : {Case{4, 4, 1, "DepthWiseConv2d"}, Case{4, 8, 1, "DepthWiseConv2d"},
                 Case{2, 4, 2, "Conv2d"}}) {
    OnnxBuilder b;
    b.Input("x", {1, 4, 5, 5});
    std::vector<float> w = Iota(k.cout * k.cin_per_group * 9, 0.03f);
    b.Initializer("w", {k.cout, k.cin_per_group, 3, 3}, w);
    auto* conv = b.Node("Conv", {"x", "w"}, {"y"});
    OnnxBuilder::AttrInt(conv, "group", k.group);
    OnnxBuilder::AttrInts(conv, "strides", {2, 2});
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    NodeId id = FindOp(*g, k.op);
    ASSERT_NE(id, kNoNode) << k.op;
    EXPECT_EQ(g->TypeOf(g->node(id).inputs[1]).dims, (Dims{3, 3, k.cin_per_group, k.cout}));
    std::vector<float> x = Iota(100, 0.07f);
    ExpectNear(RunGraph(*g, {FloatTensor({1, 4, 5, 5}, x)}),
               ConvNchw(x, {1, 4, 5, 5}, w, {k.cout, k.cin_per_group, 3, 3}, k.group, 0, 2));
  }
}

TEST(OnnxReader, GemmFoldsWeightTransposeAlphaAndBias) {
  for (bool trans_b : {false, true}) {
    OnnxBuilder b;
    b.Input("a", {2, 3});
    std::vector<float> w = Iota(12, 0.2f);  // [3,4], or [4,3] when transposed
    b.Initializer("B", trans_b ? std::vector<int64_t>{4, 3} : std::vector<int64_t>{3, 4}, w);
    b.Initializer("C", {4}, {1, 2, 3, 4});
    auto* gemm = b.Node("Gemm", {"a", "B", "C"}, {"y"});
    OnnxBuilder::AttrInt(gemm, "transB", trans_b);
    OnnxBuilder::AttrFloat(gemm, "alpha", 2.0f);
    OnnxBuilder::AttrFloat(gemm, "beta", 0.5f);
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    auto h = Histogram(*g);
    EXPECT_EQ(h["FullyConnected"], 1);
    EXPECT_EQ(h["Transpose"], 0);  // folded into the constant weights
    EXPECT_EQ(h["ElementWiseMultiply"] + h["ElementWiseAdd"], 0);
    const Node& fc = g->node(FindOp(*g, "FullyConnected"));
    ASSERT_EQ(fc.inputs.size(), 3u);
    EXPECT_EQ(g->TypeOf(fc.inputs[1]).dims, (Dims{4, 3}));
    std::vector<float> a = {1, -2, 3, 0.5f, 4, -1};
    std::vector<double> want(8);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += a[i * 3 + k] * (trans_b ? w[j * 3 + k] : w[k * 4 + j]);
        want[i * 4 + j] = 2.0 * s + 0.5 * (j + 1);
      }
    ExpectNear(RunGraph(*g, {FloatTensor({2, 3}, a)}), want);
  }
}

TEST(OnnxReader, SumBecomesAChainOfAdds) {
  OnnxBuilder b;
  for (auto n : {"a", "b", "c", "d"}) b.Input(n, {2, 2});
  b.Node("Sum", {"a", "b", "c", "d"}, {"s"});
  b.Output("s");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["ElementWiseAdd"], 3);
  // A chain: the output add reads another add.
  const Node& last = g->node(g->outputs()[0].value.node);
  EXPECT_EQ(last.op, "ElementWiseAdd");
  EXPECT_EQ(g->node(last.inputs[0].node).op, "ElementWiseAdd");
  std::vector<Tensor> in;
  for (int k = 0; k < 4; ++k) in.push_back(FloatTensor({2, 2}, {1.f * k, 2.f, 3.f, 4.f * k}));
  ExpectNear(RunGraph(*g, in), {6, 8, 12, 24});
}

TEST(OnnxReader, ClipMapsToReluMinMaxOrRelu) {
  {
    OnnxBuilder b(13);
    b.Input("x", {4});
    b.Initializer("lo", {}, {0});
    b.Initializer("hi", {}, {6});
    b.Node("Clip", {"x", "lo", "hi"}, {"y"});
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    ASSERT_NE(FindOp(*g, "ReluMinMax"), kNoNode);
    ExpectNear(RunGraph(*g, {FloatTensor({4}, {-1, 3, 7, 6})}), {0, 3, 6, 6});
  }
  {
    OnnxBuilder b(6);
    b.Input("x", {3});
    auto* clip = b.Node("Clip", {"x"}, {"y"});
    OnnxBuilder::AttrFloat(clip, "min", 0);
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(Histogram(*g)["Relu"], 1);
    EXPECT_EQ(Histogram(*g)["ReluMinMax"], 0);
  }
}

// Flatten of an NHWC activation must flatten in NCHW order.
TEST(OnnxReader, FlattenAfterNhwcKeepsNchwOrder) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 3, 3});
  std::vector<float> w = Iota(3 * 2 * 1 * 1, 0.3f);
  b.Initializer("w", {3, 2, 1, 1}, w);
  b.Node("Conv", {"x", "w"}, {"c"});
  b.Node("Flatten", {"c"}, {"f"});
  b.Output("f");
  // And GlobalAveragePool -> Flatten, where no transpose is needed.
  b.Node("GlobalAveragePool", {"c"}, {"p"});
  b.Node("Flatten", {"p"}, {"pf"});
  b.Output("pf");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {1, 27}));
  EXPECT_EQ(g->TypeOf(g->outputs()[1].value), TensorType(DType::kFloat32, {1, 3}));
  // x -> NHWC, and c back to NCHW for the flatten; none for the pooled one.
  EXPECT_EQ(Histogram(*g)["Transpose"], 2);
  const Node& pool_flat = g->node(g->outputs()[1].value.node);
  EXPECT_EQ(pool_flat.op, "Reshape");
  EXPECT_EQ(g->node(pool_flat.inputs[0].node).op, "PoolAvg2d");
  std::vector<float> x = Iota(18, 0.11f);
  ExpectNear(RunGraph(*g, {FloatTensor({1, 2, 3, 3}, x)}),
             ConvNchw(x, {1, 2, 3, 3}, w, {3, 2, 1, 1}, 1, 0, 1));
}

}  // namespace
}  // namespace egret
