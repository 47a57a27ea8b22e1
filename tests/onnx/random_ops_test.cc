// ONNX's random ops on the reference executor (kernels/onnx/onnx_random.cc)
// and what verification makes of them (backend/verify.h): a seeded op draws
// from its seed alone, so the input and the optimized graph draw the same
// values and their outputs are compared; an output that depends on an
// unseeded draw is reported as not verified, naming the node, rather than
// compared. Draws are reproducible run to run, have the op's range, and
// Bernoulli is exact at probabilities 0 and 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/pipeline/optimize.h"
#include "egret/support/file_io.h"
#include "tests/lib/shipped_library.h"
#include "tests/onnx/onnx_builder.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::OnnxBuilder;

constexpr int kBool = onnx::TensorProto::BOOL;

Graph Import(const std::string& name, const OnnxBuilder& b) {
  const std::string path = (fs::path(::testing::TempDir()) / (name + ".onnx")).string();
  EXPECT_TRUE(WriteFileAtomically(path, b.Bytes()).ok());
  absl::StatusOr<Graph> g = ReadOnnx(path);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph();
}

// x -> RandomNormalLike (no seed) + x -> "unseeded";
// x -> RandomUniformLike (seed 3) + x -> "seeded";
// Dropout(x, 0.5, training) with seed 5 -> "dropped", "mask".
OnnxBuilder RandomModel() {
  OnnxBuilder b(13);
  b.Input("x", {4, 16});
  b.Node("RandomNormalLike", {"x"}, {"n"});
  b.Node("Add", {"x", "n"}, {"unseeded"});
  onnx::NodeProto* u = b.Node("RandomUniformLike", {"x"}, {"u"});
  OnnxBuilder::AttrFloat(u, "seed", 3.0f);
  OnnxBuilder::AttrFloat(u, "low", -2.0f);
  OnnxBuilder::AttrFloat(u, "high", 5.0f);
  b.Node("Add", {"x", "u"}, {"seeded"});
  b.Initializer("ratio", {}, {0.5f});
  b.InitializerRaw("training", {}, kBool, std::string(1, '\1'));
  onnx::NodeProto* d = b.Node("Dropout", {"x", "ratio", "training"}, {"dropped", "mask"});
  OnnxBuilder::AttrInt(d, "seed", 5);
  b.Output("unseeded", {4, 16});
  b.Output("seeded", {4, 16});
  b.Output("dropped", {4, 16});
  b.Output("mask", {4, 16}, kBool);
  return b;
}

TEST(RandomOps, VerifyComparesSeededDrawsAndReportsUnseededOnes) {
  Graph g = Import("random_verify", RandomModel());
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(g, testing::ShippedLibrary(), {}, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<VerifyReport> v = VerifyGraphs(g, "input", r->graph, "optimized", *inputs);
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->outputs.size(), 4u);
  EXPECT_THAT(v->outputs[0].not_verified,
              HasSubstr("the reference depends on node 'n' (#1) (onnx.RandomNormalLike), which "
                        "draws random values without a seed"));
  for (int k = 1; k < 4; ++k) {
    EXPECT_EQ(v->outputs[k].not_verified, "") << k;
    EXPECT_EQ(v->outputs[k].elements, 64) << k;
  }
  // The seeded draws match; the unseeded one makes the verdict incomplete.
  EXPECT_EQ(v->verdict(), VerifyVerdict::kIncomplete) << v->ToString();
  EXPECT_THAT(v->ToString(),
              HasSubstr("verify: incomplete (1 of 4 outputs not verified: unseeded)"));
}

