// ONNX control flow with imported bodies: an If whose condition is computed
// at run time, Loop (constant trip count, and absent M with a computed
// condition), Scan, and a Loop whose body holds an If. Each model's only
// outputs sit behind the control-flow node. Each is imported (bodies as
// subgraph attributes, captured values as explicit inputs), run on the
// reference executor and matched against hand-computed values; optimized
// with the shipped library and verified (every output verified); written
// back as ONNX, re-read and run again; written as JSON and read back; and,
// where ONNX Runtime is installed, the original and the written models run
// on it and are compared with egret.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/executor.h"
#include "egret/executor/verify.h"
#include "egret/graph/graph_json.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/pipeline/optimize.h"
#include "tests/lib/shipped_library.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::OnnxBuilder;

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kI64 = onnx::TensorProto::INT64;
constexpr int kBool = onnx::TensorProto::BOOL;

Tensor Floats(const Dims& dims, const std::vector<double>& v) {
  return Tensor::FromValues(TensorType(DType::kFloat32, dims), v);
}

Tensor BoolScalar(bool b) {
  TensorType t;
  t.dtype = DType::kBool;
  double v = b ? 1 : 0;
  return Tensor::FromValues(t, {&v, 1});
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.GetReal(i));
  return out;
}

int CountOp(const Graph& g, std::string_view op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

const Node* FindOp(const Graph& g, std::string_view op) {
  for (const Node& node : g.nodes()) {
    if (node.op == op) return &node;
  }
  return nullptr;
}

// y = If(c) then Relu(x) + w else -Relu(x): Relu(x) is computed outside and
// captured, w is an outer constant.
std::string IfModel() {
  OnnxBuilder then_b, else_b;
  then_b.Node("Add", {"r", "w"}, {"t"});
  then_b.Output("t");
  else_b.Node("Neg", {"r"}, {"e"});
  else_b.Output("e");
  OnnxBuilder b;
  b.Input("x", {2, 3});
  b.Input("c", {}, kBool);
  b.Initializer("w", {3}, {1, 2, 3});
  b.Node("Relu", {"x"}, {"r"});
  auto* n = b.Node("If", {"c"}, {"y"}, "if0");
  OnnxBuilder::AttrGraph(n, "then_branch", then_b.graph());
  OnnxBuilder::AttrGraph(n, "else_branch", else_b.graph());
  b.Output("y", {2, 3});
  return b.Bytes();
}

// Loop 3 times: y += Relu(x) (captured); scan output y * iteration.
std::string LoopModel() {
  OnnxBuilder body;
  body.Input("iter", {}, kI64);
  body.Input("cond_in", {}, kBool);
  body.Input("y_in", {2});
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Node("Add", {"y_in", "xr"}, {"y_out"});
  auto* cast = body.Node("Cast", {"iter"}, {"iterf"});
  OnnxBuilder::AttrInt(cast, "to", kF);
  body.Node("Mul", {"y_out", "iterf"}, {"scan"});
  body.Output("cond_out", {}, kBool);
  body.Output("y_out", {2});
  body.Output("scan", {2});
  OnnxBuilder b;
  b.Input("x", {2});
  b.Input("y0", {2});
  b.InitializerInt64("trips", {}, {3});
  b.InitializerRaw("go", {}, kBool, std::string(1, '\1'));
  b.Node("Relu", {"x"}, {"xr"});
  auto* loop = b.Node("Loop", {"trips", "go", "y0"}, {"y_final", "ys"}, "loop0");
  OnnxBuilder::AttrGraph(loop, "body", body.graph());
  b.Output("y_final", {2});
  b.Output("ys", {3, 2});
  return b.Bytes();
}

// Loop without M or an initial condition whose body adds Relu(x) to y and
// computes its condition with `condition` (from iter and cond_in, into
// cond_out).
std::string AccumulatingLoop(const std::string& name,
                             const std::function<void(OnnxBuilder&)>& condition) {
  OnnxBuilder body;
  body.Input("iter", {}, kI64);
  body.Input("cond_in", {}, kBool);
  body.Input("y_in", {2});
  condition(body);
  body.Node("Add", {"y_in", "xr"}, {"y_out"});
  body.Output("cond_out", {}, kBool);
  body.Output("y_out", {2});
  OnnxBuilder b;
  b.Input("x", {2});
  b.Input("y0", {2});
  b.Node("Relu", {"x"}, {"xr"});
  auto* loop = b.Node("Loop", {"", "", "y0"}, {"y_final"}, name);
  OnnxBuilder::AttrGraph(loop, "body", body.graph());
  b.Output("y_final", {2});
  return b.Bytes();
}

// The body stops when iter < 4 is false, so it runs 5 times.
std::string WhileModel() {
  return AccumulatingLoop("while0", [](OnnxBuilder& body) {
    body.InitializerInt64("four", {}, {4});
    body.Node("Less", {"iter", "four"}, {"cond_out"});
  });
}

// The condition never turns false: y += Relu(x) forever.
std::string EndlessModel() {
  return AccumulatingLoop(
      "endless", [](OnnxBuilder& body) { body.Node("Identity", {"cond_in"}, {"cond_out"}); });
}

// Loop 4 times whose body holds an If on iter < 2: then y + Relu(x) (read
// from two scopes out), else y * two (an outer constant).
std::string NestedModel() {
  OnnxBuilder then_b, else_b;
  then_b.Node("Add", {"y_in", "xr"}, {"t"});
  then_b.Output("t");
  else_b.Node("Mul", {"y_in", "two"}, {"e"});
  else_b.Output("e");
  OnnxBuilder body;
  body.Input("iter", {}, kI64);
  body.Input("cond_in", {}, kBool);
  body.Input("y_in", {2});
  body.InitializerInt64("two_i", {}, {2});
  body.Node("Less", {"iter", "two_i"}, {"early"});
  auto* n = body.Node("If", {"early"}, {"y_out"}, "inner_if");
  OnnxBuilder::AttrGraph(n, "then_branch", then_b.graph());
  OnnxBuilder::AttrGraph(n, "else_branch", else_b.graph());
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Output("cond_out", {}, kBool);
  body.Output("y_out", {2});
  OnnxBuilder b;
  b.Input("x", {2});
  b.Input("y0", {2});
  b.Initializer("two", {2}, {2, 2});
  b.InitializerInt64("trips", {}, {4});
  b.Node("Relu", {"x"}, {"xr"});
  auto* loop = b.Node("Loop", {"trips", "", "y0"}, {"y_final"}, "loop0");
  OnnxBuilder::AttrGraph(loop, "body", body.graph());
  b.Output("y_final", {2});
  return b.Bytes();
}

// Scan over xs[2, 3] along axis 1, backward: s += column; each step's
// output s * Relu(k) (captured) stacked along axis 1.
std::string ScanModel() {
  OnnxBuilder body;
  body.Input("s_in", {2});
  body.Input("col", {2});
  body.Node("Add", {"s_in", "col"}, {"s_out"});
  body.Node("Mul", {"s_out", "kr"}, {"out"});
  body.Output("s_out", {2});
  body.Output("out", {2});
  OnnxBuilder b;
  b.Input("s0", {2});
  b.Input("xs", {2, 3});
  b.Input("k", {2});
  b.Node("Relu", {"k"}, {"kr"});
  auto* scan = b.Node("Scan", {"s0", "xs"}, {"s_final", "outs"}, "scan0");
  OnnxBuilder::AttrGraph(scan, "body", body.graph());
  OnnxBuilder::AttrInt(scan, "num_scan_inputs", 1);
  OnnxBuilder::AttrInts(scan, "scan_input_axes", {1});
  OnnxBuilder::AttrInts(scan, "scan_input_directions", {1});
  OnnxBuilder::AttrInts(scan, "scan_output_axes", {1});
  b.Output("s_final", {2});
  b.Output("outs", {2, 3});
  return b.Bytes();
}

struct Case {
  std::string name;
  std::string bytes;
  std::string op;                         // the control-flow node's op
  std::vector<Tensor> inputs;             // in graph input order
  std::vector<std::vector<double>> want;  // per output
};

std::string TempPath(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/egret_cf_", name, "_", getpid(), ".onnx");
}

void ExpectOutputs(const Graph& g, const Case& c, std::string_view what) {
  absl::StatusOr<std::vector<Tensor>> out = Execute(g, c.inputs);
  ASSERT_TRUE(out.ok()) << what << ": " << out.status();
  ASSERT_EQ(out->size(), c.want.size()) << what;
  for (size_t k = 0; k < c.want.size(); ++k) {
    EXPECT_EQ(Values((*out)[k]), c.want[k]) << what << ": output " << k;
  }
}

// Egret against ONNX Runtime on `path`, every output compared.
void ExpectOrtAgrees(const std::string& path, const Graph& g, const Case& c) {
  if (std::string why = testing::OrtUnavailableReason(); !why.empty()) {
    std::printf("ONNX Runtime comparison skipped: %s\n", why.c_str());
    return;
  }
  absl::StatusOr<testing::OracleComparison> r =
      testing::CompareWithOrt(path, g, c.inputs, {}, 1e-6, 1e-6);
  ASSERT_TRUE(r.ok()) << path << ": " << r.status();
  EXPECT_EQ(r->verified, r->outputs) << path;
  EXPECT_TRUE(r->mismatches.empty()) << path << ": " << r->mismatches.front();
  EXPECT_TRUE(r->not_verified.empty()) << path;
}

void CheckCase(const Case& c) {
  SCOPED_TRACE(c.name);
  absl::StatusOr<Graph> g = ParseOnnx(c.bytes, c.name + ".onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  // The node carries its bodies; nothing of the bodies is in the outer graph.
  const Node* cf = FindOp(*g, c.op);
  ASSERT_NE(cf, nullptr);
  bool has_body = false;
  for (const auto& [key, value] : cf->attrs) {
    has_body = has_body || std::holds_alternative<GraphPtr>(value);
  }
  EXPECT_TRUE(has_body);
  EXPECT_FALSE(cf->attrs.contains("onnx.unmapped"));
  ExpectOutputs(*g, c, "imported");

  // Optimized with the shipped library and verified: every output verified.
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> opt = Optimize(*g, testing::ShippedLibrary(), {}, &diags);
  ASSERT_TRUE(opt.ok()) << opt.status();
  absl::StatusOr<VerifyReport> report =
      VerifyGraphs(*g, "in", opt->graph, "out", c.inputs, VerifyOptions{});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->ok()) << report->ToString();
  EXPECT_EQ(report->not_verified(), 0u) << report->ToString();
  ExpectOutputs(opt->graph, c, "optimized");

  // JSON round trip: same text again, same outputs.
  absl::StatusOr<std::string> json = GraphToJsonString(*g);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"graph\""));
  absl::StatusOr<Graph> back = ParseGraphJson(*json, "g.json", "");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectOutputs(*back, c, "JSON round trip");
  absl::StatusOr<std::string> json2 = GraphToJsonString(*back);
  ASSERT_TRUE(json2.ok());
  EXPECT_EQ(*json, *json2);

  // ONNX written back (checked by ONNX's checker), re-read, run; the
  // optimized graph too.
  for (const Graph* w : {&*g, &opt->graph}) {
    absl::StatusOr<std::string> bytes = WriteOnnxBytes(*w, "out.onnx");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<Graph> again = ParseOnnx(*bytes, "out.onnx");
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_NE(FindOp(*again, c.op), nullptr);
    ExpectOutputs(*again, c, "written and re-read");
    const std::string path = TempPath(c.name + (w == &*g ? "_written" : "_optimized"));
    std::ofstream(path, std::ios::binary) << *bytes;
    ExpectOrtAgrees(path, *again, c);
    fs::remove(path);
  }
  const std::string original = TempPath(c.name);
  std::ofstream(original, std::ios::binary) << c.bytes;
  ExpectOrtAgrees(original, *g, c);
  fs::remove(original);
}

