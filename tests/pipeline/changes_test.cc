// pipeline/changes.h: provenance described in ops.
#include "egret/pipeline/changes.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace egret {
namespace {

// An input graph of named nodes with the given ops (one Float32 output each).
Graph InputWithOps(const std::vector<std::pair<std::string, std::string>>& nodes) {
  Graph g;
  for (const auto& [name, op] : nodes) {
    Node n;
    n.name = name;
    n.op = op;
    n.outputs.push_back(TensorType(DType::kFloat32, {4}));
    if (op == kConstOp) {
      n.constant = std::make_shared<const Tensor>(Tensor(n.outputs[0]));
    }
    g.AddNode(std::move(n));
  }
  return g;
}

TEST(ChangesTest, FusedRecognizedFoldedRewroteAndTiled) {
  const Graph input = InputWithOps({{"c1", "Conv2d"},
                                    {"bn1", "Batchnorm"},
                                    {"r1", "Relu"},
                                    {"c2", "Conv2d"},
                                    {"bn2", "Batchnorm"},
                                    {"add", "ElementWiseAdd"},
                                    {"clip", "ReluMinMax"},
                                    {"mul", "ElementWiseMultiply"},
                                    {"w", std::string(kConstOp)},
                                    {"dq", "Dequantize"},
                                    {"a2", "ElementWiseAdd"},
                                    {"big", "Conv2d"}});
  ProvenanceSummary prov;
  // Two convolutions that took over their Batchnorm (and a constant, which
  // does not count); one also a Relu.
  prov.nodes.push_back({"c1", "Conv2d.hvx", {"c1", "bn1", "w"}, {"EARLY@fusion.rules:65"}});
  prov.nodes.push_back({"c2", "Conv2d", {"c2", "bn2"}, {"EARLY@fusion.rules:65"}});
  prov.nodes.push_back({"c1r", "Conv2d", {"c1", "r1"}, {"LATE@fusion.rules:410"}});
  prov.nodes.push_back({"hs", "HardSwish", {"add", "clip", "mul"}, {"EARLY@fusion.rules:242"}});
  prov.nodes.push_back({"k", std::string(kConstOp), {"dq"}, {"constant-fold"}});
  // A rule-built constant (a clamp's bound) is not a fold; a $Shape is not described.
  prov.nodes.push_back({"lo", std::string(kConstOp), {"r1"}, {"TRANSLATE@fusion.rules:13"}});
  prov.nodes.push_back({"s", std::string(kShapeOp), {"add"}, {"EARLY@fusion.rules:242"}});
  prov.nodes.push_back({"a", "ElementWiseAdd", {"add", "a2"}, {"comm-ElementWiseAdd"}});
  prov.nodes.push_back({"p0", "Slice_shape", {"big"}, {"TILING@tiling.rules:44"}});
  prov.nodes.push_back({"p1", "Conv2d", {"big"}, {"TILING+5@tiling.rules:44"}});
  const std::vector<OpChange> got = DescribeChanges(input, prov);
  using K = OpChange::Kind;
  const std::vector<OpChange> want = {
      {K::kFused, "Conv2d", {"Batchnorm"}, 2},
      {K::kTiled, "", {"Conv2d"}, 2},
      {K::kFused, "Conv2d", {"Relu"}, 1},
      {K::kRecognized, "HardSwish", {"ElementWiseAdd", "ElementWiseMultiply", "ReluMinMax"}, 1},
      {K::kFolded, "", {"Dequantize"}, 1},
      {K::kRewrote, "ElementWiseAdd", {}, 1},
  };
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i], want[i]) << i << ": " << OpChangeKindName(got[i].kind) << " " << got[i].op;
  }
  EXPECT_EQ(ChangesText(got, 3),
            "fused Batchnorm into Conv2d x2, tiled Conv2d into pieces x2 nodes, fused Relu into "
            "Conv2d x1, and 3 more (--report)");
  EXPECT_EQ(ChangesText({}), "none");
  EXPECT_EQ(ChangesText({want[3], want[4]}),
            "recognized HardSwish x1 (from ElementWiseAdd, ElementWiseMultiply, ReluMinMax), "
            "folded Dequantize into constants x1");
}

}  // namespace
}  // namespace egret
