#include "egret/graph/graph_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
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

TEST(GraphIo, OnnxAndDotAreNotReadable) {
  absl::StatusOr<Graph> onnx = LoadGraph("model.onnx");
  EXPECT_EQ(onnx.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(onnx.status().message(), "model.onnx: error: reading ONNX models is not supported yet");
  absl::StatusOr<Graph> dot = LoadGraph("g.dot");
  EXPECT_EQ(dot.status().code(), absl::StatusCode::kUnimplemented);
  std::string dir = Dir("onnx");
  EXPECT_EQ(SaveGraph(Tiny(), dir + "/m.onnx").code(), absl::StatusCode::kUnimplemented);
  EXPECT_FALSE(fs::exists(dir + "/m.onnx"));
}

}  // namespace
}  // namespace egret
