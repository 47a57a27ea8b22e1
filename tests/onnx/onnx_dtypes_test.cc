// DOUBLE, UINT32, UINT64 and BFLOAT16 end to end (issue #34): ONNX import,
// the reference executor, ONNX export and the import of what was written.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/graph/graph.h"
#include "egret/graph/graph_json.h"
#include "egret/graph/tensor.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "onnx/onnx_pb.h"
#include "tests/onnx/onnx_builder.h"

namespace egret {
namespace {

using P = onnx::TensorProto;
using testing::OnnxBuilder;

template <typename T>
Tensor Make(DType dt, Dims dims, const std::vector<T>& v) {
  absl::StatusOr<Tensor> t = Tensor::FromBytes(
      TensorType(dt, std::move(dims)),
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)));
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

template <typename T>
std::vector<T> Elements(const Tensor& t) {
  std::vector<T> v(static_cast<size_t>(t.num_elements()));
  EXPECT_EQ(t.bytes().size(), v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.bytes().data(), t.bytes().size());
  return v;
}

// Runs the model's import, then its export re-imported, on `inputs`: both
// must give the same outputs, bit for bit.
std::vector<Tensor> RunBothWays(const std::string& bytes, const std::vector<Tensor>& inputs) {
  absl::StatusOr<Graph> g = ParseOnnx(bytes, "m.onnx");
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  absl::StatusOr<std::string> written = WriteOnnxBytes(*g, "out.onnx");
  EXPECT_TRUE(written.ok()) << written.status();
  if (!written.ok()) return *out;
  EXPECT_TRUE(CheckOnnxBytes(*written, "out.onnx").ok());
  absl::StatusOr<Graph> back = ParseOnnx(*written, "out.onnx");
  EXPECT_TRUE(back.ok()) << back.status();
  if (!back.ok()) return *out;
  absl::StatusOr<std::vector<Tensor>> again = Execute(*back, inputs);
  EXPECT_TRUE(again.ok()) << again.status();
  if (again.ok()) {
    EXPECT_EQ(*out, *again);
  }
  // And through graph JSON.
  absl::StatusOr<std::string> json = GraphToJsonString(*g);
  EXPECT_TRUE(json.ok()) << json.status();
  if (json.ok()) {
    absl::StatusOr<Graph> from_json = ParseGraphJson(*json, "m.json", "");
    EXPECT_TRUE(from_json.ok()) << from_json.status();
    if (from_json.ok()) {
      absl::StatusOr<std::vector<Tensor>> third = Execute(*from_json, inputs);
      EXPECT_TRUE(third.ok()) << third.status();
      if (third.ok()) {
        EXPECT_EQ(*out, *third);
      }
    }
  }
  return *out;
}

constexpr uint64_t kTwo53 = uint64_t{1} << 53;
constexpr uint64_t kMax64 = ~uint64_t{0};

TEST(OnnxDTypes, UInt64AboveTwoToThe53MovesThroughReshapeConcatGather) {
  OnnxBuilder b;
  b.Input("u", {2, 2}, P::UINT64);
  b.InitializerInt64("shape", {1}, {4});
  // uint64_data, the typed field UINT64 uses.
  auto* c = b.model().mutable_graph()->add_initializer();
  c->set_name("c");
  c->set_data_type(P::UINT64);
  c->add_dims(2);
  c->add_uint64_data(kMax64);
  c->add_uint64_data(kTwo53 + 1);
  b.InitializerInt64("idx", {3}, {5, 0, 3});
  b.Node("Reshape", {"u", "shape"}, {"flat"});
  OnnxBuilder::AttrInt(b.Node("Concat", {"flat", "c"}, {"cat"}), "axis", 0);
  OnnxBuilder::AttrInt(b.Node("Gather", {"cat", "idx"}, {"y"}), "axis", 0);
  b.Output("y", {3}, P::UINT64);
  const std::vector<uint64_t> u = {kTwo53 + 3, 1, 2, kMax64 - 1};
  std::vector<Tensor> out = RunBothWays(b.Bytes(), {Make(DType::kUInt64, {2, 2}, u)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type().dtype, DType::kUInt64);
  EXPECT_EQ(Elements<uint64_t>(out[0]),
            (std::vector<uint64_t>{kTwo53 + 1, kTwo53 + 3, kMax64 - 1}));
}

TEST(OnnxDTypes, UInt64MaxAndLessCompareExactly) {
  OnnxBuilder b;
  b.Input("a", {3}, P::UINT64);
  b.Input("b", {3}, P::UINT64);
  b.Node("Max", {"a", "b"}, {"mx"});
  b.Node("Min", {"a", "b"}, {"mn"});
  b.Node("Less", {"a", "b"}, {"lt"});
  b.Output("mx", {3}, P::UINT64);
  b.Output("mn", {3}, P::UINT64);
  b.Output("lt", {3}, P::BOOL);
  // Neighbours a double cannot tell apart.
  const std::vector<uint64_t> a = {kTwo53, kMax64, 5}, bb = {kTwo53 + 1, kMax64 - 1, 7};
  std::vector<Tensor> out =
      RunBothWays(b.Bytes(), {Make(DType::kUInt64, {3}, a), Make(DType::kUInt64, {3}, bb)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Elements<uint64_t>(out[0]), (std::vector<uint64_t>{kTwo53 + 1, kMax64, 7}));
  EXPECT_EQ(Elements<uint64_t>(out[1]), (std::vector<uint64_t>{kTwo53, kMax64 - 1, 5}));
  EXPECT_EQ(Elements<uint8_t>(out[2]), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(OnnxDTypes, UInt64ModAndBitShiftAreExact) {
  OnnxBuilder b;
  b.Input("a", {2}, P::UINT64);
  b.Input("b", {2}, P::UINT64);
  b.Node("Mod", {"a", "b"}, {"m"});
  OnnxBuilder::AttrString(b.Node("BitShift", {"a", "b"}, {"r"}), "direction", "RIGHT");
  OnnxBuilder::AttrString(b.Node("BitShift", {"a", "b"}, {"l"}), "direction", "LEFT");
  b.Output("m", {2}, P::UINT64);
  b.Output("r", {2}, P::UINT64);
  b.Output("l", {2}, P::UINT64);
  const std::vector<uint64_t> a = {kMax64, kTwo53 + 1}, bb = {10, 1};
  std::vector<Tensor> out =
      RunBothWays(b.Bytes(), {Make(DType::kUInt64, {2}, a), Make(DType::kUInt64, {2}, bb)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Elements<uint64_t>(out[0]), (std::vector<uint64_t>{kMax64 % 10, 0}));
  EXPECT_EQ(Elements<uint64_t>(out[1]), (std::vector<uint64_t>{kMax64 >> 10, (kTwo53 + 1) >> 1}));
  EXPECT_EQ(Elements<uint64_t>(out[2]), (std::vector<uint64_t>{kMax64 << 10, (kTwo53 + 1) << 1}));
}

TEST(OnnxDTypes, Float64ComputesInFullPrecision) {
  OnnxBuilder b;
  b.Input("x", {3}, P::DOUBLE);
  auto* c = b.model().mutable_graph()->add_initializer();  // double_data
  c->set_name("c");
  c->set_data_type(P::DOUBLE);
  c->add_dims(3);
  for (double v : {0.2, 3.0, 1e-300}) c->add_double_data(v);
  b.Node("Add", {"x", "c"}, {"s"});
  b.Node("Div", {"x", "c"}, {"q"});
  b.Output("s", {3}, P::DOUBLE);
  b.Output("q", {3}, P::DOUBLE);
  const std::vector<double> x = {0.1, 1.0, 1e-10};
  std::vector<Tensor> out = RunBothWays(b.Bytes(), {Make(DType::kFloat64, {3}, x)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].type().dtype, DType::kFloat64);
  // The double results themselves (0.1 + 0.2 is 0.30000000000000004).
  EXPECT_EQ(Elements<double>(out[0]), (std::vector<double>{0.1 + 0.2, 1.0 + 3.0, 1e-10 + 1e-300}));
  EXPECT_EQ(Elements<double>(out[1]), (std::vector<double>{0.1 / 0.2, 1.0 / 3.0, 1e-10 / 1e-300}));
}

TEST(OnnxDTypes, Float64ResizeKeepsDoubles) {
  OnnxBuilder b;
  b.Input("x", {1, 1, 2, 2}, P::DOUBLE);
  b.Initializer("scales", {4}, {1, 1, 2, 2});
  OnnxBuilder::AttrString(b.Node("Resize", {"x", "", "scales"}, {"y"}), "mode", "linear");
  b.Output("y", {1, 1, 4, 4}, P::DOUBLE);
  const std::vector<double> x = {0.1, 0.2, 0.3, 0.4};
  std::vector<Tensor> out = RunBothWays(b.Bytes(), {Make(DType::kFloat64, {1, 1, 2, 2}, x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<double> y = Elements<double>(out[0]);
  ASSERT_EQ(y.size(), 16u);
  // The corners copy the input (half_pixel clamps there): doubles, not
  // doubles rounded to float.
  EXPECT_EQ(y[0], 0.1);
  EXPECT_EQ(y[15], 0.4);
  EXPECT_EQ(y[1], 0.75 * 0.1 + 0.25 * 0.2);
}

// A convolution and a matrix product of doubles take the double loops
// (oneDNN computes in float32).
TEST(OnnxDTypes, Float64ConvAndMatMulKeepDoubles) {
  OnnxBuilder b;
  b.Input("x", {1, 1, 2, 2}, P::DOUBLE);
  b.Input("w", {1, 1, 2, 2}, P::DOUBLE);
  b.Input("m", {2, 2}, P::DOUBLE);
  b.Node("Conv", {"x", "w"}, {"y"});
  b.Node("MatMul", {"m", "m"}, {"p"});
  b.Output("y", {1, 1, 1, 1}, P::DOUBLE);
  b.Output("p", {2, 2}, P::DOUBLE);
  const std::vector<double> x = {0.1, 0.2, 0.3, 0.4}, w = {1.0 / 3, 1.0 / 7, 1.0 / 11, 1.0 / 13};
  std::vector<Tensor> out = RunBothWays(
      b.Bytes(), {Make(DType::kFloat64, {1, 1, 2, 2}, x), Make(DType::kFloat64, {1, 1, 2, 2}, w),
                  Make(DType::kFloat64, {2, 2}, x)});
  ASSERT_EQ(out.size(), 2u);
  const double conv = Elements<double>(out[0])[0];
  EXPECT_NEAR(conv, 0.1 / 3 + 0.2 / 7 + 0.3 / 11 + 0.4 / 13, 1e-16);
  const std::vector<double> p = Elements<double>(out[1]);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_NEAR(p[0], 0.1 * 0.1 + 0.2 * 0.3, 1e-17);
  EXPECT_NEAR(p[3], 0.3 * 0.2 + 0.4 * 0.4, 1e-17);
}

TEST(OnnxDTypes, UInt32Arithmetic) {
  OnnxBuilder b;
  b.Input("x", {3}, P::UINT32);
  b.Input("y", {3}, P::UINT32);
  b.Node("Add", {"x", "y"}, {"s"});
  b.Node("Div", {"x", "y"}, {"q"});
  b.Output("s", {3}, P::UINT32);
  b.Output("q", {3}, P::UINT32);
  const std::vector<uint32_t> x = {4000000000u, 7, 9}, y = {1, 2, 10};
  std::vector<Tensor> out =
      RunBothWays(b.Bytes(), {Make(DType::kUInt32, {3}, x), Make(DType::kUInt32, {3}, y)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Elements<uint32_t>(out[0]), (std::vector<uint32_t>{4000000001u, 9, 19}));
  EXPECT_EQ(Elements<uint32_t>(out[1]), (std::vector<uint32_t>{4000000000u, 3, 0}));
}

TEST(OnnxDTypes, CastsRoundOnceToNearestEven) {
  OnnxBuilder b;
  b.Input("f", {3}, P::FLOAT);
  b.Input("d", {2}, P::DOUBLE);
  OnnxBuilder::AttrInt(b.Node("Cast", {"f"}, {"bf"}), "to", P::BFLOAT16);
  OnnxBuilder::AttrInt(b.Node("Cast", {"d"}, {"h"}), "to", P::FLOAT16);
  OnnxBuilder::AttrInt(b.Node("Cast", {"bf"}, {"back"}), "to", P::FLOAT);
  b.Input("u", {1}, P::UINT64);
  OnnxBuilder::AttrInt(b.Node("Cast", {"u"}, {"uf"}), "to", P::FLOAT);
  b.Output("bf", {3}, P::BFLOAT16);
  b.Output("h", {2}, P::FLOAT16);
  b.Output("back", {3}, P::FLOAT);
  b.Output("uf", {1}, P::FLOAT);
  // Ties to even (1 and 1 + 2^-6), and just above a tie (up).
  const std::vector<float> f = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-8f + 0x1p-23f};
  // Just above the half-way point between half's 1 and 1 + 2^-10: rounding
  // through float first would land on the tie and go to 1.
  const std::vector<double> d = {1.0 + 0x1p-11 + 0x1p-40, -65520.0};
  // Above the half-way point between floats 2^60 and 2^60 + 2^37 by 1,
  // which a double drops (landing on the tie, then on 2^60).
  const std::vector<uint64_t> u = {(uint64_t{1} << 60) + (uint64_t{1} << 36) + 1};
  std::vector<Tensor> out = RunBothWays(
      b.Bytes(),
      {Make(DType::kFloat32, {3}, f), Make(DType::kFloat64, {2}, d), Make(DType::kUInt64, {1}, u)});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Elements<float>(out[3]), (std::vector<float>{0x1p60f + 0x1p37f}));
  EXPECT_EQ(out[0].type().dtype, DType::kBFloat16);
  EXPECT_EQ(Elements<uint16_t>(out[0]), (std::vector<uint16_t>{0x3f80, 0x3f82, 0x3f81}));
  EXPECT_EQ(Elements<uint16_t>(out[1]), (std::vector<uint16_t>{0x3c01, 0xfc00}));
  EXPECT_EQ(Elements<float>(out[2]), (std::vector<float>{1.0f, 1.0f + 0x1p-6f, 1.0f + 0x1p-7f}));
}

// The conformance cases the new element types let egret run (they were
// skipped as "element type ... is not supported by egret").
TEST(OnnxDTypes, ConformanceCasesOfTheNewTypesPass) {
  namespace fs = std::filesystem;
  const fs::path dir = "/usr/share/libonnx-testdata/data/node";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " not found (libonnx-testdata)";
  // Imports (ReadOnnx and the test data) of a sample; the conformance test
  // itself runs and compares every case.
  for (const char* name :
       {"test_cumsum_1d", "test_einsum_batch_matmul", "test_max_uint64", "test_min_uint32",
        "test_cast_FLOAT_to_DOUBLE", "test_cast_DOUBLE_to_FLOAT16", "test_mod_uint64",
        "test_bitshift_left_uint32", "test_reduce_log_sum_exp_keepdims_random"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<Graph> g = ReadOnnx((dir / name / "model.onnx").string());
    ASSERT_TRUE(g.ok()) << g.status();
    std::vector<Tensor> inputs;
    for (int i = 0;; ++i) {
      const fs::path p = dir / name / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) break;
      absl::StatusOr<Tensor> t = ReadOnnxTensor(p.string());
      ASSERT_TRUE(t.ok()) << t.status();
      inputs.push_back(*std::move(t));
    }
    absl::StatusOr<std::vector<Tensor>> out = Execute(*g, inputs);
    if (absl::IsUnimplemented(out.status()) && inputs.size() > 1) {
      // CumSum's axis is a graph input: frozen, CumSum maps to egret's op
      // (as the conformance test does).
      OnnxImportOptions frozen;
      for (size_t i = 1; i < inputs.size(); ++i) {
        frozen.input_values.emplace(g->node(g->inputs()[i]).name, inputs[i]);
      }
      g = ReadOnnx((dir / name / "model.onnx").string(), frozen);
      ASSERT_TRUE(g.ok()) << g.status();
      inputs.erase(inputs.begin() + 1, inputs.end());
      out = Execute(*g, inputs);
    }
    ASSERT_TRUE(out.ok()) << out.status();
    absl::StatusOr<Tensor> want =
        ReadOnnxTensor((dir / name / "test_data_set_0" / "output_0.pb").string());
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ((*out)[0].type().dtype, want->type().dtype);
    ASSERT_EQ((*out)[0].type().dims, want->type().dims);
    for (int64_t i = 0; i < want->num_elements(); ++i) {
      EXPECT_NEAR((*out)[0].GetValue(i), want->GetValue(i), 1e-6 * std::abs(want->GetValue(i)))
          << i;
    }
  }
}

}  // namespace
}  // namespace egret
