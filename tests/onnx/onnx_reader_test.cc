// The ONNX reader on small models built in code: op mapping, the NHWC layout
// conversion (checked numerically against NCHW reference loops through the
// reference executor), node sorting, opaque ops and bad input.
#include "egret/onnx/onnx_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "egret/backend/executor.h"
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

TEST(OnnxReader, SymbolicDimsNeedASize) {
  OnnxBuilder b;
  b.InputSymbolic("x", "N", 4);
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("graph input 'x' has symbolic 'N' dim 0"));
  OnnxImportOptions options;
  options.dim_params["N"] = 3;
  g = ParseOnnx(b.Bytes(), "m.onnx", options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(g->inputs()[0]).outputs[0].dims, (Dims{3, 4}));
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
  EXPECT_THAT(g.status().message(), HasSubstr("give its size (--dim NAME=N)"));
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

}  // namespace
}  // namespace egret
