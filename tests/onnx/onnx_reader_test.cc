// The ONNX reader on small models built in code: op mapping, the NHWC layout
// conversion (checked numerically against NCHW reference loops through the
// reference executor), node sorting, opaque ops and bad input.
#include "egret/onnx/onnx_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/executor.h"
#include "egret/graph/op_table.h"
#include "egret/io/graph_io.h"
#include "egret/support/diagnostic.h"
#include "onnx_builder.h"

namespace egret {
namespace {

using ::testing::HasSubstr;
using testing::OnnxBuilder;

std::map<std::string, int> Histogram(const Graph& g) {
  std::map<std::string, int> h;
  for (const Node& n : g.nodes()) ++h[n.op];
  return h;
}

NodeId FindOp(const Graph& g, std::string_view op) {
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (g.node(id).op == op) return id;
  }
  return kNoNode;
}

std::vector<float> Iota(int64_t n, float scale = 0.1f, float offset = -1.0f) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = offset + scale * static_cast<float>(i % 23) + 0.01f * i;
  return v;
}

Tensor FloatTensor(Dims dims, const std::vector<float>& v) {
  Tensor t(TensorType(DType::kFloat32, std::move(dims)));
  for (size_t i = 0; i < v.size(); ++i) t.SetValue(static_cast<int64_t>(i), v[i]);
  return t;
}

std::vector<double> RunGraph(const Graph& g, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = Execute(g, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  std::vector<double> v;
  if (!out.ok()) return v;
  for (int64_t i = 0; i < (*out)[0].num_elements(); ++i) v.push_back((*out)[0].GetReal(i));
  return v;
}

void ExpectNear(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-4) << "element " << i;
}

// NCHW convolution, the ONNX definition, for checking the NHWC import.
std::vector<double> ConvNchw(const std::vector<float>& x, Dims xd, const std::vector<float>& w,
                             Dims wd, int64_t group, int64_t pad, int64_t stride) {
  const int64_t n = xd[0], c = xd[1], h = xd[2], wi = xd[3];
  const int64_t co = wd[0], cg = wd[1], kh = wd[2], kw = wd[3];
  const int64_t oh = (h + 2 * pad - kh) / stride + 1, ow = (wi + 2 * pad - kw) / stride + 1;
  std::vector<double> out(n * co * oh * ow, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < co; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double s = 0;
          const int64_t g = o / (co / group);
          for (int64_t k = 0; k < cg; ++k)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t iy = y * stride - pad + ky, ix = xx * stride - pad + kx;
                if (iy < 0 || ix < 0 || iy >= h || ix >= wi) continue;
                s += x[((b * c + g * cg + k) * h + iy) * wi + ix] *
                     w[((o * cg + k) * kh + ky) * kw + kx];
              }
          out[((b * co + o) * oh + y) * ow + xx] = s;
        }
  (void)c;
  return out;
}

// A node with fewer inputs than its schema requires is rejected before any
// handler reads them (it used to abort on a protobuf CHECK).
TEST(OnnxReader, NodeWithoutItsInputsIsAnError) {
  OnnxBuilder b;
  b.Node("Relu", {}, {"y"});
  b.Output("y", {4});
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "m.onnx: error: node #0 (Relu): has 0 inputs; opset 13's Relu takes 1 to 1");
  OnnxBuilder e;
  e.Input("x", {4});
  e.Node("Add", {"x", ""}, {"y"});
  e.Output("y");
  g = ParseOnnx(e.Bytes(), "m.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "m.onnx: error: node #0 (Add): required input 1 (B) is empty");
}

// A convolution or pooling node egret does not map (here: on a rank-2 X,
// no spatial axis) whose ranks or attribute lengths disagree (a rank-4 W,
// four pads, a 2-D kernel_shape) is a clean error: ONNX 1.12's shape
// inference, which types unmapped nodes, read past the input's shape on
// such a node and segfaulted (F5 in docs/reliability.md, found by fuzzing).
TEST(OnnxReader, ConvAndPoolWithDisagreeingRanksAreErrorsNotCrashes) {
  for (const std::string op : {"Conv", "MaxPool", "AveragePool", "ConvTranspose"}) {
    SCOPED_TRACE(op);
    OnnxBuilder b;
    const bool pool = op.find("Pool") != std::string::npos;
    b.Input("x", {1, 1});
    b.Initializer("w", {2, 1, 3, 3}, std::vector<float>(18, 0.5f));
    onnx::NodeProto* n = b.Node(
        op, pool ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "w"}, {"y"});
    OnnxBuilder::AttrInts(n, "pads", {1, 1, 1, 1});
    if (pool) OnnxBuilder::AttrInts(n, "kernel_shape", {3, 3});
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(std::string(g.status().message()), ::testing::StartsWith("m.onnx: error: node"));
    EXPECT_THAT(std::string(g.status().message()), HasSubstr("unmapped op"));
  }
}

// Shapes whose element count overflows int64 are errors wherever they come
// from: a symbolic dim's size, a Reshape's shape, a Tile's multiples.
TEST(OnnxReader, OverflowingShapesAreErrors) {
  {
    OnnxBuilder b;
    b.InputSymbolic("x", "N", 4);
    b.Node("Relu", {"x"}, {"y"});
    b.Output("y");
    OnnxImportOptions options;
    options.dim_params["N"] = (int64_t{1} << 55) + 1;  // [N, 4]: just above 2^56 elements
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx", options);
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("m.onnx: error: graph input 'x': shape ["));
    EXPECT_THAT(std::string(g.status().message()), HasSubstr("] has more than 2^56 elements"));
  }
  {
    OnnxBuilder b;
    b.Input("x", {1, 1});
    b.InitializerInt64("s", {3}, {int64_t{1} << 40, int64_t{1} << 40, 1});
    b.Node("Reshape", {"x", "s"}, {"y"});
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(std::string(g.status().message()), HasSubstr("m.onnx: error: node #0 (Reshape): "));
  }
  {
    OnnxBuilder b;
    b.Input("x", {4294967296, 1});
    b.InitializerInt64("m", {2}, {1, 4294967296});
    b.Node("Tile", {"x", "m"}, {"y"});
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("shape [4294967296,4294967296] has more than 2^56 elements"));
  }
}

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

TEST(OnnxReader, SortsNodesGivenOutOfOrder) {
  OnnxBuilder b;
  b.Input("x", {3});
  b.Node("Neg", {"t2"}, {"y"}, "last");
  b.Node("Abs", {"t1"}, {"t2"}, "middle");
  b.Node("Exp", {"x"}, {"t1"}, "first");
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_LT(FindOp(*g, "Exp"), FindOp(*g, "Abs"));
  EXPECT_LT(FindOp(*g, "Abs"), FindOp(*g, "Neg"));
  ExpectNear(RunGraph(*g, {FloatTensor({3}, {0, 1, -1})}), {-1, -std::exp(1.0), -std::exp(-1.0)});
}

