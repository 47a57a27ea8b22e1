#include "egret/io/graph_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/graph/shape_inference.h"
#include "egret/support/file_io.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

std::string Dir(std::string_view name) {
  fs::path dir =
      fs::path(::testing::TempDir()) / absl::StrCat("egret_graph_io_", std::string(name));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

Graph Tiny() {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {2}));
  Node relu;
  relu.op = "Relu";
  relu.name = "r";
  relu.inputs = {{x, 0}};
  relu.outputs = {TensorType(DType::kFloat32, {2})};
  g.AddOutput({g.AddNode(relu), 0}, "y");
  return g;
}

TEST(GraphIo, FormatFromPath) {
  EXPECT_EQ(GraphFormatFromPath("a/b.json"), GraphFormat::kJson);
  EXPECT_EQ(GraphFormatFromPath("B.DOT"), GraphFormat::kDot);
  EXPECT_EQ(GraphFormatFromPath("m.onnx"), GraphFormat::kOnnx);
  EXPECT_EQ(GraphFormatFromPath("dir.json/file"), std::nullopt);
  EXPECT_EQ(GraphFormatFromPath("x.txt"), std::nullopt);
  EXPECT_EQ(ParseGraphFormat("dot"), GraphFormat::kDot);
  EXPECT_EQ(ParseGraphFormat("svg"), std::nullopt);
}

TEST(GraphIo, SavesByExtensionAndLoadsJson) {
  std::string dir = Dir("save");
  ASSERT_TRUE(SaveGraph(Tiny(), dir + "/t.json").ok());
  ASSERT_TRUE(SaveGraph(Tiny(), dir + "/t.dot").ok());
  ASSERT_TRUE(SaveGraph(Tiny(), dir + "/t.gv", GraphFormat::kDot).ok());
  EXPECT_THAT(*ReadFile(dir + "/t.dot"), ::testing::StartsWith("digraph"));
  EXPECT_EQ(*ReadFile(dir + "/t.dot"), *ReadFile(dir + "/t.gv"));
  absl::StatusOr<Graph> g = LoadGraph(dir + "/t.json");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->num_nodes(), 2u);
}

TEST(GraphIo, DotIsWriteOnlyAndOnnxIsReadAndWritten) {
  absl::StatusOr<Graph> dot = LoadGraph("g.dot");
  EXPECT_EQ(dot.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(dot.status().message(), "g.dot: error: DOT files are write-only; give a .json graph");
  // .onnx is dispatched to the ONNX reader, not read as JSON.
  absl::StatusOr<Graph> onnx = LoadGraph("/nonexistent/model.onnx");
  EXPECT_FALSE(onnx.ok());
  EXPECT_THAT(std::string(onnx.status().message()),
              ::testing::Not(::testing::HasSubstr("invalid JSON")));
  // .onnx is written by the ONNX writer (onnx_writer.h) and reads back.
  std::string dir = Dir("onnx");
  absl::Status s = SaveGraph(Tiny(), dir + "/m.onnx");
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<Graph> back = LoadGraph(dir + "/m.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->outputs().size(), Tiny().outputs().size());
}

// The bundled example is a valid graph whose declared output types are the
// ones shape inference derives (docs/ops.md signatures).
TEST(GraphIo, BundledExampleIsConsistent) {
  absl::StatusOr<Graph> g =
      LoadGraph(std::string(EGRET_SOURCE_DIR) + "/examples/residual_block.json");
  ASSERT_TRUE(g.ok()) << g.status();
  int checked = 0;
  for (NodeId id = 0; id < g->num_nodes(); ++id) {
    const Node& n = g->node(id);
    if (n.op == kInputOp || n.op == kConstOp || n.op == kShapeOp) continue;
    absl::StatusOr<std::vector<TensorType>> types = InferNodeOutputTypes(*g, id);
    ASSERT_TRUE(types.ok()) << n.name << ": " << types.status();
    ASSERT_EQ(types->size(), n.outputs.size()) << n.name;
    for (size_t k = 0; k < n.outputs.size(); ++k) EXPECT_EQ((*types)[k], n.outputs[k]) << n.name;
    ++checked;
  }
  EXPECT_EQ(checked, 8);
}

// A graph with a constant large enough for the sidecar.
Graph WithSidecar(float value) {
  Graph g;
  TensorType type(DType::kFloat32, {8192});
  NodeId x = g.AddInput("x", type);
  Tensor t(type);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetValue(i, value);
  NodeId c = g.AddConstant("c", std::make_shared<const Tensor>(std::move(t)));
  Node add;
  add.op = "ElementWiseAdd";
  add.name = "a";
  add.inputs = {{x, 0}, {c, 0}};
  add.outputs = {type};
  g.AddOutput({g.AddNode(add), 0}, "y");
  return g;
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A graph, its sidecar and a report staged in one transaction: dropped, the
// old pair is untouched and no temporary is left; committed, the new pair
// replaces it and the old sidecar is gone.
TEST(GraphIo, GraphAndReportCommitTogether) {
  std::string dir = Dir("txn");
  const std::string path = dir + "/g.json";
  ASSERT_TRUE(SaveGraph(WithSidecar(1), path).ok());
  const std::vector<std::string> before = Names(dir);
  ASSERT_EQ(before.size(), 2u);  // g.json and its sidecar
  {
    FileTransaction txn;
    ASSERT_TRUE(StageGraph(WithSidecar(2), path, &txn).ok());
    EXPECT_FALSE(txn.Stage(dir + "/missing/report.json", "{}").ok());
  }
  EXPECT_EQ(Names(dir), before);
  absl::StatusOr<Graph> g = LoadGraph(path);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(g->FindNode("c")).constant->GetValue(0), 1);
  {
    FileTransaction txn;
    ASSERT_TRUE(StageGraph(WithSidecar(2), path, &txn).ok());
    ASSERT_TRUE(txn.Stage(dir + "/report.json", "{}").ok());
    ASSERT_TRUE(txn.Commit().ok());
  }
  std::vector<std::string> after = Names(dir);
  EXPECT_EQ(after.size(), 3u);  // g.json, the new sidecar, report.json
  EXPECT_EQ(std::find(after.begin(), after.end(), before[1]), after.end()) << before[1];
  g = LoadGraph(path);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(g->FindNode("c")).constant->GetValue(0), 2);
}

// LoadGraph refuses a sidecar that is a symbolic link, even to the right data.
TEST(GraphIo, SymlinkedSidecarIsRefused) {
  std::string dir = Dir("symlink");
  std::string outside = Dir("symlink_outside");
  ASSERT_TRUE(SaveGraph(WithSidecar(1), dir + "/g.json").ok());
  std::string sidecar;
  for (const std::string& n : Names(dir)) {
    if (n != "g.json") sidecar = dir + "/" + n;
  }
  ASSERT_FALSE(sidecar.empty());
  fs::rename(sidecar, outside + "/data");
  fs::create_symlink(outside + "/data", sidecar);
  absl::StatusOr<Graph> g = LoadGraph(dir + "/g.json");
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(g.status().message()), ::testing::HasSubstr("is a symbolic link"));
  EXPECT_THAT(std::string(g.status().message()), ::testing::Not(::testing::HasSubstr("outside")));
}

}  // namespace
}  // namespace egret
