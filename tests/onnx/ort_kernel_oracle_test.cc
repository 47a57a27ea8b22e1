// ONNX Runtime as the oracle for the ONNX-semantics kernels of opaque ops
// (egret/executor/kernels/onnx/): single-node models over attribute
// combinations ONNX's conformance data leave out (bidirectional recurrent
// layers with sequence lengths, clip and custom activations; 3-D pools with
// ceil_mode and Indices; grouped, dilated 3-D transposed convolutions;
// antialiased and aspect-preserving Resize; ...). egret's importer and
// reference executor and ONNX Runtime run each model on the same seeded
// random inputs (integer operands are constants in the model). Each case
// first checks that egret kept the op opaque, so that the kernel, not an
// import mapping, is what is compared.
//
// Skips when node or onnxruntime-node is missing (scripts/fetch-models).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/executor/test_data.h"
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

constexpr int kInt64 = onnx::TensorProto::INT64;

// Imports `b`'s model, checks that it holds `op` as an opaque node, and
// compares every output of egret's run with ONNX Runtime's.
void CheckAgainstOrt(const std::string& name, const OnnxBuilder& b, const std::string& op,
                     double tol = 1e-4) {
  if (const std::string why = OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = fs::path(::testing::TempDir()) / absl::StrCat("ort_kernel_", name);
  fs::create_directories(dir);
  const std::string model = (dir / "model.onnx").string();
  ASSERT_TRUE(WriteFileAtomically(model, b.Bytes()).ok());
  absl::StatusOr<Graph> g = ReadOnnx(model);
  ASSERT_TRUE(g.ok()) << g.status();
  bool opaque = false;
  for (const Node& n : g->nodes()) opaque |= n.op == "onnx." + op;
  ASSERT_TRUE(opaque) << "egret mapped " << op << " instead of keeping it opaque";
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, /*seed=*/7);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<OracleComparison> c = CompareWithOrt(model, *g, *inputs, {}, tol, tol);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verified, c->outputs) << absl::StrJoin(c->not_verified, "; ");
  EXPECT_TRUE(c->mismatches.empty()) << name << ": " << absl::StrJoin(c->mismatches, "; ");
  fs::remove_all(dir);
}

// A recurrent layer over graph inputs X, W, R, B, initial_h (and LSTM's
// initial_c, P), with constant sequence lengths.
struct Recurrent {
  std::string op;  // RNN, GRU, LSTM
  int gates;       // 1, 3, 4
  int dirs = 1;
  int64_t seq = 5, batch = 3, input = 4, hidden = 3;
  std::vector<int32_t> lens = {5, 3, 1};
};

OnnxBuilder RecurrentModel(const Recurrent& r, onnx::NodeProto** node) {
  OnnxBuilder b(14);
  const bool lstm = r.op == "LSTM";
  b.Input("X", {r.seq, r.batch, r.input});
  b.Input("W", {r.dirs, r.gates * r.hidden, r.input});
  b.Input("R", {r.dirs, r.gates * r.hidden, r.hidden});
  b.Input("B", {r.dirs, 2 * r.gates * r.hidden});
  b.InitializerInt32("lens", {r.batch}, r.lens);
  b.Input("h0", {r.dirs, r.batch, r.hidden});
  std::vector<std::string> in = {"X", "W", "R", "B", "lens", "h0"};
  std::vector<std::string> out = {"Y", "Y_h"};
  if (lstm) {
    b.Input("c0", {r.dirs, r.batch, r.hidden});
    b.Input("P", {r.dirs, 3 * r.hidden});
    in.insert(in.end(), {"c0", "P"});
    out.push_back("Y_c");
  }
  *node = b.Node(r.op, in, out);
  OnnxBuilder::AttrInt(*node, "hidden_size", r.hidden);
  b.Output("Y", {r.seq, r.dirs, r.batch, r.hidden});
  b.Output("Y_h", {r.dirs, r.batch, r.hidden});
  if (lstm) b.Output("Y_c", {r.dirs, r.batch, r.hidden});
  return b;
}

