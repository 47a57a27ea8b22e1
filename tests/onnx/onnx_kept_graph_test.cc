// Subgraphs the importer cannot import are kept as ONNX
// (egret/onnx/kept_graph_internal.h): a Loop whose carried value grows stays
// opaque; the executor imports its body for each trip's types, so it runs and
// verifies; its body is written back as the GRAPH attribute it was, reading
// the values it captures under the names the writer gives them, and those
// values stay alive through optimization.
// Where ONNX Runtime is installed, the original and the written models run
// on it and agree. An op of another domain keeps its graph attribute the same
// way, and a graph whose read value optimization replaced reads the
// replacement.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/executor.h"
#include "egret/executor/verify.h"
#include "egret/graph/string_list.h"
#include "egret/onnx/kept_graph_internal.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/pipeline/optimize.h"
#include "tests/lib/shipped_library.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::OnnxBuilder;

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kI64 = onnx::TensorProto::INT64;
constexpr int kBool = onnx::TensorProto::BOOL;

// Loop `trips` times (a graph input), appending Relu(x) * w + iter to y
// (Relu(x) computed outside and captured, w an outer constant); scan output
// the appended element. A loop-carried value that grows has another type
// each trip, so the body is not imported (the model declares the outputs'
// types for the trip count it is run with).
std::string GrowingLoop() {
  OnnxBuilder body;
  body.Input("iter", {}, kI64);
  body.Input("cond_in", {}, kBool);
  body.Input("y_in", {2});
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Node("Mul", {"xr", "w"}, {"scaled"});
  auto* cast = body.Node("Cast", {"iter"}, {"iterf"});
  OnnxBuilder::AttrInt(cast, "to", kF);
  body.Node("Add", {"scaled", "iterf"}, {"step"});
  auto* concat = body.Node("Concat", {"y_in", "step"}, {"y_out"});
  OnnxBuilder::AttrInt(concat, "axis", 0);
  body.Output("cond_out", {}, kBool);
  body.Output("y_out");
  body.Output("step", {1});
  OnnxBuilder b;
  b.Input("x", {1});
  b.Input("y0", {2});
  b.Input("trips", {}, kI64);
  b.Initializer("w", {1}, {2});
  b.InitializerRaw("go", {}, kBool, std::string(1, '\1'));
  b.Node("Relu", {"x"}, {"xr"});
  auto* loop = b.Node("Loop", {"trips", "go", "y0"}, {"y_final", "steps"}, "loop0");
  onnx::GraphProto g = body.graph();
  g.mutable_input(2)->mutable_type()->mutable_tensor_type()->clear_shape();  // it grows
  OnnxBuilder::AttrGraph(loop, "body", g);
  b.Output("y_final", {5});
  b.Output("steps", {3, 1});
  return b.Bytes();
}

const Node* FindOp(const Graph& g, std::string_view op) {
  for (const Node& node : g.nodes()) {
    if (node.op == op) return &node;
  }
  return nullptr;
}

std::string TempPath(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/egret_kept_", name, "_", getpid(), ".onnx");
}

Tensor Floats(const Dims& dims, const std::vector<double>& v) {
  return Tensor::FromValues(TensorType(DType::kFloat32, dims), v);
}

Tensor Int64Scalar(int64_t v) {
  TensorType t;
  t.dtype = DType::kInt64;
  double d = static_cast<double>(v);
  return Tensor::FromValues(t, {&d, 1});
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.GetReal(i));
  return out;
}

TEST(OnnxKeptGraph, AnUnimportedBodyIsKeptWithItsReadsAsInputs) {
  absl::StatusOr<Graph> g = ParseOnnx(GrowingLoop(), "loop.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* loop = FindOp(*g, "onnx.Loop");
  ASSERT_NE(loop, nullptr);
  EXPECT_THAT(std::get<std::string>(loop->attrs.at("onnx.unmapped")),
              HasSubstr("the body is not imported"));
  EXPECT_THAT(std::get<std::string>(loop->attrs.at("body")), HasSubstr("5 nodes"));
  absl::StatusOr<onnx::GraphProto> kept = onnx_internal::KeptGraph(loop->attrs, "body");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->node_size(), 5);
  // Its reads of the enclosing graph, in first-use order, after its own
  // three inputs: Relu(x) and the constant w.
  EXPECT_EQ(std::get<int64_t>(loop->attrs.at(std::string(kCapturedAttr))), 2);
  EXPECT_THAT(DecodeStringList(std::get<std::string>(loop->attrs.at(std::string(kKeptReadsAttr)))),
              ::testing::Optional(ElementsAre("xr", "w")));
  ASSERT_EQ(loop->inputs.size(), 5u);
  EXPECT_EQ(g->node(loop->inputs[3].node).op, "Relu");
  EXPECT_EQ(g->node(loop->inputs[4].node).op, "$Const");
}

