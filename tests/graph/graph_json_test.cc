#include "egret/graph/graph_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A fresh, empty directory per test.
// The sidecar WriteGraphJson wrote beside `json_path` ("<name>.<16 hex>.bin"),
// or "" when there is none.
std::string SidecarPath(const std::string& json_path) {
  const fs::path p(json_path);
  const std::string prefix = p.filename().string() + ".";
  for (const auto& e : fs::directory_iterator(p.parent_path())) {
    const std::string name = e.path().filename().string();
    if (name.size() == prefix.size() + 16 + 4 && name.rfind(prefix, 0) == 0 &&
        name.substr(name.size() - 4) == ".bin") {
      return e.path().string();
    }
  }
  return "";
}

std::string TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(::testing::TempDir()) /
                 absl::StrCat("egret_graph_json_", info->test_suite_name(), "_", info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void WriteText(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

ConstTensorPtr MakeConst(TensorType type, std::vector<double> values) {
  return std::make_shared<const Tensor>(Tensor::FromValues(std::move(type), values));
}

ConstTensorPtr Ramp(TensorType type) {
  Tensor t(std::move(type));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetValue(i, static_cast<double>(i % 251) - 100);
  return std::make_shared<const Tensor>(std::move(t));
}

// A graph using every field of the format.
Graph FullGraph() {
  Graph g;
  g.set_name("every \"field\"");
  g.mutable_options()["enable_autothread"] = int64_t{1};
  g.mutable_options()["quant_is_updateable"] = false;
  g.mutable_options()["scale"] = 0.1;
  g.mutable_options()["integral_float"] = 2.0;
  g.mutable_options()["too_big"] = std::numeric_limits<double>::infinity();
  g.mutable_options()["target"] = std::string("v73");

  // Inputs added in the opposite order from the graph-input order.
  Node y_node;
  y_node.op = std::string(kInputOp);
  y_node.name = "y";
  y_node.outputs = {TensorType(DType::kFloat32, {1, 8})};
  NodeId y = g.AddNode(y_node);
  NodeId x = g.AddInput("x", TensorType(DType::kQUInt8, {1, 8, 8, 16}, 128, 0.05f));
  g.mutable_inputs() = {x, y};

  // Small constants of every dtype, with extreme values.
  g.AddConstant("c_qu8", MakeConst(TensorType(DType::kQUInt8, {3}, 7, 0.25f), {0, 128, 255}));
  g.AddConstant("c_qi8", MakeConst(TensorType(DType::kQInt8, {2}, -3, 0.5f), {-128, 127}));
  g.AddConstant("c_qu16", MakeConst(TensorType(DType::kQUInt16, {2}), {0, 65535}));
  g.AddConstant("c_qi16", MakeConst(TensorType(DType::kQInt16, {2}), {-32768, 32767}));
  g.AddConstant("c_i32", MakeConst(TensorType(DType::kInt32, {2}), {-2147483648.0, 2147483647}));
  g.AddConstant("c_qi32", MakeConst(TensorType(DType::kQInt32, {1}, 0, 1e-4f), {-5}));
  g.AddConstant("c_f16", MakeConst(TensorType(DType::kFloat16, {3}), {0.1, -65504, 6e-8}));
  g.AddConstant("c_bool", MakeConst(TensorType(DType::kBool, {2}), {1, 0}));
  TensorType scalar;
  scalar.dtype = DType::kFloat32;
  g.AddConstant("c_scalar", MakeConst(scalar, {3.25}));
  {
    std::vector<uint8_t> bytes(16);
    int64_t values[2] = {std::numeric_limits<int64_t>::min(), (int64_t{1} << 62) + 1};
    std::memcpy(bytes.data(), values, 16);
    g.AddConstant("c_i64", std::make_shared<const Tensor>(
                               *Tensor::FromBytes(TensorType(DType::kInt64, {2}), bytes)));
  }
  g.AddConstant("c_f32", MakeConst(TensorType(DType::kFloat32, {4}),
                                   {0.1, std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(), 1e-38}));
  // A large constant (goes to the sidecar) used by two nodes, and one more.
  ConstTensorPtr w = Ramp(TensorType(DType::kQUInt8, {3, 3, 16, 32}, 120, 0.01f));
  NodeId w1 = g.AddConstant("w1", w);
  NodeId w2 = g.AddConstant("w2", w);
  NodeId b = g.AddConstant("b", Ramp(TensorType(DType::kQInt32, {5000})));

  Node shape;
  shape.op = std::string(kShapeOp);
  shape.name = "stride";
  shape.outputs = {TensorType(DType::kInt32, {1, 1, 1, 1})};
  NodeId stride = g.AddNode(shape);

  // Ops egret does not know (kept opaque, as an imported op it has no row
  // for), so that their operands and types serve the format's coverage alone;
  // declared_types_test.cc checks known ops against their shape functions.
  Node conv;
  conv.op = "vendor.Conv";
  conv.name = "conv";
  conv.inputs = {{x, 0}, {w1, 0}, {b, 0}, {stride, 0}};
  conv.outputs = {TensorType(DType::kQUInt8, {1, 8, 8, 32}, 128, 0.05f)};
  conv.attrs["i"] = int64_t{-7};
  conv.attrs["d"] = 0.5;
  conv.attrs["d_int"] = 3.0;
  conv.attrs["d_inf"] = -std::numeric_limits<double>::infinity();
  conv.attrs["s"] = std::string("SAME");
  conv.attrs["ints"] = std::vector<int64_t>{1, -2, 3};
  conv.attrs["ints_empty"] = std::vector<int64_t>{};
  conv.attrs["floats"] = std::vector<double>{1.0, 2.5};
  conv.attrs["floats_empty"] = std::vector<double>{};
  conv.attrs["floats_inf"] = std::vector<double>{1.0, std::numeric_limits<double>::infinity()};
  NodeId c = g.AddNode(conv);

  Node conv2 = conv;
  conv2.name = "conv2";
  conv2.attrs.clear();
  conv2.inputs[1] = {w2, 0};
  NodeId c2 = g.AddNode(conv2);

  Node split;
  split.op = "vendor.Split";
  split.name = "split";
  split.inputs = {{c, 0}};
  split.outputs = {TensorType(DType::kQUInt8, {1, 8, 8, 8}, 128, 0.05f),
                   TensorType(DType::kQUInt8, {1, 8, 8, 8}, 128, 0.05f)};
  NodeId s = g.AddNode(split);

  Node relu;  // no name: the writer generates one
  relu.op = "Relu";
  relu.inputs = {{s, 1}};
  relu.outputs = {split.outputs[1]};
  NodeId r = g.AddNode(relu);

  g.AddOutput({r, 0}, "out");
  g.AddOutput({s, 0});
  g.AddOutput({c2, 0}, "second");
  return g;
}

// Structural equality; `generated_names` lets nodes without a name in `a`
// have any name in `b`.
void ExpectSameGraph(const Graph& a, const Graph& b, bool generated_names = true) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.options(), b.options());
  ASSERT_EQ(a.num_nodes(), b.num_nodes());
  for (NodeId id = 0; id < a.num_nodes(); ++id) {
    SCOPED_TRACE(absl::StrCat("node #", id));
    const Node& na = a.node(id);
    const Node& nb = b.node(id);
    EXPECT_EQ(na.op, nb.op);
    if (!na.name.empty() || !generated_names) {
      EXPECT_EQ(na.name, nb.name);
    } else {
      EXPECT_FALSE(nb.name.empty());
    }
    EXPECT_TRUE(std::equal(na.inputs.begin(), na.inputs.end(), nb.inputs.begin(), nb.inputs.end()));
    EXPECT_TRUE(
        std::equal(na.outputs.begin(), na.outputs.end(), nb.outputs.begin(), nb.outputs.end()));
    EXPECT_EQ(na.attrs, nb.attrs);
    ASSERT_EQ(na.constant == nullptr, nb.constant == nullptr);
    if (na.constant) {
      EXPECT_TRUE(*na.constant == *nb.constant);
    }
  }
  EXPECT_EQ(a.inputs(), b.inputs());
  ASSERT_EQ(a.outputs().size(), b.outputs().size());
  for (size_t k = 0; k < a.outputs().size(); ++k) {
    EXPECT_EQ(a.outputs()[k].value, b.outputs()[k].value);
    EXPECT_EQ(a.outputs()[k].name, b.outputs()[k].name);
  }
}

