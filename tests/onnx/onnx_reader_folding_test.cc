// The ONNX reader's constant folding (shape arithmetic, constant subgraphs
// through the executor) and control flow (If, Loop).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/onnx_reader_test_util.h"

namespace egret {
namespace {

using ::testing::HasSubstr;
using testing::OnnxBuilder;

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

// Adds `out` = If(`cond`) { Relu(`x`) } else { Neg(`x`) } to `b`; the
// branches read `x` from the enclosing graph.
void AddReluOrNegIf(OnnxBuilder& b, const std::string& cond, const std::string& x,
                    const std::string& out) {
  OnnxBuilder then_b, else_b;
  then_b.Node("Relu", {x}, {"t"});
  then_b.Output("t");
  else_b.Node("Neg", {x}, {"e"});
  else_b.Output("e");
  auto* n = b.Node("If", {cond}, {out});
  OnnxBuilder::AttrGraph(n, "then_branch", then_b.graph());
  OnnxBuilder::AttrGraph(n, "else_branch", else_b.graph());
}

// The condition is constant once the shape arithmetic is folded.
TEST(OnnxReader, IfConditionFromFoldedShapes) {
  OnnxBuilder b;
  b.Input("x", {2, 3});
  b.Node("Shape", {"x"}, {"s"});
  b.InitializerInt64("i1", {}, {1});
  b.Node("Gather", {"s", "i1"}, {"d1"});
  b.InitializerInt64("three", {}, {3});
  b.Node("Sub", {"d1", "three"}, {"diff"});  // 0
  auto* cast = b.Node("Cast", {"diff"}, {"cond"});
  OnnxBuilder::AttrInt(cast, "to", onnx::TensorProto::BOOL);
  AddReluOrNegIf(b, "cond", "x", "r");
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

// A size given for the outer graph's symbolic dim (--dim batch=2) is the
// outer graph's: the branches, whose inputs come typed from the outer graph,
// import as well, and are not rejected for lacking a dim named "batch".
TEST(OnnxReader, IfBranchesImportWhenTheOuterGraphHasSizedSymbolicDims) {
  OnnxBuilder b;
  b.InputSymbolic("x", "batch", 3);
  b.Input("cond", {}, onnx::TensorProto::BOOL);
  AddReluOrNegIf(b, "cond", "x", "r");
  b.Output("r");
  OnnxImportOptions opts;
  opts.dim_params["batch"] = 2;
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx", opts);
  ASSERT_TRUE(g.ok()) << g.status();
  const NodeId id = FindOp(*g, "onnx.If");
  ASSERT_NE(id, kNoNode);
  const Node& node = g->node(id);
  EXPECT_FALSE(node.attrs.contains("onnx.unmapped"))
      << std::get<std::string>(node.attrs.at("onnx.unmapped"));
  ASSERT_TRUE(std::holds_alternative<GraphPtr>(node.attrs.at("then_branch")));
  ASSERT_TRUE(std::holds_alternative<GraphPtr>(node.attrs.at("else_branch")));
  EXPECT_EQ(node.outputs[0], TensorType(DType::kFloat32, {2, 3}));
  const std::vector<double> x = {-2, -1, 0, 1, 2, 3};
  for (bool cond : {true, false}) {
    absl::StatusOr<std::vector<Tensor>> out =
        Execute(*g, {Tensor::FromValues(TensorType(DType::kFloat32, {2, 3}), x), BoolScalar(cond)});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int i = 0; i < 6; ++i) EXPECT_EQ((*out)[0].GetReal(i), cond ? std::max(x[i], 0.0) : -x[i]);
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

}  // namespace
}  // namespace egret