TEST(OnnxKeptGraph, TheBodyIsWrittenBackAndRunsOnOnnxRuntime) {
  absl::StatusOr<Graph> g = ParseOnnx(GrowingLoop(), "loop.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  // The executor imports the kept body for each trip's types (y grows):
  // 1.5 * 2 + iter appended three times.
  absl::StatusOr<std::vector<Tensor>> run =
      Execute(*g, {Floats({1}, {1.5}), Floats({2}, {10, 20}), Int64Scalar(3)});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(Values((*run)[0]), ElementsAre(10, 20, 3, 4, 5));
  EXPECT_THAT(Values((*run)[1]), ElementsAre(3, 4, 5));
  // Optimized: the captured Relu stays (the Loop reads it), and every
  // output verifies.
  const std::vector<Tensor> inputs = {Floats({1}, {1.5}), Floats({2}, {10, 20}), Int64Scalar(3)};
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> opt = Optimize(*g, testing::ShippedLibrary(), {}, &diags);
  ASSERT_TRUE(opt.ok()) << opt.status();
  ASSERT_NE(FindOp(opt->graph, "Relu"), nullptr);
  absl::StatusOr<VerifyReport> report =
      VerifyGraphs(*g, "in", opt->graph, "out", inputs, VerifyOptions{});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->ok()) << report->ToString();
  EXPECT_EQ(report->not_verified(), 0u) << report->ToString();

  const std::string original = TempPath("original");
  std::ofstream(original, std::ios::binary) << GrowingLoop();
  for (const Graph* w : {&*g, &opt->graph}) {
    SCOPED_TRACE(w == &*g ? "imported" : "optimized");
    // Written (the ONNX checker runs inside), and read again: the same
    // kept body.
    absl::StatusOr<std::string> bytes = WriteOnnxBytes(*w, "out.onnx");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(*bytes));
    const onnx::NodeProto* written = nullptr;
    for (const auto& n : m.graph().node()) {
      if (n.op_type() == "Loop") written = &n;
    }
    ASSERT_NE(written, nullptr);
    EXPECT_EQ(written->input_size(), 3);  // trips, go, y0: the reads are the body's
    absl::StatusOr<Graph> again = ParseOnnx(*bytes, "out.onnx");
    ASSERT_TRUE(again.ok()) << again.status();
    const Node* loop = FindOp(*again, "onnx.Loop");
    ASSERT_NE(loop, nullptr);
    EXPECT_TRUE(onnx_internal::KeptGraph(loop->attrs, "body").ok());

    if (std::string why = testing::OrtUnavailableReason(); !why.empty()) {
      std::printf("ONNX Runtime comparison skipped: %s\n", why.c_str());
      continue;
    }
    const std::string path = TempPath(w == &*g ? "imported" : "optimized");
    std::ofstream(path, std::ios::binary) << *bytes;
    const std::vector<std::pair<std::string, Tensor>> feeds = {
        {"x", inputs[0]}, {"y0", inputs[1]}, {"trips", inputs[2]}};
    const std::vector<TensorType> types = {TensorType(DType::kFloat32, {5}),
                                           TensorType(DType::kFloat32, {3, 1})};
    absl::StatusOr<testing::OrtOutputs> want = testing::RunOnOrt(original, feeds, types);
    absl::StatusOr<testing::OrtOutputs> got = testing::RunOnOrt(path, feeds, types);
    fs::remove(path);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->tensors.size(), 2u);
    // 1.5 * 2 + iter appended three times.
    EXPECT_THAT(Values(want->tensors[0]), ElementsAre(10, 20, 3, 4, 5));
    EXPECT_EQ(Values(got->tensors[0]), Values(want->tensors[0]));
    EXPECT_EQ(Values(got->tensors[1]), Values(want->tensors[1]));
  }
  fs::remove(original);
}