TEST(OnnxControlFlow, IfWithARuntimeCondition) {
  const Tensor x = Floats({2, 3}, {-1, 2, -3, 4, -5, 6});
  CheckCase({"if_then", IfModel(), "onnx.If", {x, BoolScalar(true)}, {{1, 4, 3, 5, 2, 9}}});
  CheckCase({"if_else", IfModel(), "onnx.If", {x, BoolScalar(false)}, {{0, -2, 0, -4, 0, -6}}});
  // The captured Relu is an input of the If node (so it is not dead code),
  // and of both branches.
  absl::StatusOr<Graph> g = ParseOnnx(IfModel(), "if.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* n = FindOp(*g, "onnx.If");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(std::get<int64_t>(n->attrs.at(std::string(kCapturedAttr))), 1);
  ASSERT_EQ(n->inputs.size(), 2u);
  EXPECT_EQ(g->node(n->inputs[1].node).op, "Relu");
  const Graph& then_g = *std::get<GraphPtr>(n->attrs.at("then_branch"));
  EXPECT_EQ(then_g.inputs().size(), 1u);
  EXPECT_EQ(CountOp(then_g, "$Const"), 1);  // w, an outer constant, inside the body
}

TEST(OnnxControlFlow, Loop) {
  CheckCase({"loop",
             LoopModel(),
             "onnx.Loop",
             {Floats({2}, {1, -2}), Floats({2}, {10, 20})},
             {{13, 20}, {0, 0, 12, 20, 26, 40}}});
}

TEST(OnnxControlFlow, LoopWithoutTripCountOrCondition) {
  CheckCase({"while",
             WhileModel(),
             "onnx.Loop",
             {Floats({2}, {1.5, -2}), Floats({2}, {10, 20})},
             {{17.5, 20}}});
}

// A loop that never ends stops at the executor's cap with an error instead
// of hanging (a hostile or runaway model).
TEST(OnnxControlFlow, AnEndlessLoopStopsAtTheCap) {
  absl::StatusOr<Graph> g = ParseOnnx(EndlessModel(), "endless.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<Tensor>> out =
      Execute(*g, {Floats({2}, {1, -2}), Floats({2}, {0, 0})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("onnx.Loop: stopped after 262144 iterations"));
}

TEST(OnnxControlFlow, LoopWithAnIfInside) {
  CheckCase({"nested",
             NestedModel(),
             "onnx.Loop",
             {Floats({2}, {1, -2}), Floats({2}, {10, 20})},
             {{48, 80}}});
  absl::StatusOr<Graph> g = ParseOnnx(NestedModel(), "nested.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const Graph& body = *std::get<GraphPtr>(FindOp(*g, "onnx.Loop")->attrs.at("body"));
  EXPECT_EQ(CountOp(body, "onnx.If"), 1);
}

TEST(OnnxControlFlow, Scan) {
  CheckCase({"scan",
             ScanModel(),
             "onnx.Scan",
             {Floats({2}, {0, 0}), Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Floats({2}, {1, 2})},
             {{6, 15}, {3, 5, 6, 12, 22, 30}}});
}

}  // namespace
}  // namespace egret
