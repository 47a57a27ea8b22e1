// ONNX-semantics kernels for opaque losses, pools, sampling, signal and
// training ops, on small hand-checked examples (the conformance suite,
// tests/onnx, runs them on ONNX's own test data).
// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "onnx_node.h"

namespace egret {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::F32;
using testing::F32Type;
using ::testing::HasSubstr;
using testing::I64;
using testing::OnnxNode;
using ::testing::Pointwise;
using testing::Values;

auto Near(std::vector<double> v) { return Pointwise(DoubleNear(1e-6), v); }

// Runs `node` and returns the values of output k (empty on failure).
std::vector<double> Out(const OnnxNode& node, size_t k = 0) {
  auto out = node.Run();
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->size() <= k) return {};
  return Values((*out)[k]);
}

// ---------------------------------------------------------------------------
// Losses.

// Log-probabilities of 3 samples over 2 classes; targets 0, 1, 0 with class
// 1 ignored: the per-sample losses are 1, 0, 5 and the mean divides by the 2
// samples that count.
TEST(OnnxNllLoss, IgnoreIndex) {
  auto nll = [](std::string reduction, std::optional<Tensor> weight) {
    return OnnxNode{"onnx.NegativeLogLikelihoodLoss",
                    {F32({3, 2}, {-1, -2, -3, -4, -5, -6}), I64({3}, {0, 1, 0}), weight},
                    {{"ignore_index", int64_t{1}}, {"reduction", reduction}},
                    {F32Type(reduction == "none" ? Dims{3} : Dims{})}};
  };
  EXPECT_THAT(Out(nll("none", std::nullopt)), ElementsAre(1, 0, 5));
  EXPECT_THAT(Out(nll("sum", std::nullopt)), ElementsAre(6));
  EXPECT_THAT(Out(nll("mean", std::nullopt)), ElementsAre(3));
  // Class weights (2, 3): losses 2, 0, 10; the mean divides by 2 + 2.
  EXPECT_THAT(Out(nll("none", F32({2}, {2, 3}))), ElementsAre(2, 0, 10));
  EXPECT_THAT(Out(nll("mean", F32({2}, {2, 3}))), ElementsAre(3));
}

// N-d inputs: [N, C, d] with targets [N, d].
TEST(OnnxNllLoss, SpatialTargets) {
  // input[n=0][c][d]: class 0 = (-1, -2), class 1 = (-3, -4).
  OnnxNode nll{"onnx.NegativeLogLikelihoodLoss",
               {F32({1, 2, 2}, {-1, -2, -3, -4}), I64({1, 2}, {1, 0})},
               {{"reduction", std::string("none")}},
               {F32Type({1, 2})}};
  EXPECT_THAT(Out(nll), ElementsAre(3, 2));
}

TEST(OnnxNllLoss, TargetOutOfRangeIsAnError) {
  OnnxNode nll{
      "onnx.NegativeLogLikelihoodLoss", {F32({1, 2}, {-1, -2}), I64({1}, {2})}, {}, {F32Type({})}};
  auto out = nll.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("target 2 is outside [0, 2)"));
}

// Scores (0, ln 3) are probabilities (1/4, 3/4); with target 1 the loss is
// -ln(3/4), and output 1 holds the log-probabilities.
TEST(OnnxSoftmaxCrossEntropyLoss, LossAndLogProb) {
  OnnxNode sce{"onnx.SoftmaxCrossEntropyLoss",
               {F32({1, 2}, {0, std::log(3.0)}), I64({1}, {1})},
               {},
               {F32Type({}), F32Type({1, 2})}};
  EXPECT_THAT(Out(sce, 0), Near({-std::log(0.75)}));
  EXPECT_THAT(Out(sce, 1), Near({std::log(0.25), std::log(0.75)}));
}

// ---------------------------------------------------------------------------
// Pools.