TEST(OnnxReader, CycleIsAnError) {
  OnnxBuilder b;
  b.Input("x", {3});
  b.Node("Add", {"x", "b"}, {"a"}, "n1");
  b.Node("Relu", {"a"}, {"b"}, "n2");
  b.Output("b");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("m.onnx: error: node 'n1' (Add): is on a cycle"));
}

TEST(OnnxReader, UnmappedOpStaysOpaqueWithAttributesAndType) {
  OnnxBuilder b(9, 3);
  b.Input("x", {1, 4, 5, 5});
  b.Initializer("w", {4, 4, 1, 1}, Iota(16));
  b.Input("w", {4, 4, 1, 1});  // IR 3: initializers listed as inputs too
  b.Node("Conv", {"x", "w"}, {"c"});
  auto* lp = b.Node("LpNormalization", {"c"}, {"y"}, "norm1");
  OnnxBuilder::AttrInt(lp, "p", 1);
  OnnxBuilder::AttrFloat(lp, "epsilon_note", 1e-4f);  // an attribute ONNX does not define
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->inputs().size(), 1u);  // w is a constant, not an input
  NodeId id = FindOp(*g, "onnx.LpNormalization");
  ASSERT_NE(id, kNoNode);
  const Node& n = g->node(id);
  EXPECT_FALSE(IsKnownOp(n.op));
  EXPECT_EQ(std::get<int64_t>(n.attrs.at("p")), 1);
  EXPECT_NEAR(std::get<double>(n.attrs.at("epsilon_note")), 1e-4, 1e-9);
  // The opset, for kernels whose defaults changed between versions.
  EXPECT_EQ(std::get<int64_t>(n.attrs.at("onnx.opset")), 9);
  // The opaque op sees ONNX's layout and type.
  EXPECT_EQ(n.outputs[0], TensorType(DType::kFloat32, {1, 4, 5, 5}));
  EXPECT_EQ(g->TypeOf(n.inputs[0]).dims, (Dims{1, 4, 5, 5}));
  EXPECT_EQ(g->node(n.inputs[0].node).op, "Transpose");
}

TEST(OnnxReader, FoldsShapeArithmetic) {
  OnnxBuilder b;
  b.Input("x", {2, 3, 4});
  b.Node("Shape", {"x"}, {"s"});
  b.InitializerInt64("i0", {}, {0});
  b.Node("Gather", {"s", "i0"}, {"n"});
  b.InitializerInt64("ax", {1}, {0});
  b.Node("Unsqueeze", {"n", "ax"}, {"n1"});
  b.InitializerInt64("m1", {1}, {-1});
  b.Node("Concat", {"n1", "m1"}, {"shape"});
  OnnxBuilder::AttrInt(b.model().mutable_graph()->mutable_node(3), "axis", 0);
  b.Node("Reshape", {"x", "shape"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 12}));
  for (const Node& n : g->nodes()) EXPECT_TRUE(IsKnownOp(n.op)) << n.op;
  EXPECT_EQ(Histogram(*g)["Reshape"], 1);
}

// ---------------------------------------------------------------------------
// Comparison, logic and indexing ops.

Tensor TypedTensor(TensorType type, const std::vector<double>& v) {
  Tensor t(std::move(type));
  for (size_t i = 0; i < v.size(); ++i) t.SetValue(static_cast<int64_t>(i), v[i]);
  return t;
}

// Every output of g, as real values.
std::vector<std::vector<double>> RunOutputs(const Graph& g, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = Execute(g, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  std::vector<std::vector<double>> all;
  if (!out.ok()) return all;
  for (const Tensor& t : *out) {
    all.emplace_back();
    for (int64_t i = 0; i < t.num_elements(); ++i) all.back().push_back(t.GetReal(i));
  }
  return all;
}

// A 1x1 Conv with identity weights: y equals x, but lives in NHWC inside.
void IdentityConv(OnnxBuilder& b, const std::string& x, const std::string& y, int64_t c) {
  std::vector<float> w(c * c, 0.0f);
  for (int64_t i = 0; i < c; ++i) w[i * c + i] = 1;
  b.Initializer(y + "_w", {c, c, 1, 1}, w);
  b.Node("Conv", {x, y + "_w"}, {y});
}

TEST(OnnxReader, ComparisonsAndWhereKeepNhwcLayout) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 2, 2});
  IdentityConv(b, "x", "c", 3);
  b.Initializer("t", {3, 1, 1}, {0.0f, 0.5f, -0.5f});  // per-channel threshold
  b.Node("Greater", {"c", "t"}, {"gt"});
  b.Initializer("zero", {}, {0.0f});
  b.Node("Where", {"gt", "c", "zero"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  auto h = Histogram(*g);
  EXPECT_EQ(h["ElementWiseGreater"], 1);
  EXPECT_EQ(h["ElementWiseSelect"], 1);
  EXPECT_EQ(h["Transpose"], 2);  // only at the graph boundary
  const Node& gt = g->node(FindOp(*g, "ElementWiseGreater"));
  EXPECT_EQ(gt.outputs[0], TensorType(DType::kBool, {1, 2, 2, 3}));
  std::vector<float> x = Iota(12, 0.1f, -0.6f);
  std::vector<double> want(12);
  for (int ch = 0; ch < 3; ++ch) {
    for (int i = 0; i < 4; ++i) {
      const double v = x[ch * 4 + i];
      want[ch * 4 + i] = v > std::vector<double>{0, 0.5, -0.5}[ch] ? v : 0;
    }
  }
  ExpectNear(RunGraph(*g, {FloatTensor({1, 3, 2, 2}, x)}), want);
}

TEST(OnnxReader, EqualLessAndBoolLogicMapOneToOne) {
  OnnxBuilder b;
  b.Input("a", {2, 3}, onnx::TensorProto::INT64);
  b.Input("b", {3}, onnx::TensorProto::INT64);
  b.Input("p", {2, 3}, onnx::TensorProto::BOOL);
  b.Node("Equal", {"a", "b"}, {"eq"});
  b.Node("LessOrEqual", {"a", "b"}, {"le"});
  b.Node("GreaterOrEqual", {"a", "b"}, {"ge"});
  b.Node("And", {"eq", "p"}, {"and"});
  b.Node("Or", {"and", "le"}, {"or"});
  b.Node("Xor", {"or", "ge"}, {"xor"});
  b.Node("Not", {"xor"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  auto h = Histogram(*g);
  for (const char* op : {"ElementWiseEqual", "ElementWiseLessEqual", "ElementWiseGreaterEqual",
                         "ElementWiseAnd", "ElementWiseOr", "ElementWiseXor", "ElementWiseNot"}) {
    EXPECT_EQ(h[op], 1) << op;
  }
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kBool, {2, 3}));
  const std::vector<double> a = {1, 5, 3, 4, 2, 0}, bv = {1, 2, 3}, p = {0, 1, 1, 1, 0, 0};
  std::vector<double> want;
  for (int i = 0; i < 6; ++i) {
    const double x = a[i], y = bv[i % 3];
    const bool r = !((((x == y) && p[i] != 0) || x <= y) != (x >= y));
    want.push_back(r);
  }
  ExpectNear(RunGraph(*g, {TypedTensor(TensorType(DType::kInt64, {2, 3}), a),
                           TypedTensor(TensorType(DType::kInt64, {3}), bv),
                           TypedTensor(TensorType(DType::kBool, {2, 3}), p)}),
             want);
}

// The reshape pattern of exported transformers: Where(Equal(shape, -1), ...).
TEST(OnnxReader, FoldsConstantComparisonsAndWhere) {
  OnnxBuilder b;
  b.Input("x", {2, 3, 4});
  b.InitializerInt64("target", {2}, {-1, 4});
  b.InitializerInt64("minus1", {}, {-1});
  b.Node("Equal", {"target", "minus1"}, {"is_free"});
  b.Node("Not", {"is_free"}, {"is_set"});
  b.InitializerInt64("six", {1}, {6});
  b.Node("Where", {"is_set", "target", "six"}, {"shape"});
  b.Node("Reshape", {"x", "shape"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {6, 4}));
  auto h = Histogram(*g);
  EXPECT_EQ(h["ElementWiseEqual"] + h["ElementWiseNot"] + h["ElementWiseSelect"], 0);
  EXPECT_EQ(h["Reshape"], 1);
}

TEST(OnnxReader, ExpandIsReshapeAndTile) {
  OnnxBuilder b;
  b.Input("x", {3, 1});
  b.InitializerInt64("shape", {3}, {2, 1, 4});
  b.Node("Expand", {"x", "shape"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 3, 4}));
  auto h = Histogram(*g);
  EXPECT_EQ(h["Reshape"], 1);
  EXPECT_EQ(h["Tile"], 1);
  std::vector<double> want;
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 4; ++k) want.push_back(i + 1);
  ExpectNear(RunGraph(*g, {FloatTensor({3, 1}, {1, 2, 3})}), want);
}