TEST(OrtKernelOracle, LstmBidirectionalWithSequenceLengths) {
  onnx::NodeProto* n;
  OnnxBuilder b = RecurrentModel({"LSTM", 4, 2}, &n);
  OnnxBuilder::AttrString(n, "direction", "bidirectional");
  CheckAgainstOrt("lstm_bidirectional", b, "LSTM");
}

TEST(OrtKernelOracle, LstmReverseInputForget) {
  onnx::NodeProto* n;
  OnnxBuilder b = RecurrentModel({"LSTM", 4, 1}, &n);
  OnnxBuilder::AttrString(n, "direction", "reverse");
  OnnxBuilder::AttrInt(n, "input_forget", 1);
  CheckAgainstOrt("lstm_reverse", b, "LSTM");
}

TEST(OrtKernelOracle, LstmClipAndActivations) {
  onnx::NodeProto* n;
  OnnxBuilder b = RecurrentModel({"LSTM", 4, 2}, &n);
  OnnxBuilder::AttrString(n, "direction", "bidirectional");
  OnnxBuilder::AttrFloat(n, "clip", 0.5f);
  OnnxBuilder::AttrStrings(n, "activations",
                           {"HardSigmoid", "Softsign", "Elu", "Sigmoid", "ScaledTanh", "Tanh"});
  OnnxBuilder::AttrFloats(n, "activation_alpha", {0.3f, 0.9f, 1.5f});
  OnnxBuilder::AttrFloats(n, "activation_beta", {0.4f, 0.7f});
  CheckAgainstOrt("lstm_activations", b, "LSTM");
}

TEST(OrtKernelOracle, GruBidirectionalLinearBeforeReset) {
  onnx::NodeProto* n;
  OnnxBuilder b = RecurrentModel({"GRU", 3, 2}, &n);
  OnnxBuilder::AttrString(n, "direction", "bidirectional");
  OnnxBuilder::AttrInt(n, "linear_before_reset", 1);
  CheckAgainstOrt("gru_bidirectional", b, "GRU");
}

TEST(OrtKernelOracle, GruReverseClipActivations) {
  onnx::NodeProto* n;
  OnnxBuilder b = RecurrentModel({"GRU", 3, 1}, &n);
  OnnxBuilder::AttrString(n, "direction", "reverse");
  OnnxBuilder::AttrFloat(n, "clip", 0.6f);
  OnnxBuilder::AttrStrings(n, "activations", {"HardSigmoid", "LeakyRelu"});
  OnnxBuilder::AttrFloats(n, "activation_alpha", {0.25f, 0.1f});
  OnnxBuilder::AttrFloats(n, "activation_beta", {0.5f});
  CheckAgainstOrt("gru_reverse", b, "GRU");
}

TEST(OrtKernelOracle, RnnBidirectionalActivations) {
  onnx::NodeProto* n;
  OnnxBuilder b = RecurrentModel({"RNN", 1, 2}, &n);
  OnnxBuilder::AttrString(n, "direction", "bidirectional");
  OnnxBuilder::AttrStrings(n, "activations", {"Relu", "LeakyRelu"});
  OnnxBuilder::AttrFloats(n, "activation_alpha", {0.2f});
  CheckAgainstOrt("rnn_bidirectional", b, "RNN");
}

// ---------------------------------------------------------------------------
// Losses: targets are constants, some equal to ignore_index.

// n targets in [0, classes), every fourth one `ignore`.
std::vector<int64_t> Targets(size_t n, int64_t classes, int64_t ignore) {
  std::vector<int64_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = i % 4 == 3 ? ignore : static_cast<int64_t>(i * 5) % classes;
  return t;
}

