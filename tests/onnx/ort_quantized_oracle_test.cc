// ONNX Runtime as the oracle of egret's kernels for ONNX's quantized ops: a
// model of every one of them (DynamicQuantizeLinear, QuantizeLinear and
// DequantizeLinear per axis, ConvInteger, QLinearConv, MatMulInteger,
// QLinearMatMul and the com.microsoft QLinear ops ONNX Runtime's quantizer
// writes) is built here, run by egret's reference executor and by ONNX
// Runtime's CPU provider on the same random input, and every output must be
// equal: bit for bit for the float scales, integer for integer for the
// quantized data. QLinearSigmoid is apart: ONNX Runtime's logistic is an
// approximation, so its values may differ by one quantization step.
//
// Skips, with a message, when node or onnxruntime-node is missing
// (scripts/fetch-models installs it).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "egret/executor/test_data.h"
#include "egret/onnx/onnx_reader.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using testing::OnnxBuilder;
using P = onnx::TensorProto;

// An initializer of ONNX type `elem` (UINT8, INT32 or FLOAT) holding `values`.
void Init(OnnxBuilder& b, const std::string& name, const std::vector<int64_t>& dims, int elem,
          const std::vector<double>& values) {
  auto* t = b.model().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  for (int64_t d : dims) t->add_dims(d);
  std::string raw;
  for (double v : values) {
    if (elem == P::UINT8) {
      raw.push_back(static_cast<char>(static_cast<uint8_t>(v)));
    } else if (elem == P::INT32) {
      const auto i = static_cast<int32_t>(v);
      raw.append(reinterpret_cast<const char*>(&i), sizeof(i));
    } else {
      const auto f = static_cast<float>(v);
      raw.append(reinterpret_cast<const char*>(&f), sizeof(f));
    }
  }
  t->set_raw_data(raw);
}

std::vector<double> Random(std::mt19937& rng, int64_t n, int lo, int hi) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& e : v) e = lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1));
  return v;
}