TEST(OnnxReader, TileOfNhwcActivationStaysNhwc) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 2, 3});
  IdentityConv(b, "x", "c", 2);
  b.InitializerInt64("repeats", {4}, {1, 2, 1, 2});
  b.Node("Tile", {"c", "repeats"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["Transpose"], 2);
  const Node& tile = g->node(FindOp(*g, "Tile"));
  EXPECT_EQ(tile.outputs[0].dims, (Dims{1, 2, 6, 4}));  // NHWC
  std::vector<float> x = Iota(12, 0.1f);
  std::vector<double> want;  // [1,4,2,6] NCHW
  for (int ch = 0; ch < 4; ++ch)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 6; ++w) want.push_back(x[(ch % 2) * 6 + h * 3 + w % 3]);
  ExpectNear(RunGraph(*g, {FloatTensor({1, 2, 2, 3}, x)}), want);
}

TEST(OnnxReader, RangeFoldsOrUsesTheDeclaredLength) {
  {
    OnnxBuilder b;
    b.InitializerInt64("start", {}, {10});
    b.InitializerInt64("limit", {}, {3});
    b.InitializerInt64("delta", {}, {-3});
    b.Node("Range", {"start", "limit", "delta"}, {"r"});
    b.Input("x", {3});
    b.Node("Cast", {"r"}, {"rf"});
    OnnxBuilder::AttrInt(b.model().mutable_graph()->mutable_node(1), "to",
                         onnx::TensorProto::FLOAT);
    b.Node("Add", {"x", "rf"}, {"y"});
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(Histogram(*g)["ElementWiseAdd"], 1);
    ExpectNear(RunGraph(*g, {FloatTensor({3}, {0, 0, 0})}), {10, 7, 4});
  }
  {
    OnnxBuilder b;
    b.Input("start", {});
    b.Initializer("limit", {}, {2});
    b.Initializer("delta", {}, {0.5f});
    b.Node("Range", {"start", "limit", "delta"}, {"y"});
    b.Output("y");
    auto* out = b.model().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
    out->set_elem_type(onnx::TensorProto::FLOAT);
    out->mutable_shape()->add_dim()->set_dim_value(3);
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    for (const Node& n : g->nodes()) EXPECT_TRUE(IsKnownOp(n.op)) << n.op;
    ExpectNear(RunGraph(*g, {FloatTensor({}, {0.75f})}), {0.75, 1.25, 1.75});
  }
}

// CumSum, ArgMax and TopK along the channel axis of an NHWC activation: the
// axis is remapped and the layout kept.
TEST(OnnxReader, ScansAndArgReductionsRemapTheChannelAxis) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 2, 2});
  IdentityConv(b, "x", "c", 3);
  b.InitializerInt64("axis", {}, {1});
  auto* cum = b.Node("CumSum", {"c", "axis"}, {"cum"});
  OnnxBuilder::AttrInt(cum, "exclusive", 1);
  OnnxBuilder::AttrInt(cum, "reverse", 1);
  b.Output("cum");
  auto* am = b.Node("ArgMax", {"c"}, {"am"});
  OnnxBuilder::AttrInt(am, "axis", 1);
  OnnxBuilder::AttrInt(am, "keepdims", 0);
  b.Output("am");
  b.InitializerInt64("k", {1}, {2});
  auto* topk = b.Node("TopK", {"c", "k"}, {"values", "indices"});
  OnnxBuilder::AttrInt(topk, "axis", 1);
  OnnxBuilder::AttrInt(topk, "largest", 0);
  b.Output("values");
  b.Output("indices");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node& cs = g->node(FindOp(*g, "CumulativeSum"));
  EXPECT_EQ(cs.outputs[0].dims, (Dims{1, 2, 2, 3}));
  const Node& amx = g->node(FindOp(*g, "Argmax"));
  EXPECT_EQ(amx.outputs[0], TensorType(DType::kInt64, {1, 2, 2, 1}));
  // The channel dim is last in NHWC: dropping it needs no transpose.
  EXPECT_EQ(g->TypeOf(g->outputs()[1].value), TensorType(DType::kInt64, {1, 2, 2}));
  EXPECT_EQ(g->node(g->outputs()[1].value.node).op, "Reshape");
  EXPECT_EQ(g->TypeOf(g->outputs()[3].value), TensorType(DType::kInt64, {1, 2, 2, 2}));
  const std::vector<float> x = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};  // [c][h*w]
  std::vector<double> want_cum(12), want_am(4), want_v(8), want_i(8);
  for (int p = 0; p < 4; ++p) {
    double acc = 0;
    for (int ch = 2; ch >= 0; --ch) {
      want_cum[ch * 4 + p] = acc;
      acc += x[ch * 4 + p];
    }
    int best = 0;
    for (int ch = 1; ch < 3; ++ch) best = x[ch * 4 + p] > x[best * 4 + p] ? ch : best;
    want_am[p] = best;
    std::vector<int> order = {0, 1, 2};
    std::stable_sort(order.begin(), order.end(),
                     [&](int i, int j) { return x[i * 4 + p] < x[j * 4 + p]; });
    for (int r = 0; r < 2; ++r) {
      want_v[r * 4 + p] = x[order[r] * 4 + p];
      want_i[r * 4 + p] = order[r];
    }
  }
  auto out = RunOutputs(*g, {FloatTensor({1, 3, 2, 2}, x)});
  ASSERT_EQ(out.size(), 4u);
  ExpectNear(out[0], want_cum);
  ExpectNear(out[1], want_am);
  ExpectNear(out[2], want_v);
  ExpectNear(out[3], want_i);
}

