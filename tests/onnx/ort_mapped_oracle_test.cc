// ONNX Runtime as the oracle for ONNX ops the importer maps onto egret ops
// (comparisons and Where, Expand, Tile, CumSum, ArgMax/ArgMin, TopK, Gather,
// Einsum): single-node (or Conv-fed, so that the op sees an NHWC activation)
// float models, imported and run by egret's reference executor and run by
// ONNX Runtime on the same seeded random inputs. Einsum's and CumSum's ONNX
// conformance data are DOUBLE, which egret does not import: these cases are
// their independent check. Integer operands (indices, axes, repeats) are
// constants in the model, except the ids of an embedding lookup. Each case
// first checks that nothing stayed opaque.
//
// Skips when node or onnxruntime-node is missing (scripts/fetch-models).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/executor/test_data.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/support/file_io.h"
#include "onnx_builder.h"
#include "ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using testing::CompareWithOrt;
using testing::OnnxBuilder;
using testing::OracleComparison;
using testing::OrtUnavailableReason;

// Imports `b`'s model, checks that every op was mapped, and compares every
// output of egret's run with ONNX Runtime's.
void CheckAgainstOrt(const std::string& name, const OnnxBuilder& b) {
  if (const std::string why = OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = fs::path(::testing::TempDir()) / absl::StrCat("ort_mapped_", name);
  fs::create_directories(dir);
  const std::string model = (dir / "model.onnx").string();
  ASSERT_TRUE(WriteFileAtomically(model, b.Bytes()).ok());
  absl::StatusOr<Graph> g = ReadOnnx(model);
  ASSERT_TRUE(g.ok()) << g.status();
  for (const Node& n : g->nodes()) ASSERT_TRUE(IsKnownOp(n.op)) << name << ": " << n.op;
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, /*seed=*/11);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<OracleComparison> c = CompareWithOrt(model, *g, *inputs, {}, 1e-4, 1e-4);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verified, c->outputs) << absl::StrJoin(c->not_verified, "; ");
  EXPECT_TRUE(c->mismatches.empty()) << name << ": " << absl::StrJoin(c->mismatches, "; ");
  fs::remove_all(dir);
}

// x [1, c, h, w] through a 1x1 Conv (so the value is NHWC inside egret) to "a".
void ConvInput(OnnxBuilder& b, int64_t c, int64_t h, int64_t w) {
  b.Input("x", {1, c, h, w});
  std::vector<float> weights(c * c);
  for (int64_t i = 0; i < c * c; ++i) weights[i] = 0.1f * static_cast<float>((i * 7) % 11) - 0.4f;
  b.Initializer("w", {c, c, 1, 1}, weights);
  b.Node("Conv", {"x", "w"}, {"a"});
}