TEST(GraphJson, RoundTripsEveryFieldThroughFileAndSidecar) {
  Graph g = FullGraph();
  ASSERT_TRUE(g.Validate().ok()) << g.Validate();
  std::string dir = TestDir();
  std::string path = dir + "/g.json";
  ASSERT_TRUE(WriteGraphJson(g, path).ok());
  const std::string sidecar = SidecarPath(path);
  ASSERT_FALSE(sidecar.empty());
  // w (4608 bytes, shared by w1 and w2) once, then b (20000 bytes) at a 64-byte boundary.
  EXPECT_EQ(fs::file_size(sidecar), 4608u + 20000u);

  absl::StatusOr<Graph> back = ReadGraphJson(path);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(g, *back);
  // The shared constant is one tensor again after reading.
  EXPECT_EQ(back->node(back->FindNode("w1")).constant.get(),
            back->node(back->FindNode("w2")).constant.get());
}

TEST(GraphJson, WritingIsAFixpointAndNormalized) {
  std::string dir = TestDir();
  ASSERT_TRUE(WriteGraphJson(FullGraph(), dir + "/a.json").ok());
  absl::StatusOr<Graph> a = ReadGraphJson(dir + "/a.json");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(WriteGraphJson(*a, dir + "/b.json").ok());
  std::string text_a = *ReadFile(dir + "/a.json");
  std::string text_b = *ReadFile(dir + "/b.json");
  EXPECT_EQ(absl::StrReplaceAll(text_a, {{"\"a.json.", "\"b.json."}}), text_b);
  EXPECT_EQ(*ReadFile(SidecarPath(dir + "/a.json")), *ReadFile(SidecarPath(dir + "/b.json")));
  // Header first, float stepsize in its shortest form, defaults left out.
  EXPECT_THAT(text_a, StartsWith("{\n  \"format\": \"egret-graph\",\n  \"version\": 1,\n"));
  EXPECT_THAT(text_a, HasSubstr("{\"dtype\": \"QUInt8\", \"shape\": [1, 8, 8, 16], "
                                "\"zero_offset\": 128, \"stepsize\": 0.05}"));
  EXPECT_THAT(text_a, HasSubstr("{\"dtype\": \"Float32\", \"shape\": [1, 8]}"));
  EXPECT_THAT(text_a, HasSubstr("\"data\": [0.1, \"inf\", \"-inf\", 1e-38]"));
  EXPECT_THAT(text_a, HasSubstr("\"floats_empty\": {\"floats\": []}"));
  EXPECT_THAT(text_a, HasSubstr("\"inputs\": [\"split:1\"]"));
  EXPECT_THAT(text_a, HasSubstr("\"name\": \"Relu_"));
}