TEST(OnnxReader, GatherOfComputedIndicesIsAGatherOp) {
  OnnxBuilder b;
  b.Input("ids", {2, 3}, onnx::TensorProto::INT64);
  std::vector<float> table = Iota(5 * 4, 0.5f);
  b.Initializer("table", {5, 4}, table);  // an embedding table
  b.Node("Gather", {"table", "ids"}, {"emb"});
  b.Output("emb");
  b.Input("x", {2, 5});
  b.InitializerInt64("cols", {3}, {4, 0, -1});  // constant, not a range
  auto* cols = b.Node("Gather", {"x", "cols"}, {"picked"});
  OnnxBuilder::AttrInt(cols, "axis", 1);
  b.Output("picked");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["Gather"], 2);
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 3, 4}));
  const std::vector<double> ids = {4, 0, -2, 1, 1, 3};
  std::vector<double> want_emb;
  for (double id : ids) {
    const int row = id < 0 ? 5 + static_cast<int>(id) : static_cast<int>(id);
    for (int k = 0; k < 4; ++k) want_emb.push_back(table[row * 4 + k]);
  }
  std::vector<float> x = Iota(10, 1.0f, 0.0f);
  std::vector<double> want_picked;
  for (int r = 0; r < 2; ++r) {
    for (int c : {4, 0, 4}) want_picked.push_back(x[r * 5 + c]);
  }
  auto out =
      RunOutputs(*g, {TypedTensor(TensorType(DType::kInt64, {2, 3}), ids), FloatTensor({2, 5}, x)});
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(out[0], want_emb);
  ExpectNear(out[1], want_picked);
}

// Einsum by definition, for equations of letters only: sum over every label
// assignment of the product of the operands' elements.
std::vector<double> NaiveEinsum(const std::string& eq, const std::vector<std::vector<float>>& ops,
                                const std::vector<Dims>& dims) {
  const size_t arrow = eq.find("->");
  std::vector<std::string> terms;
  std::string lhs = eq.substr(0, arrow), cur;
  for (char ch : lhs) {
    if (ch == ',') {
      terms.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(ch);
    }
  }
  terms.push_back(cur);
  const std::string out = eq.substr(arrow + 2);
  std::map<char, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t d = 0; d < terms[i].size(); ++d) size[terms[i][d]] = dims[i][d];
  }
  std::vector<char> labels;
  for (auto& [l, s] : size) labels.push_back(l);
  int64_t n_out = 1;
  for (char l : out) n_out *= size[l];
  std::vector<double> result(n_out, 0.0);
  std::map<char, int64_t> at;
  for (char l : labels) at[l] = 0;
  while (true) {
    double prod = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      int64_t off = 0;
      for (size_t d = 0; d < terms[i].size(); ++d) off = off * dims[i][d] + at[terms[i][d]];
      prod *= ops[i][off];
    }
    int64_t o = 0;
    for (char l : out) o = o * size[l] + at[l];
    result[o] += prod;
    size_t k = labels.size();
    while (k > 0 && ++at[labels[k - 1]] == size[labels[k - 1]]) at[labels[--k]] = 0;
    if (k == 0) break;
  }
  return result;
}

// Reciprocal(x) is 1 / x: a divide by a runtime value (so rules see one
// form), and the same values.
TEST(OnnxReader, ReciprocalIsADivision) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3});
  b.Node("Reciprocal", {"x"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["ElementWiseDivide"], 1);
  const std::vector<float> x = {0.5f, -2, 4, 0.25f, 8, -0.125f};
  std::vector<double> want;
  for (float v : x) want.push_back(1.0 / v);
  ExpectNear(RunGraph(*g, {FloatTensor({2, 3}, x)}), want);
}

// From opset 18 every reduction takes its axes as an input (ReduceSum from 13);
// before, as an attribute. Both forms reduce only the axes given.
TEST(OnnxReader, ReductionsReadTheirAxesFromTheAttributeOrTheInputByOpset) {
  const Dims dims = {2, 3, 4};
  const std::vector<float> x = Iota(24, 0.3f);
  // The reference: over axis 1 (and -1 + 3 = 2 is not reduced), keep_dims 0.
  auto reduce = [&](const std::string& op) {
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) {
        double acc = op == "ReduceMax" ? -1e30 : 0;
        for (int j = 0; j < 3; ++j) {
          const double v = x[(i * 3 + j) * 4 + k];
          acc = op == "ReduceMax" ? std::max(acc, v) : acc + v;
        }
        want.push_back(op == "ReduceMean" ? acc / 3 : acc);
      }
    return want;
  };
  for (const std::string op : {"ReduceMean", "ReduceMax", "ReduceSum"}) {
    for (int opset : {13, 18}) {
      const bool input = opset >= 18 || op == "ReduceSum";
      OnnxBuilder b(opset);
      b.Input("x", {2, 3, 4});
      std::vector<std::string> ins = {"x"};
      if (input) {
        b.InitializerInt64("axes", {1}, {-2});
        ins.push_back("axes");
      }
      auto* n = b.Node(op, ins, {"y"});
      if (!input) OnnxBuilder::AttrInts(n, "axes", {-2});
      OnnxBuilder::AttrInt(n, "keepdims", 0);
      b.Output("y");
      absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
      ASSERT_TRUE(g.ok()) << op << " opset " << opset << ": " << g.status();
      EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 4}))
          << op << " opset " << opset;
      ExpectNear(RunGraph(*g, {FloatTensor(dims, x)}), reduce(op));
    }
  }
}