// A 1-D max pool of kernel 2 and dilation 2 compares x[i] with x[i + 2]; the
// Indices output gives the flat index of each maximum (the first of equal
// ones).
TEST(OnnxMaxPool, DilatedWithIndices) {
  OnnxNode pool{"onnx.MaxPool",
                {F32({1, 1, 5}, {3, 1, 4, 1, 5})},
                {{"kernel_shape", std::vector<int64_t>{2}}, {"dilations", std::vector<int64_t>{2}}},
                {F32Type({1, 1, 3}), TensorType(DType::kInt64, {1, 1, 3})}};
  EXPECT_THAT(Out(pool, 0), ElementsAre(4, 1, 5));
  EXPECT_THAT(Out(pool, 1), ElementsAre(2, 1, 4));
}

// storage_order 1 numbers the spatial positions column-major: in a 2x2 map
// the maximum at row 0, column 1 is index 2 (1 row-major).
TEST(OnnxMaxPool, ColumnMajorIndices) {
  OnnxNode pool{"onnx.MaxPool",
                {F32({1, 1, 2, 2}, {1, 9, 2, 3})},
                {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"storage_order", int64_t{1}}},
                {F32Type({1, 1, 1, 1}), TensorType(DType::kInt64, {1, 1, 1, 1})}};
  EXPECT_THAT(Out(pool, 0), ElementsAre(9));
  EXPECT_THAT(Out(pool, 1), ElementsAre(2));
}

// Kernel 2 over (1, 2, 3) padded by one on each side: the edge windows hold
// one value and one pad, averaged over 2 with count_include_pad, over 1
// without.
TEST(OnnxAveragePool, CountIncludePad) {
  auto pool = [](int64_t include) {
    return OnnxNode{"onnx.AveragePool",
                    {F32({1, 1, 3}, {1, 2, 3})},
                    {{"kernel_shape", std::vector<int64_t>{2}},
                     {"pads", std::vector<int64_t>{1, 1}},
                     {"count_include_pad", include}},
                    {F32Type({1, 1, 4})}};
  };
  EXPECT_THAT(Out(pool(1)), ElementsAre(0.5, 1.5, 2.5, 1.5));
  EXPECT_THAT(Out(pool(0)), ElementsAre(1, 1.5, 2.5, 3));
}

TEST(OnnxMaxUnpool, PutsValuesAtTheirIndices) {
  OnnxNode unpool{"onnx.MaxUnpool",
                  {F32({1, 1, 2}, {7, 9}), I64({1, 1, 2}, {1, 2})},
                  {{"kernel_shape", std::vector<int64_t>{2}}, {"strides", std::vector<int64_t>{2}}},
                  {F32Type({1, 1, 4})}};
  EXPECT_THAT(Out(unpool), ElementsAre(0, 7, 9, 0));
}

// A transposed 1-D convolution of stride 2 scatters each input times the
// kernel (1, 1, 1) at positions 2i .. 2i + 2; the bias adds everywhere.
TEST(OnnxConvTranspose, Stride2) {
  OnnxNode conv{"onnx.ConvTranspose",
                {F32({1, 1, 2}, {1, 2}), F32({1, 1, 3}, {1, 1, 1}), F32({1}, {10})},
                {{"strides", std::vector<int64_t>{2}}},
                {F32Type({1, 1, 5})}};
  EXPECT_THAT(Out(conv), ElementsAre(11, 11, 13, 12, 12));
}

// Training mode normalizes with the batch statistics (mean 2, variance 2/3
// of 1, 2, 3) and moves the running ones towards them by 1 - momentum.
TEST(OnnxBatchNormalization, TrainingMode) {
  OnnxNode bn{
      "onnx.BatchNormalization",
      {F32({1, 1, 3}, {1, 2, 3}), F32({1}, {1}), F32({1}, {0}), F32({1}, {0}), F32({1}, {1})},
      {{"training_mode", int64_t{1}}, {"momentum", 0.5}, {"epsilon", 0.0}},
      {F32Type({1, 1, 3}), F32Type({1}), F32Type({1})}};
  const double sd = std::sqrt(2.0 / 3.0);
  EXPECT_THAT(Out(bn, 0), Near({-1 / sd, 0, 1 / sd}));
  EXPECT_THAT(Out(bn, 1), Near({1.0}));                // 0 * 0.5 + 2 * 0.5
  EXPECT_THAT(Out(bn, 2), Near({(1 + 2.0 / 3) / 2}));  // 1 * 0.5 + 2/3 * 0.5
}