TEST(RandomOps, DrawsAreReproducibleAndInRange) {
  Graph g = Import("random_draws", RandomModel());
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 2);
  ASSERT_TRUE(inputs.ok());
  absl::StatusOr<std::vector<Tensor>> a = Execute(g, *inputs);
  absl::StatusOr<std::vector<Tensor>> b = Execute(g, *inputs);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  for (size_t k = 0; k < a->size(); ++k) EXPECT_TRUE((*a)[k] == (*b)[k]) << k;
  const Tensor& x = (*inputs)[0];
  int kept = 0;
  bool unseeded_differs = false;
  for (int64_t i = 0; i < 64; ++i) {
    const double u = (*a)[1].GetReal(i) - x.GetReal(i);
    EXPECT_GE(u, -2.0 - 1e-6);
    EXPECT_LT(u, 5.0 + 1e-6);
    const double d = (*a)[2].GetReal(i);
    const bool mask = (*a)[3].GetReal(i) != 0;
    EXPECT_FLOAT_EQ(d, mask ? static_cast<float>(x.GetReal(i) * 2) : 0.0f) << i;
    kept += mask ? 1 : 0;
    unseeded_differs |= (*a)[0].GetReal(i) != x.GetReal(i);
  }
  EXPECT_GT(kept, 16);  // about half of 64 kept
  EXPECT_LT(kept, 48);
  EXPECT_TRUE(unseeded_differs);
}

TEST(RandomOps, BernoulliIsExactAtZeroAndOne) {
  OnnxBuilder b(15);
  b.Input("p", {6});
  onnx::NodeProto* n = b.Node("Bernoulli", {"p"}, {"y"});
  OnnxBuilder::AttrFloat(n, "seed", 1.0f);
  b.Output("y", {6});
  Graph g = Import("bernoulli", b);
  const std::vector<double> p = {0, 1, 0, 1, 0.5, 0.5};
  std::vector<Tensor> inputs = {Tensor::FromValues(TensorType(DType::kFloat32, {6}), p)};
  absl::StatusOr<std::vector<Tensor>> out = Execute(g, inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*out)[0].GetReal(i), p[i]) << i;
  for (int i = 4; i < 6; ++i) {
    EXPECT_TRUE((*out)[0].GetReal(i) == 0 || (*out)[0].GetReal(i) == 1) << i;
  }
}

// RandomNormal (no inputs, seeded): the sample's mean and deviation; and
// Multinomial: indices in range, a class of all the probability always
// drawn.
TEST(RandomOps, NormalMomentsAndMultinomialClasses) {
  OnnxBuilder b(13);
  b.Input("logits", {2, 3});
  onnx::NodeProto* n = b.Node("RandomNormal", {}, {"z"});
  OnnxBuilder::AttrInts(n, "shape", {64, 64});
  OnnxBuilder::AttrFloat(n, "mean", 1.5f);
  OnnxBuilder::AttrFloat(n, "scale", 2.0f);
  OnnxBuilder::AttrFloat(n, "seed", 7.0f);
  onnx::NodeProto* m = b.Node("Multinomial", {"logits"}, {"k"});
  OnnxBuilder::AttrInt(m, "sample_size", 50);
  OnnxBuilder::AttrInt(m, "dtype", onnx::TensorProto::INT64);
  OnnxBuilder::AttrFloat(m, "seed", 2.0f);
  b.Output("z", {64, 64});
  b.Output("k", {2, 50}, onnx::TensorProto::INT64);
  Graph g = Import("normal_multinomial", b);
  // Row 0: class 1 holds all the probability; row 1: uniform.
  std::vector<Tensor> inputs = {Tensor::FromValues(TensorType(DType::kFloat32, {2, 3}),
                                                   std::vector<double>{-100, 0, -100, 0, 0, 0})};
  absl::StatusOr<std::vector<Tensor>> out = Execute(g, inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < 4096; ++i) {
    const double v = (*out)[0].GetReal(i);
    sum += v;
    sq += v * v;
  }
  const double mean = sum / 4096, sd = std::sqrt(sq / 4096 - mean * mean);
  EXPECT_NEAR(mean, 1.5, 0.1);
  EXPECT_NEAR(sd, 2.0, 0.1);
  std::vector<int> seen(3, 0);
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ((*out)[1].GetReal(i), 1) << i;
  for (int64_t i = 50; i < 100; ++i) {
    const double v = (*out)[1].GetReal(i);
    ASSERT_TRUE(v == 0 || v == 1 || v == 2) << v;
    ++seen[static_cast<int>(v)];
  }
  for (int c = 0; c < 3; ++c) EXPECT_GT(seen[c], 5) << c;
}

}  // namespace
}  // namespace egret