TEST(GraphJson, InlineStringRoundTrips) {
  Graph g = FullGraph();
  absl::StatusOr<std::string> text = GraphToJsonString(g);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, ::testing::Not(HasSubstr("sidecar")));
  absl::StatusOr<Graph> back = ParseGraphJson(*text, "mem.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(g, *back);
}

// A subgraph attribute ({"graph": ...}) round trips, nested, with its own
// node-name scope; an error inside it points into it.
TEST(GraphJson, SubgraphAttributesRoundTrip) {
  auto body = std::make_shared<Graph>();
  body->set_name("b");
  NodeId bx = body->AddInput("x", TensorType(DType::kFloat32, {2}));
  NodeId c = body->AddConstant("k", MakeConst(TensorType(DType::kFloat32, {2}), {1, 2}));
  Node add;
  add.op = "ElementWiseAdd";
  add.name = "x2";  // also a name of the outer graph
  add.inputs = {ValueRef{bx, 0}, ValueRef{c, 0}};
  add.outputs.push_back(TensorType(DType::kFloat32, {2}));
  body->AddOutput(ValueRef{body->AddNode(std::move(add)), 0}, "y");
  auto outer_body = std::make_shared<Graph>(*body);
  Node inner;
  inner.op = "onnx.If";
  inner.name = "inner";
  inner.inputs = {ValueRef{outer_body->inputs()[0], 0}};
  inner.attrs["then_branch"] = GraphPtr(body);
  inner.outputs.push_back(TensorType(DType::kFloat32, {2}));
  outer_body->AddNode(std::move(inner));
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {2}));
  Node n;
  n.op = "onnx.If";
  n.name = "x2";
  n.inputs = {ValueRef{x, 0}};
  n.attrs["then_branch"] = GraphPtr(outer_body);
  n.attrs[std::string(kCapturedAttr)] = int64_t{0};
  n.outputs.push_back(TensorType(DType::kFloat32, {2}));
  g.AddOutput(ValueRef{g.AddNode(std::move(n)), 0}, "out");
  absl::StatusOr<std::string> text = GraphToJsonString(g);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("\"then_branch\": {\n"));
  absl::StatusOr<Graph> back = ParseGraphJson(*text, "mem.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  const GraphPtr& b1 = std::get<GraphPtr>(back->node(1).attrs.at("then_branch"));
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(b1->num_nodes(), 4u);
  const GraphPtr& b2 = std::get<GraphPtr>(b1->node(3).attrs.at("then_branch"));
  ASSERT_NE(b2, nullptr);
  EXPECT_EQ(b2->name(), "b");
  EXPECT_EQ(b2->node(2).name, "x2");
  EXPECT_EQ(b2->node(1).constant->GetValue(1), 2);
  EXPECT_EQ(*GraphToJsonString(*back), *text);  // a fixpoint
  // An error inside a subgraph points into it.
  std::string bad =
      absl::StrReplaceAll(*text, {{"\"inputs\": [\"x\", \"k\"]", "\"inputs\": [\"x\", \"nope\"]"}});
  ASSERT_NE(bad, *text);
  absl::StatusOr<Graph> err = ParseGraphJson(bad, "mem.json", "");
  ASSERT_FALSE(err.ok());
  EXPECT_THAT(err.status().message(),
              HasSubstr("at /nodes/1/attrs/then_branch/graph/nodes/3/attrs/then_branch/graph/"
                        "nodes/2/inputs/1: no node named 'nope'"));
}