TEST(OnnxReader, EinsumLowersToTransposeReshapeMatMulReduceSum) {
  struct Case {
    std::string eq;
    std::vector<Dims> dims;
    std::string naive;  // the equation for NaiveEinsum (explicit, letters only)
  };
  const std::vector<Case> cases = {
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, "bij,bjk->bik"},
      {"bhqd,bhkd->bhqk", {{1, 2, 3, 4}, {1, 2, 5, 4}}, "bhqd,bhkd->bhqk"},
      {"ij,jk", {{2, 3}, {3, 4}}, "ij,jk->ik"},
      {"ij->ji", {{2, 3}}, "ij->ji"},
      {"ij->i", {{2, 3}}, "ij->i"},
      {"i,i", {{4}, {4}}, "i,i->"},
      {"i,j->ij", {{2}, {3}}, "i,j->ij"},
      {"bij,jk->kbi", {{2, 3, 4}, {4, 2}}, "bij,jk->kbi"},
      {"abc,cd->d", {{2, 2, 3}, {3, 2}}, "abc,cd->d"},
  };
  for (const Case& k : cases) {
    OnnxBuilder b(12);
    std::vector<std::string> names;
    std::vector<std::vector<float>> values;
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < k.dims.size(); ++i) {
      names.push_back(absl::StrCat("x", i));
      b.Input(names.back(), std::vector<int64_t>(k.dims[i].begin(), k.dims[i].end()));
      int64_t n = 1;
      for (int64_t d : k.dims[i]) n *= d;
      values.push_back(Iota(n, 0.1f * static_cast<float>(i + 1)));
      inputs.push_back(FloatTensor(k.dims[i], values.back()));
    }
    auto* e = b.Node("Einsum", names, {"y"});
    auto* a = e->add_attribute();
    a->set_name("equation");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(k.eq);
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << k.eq << ": " << g.status();
    for (const Node& n : g->nodes()) EXPECT_TRUE(IsKnownOp(n.op)) << k.eq << ": " << n.op;
    ExpectNear(RunGraph(*g, inputs), NaiveEinsum(k.naive, values, k.dims));
  }
}

TEST(OnnxReader, EinsumBroadcastsEllipsisBatchDims) {
  OnnxBuilder b(12);
  b.Input("a", {2, 1, 2, 3});
  b.Input("b", {3, 3, 2});
  auto* e = b.Node("Einsum", {"a", "b"}, {"y"});
  auto* attr = e->add_attribute();
  attr->set_name("equation");
  attr->set_type(onnx::AttributeProto::STRING);
  attr->set_s("...ij,...jk->...ik");
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 3, 2, 2}));
  EXPECT_EQ(Histogram(*g)["MatMul"], 1);
  std::vector<float> a = Iota(12, 0.2f), bv = Iota(18, 0.3f);
  std::vector<double> want;
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k) {
          double s = 0;
          for (int j = 0; j < 3; ++j) s += a[(p * 2 + i) * 3 + j] * bv[(q * 3 + j) * 2 + k];
          want.push_back(s);
        }
  ExpectNear(RunGraph(*g, {FloatTensor({2, 1, 2, 3}, a), FloatTensor({3, 3, 2}, bv)}), want);
}

TEST(OnnxReader, EinsumDiagonalStaysOpaque) {
  OnnxBuilder b(12);
  b.Input("a", {3, 3});
  auto* e = b.Node("Einsum", {"a"}, {"y"});
  auto* attr = e->add_attribute();
  attr->set_name("equation");
  attr->set_type(onnx::AttributeProto::STRING);
  attr->set_s("ii->i");
  b.Output("y");
  auto* out = b.model().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
  out->set_elem_type(onnx::TensorProto::FLOAT);
  out->mutable_shape()->add_dim()->set_dim_value(3);
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const NodeId id = FindOp(*g, "onnx.Einsum");
  ASSERT_NE(id, kNoNode);
  EXPECT_THAT(std::get<std::string>(g->node(id).attrs.at("onnx.unmapped")), HasSubstr("diagonal"));
}

// ---------------------------------------------------------------------------
// Constant folding and control flow.

Tensor BoolScalar(bool v) {
  TensorType t;
  t.dtype = DType::kBool;
  Tensor s(t);
  s.SetValue(0, v ? 1 : 0);
  return s;
}

std::string Raw(const std::vector<int32_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

// MLSD's Pad: its amounts come from Split of a constant, then Concat, Reshape
// and Cast; a ConstantOfShape of a folded Shape and an opaque op with an ONNX
// kernel (Cos) of a constant fold as well. Only the Pad and the Adds remain.
TEST(OnnxReader, FoldsConstantSubgraphsThroughTheExecutor) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 3, 3});
  // pads [0,0,1,1, 0,0,1,2] as two int32 rows split apart and joined again.
  b.InitializerRaw("p", {2, 4}, onnx::TensorProto::INT32, Raw({0, 0, 1, 1, 0, 0, 1, 2}));
  b.Node("Split", {"p"}, {"p0", "p1"});
  b.Node("Concat", {"p0", "p1"}, {"p01"});
  OnnxBuilder::AttrInt(b.model().mutable_graph()->mutable_node(1), "axis", 1);
  b.InitializerInt64("flat", {1}, {-1});
  b.Node("Reshape", {"p01", "flat"}, {"p8"});
  auto* cast = b.Node("Cast", {"p8"}, {"pads"});
  OnnxBuilder::AttrInt(cast, "to", onnx::TensorProto::INT64);
  b.Node("Pad", {"x", "pads"}, {"y"});
  b.Node("Shape", {"y"}, {"ys"});
  auto* cos = b.Node("ConstantOfShape", {"ys"}, {"half"});
  auto* value = cos->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_float_data(0.5f);
  b.Initializer("k", {1}, {0.25f});
  b.Node("Cos", {"k"}, {"cos_k"});
  b.Node("Add", {"y", "half"}, {"y1"});
  b.Node("Add", {"y1", "cos_k"}, {"out"});
  b.Output("out");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  std::map<std::string, int> h = Histogram(*g);
  EXPECT_EQ(h["Pad"], 1);
  EXPECT_EQ(h["ElementWiseAdd"], 2);
  for (const char* gone : {"Split", "Concat", "Reshape", "Cast", "onnx.Cos"}) {
    EXPECT_EQ(h[gone], 0) << gone;
  }
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value).dims, (Dims{1, 2, 5, 6}));
  // The constants only folded nodes read are gone too.
  for (const Node& n : g->nodes()) {
    if (n.op == kConstOp) {
      EXPECT_NE(n.constant->type().dims, (Dims{2, 4})) << n.name;
    }
  }
  std::vector<float> x = Iota(18);
  std::vector<double> want(1 * 2 * 5 * 6);
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j) {
        const bool inside = i >= 1 && i < 4 && j >= 1 && j < 4;
        want[(c * 5 + i) * 6 + j] =
            (inside ? x[(c * 3 + i - 1) * 3 + j - 1] : 0.0) + 0.5 + std::cos(0.25f);
      }
  ExpectNear(RunGraph(*g, {FloatTensor({1, 2, 3, 3}, x)}), want);
}

