// egret's JSON graph format: round trips of every field through the file and
// its sidecar, normalized writing, subgraphs, generated names and defaults
// (bad input in graph_json_bad_test.cc, sidecars in graph_json_sidecar_test.cc).
#include "egret/graph/graph_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "egret/support/file_io.h"
#include "tests/graph/graph_json_test_util.h"

namespace egret {
namespace {

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

// The largest finite value of each float type reads back as itself: the
// writer prints Float32's as 3.4028235e+38, which as a double is above it
// (the reader took that for out of range, and egret optimize could not read
// its own output of a model with a -FLT_MAX mask).
TEST(GraphJson, TheLargestFloatsSurvive) {
  const double f32 = std::numeric_limits<float>::max();
  Graph g;
  g.AddConstant("f32", MakeConst(TensorType(DType::kFloat32, {4}),
                                 {f32, -f32, std::numeric_limits<float>::denorm_min(), 0}));
  g.AddConstant("f16", MakeConst(TensorType(DType::kFloat16, {2}), {65504, -65504}));
  absl::StatusOr<std::string> text = GraphToJsonString(g);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, testing::HasSubstr("3.4028235e+38"));
  absl::StatusOr<Graph> back = ParseGraphJson(*text, "m.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  const Tensor& a = *back->node(back->FindNode("f32")).constant;
  EXPECT_EQ(a.GetValue(0), f32);
  EXPECT_EQ(a.GetValue(1), -f32);
  EXPECT_EQ(a.GetValue(2), std::numeric_limits<float>::denorm_min());
  const Tensor& h = *back->node(back->FindNode("f16")).constant;
  EXPECT_EQ(h.GetValue(0), 65504);
  EXPECT_EQ(h.GetValue(1), -65504);
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