TEST(GraphJson, NanSurvives) {
  Graph g;
  g.AddConstant(
      "c", MakeConst(TensorType(DType::kFloat32, {1}), {std::numeric_limits<double>::quiet_NaN()}));
  absl::StatusOr<Graph> back = ParseGraphJson(*GraphToJsonString(g), "m.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(std::isnan(back->node(0).constant->GetValue(0)));
}

TEST(GraphJson, GeneratedNamesAvoidTakenOnesAndAmbiguousReferencesStayExact) {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {2}));
  Node split;
  split.op = "vendor.Split";
  split.name = "a";
  split.inputs = {{x, 0}};
  split.outputs = {TensorType(DType::kFloat32, {1}), TensorType(DType::kFloat32, {1})};
  NodeId a = g.AddNode(split);
  Node other;
  other.op = "Relu";
  other.name = "a:1";  // looks like output 1 of "a"
  other.inputs = {{a, 0}};
  other.outputs = {TensorType(DType::kFloat32, {1})};
  NodeId a1 = g.AddNode(other);
  Node user;
  user.op = "ElementWiseAdd";
  user.name = "Relu_4";  // the name the next (unnamed) node would get
  user.inputs = {{a, 1}, {a1, 0}};
  user.outputs = {TensorType(DType::kFloat32, {1})};
  NodeId u = g.AddNode(user);
  Node unnamed;
  unnamed.op = "Relu";
  unnamed.inputs = {{u, 0}};
  unnamed.outputs = {TensorType(DType::kFloat32, {1})};
  g.AddNode(unnamed);

  absl::StatusOr<std::string> text = GraphToJsonString(g);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("{\"node\": \"a\", \"output\": 1}"));
  absl::StatusOr<Graph> back = ParseGraphJson(*text, "m.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(g, *back);
  EXPECT_EQ(back->node(4).name, "Relu_4_1");
}

TEST(GraphJson, WriterRejectsInvalidGraphAndWritesNothing) {
  Graph g;
  Node n;
  n.op = "Relu";
  n.name = "r";
  n.inputs = {{7, 0}};
  n.outputs = {TensorType(DType::kFloat32, {1})};
  g.AddNode(n);
  std::string path = TestDir() + "/bad.json";
  absl::Status s = WriteGraphJson(g, path);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(path));
}

TEST(GraphJson, InputsDefaultToInputNodesInOrderAndOutputsMayBePlainStrings) {
  absl::StatusOr<Graph> g = ParseGraphJson(R"({"format": "egret-graph", "version": 1,
    "nodes": [
      {"name": "b", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2]}]},
      {"name": "a", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2]}]},
      {"name": "s", "op": "ElementWiseAdd", "inputs": ["a", "b:0"],
       "outputs": [{"dtype": "Float32", "shape": [2]}]}],
    "outputs": ["s"]})",
                                           "m.json", "");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->inputs(), (std::vector<NodeId>{0, 1}));
  ASSERT_EQ(g->outputs().size(), 1u);
  EXPECT_EQ(g->outputs()[0].value, (ValueRef{2, 0}));
  EXPECT_EQ(g->node(2).inputs[0], (ValueRef{1, 0}));
}

// ---------------------------------------------------------------------------
// Bad input: each case is a JSON text, the text at which the error must point
// (its first occurrence; "" for line 1 col 1) and the message after
// "file:line:col: error: ".

struct BadCase {
  std::string name;
  std::string text;
  std::string at;
  std::string message;
};

constexpr char kHeader[] = R"({"format": "egret-graph", "version": 1, )";

std::string WithNodes(const std::string& nodes, const std::string& rest = "") {
  return absl::StrCat(kHeader, "\"nodes\": [\n", nodes, "\n]", rest, "}");
}

constexpr char kX[] =
    R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2]}]})";