// A Conv weight stored fp16 and in another layout: Cast and Transpose fold
// (the Transpose to NCHW is NHWC-native, so the fold converts back to ONNX's
// layout), the Conv sees a constant weight and maps to Conv2d.
TEST(OnnxReader, FoldedWeightsFeedConv) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 4, 4});
  // w_ohwi [3, 2, 2, 2] (out, kh, kw, in), halves 0.0, 0.5, 1.0, ...
  std::vector<float> w_ohwi(3 * 2 * 2 * 2);
  std::string raw;
  for (size_t i = 0; i < w_ohwi.size(); ++i) {
    w_ohwi[i] = 0.5f * static_cast<float>(i % 7) - 1.0f;  // exact in fp16
    Tensor half(TensorType(DType::kFloat16, {1}));
    half.SetValue(0, w_ohwi[i]);
    raw.append(reinterpret_cast<const char*>(half.bytes().data()), 2);
  }
  b.InitializerRaw("w16", {3, 2, 2, 2}, onnx::TensorProto::FLOAT16, raw);
  auto* cast = b.Node("Cast", {"w16"}, {"w32"});
  OnnxBuilder::AttrInt(cast, "to", onnx::TensorProto::FLOAT);
  auto* tr = b.Node("Transpose", {"w32"}, {"w"});
  OnnxBuilder::AttrInts(tr, "perm", {0, 3, 1, 2});
  b.Node("Conv", {"x", "w"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  std::map<std::string, int> h = Histogram(*g);
  EXPECT_EQ(h["Conv2d"], 1);
  EXPECT_EQ(h["Cast"], 0);
  std::vector<float> w_oihw(w_ohwi.size());
  for (int o = 0; o < 3; ++o)
    for (int i = 0; i < 2; ++i)
      for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x) {
          w_oihw[((o * 2 + i) * 2 + y) * 2 + x] = w_ohwi[((o * 2 + y) * 2 + x) * 2 + i];
        }
  std::vector<float> x = Iota(32);
  ExpectNear(RunGraph(*g, {FloatTensor({1, 2, 4, 4}, x)}),
             ConvNchw(x, {1, 2, 4, 4}, w_oihw, {3, 2, 2, 2}, 1, 0, 1));
}

// Folding never turns small constants into a big one: a broadcast to 128K
// elements from 768 stays a node (computed at run time).
TEST(OnnxReader, FoldingKeepsLargeResultsAsNodes) {
  OnnxBuilder b;
  b.Input("x", {256, 512});
  b.Initializer("a", {256, 1}, Iota(256));
  b.Initializer("c", {1, 512}, Iota(512));
  b.Node("Add", {"a", "c"}, {"big"});
  b.Node("Mul", {"x", "big"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["ElementWiseAdd"], 1);
  int64_t const_bytes = 0;
  for (const Node& n : g->nodes()) {
    if (n.op == kConstOp) const_bytes += n.constant->type().byte_size();
  }
  EXPECT_LT(const_bytes, 4096);
}

// then_branch: h = Relu(x) (a name the outer graph also defines), then a
// nested If on a branch-local constant whose branches read that h; else_branch
// reads the outer h = Neg(x).
OnnxBuilder IfModel() {
  OnnxBuilder inner_then, inner_else;
  inner_then.Node("Add", {"h", "h"}, {"twice"});
  inner_then.Output("twice");
  inner_else.Node("Sub", {"h", "h"}, {"zero"});
  inner_else.Output("zero");
  OnnxBuilder then_b;
  then_b.Node("Relu", {"x"}, {"h"});
  then_b.InitializerRaw("c2", {}, onnx::TensorProto::BOOL, std::string(1, '\1'));
  auto* nested = then_b.Node("If", {"c2"}, {"nested"});
  OnnxBuilder::AttrGraph(nested, "then_branch", inner_then.graph());
  OnnxBuilder::AttrGraph(nested, "else_branch", inner_else.graph());
  then_b.Output("nested", {2, 3});
  OnnxBuilder else_b;
  else_b.Node("Mul", {"h", "x"}, {"e"});
  else_b.Output("e", {2, 3});
  OnnxBuilder b;
  b.Input("x", {2, 3});
  b.Input("cond", {}, onnx::TensorProto::BOOL);
  b.Node("Neg", {"x"}, {"h"});
  auto* n = b.Node("If", {"cond"}, {"r"}, "if0");
  OnnxBuilder::AttrGraph(n, "then_branch", then_b.graph());
  OnnxBuilder::AttrGraph(n, "else_branch", else_b.graph());
  b.Output("r");
  b.Output("h");
  return b;
}

TEST(OnnxReader, IfWithAConstantConditionInlinesTheTakenBranch) {
  const std::vector<float> x = {-2, -1, 0, 1, 2, 3};
  for (bool cond : {true, false}) {
    OnnxImportOptions o;
    o.input_values.emplace("cond", BoolScalar(cond));
    absl::StatusOr<Graph> g = ParseOnnx(IfModel().Bytes(), "m.onnx", o);
    ASSERT_TRUE(g.ok()) << g.status();
    std::map<std::string, int> h = Histogram(*g);
    EXPECT_EQ(h["onnx.If"], 0);
    EXPECT_EQ(h["Relu"], cond ? 1 : 0);
    EXPECT_EQ(g->inputs().size(), 1u);
    std::vector<double> r, neg;
    for (float v : x) {
      neg.push_back(-v);
      r.push_back(cond ? 2 * std::max(v, 0.0f) : -v * v);
    }
    std::vector<std::vector<double>> out = RunOutputs(*g, {FloatTensor({2, 3}, x)});
    ASSERT_EQ(out.size(), 2u);
    ExpectNear(out[0], r);    // the branch's h, not the outer one
    ExpectNear(out[1], neg);  // the outer h, untouched by the branch's
  }
}

// The condition is constant once the shape arithmetic is folded.
TEST(OnnxReader, IfConditionFromFoldedShapes) {
  OnnxBuilder then_b, else_b;
  then_b.Node("Relu", {"x"}, {"t"});
  then_b.Output("t");
  else_b.Node("Neg", {"x"}, {"e"});
  else_b.Output("e");
  OnnxBuilder b;
  b.Input("x", {2, 3});
  b.Node("Shape", {"x"}, {"s"});
  b.InitializerInt64("i1", {}, {1});
  b.Node("Gather", {"s", "i1"}, {"d1"});
  b.InitializerInt64("three", {}, {3});
  b.Node("Sub", {"d1", "three"}, {"diff"});  // 0
  auto* cast = b.Node("Cast", {"diff"}, {"cond"});
  OnnxBuilder::AttrInt(cast, "to", onnx::TensorProto::BOOL);
  auto* n = b.Node("If", {"cond"}, {"r"});
  OnnxBuilder::AttrGraph(n, "then_branch", then_b.graph());
  OnnxBuilder::AttrGraph(n, "else_branch", else_b.graph());
  b.Output("r");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  std::map<std::string, int> h = Histogram(*g);
  EXPECT_EQ(h["onnx.If"], 0);
  EXPECT_EQ(h["Neg"], 1);
  EXPECT_EQ(h["Relu"], 0);
  EXPECT_EQ(h["Cast"], 0);
}

// A run-time condition: the branches are imported as subgraphs of the
// onnx.If node (then_branch's own h shadows the outer h, which else_branch
// reads: a captured input of the node), and the executor runs the one taken.
TEST(OnnxReader, IfWithARuntimeConditionImportsItsBranches) {
  absl::StatusOr<Graph> g = ParseOnnx(IfModel().Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  NodeId id = FindOp(*g, "onnx.If");
  ASSERT_NE(id, kNoNode);
  const Node& n = g->node(id);
  EXPECT_EQ(n.outputs[0], TensorType(DType::kFloat32, {2, 3}));
  EXPECT_FALSE(n.attrs.contains("onnx.unmapped"));
  EXPECT_EQ(Histogram(*g)["Relu"], 0);  // in then_branch, not the outer graph
  const Graph& then_g = *std::get<GraphPtr>(n.attrs.at("then_branch"));
  const Graph& else_g = *std::get<GraphPtr>(n.attrs.at("else_branch"));
  EXPECT_EQ(Histogram(then_g)["Relu"], 1);
  EXPECT_EQ(Histogram(else_g)["Multiply"] + Histogram(else_g)["ElementWiseMultiply"], 1);
  // Inputs: cond, then the captured x and h.
  EXPECT_EQ(std::get<int64_t>(n.attrs.at(std::string(kCapturedAttr))), 2);
  ASSERT_EQ(n.inputs.size(), 3u);
  const std::vector<double> x = {-2, -1, 0, 1, 2, 3};
  for (bool cond : {true, false}) {
    absl::StatusOr<std::vector<Tensor>> out =
        Execute(*g, {Tensor::FromValues(TensorType(DType::kFloat32, {2, 3}), x), BoolScalar(cond)});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int i = 0; i < 6; ++i) {
      const double want = cond ? 2 * std::max(x[i], 0.0) : -x[i] * x[i];
      EXPECT_EQ((*out)[0].GetReal(i), want) << i;
    }
  }
}

// ONNX's inference cannot type a Reshape to a computed shape; egret's import
// of both branches (folding the shape) can, and the branches' nodes are dead.
// Branches of different types leave the If untypeable: an error naming both.
TEST(OnnxReader, IfWithARuntimeConditionTypedByImportingItsBranches) {
  auto model = [](std::vector<int64_t> then_dims) {
    OnnxBuilder then_b, else_b;
    then_b.Node("Mul", {"dims", "ones"}, {"computed"});
    then_b.Node("Reshape", {"x", "computed"}, {"t"});
    then_b.Output("t");
    else_b.Node("Neg", {"x"}, {"e"});
    else_b.Output("e");
    OnnxBuilder b;
    b.Input("x", {2, 3});
    b.Input("cond", {}, onnx::TensorProto::BOOL);
    b.InitializerInt64("dims", {2}, then_dims);
    b.InitializerInt64("ones", {2}, {1, 1});
    auto* n = b.Node("If", {"cond"}, {"r"});
    OnnxBuilder::AttrGraph(n, "then_branch", then_b.graph());
    OnnxBuilder::AttrGraph(n, "else_branch", else_b.graph());
    b.Output("r");
    return b.Bytes();
  };
  absl::StatusOr<Graph> g = ParseOnnx(model({2, 3}), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  NodeId id = FindOp(*g, "onnx.If");
  ASSERT_NE(id, kNoNode);
  EXPECT_EQ(g->node(id).outputs[0], TensorType(DType::kFloat32, {2, 3}));
  EXPECT_EQ(Histogram(*g)["Neg"], 0);
  g = ParseOnnx(model({3, 2}), "m.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("the branches give Float32[3,2] and Float32[2,3]); freezing the graph "
                        "inputs the condition depends on inlines one branch"));
}