// ---------------------------------------------------------------------------
// Sampling.

// Upsampling (10, 20) to 4 with half_pixel maps outputs to -0.25, 0.25,
// 0.75, 1.25; each nearest_mode rounds those its own way.
TEST(OnnxResize, NearestModes) {
  auto resize = [](std::string nearest_mode) {
    return OnnxNode{"onnx.Resize",
                    {F32({1, 1, 2}, {10, 20}), std::nullopt, std::nullopt, I64({3}, {1, 1, 4})},
                    {{"mode", std::string("nearest")}, {"nearest_mode", nearest_mode}},
                    {F32Type({1, 1, 4})}};
  };
  EXPECT_THAT(Out(resize("round_prefer_floor")), ElementsAre(10, 10, 20, 20));
  EXPECT_THAT(Out(resize("floor")), ElementsAre(10, 10, 10, 20));
  EXPECT_THAT(Out(resize("ceil")), ElementsAre(10, 20, 20, 20));
}

TEST(OnnxResize, LinearAlignCorners) {
  OnnxNode resize{"onnx.Resize",
                  {F32({1, 1, 2}, {10, 20}), std::nullopt, F32({3}, {1, 1, 1.5})},
                  {{"mode", std::string("linear")},
                   {"coordinate_transformation_mode", std::string("align_corners")}},
                  {F32Type({1, 1, 3})}};
  EXPECT_THAT(Out(resize), ElementsAre(10, 15, 20));
}

// axes limits scales to the listed axes.
TEST(OnnxResize, Axes) {
  OnnxNode resize{"onnx.Resize",
                  {F32({1, 2}, {10, 20}), std::nullopt, F32({1}, {2})},
                  {{"mode", std::string("nearest")},
                   {"coordinate_transformation_mode", std::string("asymmetric")},
                   {"axes", std::vector<int64_t>{-1}}},
                  {F32Type({1, 4})}};
  EXPECT_THAT(Out(resize), ElementsAre(10, 10, 20, 20));
}

// The grid point (0, 0) is the centre of the map: with align_corners it lies
// between all four pixels and bilinear sampling averages them.
TEST(OnnxGridSample, BilinearCentre) {
  OnnxNode gs{"onnx.GridSample",
              {F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({1, 1, 1, 2}, {0, 0})},
              {{"align_corners", int64_t{1}}},
              {F32Type({1, 1, 1, 1})}};
  EXPECT_THAT(Out(gs), Near({2.5}));
}

// ---------------------------------------------------------------------------
// Detection.

// Box 1 overlaps box 0 (IoU 0.8 > 0.5) and is suppressed; box 2 is apart.
TEST(OnnxNonMaxSuppression, SuppressesOverlaps) {
  OnnxNode nms{"onnx.NonMaxSuppression",
               {F32({1, 3, 4}, {0, 0, 1, 1, 0, 0, 1, 0.8, 5, 5, 6, 6}),
                F32({1, 1, 3}, {0.9, 0.8, 0.7}), I64({1}, {10}), F32({1}, {0.5})},
               {},
               {TensorType(DType::kInt64, {2, 3})}};
  EXPECT_THAT(Out(nms), ElementsAre(0, 0, 0, 0, 0, 2));
}