std::vector<BadCase> BadCases() {
  std::vector<BadCase> cases = {
      {"NotAnObject", "[1, 2]", "[1", "at /: expected an object, got an array"},
      {"WrongFormat", R"({"format": "onnx", "version": 1, "nodes": []})", "\"onnx\"",
       "at /format: not an egret graph: expected \"format\": \"egret-graph\""},
      {"MissingFormat", R"( {"version": 1})", "{",
       "at /: not an egret graph: expected \"format\": \"egret-graph\""},
      {"FutureVersion", R"({"format": "egret-graph", "version": 2, "nodes": []})", "2,",
       "at /version: unsupported version 2 (this egret reads version 1)"},
      {"NodesNotArray", absl::StrCat(kHeader, R"("nodes": {}})"), "{}",
       "at /nodes: expected an array of nodes, got an object"},
      {"UnknownTopLevelMember", absl::StrCat(kHeader, R"("nodes": [], "nodez": 1})"), "1}",
       "at /nodez: unknown member 'nodez'"},
      {"UnknownNodeMember", WithNodes(R"({"name": "x", "op": "*Input", "input": []})"), "[]",
       "at /nodes/0/input: unknown member 'input'"},
      // A line break in a member name (the JSON escape \n) is printed
      // escaped in the pointer too: the error stays one line.
      {"UnknownNodeMemberWithALineBreak", WithNodes(R"({"name": "x", "op": "*Input", "\name": 1})"),
       "1}", "at /nodes/0/\\x0aame: unknown member '\\x0aame'"},
      {"MissingOp", WithNodes(R"({"name": "x", "outputs": []})"), "{\"name\"",
       "at /nodes/0: missing member 'op'"},
      {"OpNotString", WithNodes(R"({"op": 5})"), "5}",
       "at /nodes/0/op: expected a string, got an integer"},
      {"NoOutputs", WithNodes(R"({"name": "x", "op": "*Input", "outputs": []})"), "[]}",
       "at /nodes/0/outputs: a node needs at least one output"},
      {"UnknownDType",
       WithNodes(R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Float8"}]})"),
       "\"Float8\"",
       "at /nodes/0/outputs/0/dtype: unknown dtype 'Float8' (expected QUInt8, QUInt16, QInt16, "
       "Float32, Int32, QInt32, QInt8, Float16, Int64, Bool, Float64, UInt32, UInt64, BFloat16, "
       "None or Multi)"},
      {"ShapeNotArray",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": "2x2"}]})"),
       "\"2x2\"", "at /nodes/0/outputs/0/shape: expected an array of dims, got a string"},
      {"DimNotInteger",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [2, 1.5]}]})"),
       "1.5", "at /nodes/0/outputs/0/shape/1: expected an integer, got a number"},
      {"RankOver8",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [1,1,1,1,1,1,1,1,1]}]})"),
       "[1,1", "at /nodes/0/outputs/0/shape: rank 9 exceeds the maximum of 8"},
      {"NegativeDim",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [4, -3]}]})"),
       "-3", "at /nodes/0/outputs/0/shape/1: negative dim -3"},
      {"HugeShape",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [4294967296, 4294967296]}]})"),
       "[4294967296", "at /nodes/0/outputs/0/shape: shape has more than 2^56 elements"},
      {"DimAboveCap",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [0, 72057594037927937]}]})"),
       "72057594037927937", "at /nodes/0/outputs/0/shape/1: dim 72057594037927937 is above 2^56"},
      // Huge numbers: a float-spelled dim, an integer beyond uint64 (which
      // the JSON parser holds as a double) and literals beyond a double.
      {"DimIsHugeFloat",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [2, 1e30]}]})"),
       "1e30", "at /nodes/0/outputs/0/shape/1: integer out of range"},
      {"DimBeyondUint64",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [99999999999999999999]}]})"),
       "99999999999999999999", "at /nodes/0/outputs/0/shape/0: integer out of range"},
      {"NegativeDimBeyondInt64",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [-99999999999999999999]}]})"),
       "-99999999999999999999", "at /nodes/0/outputs/0/shape/0: integer out of range"},
      {"DimBeyondDouble",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [1e400]}]})"),
       "1e400", "number 1e400 is out of range"},
      {"DataBeyondDouble",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [2]}], "data": [1, -2E+999]})"),
       "-2E+999", "number -2E+999 is out of range"},
      {"HugeIntegerBeyondDoubleInAString",
       WithNodes(
           R"({"name": "1e400", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [1e999]}]})"),
       "1e999", "number 1e999 is out of range"},
      {"DuplicateKey",
       WithNodes(R"({"name": "x", "op": "*Input", "name": "y", "outputs": [{"dtype": "Int32"}]})"),
       "\"name\": \"y\"", "duplicate key 'name'"},
      {"ZeroOffsetNotInt32",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "QUInt8", "zero_offset": 3000000000}]})"),
       "3000000000", "at /nodes/0/outputs/0/zero_offset: zero_offset 3000000000 is not an int32"},
      {"DanglingInput", WithNodes(absl::StrCat(kX, R"(,
         {"name": "r", "op": "Relu", "inputs": ["x", "foo"], "outputs": [{"dtype": "Float32"}]})")),
       "\"foo\"", "at /nodes/1/inputs/1: no node named 'foo'"},
      {"InputNotString", WithNodes(absl::StrCat(kX, R"(,
         {"name": "r", "op": "Relu", "inputs": [0], "outputs": [{"dtype": "Float32"}]})")),
       "0]",
       "at /nodes/1/inputs/0: expected a value reference (\"node\" or \"node:k\"), got an integer"},
      {"MissingOutputIndex", WithNodes(absl::StrCat(kX, R"(,
         {"name": "r", "op": "Relu", "inputs": ["x:3"], "outputs": [{"dtype": "Float32"}]})")),
       "\"x:3\"", "at /nodes/1/inputs/0: node 'x' has 1 output(s); there is no output 3"},
      {"DuplicateName", WithNodes(absl::StrCat(kX, ",\n", kX)),
       "\"x\", \"op\": \"*Input\", \"outputs\": [{\"dtype\": \"Float32\", \"shape\": [2]}]}\n",
       "at /nodes/1/name: duplicate node name 'x' (first used by /nodes/0)"},
      {"Cycle", WithNodes(absl::StrCat(kX, R"(,
         {"name": "d", "op": "Relu", "inputs": ["b"], "outputs": [{"dtype": "Float32"}]},
         {"name": "a", "op": "ElementWiseAdd", "inputs": ["x", "b"], "outputs": [{"dtype": "Float32"}]},
         {"name": "b", "op": "Relu", "inputs": ["a"], "outputs": [{"dtype": "Float32"}]})")),
       "{\"name\": \"a\"",
       "at /nodes/2: node 'a' (#2): is on a cycle: 'a' (#2) -> 'b' (#3) -> 'a' (#2)"},
      {"InputNodeWithInputs",
       WithNodes(
           R"({"name": "x", "op": "*Input", "inputs": ["x"], "outputs": [{"dtype": "Float32"}]})"),
       "[\"x\"]", "at /nodes/0/inputs: an *Input node has no inputs"},
      {"ConstWithoutData",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [2]}]})"),
       "{\"name\"", "at /nodes/0: missing member 'data' of a $Const"},
      {"DataLengthMismatch",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [2, 3]}], "data": [1, 2, 3, 4, 5]})"),
       "[1, 2, 3, 4, 5]", "at /nodes/0/data: data has 5 values, type Float32[2,3] needs 6"},
      {"DataValueOutOfRange",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "QUInt8", "shape": [2]}], "data": [1, 300]})"),
       "300", "at /nodes/0/data/1: value 300 is out of the range of QUInt8 [0, 255]"},
      {"DataValueNotInteger",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Int32", "shape": [2]}], "data": [1, 2.5]})"),
       "2.5", "at /nodes/0/data/1: expected an integer storage value of Int32, got a number"},
      {"DataBadString",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [1]}], "data": ["one"]})"),
       "\"one\"", "at /nodes/0/data/0: expected a number, \"nan\", \"inf\" or \"-inf\", got 'one'"},
      {"DataOnNonConst",
       WithNodes(
           R"({"name": "s", "op": "$Shape", "outputs": [{"dtype": "Int32", "shape": [1]}], "data": [1]})"),
       "[1]}\n", "at /nodes/0/data: only $Const nodes carry data, not '$Shape'"},
      {"SidecarDataWithoutSidecar",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "QUInt8", "shape": [4]}], "data": {"offset": 0, "length": 4}})"),
       "{\"offset\"",
       "at /nodes/0/data: data refers to the sidecar, but the graph has no 'sidecar' member"},
      {"AttrBadValue",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32"}], "attrs": {"k": [1, "a"]}})"),
       "\"a\"", "at /nodes/0/attrs/k/1: expected a number, got a string"},
      {"OptionBadValue", absl::StrCat(kHeader, R"("options": {"a/b": null}, "nodes": []})"), "null",
       "at /options/a~1b: expected an option value (true/false, integer, number, string or "
       "{\"float\": ...}), got null"},
      {"GraphOutputDangling", WithNodes(kX, R"(, "outputs": [{"value": "y", "name": "out"}])"),
       "\"y\"", "at /outputs/0/value: no node named 'y'"},
      {"GraphInputNotInputNode",
       WithNodes(R"({"name": "c", "op": "$Shape", "outputs": [{"dtype": "Int32", "shape": [1]}]})",
                 R"(, "inputs": ["c"])"),
       "\"c\"]", "at /inputs/0: graph input 'c' is not an *Input node"},
      {"IntegerTooLarge",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Int64", "shape": [1]}], "data": [18446744073709551615]})"),
       "18446744073709551615", "at /nodes/0/data/0: integer out of range"},
  };
  return cases;
}