// If(c) then Concat(Relu(x), Relu(x)) else Relu(x): the branches give
// different types, so they are not imported; the model declares the output
// for the then branch. The executor imports the branch taken when it runs.
TEST(OnnxKeptGraph, AnIfWhoseBranchesDifferRunsTheKeptBranch) {
  OnnxBuilder then_b, else_b;
  auto* cat = then_b.Node("Concat", {"xr", "xr"}, {"t"});
  OnnxBuilder::AttrInt(cat, "axis", 0);
  then_b.Output("t", {4});
  else_b.Node("Identity", {"xr"}, {"e"});
  else_b.Output("e", {2});
  OnnxBuilder b;
  b.Input("x", {2});
  b.Input("c", {}, kBool);
  b.Node("Relu", {"x"}, {"xr"});
  auto* n = b.Node("If", {"c"}, {"y"}, "if0");
  OnnxBuilder::AttrGraph(n, "then_branch", then_b.graph());
  OnnxBuilder::AttrGraph(n, "else_branch", else_b.graph());
  b.Output("y", {4});
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "if.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* op = FindOp(*g, "onnx.If");
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(onnx_internal::KeptGraph(op->attrs, "then_branch").ok());
  TensorType bool_type;
  bool_type.dtype = DType::kBool;
  double yes = 1;
  const std::vector<Tensor> inputs = {Floats({2}, {-1, 2}),
                                      Tensor::FromValues(bool_type, {&yes, 1})};
  absl::StatusOr<std::vector<Tensor>> run = Execute(*g, inputs);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(Values((*run)[0]), ElementsAre(0, 2, 0, 2));
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> opt = Optimize(*g, testing::ShippedLibrary(), {}, &diags);
  ASSERT_TRUE(opt.ok()) << opt.status();
  absl::StatusOr<VerifyReport> report =
      VerifyGraphs(*g, "in", opt->graph, "out", inputs, VerifyOptions{});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->ok()) << report->ToString();
  EXPECT_EQ(report->not_verified(), 0u) << report->ToString();
}

// An op of another domain that carries a graph (ONNX Runtime's BeamSearch
// carries its decoder so) is opaque; its graph is written back as a graph,
// reading the enclosing tensor it reads under its written name.
TEST(OnnxKeptGraph, AGraphAttributeOfAnotherDomainsOpIsWrittenBack) {
  OnnxBuilder dec;
  dec.Input("ids", {2});
  dec.Node("Add", {"ids", "bias"}, {"logits"});  // bias: the enclosing graph's
  dec.Output("logits", {2});
  OnnxBuilder b;
  b.Input("x", {2});
  b.Input("b0", {2});
  b.Node("Relu", {"b0"}, {"bias"});
  auto* n = b.DomainNode("com.example", "Search", {"x"}, {"y"});
  OnnxBuilder::AttrGraph(n, "decoder", dec.graph());
  b.Output("y", {2});
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "search.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* op = FindOp(*g, "onnx.com.example.Search");
  ASSERT_NE(op, nullptr);
  ASSERT_EQ(op->inputs.size(), 2u);  // x, and the Relu the graph reads
  EXPECT_EQ(g->node(op->inputs[1].node).op, "Relu");
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, "out.onnx");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(*bytes));
  const onnx::NodeProto* search = nullptr;
  std::string relu_out;
  for (const auto& node : m.graph().node()) {
    if (node.op_type() == "Search") search = &node;
    if (node.op_type() == "Relu") relu_out = node.output(0);
  }
  ASSERT_NE(search, nullptr);
  EXPECT_EQ(search->domain(), "com.example");
  ASSERT_EQ(search->input_size(), 1);
  ASSERT_EQ(search->attribute_size(), 1);
  ASSERT_EQ(search->attribute(0).type(), onnx::AttributeProto::GRAPH);
  const onnx::GraphProto& written = search->attribute(0).g();
  ASSERT_EQ(written.node_size(), 1);
  EXPECT_THAT(written.node(0).input(), ElementsAre("ids", relu_out));
}

