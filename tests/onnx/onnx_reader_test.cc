// The ONNX reader on small models built in code: bad input and clean errors,
// node sorting, opaque ops, symbolic dims and input shapes, and reading by
// extension (layout, ops and folding in onnx_reader_*_test.cc; helpers in
// onnx_reader_test_util.h).
#include "egret/onnx/onnx_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/graph/op_table.h"
#include "egret/io/graph_io.h"
#include "egret/support/diagnostic.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/onnx_reader_test_util.h"

namespace egret {
namespace {

using ::testing::HasSubstr;
using testing::OnnxBuilder;

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