TEST(OrtKernelOracle, NllLoss4dWeightIgnoreIndex) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3, 4, 5});
  b.InitializerInt64("t", {2, 4, 5}, Targets(40, 3, 7));
  b.Initializer("w", {3}, {0.5f, 1.5f, 2.0f});
  auto* n = b.Node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"y"});
  OnnxBuilder::AttrInt(n, "ignore_index", 7);
  OnnxBuilder::AttrString(n, "reduction", "mean");
  b.Output("y", {});
  CheckAgainstOrt("nll", b, "NegativeLogLikelihoodLoss");
}

TEST(OrtKernelOracle, SoftmaxCrossEntropyNoneWithLogProb) {
  OnnxBuilder b(13);
  b.Input("x", {3, 4, 5});
  b.InitializerInt64("t", {3, 5}, Targets(15, 4, -1));
  auto* n = b.Node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"y", "log_prob"});
  OnnxBuilder::AttrInt(n, "ignore_index", -1);
  OnnxBuilder::AttrString(n, "reduction", "none");
  b.Output("y", {3, 5});
  b.Output("log_prob", {3, 4, 5});
  CheckAgainstOrt("sce", b, "SoftmaxCrossEntropyLoss");
}

// ---------------------------------------------------------------------------
// Pools.

TEST(OrtKernelOracle, MaxPool3dCeilDilationsIndices) {
  OnnxBuilder b(12);
  b.Input("x", {1, 2, 5, 6, 7});
  auto* n = b.Node("MaxPool", {"x"}, {"y", "i"});
  OnnxBuilder::AttrInts(n, "kernel_shape", {2, 3, 2});
  OnnxBuilder::AttrInts(n, "strides", {2, 1, 2});
  OnnxBuilder::AttrInts(n, "dilations", {1, 2, 1});
  OnnxBuilder::AttrInts(n, "pads", {0, 0, 1, 0, 1, 0});
  OnnxBuilder::AttrInt(n, "ceil_mode", 1);
  b.Output("y", {1, 2, 3, 3, 4});
  b.Output("i", {1, 2, 3, 3, 4}, kInt64);
  CheckAgainstOrt("maxpool_3d", b, "MaxPool");
}

TEST(OrtKernelOracle, MaxPool2dColumnMajorIndices) {
  OnnxBuilder b(12);
  b.Input("x", {1, 3, 6, 5});
  auto* n = b.Node("MaxPool", {"x"}, {"y", "i"});
  OnnxBuilder::AttrInts(n, "kernel_shape", {3, 2});
  OnnxBuilder::AttrInts(n, "strides", {2, 2});
  OnnxBuilder::AttrInts(n, "pads", {1, 0, 1, 1});
  OnnxBuilder::AttrInt(n, "storage_order", 1);
  b.Output("y", {1, 3, 3, 3});
  b.Output("i", {1, 3, 3, 3}, kInt64);
  CheckAgainstOrt("maxpool_2d_indices", b, "MaxPool");
}

TEST(OrtKernelOracle, AveragePool1dCeilIncludePad) {
  OnnxBuilder b(12);
  b.Input("x", {2, 3, 9});
  auto* n = b.Node("AveragePool", {"x"}, {"y"});
  OnnxBuilder::AttrInts(n, "kernel_shape", {4});
  OnnxBuilder::AttrInts(n, "strides", {3});
  OnnxBuilder::AttrInts(n, "pads", {2, 1});
  OnnxBuilder::AttrInt(n, "count_include_pad", 1);
  OnnxBuilder::AttrInt(n, "ceil_mode", 1);
  b.Output("y", {2, 3, 4});
  CheckAgainstOrt("avgpool_1d", b, "AveragePool");
}