// When optimization replaces the value a kept graph reads (bias = b0 * 1 is
// b0), the written graph reads the replacement under its name.
TEST(OnnxKeptGraph, AReadOfAReplacedValueIsRenamed) {
  OnnxBuilder dec;
  dec.Input("ids", {2});
  dec.Node("Add", {"ids", "bias"}, {"logits"});
  dec.Output("logits", {2});
  OnnxBuilder b;
  b.Input("x", {2});
  b.Input("b0", {2});
  b.Initializer("one", {2}, {1, 1});
  b.Node("Mul", {"b0", "one"}, {"bias"});
  auto* n = b.DomainNode("com.example", "Search", {"x"}, {"y"});
  OnnxBuilder::AttrGraph(n, "decoder", dec.graph());
  b.Output("y", {2});
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "search.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> opt = Optimize(*g, testing::ShippedLibrary(), {}, &diags);
  ASSERT_TRUE(opt.ok()) << opt.status();
  const Node* op = FindOp(opt->graph, "onnx.com.example.Search");
  ASSERT_NE(op, nullptr);
  ASSERT_EQ(op->inputs.size(), 2u);
  ASSERT_EQ(opt->graph.node(op->inputs[1].node).op, kInputOp);  // b0 itself
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(opt->graph, "out.onnx");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(*bytes));
  ASSERT_EQ(m.graph().node_size(), 1);
  const onnx::GraphProto& written = m.graph().node(0).attribute(0).g();
  EXPECT_THAT(written.node(0).input(), ElementsAre("ids", "b0"));
}

// A kept graph that reads a name no scope defines is a one-line error of the
// file, and a kept graph attribute that is not a graph is an error of the
// writer, not a crash.
TEST(OnnxKeptGraph, BadKeptGraphsAreErrors) {
  OnnxBuilder dec;
  dec.Input("ids", {2});
  dec.Node("Add", {"ids", "nowhere"}, {"logits"});
  dec.Output("logits", {2});
  OnnxBuilder b;
  b.Input("x", {2});
  auto* n = b.DomainNode("com.example", "Search", {"x"}, {"y"});
  OnnxBuilder::AttrGraph(n, "decoder", dec.graph());
  b.Output("y", {2});
  absl::StatusOr<Graph> bad = ParseOnnx(b.Bytes(), "search.onnx");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("a subgraph reads 'nowhere', which no enclosing scope defines"));
  EXPECT_THAT(bad.status().message(), HasSubstr("search.onnx"));

  absl::StatusOr<Graph> g = ParseOnnx(GrowingLoop(), "loop.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  for (NodeId id = 0; id < g->num_nodes(); ++id) {
    Node& node = g->mutable_node(id);
    if (node.op == "onnx.Loop") node.attrs[KeptGraphKey("body")] = "not base64!";
  }
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, "out.onnx");
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(bytes.status().message(), HasSubstr("is not a serialized ONNX graph"));
}

// The writer renames a body's reads of the enclosing graph; a name a nested
// scope defines itself is that scope's, and is left alone there.
TEST(OnnxKeptGraph, RenamingOuterReadsRespectsInnerDefinitions) {
  OnnxBuilder inner;
  inner.Node("Neg", {"a"}, {"b"});   // reads the outer a
  inner.Node("Relu", {"c"}, {"d"});  // c is defined by the inner graph itself
  inner.Node("Identity", {"d"}, {"c_out"});
  onnx::GraphProto inner_g = inner.graph();
  auto* c_def = inner_g.add_node();
  c_def->set_op_type("Identity");
  c_def->add_input("a");
  c_def->add_output("c");
  OnnxBuilder outer;
  outer.Node("Add", {"a", "c"}, {"s"});  // both are the enclosing graph's here
  auto* nested = outer.Node("If", {"s"}, {"r"});
  OnnxBuilder::AttrGraph(nested, "then_branch", inner_g);
  onnx::GraphProto g = outer.graph();
  onnx_internal::RenameOuterReads(&g, {{"a", "A"}, {"c", "C"}});
  EXPECT_THAT(g.node(0).input(), ElementsAre("A", "C"));
  const onnx::GraphProto& renamed_inner = g.node(1).attribute(0).g();
  EXPECT_THAT(renamed_inner.node(0).input(), ElementsAre("A"));
  EXPECT_THAT(renamed_inner.node(1).input(), ElementsAre("c"));
  EXPECT_THAT(renamed_inner.node(3).input(), ElementsAre("A"));

  absl::flat_hash_set<std::string> defined;
  onnx_internal::AddDefinedNames(g, &defined);
  EXPECT_TRUE(defined.contains("b"));  // the nested graph's
  EXPECT_TRUE(defined.contains("r"));
  EXPECT_FALSE(defined.contains("A"));
}

}  // namespace
}  // namespace egret