// Loop with a constant trip count whose body passes its condition through:
// the final value keeps its type, the scan output stacks 3 body outputs.
TEST(OnnxReader, LoopStaysOpaqueWithItsTypes) {
  OnnxBuilder body;
  body.Input("iter", {}, onnx::TensorProto::INT64);
  body.Input("cond_in", {}, onnx::TensorProto::BOOL);
  body.Input("y_in", {2});
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Node("Add", {"y_in", "one"}, {"y_out"});  // `one` is the outer graph's
  body.Node("Identity", {"y_out"}, {"scan_out"});
  body.Output("cond_out", {}, onnx::TensorProto::BOOL);
  body.Output("y_out");
  body.Output("scan_out");
  OnnxBuilder b(13);
  b.Input("y0", {2});
  b.InitializerInt64("trips", {}, {3});
  b.InitializerRaw("go", {}, onnx::TensorProto::BOOL, std::string(1, '\1'));
  b.Initializer("one", {2}, {1, 1});
  auto* loop = b.Node("Loop", {"trips", "go", "y0"}, {"y_final", "ys"});
  OnnxBuilder::AttrGraph(loop, "body", body.graph());
  b.Output("y_final");
  b.Output("ys");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  NodeId id = FindOp(*g, "onnx.Loop");
  ASSERT_NE(id, kNoNode);
  const Node& n = g->node(id);
  ASSERT_EQ(n.outputs.size(), 2u);
  EXPECT_EQ(n.outputs[0], TensorType(DType::kFloat32, {2}));
  EXPECT_EQ(n.outputs[1], TensorType(DType::kFloat32, {3, 2}));
}

TEST(OnnxReader, SymbolicDimsNeedASize) {
  OnnxBuilder b;
  b.InputSymbolic("x", "N", 4);
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(),
              HasSubstr("1 graph input dim has no size: 'x' dim 0 (symbolic 'N')"));
  OnnxImportOptions options;
  options.dim_params["N"] = 3;
  g = ParseOnnx(b.Bytes(), "m.onnx", options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(g->inputs()[0]).outputs[0].dims, (Dims{3, 4}));
}

// Every unsized dim is listed at once, with the CLI's flags that would size
// them when asked for; a name that is no input or symbolic dim is an error
// listing the real ones.
TEST(OnnxReader, UnsizedDimsAreListedAndUnknownNamesRejected) {
  OnnxBuilder b;
  b.InputSymbolic("x", "batch", 4);
  auto* y = b.model().mutable_graph()->add_input();
  y->set_name("state");
  auto* tt = y->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim();  // unknown
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  b.Node("Relu", {"x"}, {"r"});
  b.Node("Relu", {"state"}, {"s"});
  b.Output("r");
  b.Output("s");
  OnnxImportOptions cli;
  cli.suggest_cli_flags = true;
  cli.symbolic_dim_hint = "--dim NAME=N";
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx", cli);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(g.status().message(),
            "m.onnx: error: 3 graph input dims have no size: 'x' dim 0 (symbolic 'batch'), "
            "'state' dim 1 (unknown), 'state' dim 2 (symbolic 'batch'); give them (--dim "
            "NAME=N), e.g. --dim batch=1 --input-shape state=2x1x1");
  cli.input_shapes["stat"] = {2, 1, 1};
  g = ParseOnnx(b.Bytes(), "m.onnx", cli);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(g.status().message(),
            "m.onnx: error: a shape is given for 'stat', which is not a graph input (the graph "
            "inputs are: x, state)");
  cli.input_shapes.clear();
  cli.dim_params["Batch"] = 1;
  g = ParseOnnx(b.Bytes(), "m.onnx", cli);
  EXPECT_EQ(g.status().message(),
            "m.onnx: error: a size is given for symbolic dim 'Batch', which no graph input has "
            "(the symbolic dims are: batch)");
  cli.dim_params.clear();
  cli.dim_params["batch"] = 3;
  cli.input_shapes["state"] = {2, 5, 3};
  g = ParseOnnx(b.Bytes(), "m.onnx", cli);
  ASSERT_TRUE(g.ok()) << g.status();
}