TEST(OrtKernelOracle, AveragePool3dSameUpper) {
  OnnxBuilder b(12);
  b.Input("x", {1, 2, 5, 6, 4});
  auto* n = b.Node("AveragePool", {"x"}, {"y"});
  OnnxBuilder::AttrInts(n, "kernel_shape", {3, 2, 3});
  OnnxBuilder::AttrInts(n, "strides", {2, 2, 1});
  OnnxBuilder::AttrString(n, "auto_pad", "SAME_UPPER");
  b.Output("y", {1, 2, 3, 3, 4});
  CheckAgainstOrt("avgpool_3d", b, "AveragePool");
}

TEST(OrtKernelOracle, MaxUnpoolOfMaxPool) {
  OnnxBuilder b(12);
  b.Input("x", {1, 2, 4, 6});
  auto* pool = b.Node("MaxPool", {"x"}, {"p", "i"});
  OnnxBuilder::AttrInts(pool, "kernel_shape", {2, 2});
  OnnxBuilder::AttrInts(pool, "strides", {2, 2});
  auto* n = b.Node("MaxUnpool", {"p", "i"}, {"y"});
  OnnxBuilder::AttrInts(n, "kernel_shape", {2, 2});
  OnnxBuilder::AttrInts(n, "strides", {2, 2});
  b.Output("y", {1, 2, 4, 6});
  CheckAgainstOrt("maxunpool", b, "MaxUnpool");
}

// ---------------------------------------------------------------------------
// ConvTranspose and BatchNormalization.

TEST(OrtKernelOracle, ConvTranspose3dGroupsDilationsOutputPadding) {
  OnnxBuilder b(11);
  b.Input("x", {1, 4, 3, 4, 2});
  b.Input("w", {4, 3, 2, 3, 2});
  b.Input("bias", {6});
  auto* n = b.Node("ConvTranspose", {"x", "w", "bias"}, {"y"});
  OnnxBuilder::AttrInt(n, "group", 2);
  OnnxBuilder::AttrInts(n, "strides", {2, 1, 2});
  OnnxBuilder::AttrInts(n, "dilations", {1, 2, 1});
  OnnxBuilder::AttrInts(n, "pads", {1, 0, 0, 0, 1, 1});
  OnnxBuilder::AttrInts(n, "output_padding", {1, 0, 1});
  b.Output("y", {1, 6, 6, 7, 4});
  CheckAgainstOrt("convtranspose_3d", b, "ConvTranspose");
}

TEST(OrtKernelOracle, ConvTranspose1dSameUpper) {
  OnnxBuilder b(11);
  b.Input("x", {2, 3, 5});
  b.Input("w", {3, 2, 4});
  auto* n = b.Node("ConvTranspose", {"x", "w"}, {"y"});
  OnnxBuilder::AttrInts(n, "strides", {3});
  OnnxBuilder::AttrString(n, "auto_pad", "SAME_UPPER");
  b.Output("y", {2, 2, 15});
  CheckAgainstOrt("convtranspose_1d", b, "ConvTranspose");
}

TEST(OrtKernelOracle, ConvTranspose2dOutputShape) {
  OnnxBuilder b(11);
  b.Input("x", {1, 2, 3, 3});
  b.Input("w", {2, 2, 3, 3});
  auto* n = b.Node("ConvTranspose", {"x", "w"}, {"y"});
  OnnxBuilder::AttrInts(n, "strides", {2, 2});
  OnnxBuilder::AttrInts(n, "output_shape", {6, 8});
  b.Output("y", {1, 2, 6, 8});
  CheckAgainstOrt("convtranspose_2d", b, "ConvTranspose");
}

TEST(OrtKernelOracle, BatchNormalization5d) {
  OnnxBuilder b(15);
  b.Input("x", {2, 3, 4, 5, 2});
  b.Input("scale", {3});
  b.Input("bias", {3});
  b.Input("mean", {3});
  b.Initializer("var", {3}, {0.5f, 1.0f, 2.0f});
  b.Node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"});
  b.Output("y", {2, 3, 4, 5, 2});
  CheckAgainstOrt("batchnorm_5d", b, "BatchNormalization");
}