class BadJson : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadJson, GivesTheDocumentedOneLineError) {
  const BadCase& c = GetParam();
  size_t offset = c.at.empty() ? 0 : c.text.find(c.at);
  ASSERT_NE(offset, std::string::npos) << "test bug: marker not in text";
  SourceLocation loc = LocationOf("g.json", c.text, offset);
  absl::StatusOr<Graph> g = ParseGraphJson(c.text, "g.json", "");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(g.status().message()),
            absl::StrCat(loc.ToString(), ": error: ", c.message));
  EXPECT_EQ(g.status().message().find('\n'), std::string_view::npos);
}

INSTANTIATE_TEST_SUITE_P(GraphJson, BadJson, ::testing::ValuesIn(BadCases()),
                         [](const auto& info) { return info.param.name; });

TEST(GraphJsonBad, TruncatedFileIsASyntaxErrorAtTheEnd) {
  std::string text = *GraphToJsonString(FullGraph());
  for (size_t cut : {size_t{0}, size_t{1}, text.size() / 3, text.size() / 2, text.size() - 2}) {
    std::string part = text.substr(0, cut);
    absl::StatusOr<Graph> g = ParseGraphJson(part, "t.json", "");
    ASSERT_FALSE(g.ok()) << cut;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
    SourceLocation end = LocationOf("t.json", part, part.size());
    EXPECT_THAT(std::string(g.status().message()),
                StartsWith(absl::StrCat(end.ToString(), ": error: invalid JSON: ")))
        << cut;
  }
}