// A front end names its own flags in the symbolic-dim error; the whole shape
// of an input can be given; an input can be frozen to numbers.
TEST(OnnxReader, InputShapesAndNumbers) {
  OnnxBuilder b;
  b.InputSymbolic("x", "N", 4);
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  OnnxImportOptions hinted;
  hinted.symbolic_dim_hint = "--dim NAME=N";
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx", hinted);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("; give it (--dim NAME=N)"));
  EXPECT_THAT(g.status().message(), ::testing::Not(HasSubstr("e.g.")));
  OnnxImportOptions shaped;
  shaped.input_shapes["x"] = {2, 4};
  g = ParseOnnx(b.Bytes(), "m.onnx", shaped);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(g->inputs()[0]).outputs[0].dims, (Dims{2, 4}));
  // The declared rank and static dims must agree.
  shaped.input_shapes["x"] = {2, 5};
  g = ParseOnnx(b.Bytes(), "m.onnx", shaped);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(),
              HasSubstr("graph input 'x' has dim 1 = 4; the given shape [2,5] disagrees"));
  shaped.input_shapes["x"] = {8};
  EXPECT_THAT(ParseOnnx(b.Bytes(), "m.onnx", shaped).status().message(),
              HasSubstr("graph input 'x' has rank 2; the given shape [8] has rank 1"));
  // Frozen to numbers: no graph input is left, the output is a function of a
  // constant (one value given for all 8 elements).
  OnnxImportOptions frozen;
  frozen.input_shapes["x"] = {2, 4};
  frozen.input_numbers["x"] = {-3};
  g = ParseOnnx(b.Bytes(), "m.onnx", frozen);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->inputs().empty());
  frozen.input_numbers["x"] = {1, 2, 3};
  EXPECT_THAT(ParseOnnx(b.Bytes(), "m.onnx", frozen).status().message(),
              HasSubstr("graph input 'x' is Float32[2,4] (8 elements); 3 values given"));
}

TEST(OnnxReader, BadInputGivesOneLineErrors) {
  // Not a protobuf at all.
  absl::StatusOr<Graph> g = ParseOnnx("\xff\xff\xff garbage", "bad.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), HasSubstr("bad.onnx: error: not a valid ONNX model"));
  EXPECT_EQ(ExitCodeFor(g.status()), kExitBadInput);
  // Every truncation of a valid model fails cleanly or imports.
  OnnxBuilder ok;
  ok.Input("x", {1, 3, 4, 4});
  ok.Initializer("w", {2, 3, 1, 1}, Iota(6));
  ok.Node("Conv", {"x", "w"}, {"y"}, "conv1");
  ok.Output("y");
  std::string bytes = ok.Bytes();
  for (size_t n = 0; n < bytes.size(); n += 3) {
    absl::StatusOr<Graph> t = ParseOnnx(bytes.substr(0, n), "cut.onnx");
    if (!t.ok()) {
      EXPECT_THAT(t.status().message(), HasSubstr("cut.onnx: error: "));
    }
  }
  // A node reading a tensor nobody makes.
  OnnxBuilder b;
  b.Input("x", {2});
  b.Node("Relu", {"zz"}, {"y"}, "n1");
  b.Output("y");
  g = ParseOnnx(b.Bytes(), "model.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "model.onnx: error: node 'n1' (Relu): input 'zz' is not a graph input, an "
            "initializer or any node's output");
  // A node whose shapes do not fit names the node.
  OnnxBuilder c;
  c.Input("x", {1, 3, 4, 4});
  c.Initializer("w", {2, 5, 1, 1}, Iota(10));
  c.Node("Conv", {"x", "w"}, {"y"}, "conv1");
  c.Output("y");
  g = ParseOnnx(c.Bytes(), "model.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("model.onnx: error: node 'conv1' (Conv): "));
}

TEST(OnnxReader, LoadGraphDispatchesOnExtension) {
  OnnxBuilder b;
  b.Input("x", {2});
  b.Node("Sigmoid", {"x"}, {"y"});
  b.Output("y");
  std::string path = std::string(EGRET_BINARY_DIR) + "/onnx_reader_test_model.onnx";
  {
    std::ofstream f(path, std::ios::binary);
    f << b.Bytes();
  }
  absl::StatusOr<Graph> g = LoadGraph(path);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["Sigmoid"], 1);
  std::filesystem::remove(path);
  absl::StatusOr<Graph> missing = LoadGraph(path);
  EXPECT_FALSE(missing.ok());
}

TEST(OnnxReader, ReadsTensorProtoFiles) {
  const char* path = "/usr/share/libonnx-testdata/data/node/test_abs/test_data_set_0/input_0.pb";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "libonnx-testdata not installed";
  absl::StatusOr<Tensor> t = ReadOnnxTensor(path);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->type(), TensorType(DType::kFloat32, {3, 4, 5}));
}

// Integer lists that are no legal shape (six Split sizes whose product is over
// 2^56; the ten pads of a rank-5 Pad) are parameters all the same: imported
// as constants, not rejected as shapes (YOLOv5's decode, YOLOv7's head).
TEST(OnnxReader, LongIntegerListsThatAreNoShapeImportAsConstants) {
  OnnxBuilder b;
  b.Input("x", {1, 26000, 2});
  b.InitializerInt64("sizes", {6}, {5000, 5000, 5000, 5000, 5000, 1000});
  auto* split = b.Node("Split", {"x", "sizes"}, {"s0", "s1", "s2", "s3", "s4", "s5"});
  OnnxBuilder::AttrInt(split, "axis", 1);
  b.Input("v", {1, 1, 2, 1, 2});
  b.InitializerInt64("pads", {10}, {0, 0, 0, 0, 1, 0, 0, 0, 0, 2});
  b.Node("Pad", {"v", "pads"}, {"pv"});
  b.Output("s5");
  b.Output("pv");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value).dims, (Dims{1, 1000, 2}));
  EXPECT_EQ(g->TypeOf(g->outputs()[1].value).dims, (Dims{1, 1, 2, 1, 5}));
  std::vector<float> x(52000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  absl::StatusOr<std::vector<Tensor>> out =
      Execute(*g, {FloatTensor({1, 26000, 2}, x), FloatTensor({1, 1, 2, 1, 2}, {1, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].GetValue(0), 50000.0);  // element (0, 25000, 0)
  std::vector<double> pv;
  for (int64_t i = 0; i < (*out)[1].num_elements(); ++i) pv.push_back((*out)[1].GetValue(i));
  EXPECT_EQ(pv, (std::vector<double>{0, 1, 2, 0, 0, 0, 3, 4, 0, 0}));
}

}  // namespace
}  // namespace egret