// A graph output with its type declared (com.microsoft ops have no ONNX
// shape inference, so egret's importer takes their types from here).
void Output(OnnxBuilder& b, const std::string& name, const std::vector<int64_t>& dims, int elem) {
  auto* vi = b.model().mutable_graph()->add_output();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* Microsoft(OnnxBuilder& b, const std::string& op,
                           const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* n = b.Node(op, inputs, {output}, output);
  n->set_domain("com.microsoft");
  return n;
}

void AttrAxis(onnx::NodeProto* n) { OnnxBuilder::AttrInt(n, "axis", 1); }

// x [1, 8, 12, 12] float, dynamically quantized, feeds every op.
OnnxBuilder QuantizedModel(bool sigmoid) {
  OnnxBuilder b(13);
  auto* ms = b.model().add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  std::mt19937 rng(5);
  b.Input("x", {1, 8, 12, 12});
  b.Node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"}, "dql");
  Output(b, "xq", {1, 8, 12, 12}, P::UINT8);
  Output(b, "xs", {}, P::FLOAT);
  Output(b, "xz", {}, P::UINT8);
  // Output scale and zero point of the requantizing ops.
  Init(b, "ys", {}, P::FLOAT, {0.0137});
  Init(b, "yz", {}, P::UINT8, {119});
  if (sigmoid) {
    Init(b, "sig_s", {}, P::FLOAT, {1.0 / 256});
    Init(b, "sig_z", {}, P::UINT8, {0});
    Microsoft(b, "QLinearSigmoid", {"xq", "xs", "xz", "sig_s", "sig_z"}, "qsig");
    Output(b, "qsig", {1, 8, 12, 12}, P::UINT8);
    return b;
  }
  // QuantizeLinear / DequantizeLinear per channel.
  Init(b, "qs", {8}, P::FLOAT, {0.004, 0.008, 0.01, 0.0125, 0.02, 0.003, 0.0071, 0.05});
  Init(b, "qz", {8}, P::UINT8, Random(rng, 8, 0, 255));
  AttrAxis(b.Node("QuantizeLinear", {"x", "qs", "qz"}, {"q8"}, "q"));
  AttrAxis(b.Node("DequantizeLinear", {"q8", "qs", "qz"}, {"dq"}, "dq"));
  Output(b, "q8", {1, 8, 12, 12}, P::UINT8);
  Output(b, "dq", {1, 8, 12, 12}, P::FLOAT);
  // Convolutions: w [6, 8, 3, 3].
  Init(b, "w", {6, 8, 3, 3}, P::UINT8, Random(rng, 6 * 8 * 9, 0, 255));
  Init(b, "wz", {}, P::UINT8, {131});
  onnx::NodeProto* ci = b.Node("ConvInteger", {"xq", "w", "xz", "wz"}, {"ci"}, "ci");
  OnnxBuilder::AttrInts(ci, "pads", {1, 0, 2, 1});
  OnnxBuilder::AttrInts(ci, "strides", {2, 2});
  Output(b, "ci", {1, 6, 7, 6}, P::INT32);
  Init(b, "w_scale", {6}, P::FLOAT, {0.002, 0.0031, 0.0007, 0.004, 0.0015, 0.0025});
  Init(b, "bias", {6}, P::INT32, Random(rng, 6, -2000, 2000));
  onnx::NodeProto* qc = b.Node(
      "QLinearConv", {"xq", "xs", "xz", "w", "w_scale", "wz", "ys", "yz", "bias"}, {"qc"}, "qc");
  OnnxBuilder::AttrInts(qc, "pads", {1, 1, 1, 1});
  Output(b, "qc", {1, 6, 12, 12}, P::UINT8);
  // Matrix products: [1, 8, 12, 12] x [12, 5].
  Init(b, "bm", {12, 5}, P::UINT8, Random(rng, 60, 0, 255));
  Init(b, "bmz", {}, P::UINT8, {77});
  Init(b, "bms", {}, P::FLOAT, {0.0043});
  b.Node("MatMulInteger", {"xq", "bm", "xz", "bmz"}, {"mi"}, "mi");
  Output(b, "mi", {1, 8, 12, 5}, P::INT32);
  b.Node("QLinearMatMul", {"xq", "xs", "xz", "bm", "bms", "bmz", "ys", "yz"}, {"qm"}, "qm");
  Output(b, "qm", {1, 8, 12, 5}, P::UINT8);
  // com.microsoft element-wise ops, B [12] broadcast along the last axis.
  Init(b, "bb", {12}, P::UINT8, Random(rng, 12, 0, 255));
  Init(b, "bbs", {}, P::FLOAT, {0.011});
  Init(b, "bbz", {}, P::UINT8, {140});
  for (const std::string op : {"QLinearAdd", "QLinearMul"}) {
    Microsoft(b, op, {"xq", "xs", "xz", "bb", "bbs", "bbz", "ys", "yz"}, op);
    Output(b, op, {1, 8, 12, 12}, P::UINT8);
  }
  OnnxBuilder::AttrFloat(Microsoft(b, "QLinearLeakyRelu", {"xq", "xs", "xz", "ys", "yz"}, "qlr"),
                         "alpha", 0.1f);
  Output(b, "qlr", {1, 8, 12, 12}, P::UINT8);
  onnx::NodeProto* ap = Microsoft(b, "QLinearAveragePool", {"xq", "xs", "xz", "ys", "yz"}, "qap");
  OnnxBuilder::AttrInts(ap, "kernel_shape", {3, 3});
  OnnxBuilder::AttrInts(ap, "strides", {2, 2});
  OnnxBuilder::AttrInts(ap, "pads", {1, 1, 1, 1});
  Output(b, "qap", {1, 8, 6, 6}, P::UINT8);
  Microsoft(b, "QLinearGlobalAveragePool", {"xq", "xs", "xz", "ys", "yz"}, "qgap");
  Output(b, "qgap", {1, 8, 1, 1}, P::UINT8);
  OnnxBuilder::AttrInt(Microsoft(b, "QLinearConcat",
                                 {"ys", "yz", "xq", "xs", "xz", "QLinearAdd", "ys", "yz"}, "qcat"),
                       "axis", 1);
  Output(b, "qcat", {1, 16, 12, 12}, P::UINT8);
  return b;
}

// Ties: x = k / 128 quantized with scale 1/64 is k / 2; pools and a 1x1
// QLinearConv halve integers.
OnnxBuilder TiesModel() {
  OnnxBuilder b(13);
  auto* ms = b.model().add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  b.Input("x", {1, 1, 4, 64});
  Init(b, "s", {}, P::FLOAT, {1.0 / 64});
  Init(b, "z", {}, P::UINT8, {128});
  Init(b, "one", {}, P::FLOAT, {1});
  Init(b, "two", {}, P::FLOAT, {2});
  Init(b, "zero", {}, P::UINT8, {0});
  b.Node("QuantizeLinear", {"x", "s", "z"}, {"q"}, "q");
  Output(b, "q", {1, 1, 4, 64}, P::UINT8);
  onnx::NodeProto* ap =
      Microsoft(b, "QLinearAveragePool", {"q", "one", "zero", "one", "zero"}, "qap");
  OnnxBuilder::AttrInts(ap, "kernel_shape", {1, 2});
  OnnxBuilder::AttrInts(ap, "strides", {1, 2});
  Output(b, "qap", {1, 1, 4, 32}, P::UINT8);
  Init(b, "w", {1, 1, 1, 1}, P::UINT8, {1});
  b.Node("QLinearConv", {"q", "one", "zero", "w", "one", "zero", "two", "zero"}, {"qc"}, "qc");
  Output(b, "qc", {1, 1, 4, 64}, P::UINT8);
  return b;
}

// Runs the model `b` on ONNX Runtime and egret (on `inputs`, or random ones
// for three seeds) and expects every output within `atol`.
void Check(const OnnxBuilder& b, const std::string& file, double atol,
           std::vector<std::vector<Tensor>> inputs = {}) {
  if (std::string why = testing::OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  const std::string path = (fs::path(::testing::TempDir()) / file).string();
  std::ofstream(path, std::ios::binary) << b.Bytes();
  absl::StatusOr<Graph> g = ReadOnnx(path);
  ASSERT_TRUE(g.ok()) << g.status();
  if (inputs.empty()) {
    for (uint64_t seed : {1, 2, 3}) {
      absl::StatusOr<std::vector<Tensor>> random = MakeRandomInputs(*g, seed);
      ASSERT_TRUE(random.ok()) << random.status();
      inputs.push_back(*std::move(random));
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    SCOPED_TRACE(i);
    absl::StatusOr<testing::OracleComparison> cmp =
        testing::CompareWithOrt(path, *g, inputs[i], {}, /*rtol=*/0, atol);
    ASSERT_TRUE(cmp.ok()) << cmp.status();
    for (const std::string& m : cmp->mismatches) ADD_FAILURE() << m;
    for (const std::string& n : cmp->not_verified) ADD_FAILURE() << "not verified: " << n;
    EXPECT_EQ(cmp->verified, cmp->outputs);
  }
  fs::remove(path);
}

TEST(OrtQuantizedOracle, EveryQuantizedOpMatchesOnnxRuntimeExactly) {
  Check(QuantizedModel(/*sigmoid=*/false), "quantized_ops.onnx", /*atol=*/0);
}

TEST(OrtQuantizedOracle, HalvesRoundToEvenAsInOnnxRuntime) {
  std::vector<double> x;
  for (int k = -128; k < 128; ++k) x.push_back(k / 128.0);
  std::vector<std::vector<Tensor>> inputs(1);
  inputs[0].push_back(Tensor::FromValues(TensorType(DType::kFloat32, {1, 1, 4, 64}), x));
  Check(TiesModel(), "quantized_ties.onnx", /*atol=*/0, inputs);
}

TEST(OrtQuantizedOracle, QLinearSigmoidIsWithinOneStep) {
  Check(QuantizedModel(/*sigmoid=*/true), "quantized_sigmoid.onnx", /*atol=*/1);
}

}  // namespace
}  // namespace egret