TEST(OrtMappedOracle, Einsum) {
  struct Case {
    std::string name, equation;
    std::vector<std::vector<int64_t>> dims;
  };
  const std::vector<Case> cases = {
      {"batch_matmul", "bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},
      {"attention", "bhqd,bhkd->bhqk", {{1, 2, 3, 4}, {1, 2, 5, 4}}},
      {"transpose", "ij->ji", {{3, 4}}},
      {"row_sum", "ij->i", {{3, 4}}},
      {"inner", "i,i", {{6}, {6}}},
      {"ellipsis_broadcast", "...ij,...jk->...ik", {{2, 1, 2, 3}, {1, 3, 3, 2}}},
      {"reordered", "bij,jk->kbi", {{2, 3, 4}, {4, 2}}},
      {"sum_then_product", "abc,cd->d", {{2, 2, 3}, {3, 2}}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.equation);
    OnnxBuilder b(12);
    std::vector<std::string> names;
    for (size_t i = 0; i < k.dims.size(); ++i) {
      names.push_back(absl::StrCat("x", i));
      b.Input(names.back(), k.dims[i]);
    }
    OnnxBuilder::AttrString(b.Node("Einsum", names, {"y"}), "equation", k.equation);
    b.Output("y");
    CheckAgainstOrt("einsum_" + k.name, b);
  }
}

TEST(OrtMappedOracle, CumSumOnTheChannelAxis) {
  for (int flags = 0; flags < 4; ++flags) {
    OnnxBuilder b(14);
    ConvInput(b, 3, 2, 4);
    b.InitializerInt64("axis", {}, {1});
    auto* n = b.Node("CumSum", {"a", "axis"}, {"y"});
    OnnxBuilder::AttrInt(n, "exclusive", flags & 1);
    OnnxBuilder::AttrInt(n, "reverse", flags >> 1);
    b.Output("y");
    CheckAgainstOrt(absl::StrCat("cumsum", flags), b);
  }
}

TEST(OrtMappedOracle, ArgMaxArgMinTopK) {
  OnnxBuilder b(13);
  ConvInput(b, 4, 3, 2);
  auto* am = b.Node("ArgMax", {"a"}, {"argmax"});
  OnnxBuilder::AttrInt(am, "axis", 1);
  OnnxBuilder::AttrInt(am, "keepdims", 0);
  b.Output("argmax");
  auto* an = b.Node("ArgMin", {"a"}, {"argmin"});
  OnnxBuilder::AttrInt(an, "axis", -1);
  OnnxBuilder::AttrInt(an, "select_last_index", 1);
  b.Output("argmin");
  b.InitializerInt64("k", {1}, {2});
  auto* tk = b.Node("TopK", {"a", "k"}, {"values", "indices"});
  OnnxBuilder::AttrInt(tk, "axis", 1);
  OnnxBuilder::AttrInt(tk, "largest", 0);
  b.Output("values");
  b.Output("indices");
  b.Node("TopK", {"a", "k"}, {"top_values", "top_indices"});
  b.Output("top_values");
  b.Output("top_indices");
  CheckAgainstOrt("arg_topk", b);
}

TEST(OrtMappedOracle, ComparisonsLogicAndWhere) {
  OnnxBuilder b(13);
  ConvInput(b, 3, 2, 2);
  b.Input("t", {3, 1, 1});
  b.Node("Greater", {"a", "t"}, {"gt"});
  b.Node("LessOrEqual", {"a", "t"}, {"le"});
  b.Initializer("half", {}, {0.5f});
  b.Node("Less", {"a", "half"}, {"lt"});
  b.Node("Or", {"gt", "lt"}, {"either"});
  b.Node("Xor", {"either", "le"}, {"x1"});
  b.Node("Not", {"x1"}, {"x2"});
  b.Node("And", {"x2", "gt"}, {"cond"});
  b.Node("Where", {"cond", "a", "t"}, {"y"});
  b.Output("y");
  b.Output("x2");
  CheckAgainstOrt("logic_where", b);
}

TEST(OrtMappedOracle, ExpandTileGather) {
  OnnxBuilder b(13);
  ConvInput(b, 3, 2, 2);
  b.InitializerInt64("repeats", {4}, {2, 1, 1, 3});
  b.Node("Tile", {"a", "repeats"}, {"tiled"});
  b.Output("tiled");
  b.Input("v", {3, 1});
  b.InitializerInt64("shape", {3}, {2, 1, 4});
  b.Node("Expand", {"v", "shape"}, {"expanded"});
  b.Output("expanded");
  b.InitializerInt64("channels", {4}, {2, 0, -1, 2});
  auto* gc = b.Node("Gather", {"a", "channels"}, {"picked"});
  OnnxBuilder::AttrInt(gc, "axis", 1);
  b.Output("picked");
  // An embedding lookup: computed ids (random in [0, 15]) into a 16-row table.
  std::vector<float> table(16 * 3);
  for (size_t i = 0; i < table.size(); ++i) table[i] = 0.25f * static_cast<float>(i % 13) - 1;
  b.Initializer("table", {16, 3}, table);
  b.Input("ids", {2, 2}, onnx::TensorProto::INT64);
  b.Node("Gather", {"table", "ids"}, {"looked_up"});
  b.Output("looked_up");
  CheckAgainstOrt("expand_tile_gather", b);
}

// DepthToSpace (DCR and CRD: PixelShuffle as exported) and SpaceToDepth map
// onto NHWC Reshape, Transpose and Reshape; from an NHWC value and from a
// graph input.
TEST(OrtMappedOracle, DepthToSpaceAndSpaceToDepth) {
  OnnxBuilder b(13);
  ConvInput(b, 8, 3, 2);
  auto* dcr = b.Node("DepthToSpace", {"a"}, {"dcr"});
  OnnxBuilder::AttrInt(dcr, "blocksize", 2);
  b.Output("dcr");
  auto* crd = b.Node("DepthToSpace", {"a"}, {"crd"});
  OnnxBuilder::AttrInt(crd, "blocksize", 2);
  OnnxBuilder::AttrString(crd, "mode", "CRD");
  b.Output("crd");
  b.Input("y", {1, 2, 4, 6});
  auto* s2d = b.Node("SpaceToDepth", {"y"}, {"s2d"});
  OnnxBuilder::AttrInt(s2d, "blocksize", 2);
  b.Output("s2d");
  CheckAgainstOrt("depth_to_space", b);
}

// 1-D convolutions (audio front ends) map onto the 2-D ops with H = 1:
// strides, dilations, asymmetric pads, groups, depthwise, bias, and the
// transposed form with output_padding.
TEST(OrtMappedOracle, Conv1dAndConvTranspose1d) {
  struct Case {
    std::string name, op;
    int64_t cin, cout, group, k;
    std::vector<int64_t> pads, strides, dilations, output_padding;
  };
  const std::vector<Case> cases = {
      {"conv_plain", "Conv", 3, 4, 1, 3, {1, 1}, {1}, {1}, {}},
      {"conv_strided_dilated_asym", "Conv", 4, 6, 2, 3, {2, 0}, {2}, {2}, {}},
      {"conv_depthwise", "Conv", 4, 4, 4, 5, {2, 2}, {1}, {1}, {}},
      {"convtranspose", "ConvTranspose", 4, 3, 1, 4, {1, 1}, {2}, {1}, {1}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    OnnxBuilder b;
    b.Input("x", {1, k.cin, 17});
    const bool transposed = k.op == "ConvTranspose";
    const std::vector<int64_t> wd = transposed ? std::vector<int64_t>{k.cin, k.cout / k.group, k.k}
                                               : std::vector<int64_t>{k.cout, k.cin / k.group, k.k};
    std::vector<float> w(wd[0] * wd[1] * wd[2]);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * static_cast<float>((i * 5) % 13) - 0.3f;
    b.Initializer("w", wd, w);
    b.Initializer("b", {k.cout}, std::vector<float>(k.cout, 0.25f));
    auto* n = b.Node(k.op, {"x", "w", "b"}, {"y"});
    OnnxBuilder::AttrInt(n, "group", k.group);
    OnnxBuilder::AttrInts(n, "pads", k.pads);
    OnnxBuilder::AttrInts(n, "strides", k.strides);
    OnnxBuilder::AttrInts(n, "dilations", k.dilations);
    if (!k.output_padding.empty()) OnnxBuilder::AttrInts(n, "output_padding", k.output_padding);
    b.Output("y");
    CheckAgainstOrt(k.name, b);
  }
}

// LayerNormalization (opset 17) maps onto LayerNorm: over the last axis of a
// 3-D tensor, and over C, H, W of a Conv-fed (NHWC inside egret) activation,
// which egret takes in its NCHW form; without a bias. Gelu (opset 20, erf
// form) maps onto Gelu.
TEST(OrtMappedOracle, LayerNormalizationAndGelu) {
  {
    OnnxBuilder b(17);
    b.Input("x", {2, 3, 8});
    std::vector<float> scale(8), bias(8);
    for (int i = 0; i < 8; ++i) scale[i] = 0.5f + 0.1f * i, bias[i] = 0.05f * i - 0.2f;
    b.Initializer("s", {8}, scale);
    b.Initializer("b", {8}, bias);
    auto* n = b.Node("LayerNormalization", {"x", "s", "b"}, {"y"});
    OnnxBuilder::AttrFloat(n, "epsilon", 1e-3f);
    b.Output("y");
    CheckAgainstOrt("layernorm_last_axis", b);
  }
  {
    OnnxBuilder b(17);
    ConvInput(b, 4, 3, 5);
    std::vector<float> scale(4 * 3 * 5);
    for (size_t i = 0; i < scale.size(); ++i) scale[i] = 0.02f * static_cast<float>(i % 17) + 0.6f;
    b.Initializer("s", {4, 3, 5}, scale);
    auto* n = b.Node("LayerNormalization", {"a", "s"}, {"y"});
    OnnxBuilder::AttrInt(n, "axis", 1);
    b.Output("y");
    CheckAgainstOrt("layernorm_chw_of_nhwc", b);
  }
  {
    OnnxBuilder b(20);
    ConvInput(b, 4, 3, 5);
    b.Node("Gelu", {"a"}, {"y"});
    b.Output("y");
    CheckAgainstOrt("gelu_erf", b);
  }
  {
    OnnxBuilder b(20);
    ConvInput(b, 4, 3, 5);
    auto* n = b.Node("Gelu", {"a"}, {"y"});
    OnnxBuilder::AttrString(n, "approximate", "tanh");
    b.Output("y");
    CheckAgainstOrt("gelu_tanh", b);
  }
  {
    OnnxBuilder b(23);
    b.Input("x", {2, 3, 8});
    std::vector<float> scale(8);
    for (size_t i = 0; i < scale.size(); ++i) scale[i] = 0.1f * static_cast<float>(i) + 0.5f;
    b.Initializer("s", {8}, scale);
    auto* n = b.Node("RMSNormalization", {"x", "s"}, {"y"});
    OnnxBuilder::AttrFloat(n, "epsilon", 1e-3f);
    b.Output("y");
    CheckAgainstOrt("rmsnorm_last_axis", b);
  }
}

}  // namespace
}  // namespace egret