TEST(GraphJsonBad, InvalidJsonPointsAtTheBadByte) {
  absl::StatusOr<Graph> g = ParseGraphJson("{\n  \"format\": x\n}", "s.json", "");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "s.json:2:13: error: invalid JSON: syntax error while parsing value - invalid literal");
}

TEST(GraphJsonBad, DeepNestingIsRejectedBeforeParsing) {
  std::string text(1 << 20, '[');
  absl::StatusOr<Graph> g = ParseGraphJson(text, "deep.json", "");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "deep.json:1:65: error: JSON nested deeper than 64 levels");
}

TEST(GraphJsonBad, MissingFileIsNotFound) {
  absl::StatusOr<Graph> g = ReadGraphJson(TestDir() + "/none.json");
  EXPECT_EQ(g.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("none.json: error: cannot open"));
}

TEST(GraphJsonBad, HundredMegabytesOfGarbageIsRejected) {
  std::string dir = TestDir();
  std::string path = dir + "/garbage.json";
  {
    std::mt19937_64 rng(42);
    std::string data(100u << 20, '\0');
    for (size_t i = 0; i + 8 <= data.size(); i += 8) {
      uint64_t v = rng();
      std::memcpy(&data[i], &v, 8);
    }
    data[0] = '\x9c';  // the seed's first byte is fine, but be sure it is not whitespace
    WriteText(path, data);
  }
  absl::StatusOr<Graph> g = ReadGraphJson(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith(absl::StrCat(path, ":1:1: error: invalid JSON: ")));
  EXPECT_EQ(g.status().message().find('\n'), std::string_view::npos);
  // The same file over a read limit is refused before it is parsed.
  absl::StatusOr<Graph> limited = ReadGraphJson(path, 1 << 20);
  EXPECT_EQ(limited.status().code(), absl::StatusCode::kResourceExhausted);
  fs::remove(path);
}

TEST(GraphJsonBad, HundredMegabytesOfOpenBracketsIsRejected) {
  std::string dir = TestDir();
  std::string path = dir + "/brackets.json";
  WriteText(path, std::string(100u << 20, '['));
  absl::StatusOr<Graph> g = ReadGraphJson(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            absl::StrCat(path, ":1:65: error: JSON nested deeper than 64 levels"));
  fs::remove(path);
}

// Sidecar problems: write a good graph with a sidecar, then break it.
class SidecarTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestDir();
    path_ = dir_ + "/g.json";
    ASSERT_TRUE(WriteGraphJson(FullGraph(), path_).ok());
    text_ = *ReadFile(path_);
    sidecar_ = SidecarPath(path_);
    ASSERT_FALSE(sidecar_.empty());
    sidecar_name_ = fs::path(sidecar_).filename().string();
  }
  absl::Status ReadBack() { return ReadGraphJson(path_).status(); }
  std::string At(std::string_view marker) {
    size_t offset = text_.find(marker);
    EXPECT_NE(offset, std::string::npos) << marker;
    return LocationOf(path_, text_, offset).ToString();
  }
  std::string dir_, path_, text_, sidecar_, sidecar_name_;
};

TEST_F(SidecarTest, MissingSidecar) {
  fs::remove(sidecar_);
  absl::Status s = ReadBack();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At(absl::StrCat("\"", sidecar_name_, "\"")),
                         ": error: at /sidecar/file: cannot read sidecar '", sidecar_,
                         "': cannot open: No such file or directory"));
}

TEST_F(SidecarTest, ShortSidecar) {
  std::string data = *ReadFile(sidecar_);
  WriteText(sidecar_, data.substr(0, data.size() - 10));
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At("24608"), ": error: at /sidecar/bytes: sidecar '", sidecar_,
                         "' has 24598 bytes, expected 24608"));
}

TEST_F(SidecarTest, CorruptSidecar) {
  std::string data = *ReadFile(sidecar_);
  data[100] ^= 1;
  WriteText(sidecar_, data);
  absl::Status s = ReadBack();
  EXPECT_THAT(std::string(s.message()),
              StartsWith(LocationOf(path_, text_, text_.find("\"fnv1a64\": ") + 11).ToString()));
  EXPECT_THAT(std::string(s.message()), HasSubstr("(stale or corrupt sidecar)"));
}

TEST_F(SidecarTest, RangePastTheEnd) {
  // Keep size and checksum consistent, but point one tensor past the end.
  std::string broken = absl::StrReplaceAll(text_, {{"\"offset\": 4608", "\"offset\": 4609"}});
  ASSERT_NE(broken, text_);
  WriteText(path_, broken);
  text_ = broken;
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At("{\"offset\": 4609"),
                         ": error: at /nodes/15/data: bytes [4609, 24609) are past "
                         "the end of the sidecar (24608 bytes)"));
}