// A 4x4 map whose value is its column (x), one 2x2 roi at the origin
// sampled once at its centre: half_pixel (the default since opset 16)
// shifts the roi by -0.5 and samples x = 0.5; output_half_pixel (the only
// behaviour before) samples x = 1.
TEST(OnnxRoiAlign, DefaultTransformFollowsTheOpset) {
  auto roi_align = [](int64_t opset) {
    return OnnxNode{"onnx.RoiAlign",
                    {F32({1, 1, 4, 4}, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}),
                     F32({1, 4}, {0, 0, 2, 2}), I64({1}, {0})},
                    {{"sampling_ratio", int64_t{1}}, {"onnx.opset", opset}},
                    {F32Type({1, 1, 1, 1})}};
  };
  EXPECT_THAT(Out(roi_align(16)), Near({0.5}));
  EXPECT_THAT(Out(roi_align(10)), Near({1.0}));
}

// ---------------------------------------------------------------------------
// Signal.

// The DFT of (1, 1, 1, 1) is (4, 0, 0, 0); onesided keeps bins 0 .. 2, and
// the inverse of the full spectrum gives the signal back.
TEST(OnnxDft, ConstantSignal) {
  OnnxNode full{"onnx.DFT", {F32({1, 4, 1}, {1, 1, 1, 1})}, {}, {F32Type({1, 4, 2})}};
  EXPECT_THAT(Out(full), Near({4, 0, 0, 0, 0, 0, 0, 0}));
  OnnxNode onesided{
      "onnx.DFT", {F32({1, 4, 1}, {1, 1, 1, 1})}, {{"onesided", int64_t{1}}}, {F32Type({1, 3, 2})}};
  EXPECT_THAT(Out(onesided), Near({4, 0, 0, 0, 0, 0}));
  OnnxNode inverse{"onnx.DFT",
                   {F32({1, 4, 2}, {4, 0, 0, 0, 0, 0, 0, 0})},
                   {{"inverse", int64_t{1}}},
                   {F32Type({1, 4, 2})}};
  EXPECT_THAT(Out(inverse), Near({1, 0, 1, 0, 1, 0, 1, 0}));
}

// DFT's default axis is 1 up to opset 17 and -2 (the last signal dim) from
// opset 20. X[0] = ((1, 1), (0, 0)): along dim 1 each column (1, 0)
// transforms to (1, 1); along dim 2 the rows become (2, 0) and (0, 0).
TEST(OnnxDft, DefaultAxisFollowsTheOpset) {
  auto dft = [](int64_t opset) {
    return OnnxNode{"onnx.DFT",
                    {F32({1, 2, 2, 1}, {1, 1, 0, 0})},
                    {{"onnx.opset", opset}},
                    {F32Type({1, 2, 2, 2})}};
  };
  EXPECT_THAT(Out(dft(17)), Near({1, 0, 1, 0, 1, 0, 1, 0}));
  EXPECT_THAT(Out(dft(20)), Near({2, 0, 0, 0, 0, 0, 0, 0}));
}

// A periodic Hann window of 4 is 0, 1/2, 1, 1/2; a symmetric one of 3 is
// 0, 1, 0.
TEST(OnnxWindows, Hann) {
  OnnxNode periodic{"onnx.HannWindow", {I64({}, {4})}, {}, {F32Type({4})}};
  EXPECT_THAT(Out(periodic), Near({0, 0.5, 1, 0.5}));
  OnnxNode symmetric{"onnx.HannWindow", {I64({}, {3})}, {{"periodic", int64_t{0}}}, {F32Type({3})}};
  EXPECT_THAT(Out(symmetric), Near({0, 1, 0}));
}

// ---------------------------------------------------------------------------
// Training.

// Momentum with alpha 0.9 and beta 1: V = 0.9 * 3 + 2 = 4.7, X = 1 - 0.1 V.
TEST(OnnxMomentum, StandardStep) {
  OnnxNode m{
      "onnx.ai.onnx.preview.training.Momentum",
      {F32({}, {0.1}), I64({}, {1}), F32({1}, {1}), F32({1}, {2}), F32({1}, {3})},
      {{"alpha", 0.9}, {"beta", 1.0}, {"norm_coefficient", 0.0}, {"mode", std::string("standard")}},
      {F32Type({1}), F32Type({1})}};
  EXPECT_THAT(Out(m, 0), Near({0.53}));
  EXPECT_THAT(Out(m, 1), Near({4.7}));
}