// ---------------------------------------------------------------------------
// Resize and GridSample.

TEST(OrtKernelOracle, ResizeCubicExcludeOutside) {
  OnnxBuilder b(13);
  b.Input("x", {1, 2, 5, 7});
  b.Initializer("roi", {0}, {});
  b.Initializer("scales", {4}, {1.0f, 1.0f, 1.5f, 1.7f});
  auto* n = b.Node("Resize", {"x", "roi", "scales"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "cubic");
  OnnxBuilder::AttrFloat(n, "cubic_coeff_a", -0.5f);
  OnnxBuilder::AttrInt(n, "exclude_outside", 1);
  b.Output("y", {1, 2, 7, 11});
  CheckAgainstOrt("resize_cubic", b, "Resize");
}

TEST(OrtKernelOracle, ResizeLinearAntialias) {
  OnnxBuilder b(18);
  b.Input("x", {1, 2, 10, 9});
  b.InitializerInt64("sizes", {4}, {1, 2, 4, 5});
  auto* n = b.Node("Resize", {"x", "", "", "sizes"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "linear");
  OnnxBuilder::AttrInt(n, "antialias", 1);
  b.Output("y", {1, 2, 4, 5});
  CheckAgainstOrt("resize_linear_antialias", b, "Resize");
}

TEST(OrtKernelOracle, ResizeCubicAntialias) {
  OnnxBuilder b(18);
  b.Input("x", {1, 1, 8, 8});
  b.Initializer("scales", {4}, {1.0f, 1.0f, 0.4f, 0.6f});
  auto* n = b.Node("Resize", {"x", "", "scales"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "cubic");
  OnnxBuilder::AttrInt(n, "antialias", 1);
  b.Output("y", {1, 1, 3, 4});
  CheckAgainstOrt("resize_cubic_antialias", b, "Resize");
}

TEST(OrtKernelOracle, ResizeAxesNotLarger) {
  OnnxBuilder b(18);
  b.Input("x", {1, 2, 6, 8});
  b.InitializerInt64("sizes", {2}, {5, 5});
  auto* n = b.Node("Resize", {"x", "", "", "sizes"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "linear");
  OnnxBuilder::AttrInts(n, "axes", {2, 3});
  OnnxBuilder::AttrString(n, "keep_aspect_ratio_policy", "not_larger");
  b.Output("y", {1, 2, 4, 5});
  CheckAgainstOrt("resize_not_larger", b, "Resize");
}

TEST(OrtKernelOracle, ResizeNotSmallerNearestCeil) {
  OnnxBuilder b(18);
  b.Input("x", {1, 2, 6, 8});
  b.InitializerInt64("sizes", {2}, {5, 5});
  auto* n = b.Node("Resize", {"x", "", "", "sizes"}, {"y"});
  OnnxBuilder::AttrInts(n, "axes", {2, 3});
  OnnxBuilder::AttrString(n, "keep_aspect_ratio_policy", "not_smaller");
  OnnxBuilder::AttrString(n, "coordinate_transformation_mode", "asymmetric");
  OnnxBuilder::AttrString(n, "nearest_mode", "round_prefer_ceil");
  b.Output("y", {1, 2, 5, 7});
  CheckAgainstOrt("resize_not_smaller", b, "Resize");
}

TEST(OrtKernelOracle, ResizeTfCropAndResizeExtrapolation) {
  OnnxBuilder b(13);
  b.Input("x", {1, 1, 5, 6});
  b.Initializer("roi", {8}, {0, 0, 0.1f, -0.2f, 1, 1, 1.3f, 0.9f});
  b.Initializer("scales", {0}, {});
  b.InitializerInt64("sizes", {4}, {1, 1, 4, 5});
  auto* n = b.Node("Resize", {"x", "roi", "scales", "sizes"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "linear");
  OnnxBuilder::AttrString(n, "coordinate_transformation_mode", "tf_crop_and_resize");
  OnnxBuilder::AttrFloat(n, "extrapolation_value", 7.5f);
  b.Output("y", {1, 1, 4, 5});
  CheckAgainstOrt("resize_tf_crop", b, "Resize");
}

TEST(OrtKernelOracle, ResizeHalfPixelSymmetric) {
  OnnxBuilder b(19);
  b.Input("x", {1, 1, 4, 5});
  b.Initializer("scales", {4}, {1.0f, 1.0f, 1.3f, 0.7f});
  auto* n = b.Node("Resize", {"x", "", "scales"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "linear");
  OnnxBuilder::AttrString(n, "coordinate_transformation_mode", "half_pixel_symmetric");
  b.Output("y", {1, 1, 5, 3});
  CheckAgainstOrt("resize_half_pixel_symmetric", b, "Resize");
}

TEST(OrtKernelOracle, ResizePytorchHalfPixelCubicToOne) {
  OnnxBuilder b(13);
  b.Input("x", {1, 1, 4, 4});
  b.Initializer("roi", {0}, {});
  b.Initializer("scales", {0}, {});
  b.InitializerInt64("sizes", {4}, {1, 1, 1, 3});
  auto* n = b.Node("Resize", {"x", "roi", "scales", "sizes"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "cubic");
  OnnxBuilder::AttrString(n, "coordinate_transformation_mode", "pytorch_half_pixel");
  b.Output("y", {1, 1, 1, 3});
  CheckAgainstOrt("resize_pytorch_half_pixel", b, "Resize");
}

TEST(OrtKernelOracle, GridSampleBicubicReflection) {
  OnnxBuilder b(16);
  b.Input("x", {1, 2, 4, 5});
  b.Input("grid", {1, 3, 6, 2});
  auto* n = b.Node("GridSample", {"x", "grid"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "bicubic");
  OnnxBuilder::AttrString(n, "padding_mode", "reflection");
  b.Output("y", {1, 2, 3, 6});
  CheckAgainstOrt("gridsample_bicubic", b, "GridSample");
}

TEST(OrtKernelOracle, GridSampleNearestBorderAlignCorners) {
  OnnxBuilder b(16);
  b.Input("x", {2, 1, 3, 4});
  b.Input("grid", {2, 4, 4, 2});
  auto* n = b.Node("GridSample", {"x", "grid"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "nearest");
  OnnxBuilder::AttrString(n, "padding_mode", "border");
  OnnxBuilder::AttrInt(n, "align_corners", 1);
  b.Output("y", {2, 1, 4, 4});
  CheckAgainstOrt("gridsample_nearest", b, "GridSample");
}

TEST(OrtKernelOracle, GridSampleVolumetricLinear) {
  OnnxBuilder b(20);
  b.Input("x", {1, 2, 3, 4, 5});
  b.Input("grid", {1, 2, 3, 2, 3});
  b.Node("GridSample", {"x", "grid"}, {"y"});
  b.Output("y", {1, 2, 2, 3, 2});
  CheckAgainstOrt("gridsample_3d", b, "GridSample");
}

// ---------------------------------------------------------------------------
// RoiAlign and signal ops.

TEST(OrtKernelOracle, RoiAlignOutputHalfPixel) {
  OnnxBuilder b(16);
  b.Input("x", {2, 3, 10, 12});
  b.Initializer("rois", {3, 4}, {1.5f, 2.0f, 9.0f, 8.5f, 0, 0, 4, 3, 6.2f, 1.1f, 11.0f, 9.7f});
  b.InitializerInt64("batch", {3}, {0, 1, 1});
  auto* n = b.Node("RoiAlign", {"x", "rois", "batch"}, {"y"});
  OnnxBuilder::AttrString(n, "coordinate_transformation_mode", "output_half_pixel");
  OnnxBuilder::AttrInt(n, "output_height", 3);
  OnnxBuilder::AttrInt(n, "output_width", 4);
  OnnxBuilder::AttrFloat(n, "spatial_scale", 0.8f);
  b.Output("y", {3, 3, 3, 4});
  CheckAgainstOrt("roialign", b, "RoiAlign");
}

// mode max takes, per sampling point, the largest of its four weighted
// corner values (as ONNX Runtime and ONNX's reference do), then the maximum
// over the bin's points.
TEST(OrtKernelOracle, RoiAlignMaxHalfPixel) {
  OnnxBuilder b(16);
  b.Input("x", {1, 2, 8, 9});
  b.Initializer("rois", {2, 4}, {1.5f, 2.0f, 7.0f, 6.5f, 0.2f, 0.4f, 3.3f, 7.9f});
  b.InitializerInt64("batch", {2}, {0, 0});
  auto* n = b.Node("RoiAlign", {"x", "rois", "batch"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", "max");
  OnnxBuilder::AttrInt(n, "output_height", 2);
  OnnxBuilder::AttrInt(n, "output_width", 3);
  OnnxBuilder::AttrInt(n, "sampling_ratio", 2);
  b.Output("y", {2, 2, 2, 3});
  CheckAgainstOrt("roialign_max", b, "RoiAlign");
}

TEST(OrtKernelOracle, DftInverseComplexWithLength) {
  OnnxBuilder b(17);
  b.Input("x", {2, 3, 6, 2});
  b.InitializerInt64("len", {}, {8});
  auto* n = b.Node("DFT", {"x", "len"}, {"y"});
  OnnxBuilder::AttrInt(n, "axis", 2);
  OnnxBuilder::AttrInt(n, "inverse", 1);
  b.Output("y", {2, 3, 8, 2});
  CheckAgainstOrt("dft_inverse", b, "DFT");
}

TEST(OrtKernelOracle, DftOnesidedReal) {
  OnnxBuilder b(17);
  b.Input("x", {3, 7, 1});
  auto* n = b.Node("DFT", {"x"}, {"y"});
  OnnxBuilder::AttrInt(n, "onesided", 1);
  b.Output("y", {3, 4, 2});
  CheckAgainstOrt("dft_onesided", b, "DFT");
}

// onesided is given: ONNX 1.12's shape inference, which types the node,
// assumes 0 when it is absent (the op's default is 1).
TEST(OrtKernelOracle, StftTwoSidedWithHammingWindow) {
  OnnxBuilder b(17);
  b.Input("signal", {2, 40, 1});
  b.InitializerInt64("step", {}, {6});
  b.InitializerInt64("size", {}, {10});
  auto* w = b.Node("HammingWindow", {"size"}, {"window"});
  OnnxBuilder::AttrInt(w, "periodic", 0);
  auto* n = b.Node("STFT", {"signal", "step", "window"}, {"y"});
  OnnxBuilder::AttrInt(n, "onesided", 0);
  b.Output("y", {2, 6, 10, 2});
  CheckAgainstOrt("stft", b, "STFT");
}

// lower_edge_hertz is 100 Hz plus a graph input (random in [-1, 1)) so that
// egret does not fold the constant matrix at import.
TEST(OrtKernelOracle, MelWeightMatrix) {
  OnnxBuilder b(17);
  b.Input("jitter", {});
  b.Initializer("base", {}, {100.0f});
  b.Node("Add", {"base", "jitter"}, {"lower"});
  b.InitializerInt64("bins", {}, {12});
  b.InitializerInt64("dft", {}, {64});
  b.InitializerInt64("rate", {}, {16000});
  b.Initializer("upper", {}, {7000.0f});
  b.Node("MelWeightMatrix", {"bins", "dft", "rate", "lower", "upper"}, {"y"});
  b.Output("y", {33, 12});
  CheckAgainstOrt("melweightmatrix", b, "MelWeightMatrix");
}

// TfIdfVectorizer over int64 tokens in [0, 16): 1- to 3-grams with skips,
// IDF and TFIDF weighting (the conformance cases are all TF; weights are
// per pool n-gram), the pool's columns out of order, rows and a 1-D input.
void TfIdfModel(OnnxBuilder& b, const std::string& mode, const std::vector<int64_t>& x_dims,
                const std::vector<int64_t>& y_dims) {
  b.Input("x", x_dims, kInt64);
  onnx::NodeProto* n = b.Node("TfIdfVectorizer", {"x"}, {"y"});
  OnnxBuilder::AttrString(n, "mode", mode);
  OnnxBuilder::AttrInt(n, "min_gram_length", 1);
  OnnxBuilder::AttrInt(n, "max_gram_length", 3);
  OnnxBuilder::AttrInt(n, "max_skip_count", 2);
  // 1-grams 3, 5, 7; 2-grams (1,2), (4,4), (9,0); 3-gram (2,2,2).
  OnnxBuilder::AttrInts(n, "ngram_counts", {0, 3, 9});
  OnnxBuilder::AttrInts(n, "pool_int64s", {3, 5, 7, 1, 2, 4, 4, 9, 0, 2, 2, 2});
  OnnxBuilder::AttrInts(n, "ngram_indexes", {6, 0, 2, 1, 3, 5, 4});
  OnnxBuilder::AttrFloats(n, "weights", {0.5f, 1.5f, 2.0f, 3.0f, 0.25f, 4.0f, 1.25f});
  b.Output("y", y_dims);
}

TEST(OrtKernelOracle, TfIdfVectorizerIdfAndTfIdf) {
  for (const std::string mode : {"TF", "IDF", "TFIDF"}) {
    OnnxBuilder b(13);
    TfIdfModel(b, mode, {3, 40}, {3, 7});
    CheckAgainstOrt("tfidf_" + mode, b, "TfIdfVectorizer");
    OnnxBuilder one(13);
    TfIdfModel(one, mode, {60}, {7});
    CheckAgainstOrt("tfidf_1d_" + mode, one, "TfIdfVectorizer");
  }
}

// Sequences inside a graph: X [3, 4] split along axis 1 into four [3]
// columns (keepdims 0), the last erased, one inserted at the front, the rest
// stacked along a new axis 1 ([3, 4]) and, as a second output, concatenated
// after a SplitToSequence with split lengths [1, 2] along axis 0.
TEST(OrtKernelOracle, SequenceOpsInsideAGraph) {
  OnnxBuilder b(13);
  b.Input("x", {3, 4});
  b.InitializerInt64("last", {}, {-1});
  b.InitializerInt64("front", {}, {0});
  b.InitializerInt64("lens", {2}, {1, 2});
  onnx::NodeProto* split = b.Node("SplitToSequence", {"x"}, {"cols"});
  OnnxBuilder::AttrInt(split, "axis", 1);
  OnnxBuilder::AttrInt(split, "keepdims", 0);
  b.Node("SequenceErase", {"cols", "last"}, {"three"});
  b.Node("SequenceAt", {"cols", "last"}, {"col"});
  b.Node("SequenceInsert", {"three", "col", "front"}, {"four"});
  onnx::NodeProto* stack = b.Node("ConcatFromSequence", {"four"}, {"y"});
  OnnxBuilder::AttrInt(stack, "axis", 1);
  OnnxBuilder::AttrInt(stack, "new_axis", 1);
  b.Node("SplitToSequence", {"x", "lens"}, {"rows"});
  OnnxBuilder::AttrInt(b.Node("ConcatFromSequence", {"rows"}, {"z"}), "axis", 0);
  b.Output("y", {3, 4});
  b.Output("z", {3, 4});
  CheckAgainstOrt("sequence_ops", b, "ConcatFromSequence", 0);
}

}  // namespace
}  // namespace egret