TEST_F(SidecarTest, LengthMismatch) {
  std::string broken = absl::StrReplaceAll(text_, {{"\"length\": 20000", "\"length\": 19996"}});
  ASSERT_NE(broken, text_);
  WriteText(path_, broken);
  text_ = broken;
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At("19996"),
                         ": error: at /nodes/15/data/length: data length 19996 "
                         "bytes, type QInt32[5000](z=0,s=1) needs 20000"));
}

TEST_F(SidecarTest, SidecarMustBeAPlainFileName) {
  std::string broken =
      absl::StrReplaceAll(text_, {{absl::StrCat("\"", sidecar_name_, "\""), "\"../g.json.bin\""}});
  WriteText(path_, broken);
  text_ = broken;
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At("\"../g.json.bin\""),
                         ": error: at /sidecar/file: sidecar '../g.json.bin' must be a plain file "
                         "name (it lives beside the graph file)"));
}

// A sidecar that is a symbolic link is refused unread, even when it points to
// a good copy of itself (here outside the graph's folder), and the message
// tells nothing about the target.
TEST_F(SidecarTest, SymlinkedSidecarIsRefused) {
  const std::string outside = dir_ + "_outside";
  fs::remove_all(outside);
  fs::create_directories(outside);
  fs::rename(sidecar_, outside + "/secret.bin");
  fs::create_symlink(outside + "/secret.bin", sidecar_);
  absl::Status s = ReadBack();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("is a symbolic link"));
  EXPECT_THAT(std::string(s.message()), ::testing::Not(HasSubstr("secret")));
  EXPECT_THAT(std::string(s.message()), ::testing::Not(HasSubstr("24608 bytes")));
  fs::remove_all(outside);
}

// A FIFO in the sidecar's place fails at once instead of blocking.
TEST_F(SidecarTest, FifoSidecarFailsFast) {
  fs::remove(sidecar_);
  ASSERT_EQ(mkfifo(sidecar_.c_str(), 0600), 0);
  absl::Status s = ReadBack();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("is not a regular file"));
}

// Rewriting a graph replaces the pair: the new content-named sidecar, then
// the JSON, then the old sidecar is removed. The state in between (the old
// JSON with both sidecars present) still reads as the old graph.
TEST_F(SidecarTest, RewriteReplacesThePairAndTheMidpointReadsOld) {
  Graph other = FullGraph();
  {
    Node& b = other.mutable_node(other.FindNode("b"));
    Tensor t = *b.constant;
    t.SetValue(0, 42);  // different sidecar contents, so a different sidecar name
    b.constant = std::make_shared<const Tensor>(std::move(t));
    b.name = "b_renamed";
  }
  const std::string other_dir = dir_ + "_other";
  fs::remove_all(other_dir);
  fs::create_directories(other_dir);
  ASSERT_TRUE(WriteGraphJson(other, other_dir + "/g.json").ok());
  // Midpoint: the new sidecar is in place, the JSON is still the old one.
  const std::string new_sidecar = SidecarPath(other_dir + "/g.json");
  ASSERT_NE(fs::path(new_sidecar).filename().string(), sidecar_name_);
  fs::copy_file(new_sidecar, dir_ + "/" + fs::path(new_sidecar).filename().string());
  EXPECT_TRUE(ReadBack().ok()) << ReadBack();
  // The full rewrite: one sidecar left, and it is the one the JSON names.
  ASSERT_TRUE(WriteGraphJson(other, path_).ok());
  int sidecars = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().extension() == ".bin") ++sidecars;
  }
  EXPECT_EQ(sidecars, 1);
  absl::StatusOr<Graph> back = ReadGraphJson(path_);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_NE(back->FindNode("b_renamed"), kNoNode);
  fs::remove_all(other_dir);
}

// A NUL escaped in the name would cut the path the file system sees short
// (reading "g.json.bin" for "g.json.bin\u0000x"): an error, not a truncation.
TEST_F(SidecarTest, SidecarNameWithNulIsAnError) {
  std::string broken = absl::StrReplaceAll(
      text_,
      {{absl::StrCat("\"", sidecar_name_, "\""), absl::StrCat("\"", sidecar_name_, "\\u0000x\"")}});
  WriteText(path_, broken);
  text_ = broken;
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At(absl::StrCat("\"", sidecar_name_, "\\u0000x\"")),
                         ": error: at /sidecar/file: sidecar '", sidecar_name_,
                         "\\x00x' must be a plain file name (it lives beside the graph file)"));
}

// A shape with a 0 dim has no elements however large its other dims.
TEST(GraphJson, ZeroElementShapeWithHugeDimsIsAccepted) {
  absl::StatusOr<Graph> g = ParseGraphJson(
      R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [4294967296, 4294967296, 0]}]}],
  "outputs": [{"value": "x"}]})",
      "g.json", "");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(0).outputs[0].num_elements(), 0);
}

}  // namespace
}  // namespace egret
