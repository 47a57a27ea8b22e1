// Imports the model-zoo structures of ../shared/models/onnx-light (skipped with
// a message when the shared folder is absent).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "egret/graph/graph.h"
#include "egret/graph/op_table.h"
#include "egret/io/graph_io.h"
#include "egret/onnx/onnx_reader.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

struct Expect {
  const char* file;
  int min_nodes;
  std::map<std::string, int> ops;     // exact counts of these ops
  std::map<std::string, int> opaque;  // exact counts of opaque ops (and no others)
};

class OnnxModels : public ::testing::TestWithParam<Expect> {};

std::string ModelDir() { return std::string(EGRET_SHARED_DIR) + "/models/onnx-light"; }

TEST_P(OnnxModels, Imports) {
  const Expect& e = GetParam();
  std::string path = ModelDir() + "/" + e.file;
  if (!fs::exists(path)) GTEST_SKIP() << "model not found: " << path;
  absl::StatusOr<Graph> g = LoadGraph(path);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(g->Validate().ok()) << g->Validate();
  EXPECT_GE(static_cast<int>(g->num_nodes()), e.min_nodes);
  std::map<std::string, int> hist, opaque;
  for (const Node& n : g->nodes()) {
    ++hist[n.op];
    if (!IsKnownOp(n.op)) ++opaque[n.op];
    for (const TensorType& t : n.outputs) {
      EXPECT_TRUE(IsConcrete(t.dtype)) << n.name << ": " << t.ToString();
      for (int64_t d : t.dims) EXPECT_GE(d, 0) << n.name;
    }
  }
  for (const auto& [op, count] : e.ops) EXPECT_EQ(hist[op], count) << op;
  EXPECT_EQ(opaque, e.opaque);
  // One graph input (the image, NCHW as in the model), moved to NHWC once.
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->node(g->inputs()[0]).outputs[0].dims[1], 3);
  ASSERT_EQ(g->outputs().size(), 1u);
  std::string histogram;
  for (const auto& [op, count] : hist) histogram += " " + op + "=" + std::to_string(count);
  std::cout << e.file << ": " << g->num_nodes() << " nodes:" << histogram << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    Light, OnnxModels,
    ::testing::Values(
        Expect{
            "light_bvlc_alexnet.onnx", 30, {{"Conv2d", 5}, {"FullyConnected", 3}, {"LRN", 2}}, {}},
        Expect{"light_zfnet512.onnx", 30, {{"Conv2d", 5}, {"FullyConnected", 3}, {"LRN", 2}}, {}},
        Expect{"light_inception_v1.onnx", 150, {{"Conv2d", 57}, {"LRN", 2}}, {}},
        Expect{"light_inception_v2.onnx", 500, {}, {}},
        Expect{"light_resnet50.onnx",
               300,
               {{"Conv2d", 53}, {"Batchnorm", 53}, {"ElementWiseAdd", 16}, {"Relu", 49}},
               {}},
        Expect{"light_densenet121.onnx", 900, {{"Conv2d", 121}}, {}},
        Expect{"light_shufflenet.onnx", 300, {}, {}},
        Expect{"light_squeezenet.onnx", 60, {{"Conv2d", 26}}, {}},
        Expect{"light_vgg19.onnx", 50, {{"Conv2d", 16}, {"FullyConnected", 3}}, {}}),
    [](const ::testing::TestParamInfo<Expect>& info) {
      std::string n = info.param.file;
      n = n.substr(6, n.size() - 11);
      return n;
    });

}  // namespace
}  // namespace egret