// LayerNormalization over the last axis: each row becomes zero-mean, unit
// variance (biased), then scaled and shifted; Mean and InvStdDev come out
// with the normalized dims kept as 1.
TEST(OnnxNorm, LayerNormalizationWithStatistics) {
  OnnxNode ln{"onnx.LayerNormalization",
              {F32({2, 2}, {1, 3, 2, 2}), F32({2}, {2, 1}), F32({2}, {0, 10})},
              {{"epsilon", 0.0}},
              {F32Type({2, 2}), F32Type({2, 1}), F32Type({2, 1})}};
  absl::StatusOr<std::vector<Tensor>> r = ln.Run();
  ASSERT_TRUE(r.ok()) << r.status();
  // Row 0: mean 2, var 1 -> (-1, 1) -> (-2, 11); row 1: var 0 -> 0/0 is NaN
  // without epsilon, so check the first row and the statistics.
  EXPECT_DOUBLE_EQ((*r)[0].GetReal(0), -2);
  EXPECT_DOUBLE_EQ((*r)[0].GetReal(1), 11);
  EXPECT_THAT(Values((*r)[1]), ElementsAre(2, 2));
  EXPECT_DOUBLE_EQ((*r)[2].GetReal(0), 1);
}

// GroupNormalization: scale and bias per channel (opset 21) or per group
// (opset 18) are told apart by their size; InstanceNormalization is one
// group per channel.
TEST(OnnxNorm, GroupAndInstanceNormalization) {
  // x [1, 4, 1]: groups {0, 2} and {4, 6} -> (-1, 1) each.
  const Tensor x = F32({1, 4, 1}, {0, 2, 4, 6});
  OnnxNode per_channel{"onnx.GroupNormalization",
                       {x, F32({4}, {1, 2, 3, 4}), F32({4}, {0, 0, 0, 1})},
                       {{"num_groups", int64_t{2}}, {"epsilon", 0.0}},
                       {F32Type({1, 4, 1})}};
  EXPECT_THAT(Out(per_channel), ElementsAre(-1, 2, -3, 5));
  OnnxNode per_group{"onnx.GroupNormalization",
                     {x, F32({2}, {1, 10}), F32({2}, {0, 1})},
                     {{"num_groups", int64_t{2}}, {"epsilon", 0.0}},
                     {F32Type({1, 4, 1})}};
  EXPECT_THAT(Out(per_group), ElementsAre(-1, 1, -9, 11));
  // Instance: x [1, 2, 2] normalized per channel over its 2 values.
  OnnxNode instance{"onnx.InstanceNormalization",
                    {F32({1, 2, 2}, {1, 3, 5, 9}), F32({2}, {1, 1}), F32({2}, {0, 0})},
                    {{"epsilon", 0.0}},
                    {F32Type({1, 2, 2})}};
  EXPECT_THAT(Out(instance), ElementsAre(-1, 1, -1, 1));
}

// Gelu's tanh approximation (kept opaque by the importer) against its
// formula: at x = 1, 0.5 (1 + tanh(sqrt(2 / pi) * 1.044715)) = 0.841192.
TEST(OnnxGelu, TanhApproximation) {
  OnnxNode tanh_gelu{
      "onnx.Gelu", {F32({3}, {1, 0, -1})}, {{"approximate", std::string("tanh")}}, {F32Type({3})}};
  std::vector<double> v = Out(tanh_gelu);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_NEAR(v[0], 0.841192, 1e-6);
  EXPECT_EQ(v[1], 0);
  EXPECT_NEAR(v[2], -0.158808, 1e-6);
  OnnxNode erf_gelu{"onnx.Gelu", {F32({1}, {1})}, {}, {F32Type({1})}};
  EXPECT_NEAR(Out(erf_gelu)[0], 0.841345, 1e-6);
}

}  // namespace
}  // namespace egret
