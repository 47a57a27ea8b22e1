// Block-quantized weights against ONNX Runtime: com.microsoft MatMulNBits
// (4- and 8-bit, packed and default zero points, K not a multiple of the
// block, with a bias), GatherBlockQuantized (uint8-packed and int4 tables)
// and opset 21's blocked DequantizeLinear of an INT4 weight. Each model is
// imported, checked to be mapped with its weight still 4-bit (a QUInt4 or
// QInt4 constant with a blocked encoding, read through Dequantize), run by
// egret's reference executor and by ONNX Runtime on the same seeded inputs,
// and compared.
//
// Skips when node or onnxruntime-node is missing (scripts/fetch-models).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/executor/test_data.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
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

constexpr int kOnnxUInt8 = onnx::TensorProto::UINT8;
constexpr int kOnnxInt4 = 22;  // onnx.proto's INT4 (ONNX 1.16; Debian's headers are older)

// A deterministic pseudo-random byte stream.
std::string Bytes(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    s[i] = static_cast<char>(x >> 24);
  }
  return s;
}

std::vector<float> Scales(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.01f + 0.002f * static_cast<float>((i * 7 + seed) % 13);
  return v;
}

// Imports `b`'s model, checks that it is mapped and reads a blocked
// constant of `weight_dtype`, and compares egret's outputs with ONNX Runtime's.
void CheckAgainstOrt(const std::string& name, const OnnxBuilder& b, DType weight_dtype,
                     const testing::OrtRunOptions& options = {}) {
  if (const std::string why = OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = fs::path(::testing::TempDir()) / absl::StrCat("ort_blockq_", name);
  fs::create_directories(dir);
  const std::string model = (dir / "model.onnx").string();
  ASSERT_TRUE(WriteFileAtomically(model, b.Bytes()).ok());
  absl::StatusOr<Graph> g = ReadOnnx(model);
  ASSERT_TRUE(g.ok()) << g.status();
  int blocked_weights = 0;
  int64_t weight_elements = 0;
  for (const Node& n : g->nodes()) {
    ASSERT_TRUE(IsKnownOp(n.op)) << name << ": " << n.op;
    if (n.op == kConstOp && n.outputs[0].dtype == weight_dtype && n.outputs[0].blocked()) {
      ++blocked_weights;
      weight_elements = n.outputs[0].num_elements();
    }
  }
  EXPECT_EQ(blocked_weights, 1) << name << ": the weight is not kept block-quantized";
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, /*seed=*/5);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<OracleComparison> c = CompareWithOrt(model, *g, *inputs, {}, 1e-4, 1e-4, options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verified, c->outputs) << absl::StrJoin(c->not_verified, "; ");
  EXPECT_TRUE(c->mismatches.empty()) << name << ": " << absl::StrJoin(c->mismatches, "; ");
  // Written back, the weight stays block-quantized: a MatMulNBits (its
  // packed bytes, no float copy) for a FullyConnected, which ONNX Runtime
  // runs to the same outputs.
  const std::string written = (dir / "written.onnx").string();
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, written);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_TRUE(WriteFileAtomically(written, *bytes).ok());
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(*bytes));
  int nbits = 0;
  for (const onnx::NodeProto& n : out.graph().node()) nbits += n.op_type() == "MatMulNBits";
  bool fc = false;
  for (const Node& n : g->nodes()) fc = fc || n.op == "FullyConnected";
  EXPECT_EQ(nbits, fc ? 1 : 0) << name;
  if (fc) {
    for (const onnx::TensorProto& t : out.graph().initializer()) {
      int64_t elements = 1;
      for (int64_t d : t.dims()) elements *= d;
      EXPECT_FALSE(t.data_type() == onnx::TensorProto::FLOAT && elements >= weight_elements)
          << name << ": the weight is written in float as " << t.name();
    }
  }
  absl::StatusOr<OracleComparison> w =
      CompareWithOrt(written, *g, *inputs, {}, 1e-4, 1e-4, options);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->mismatches.empty())
      << name << " (written): " << absl::StrJoin(w->mismatches, "; ");
  fs::remove_all(dir);
}

struct NBitsCase {
  std::string name;
  int bits;
  int64_t k, n, block;
  bool zero_points, bias;
};

TEST(OrtBlockQuantized, MatMulNBits) {
  const std::vector<NBitsCase> cases = {
      {"q4_zero_points_bias", 4, 64, 24, 32, true, true},
      {"q4_default_zero", 4, 64, 16, 16, false, false},
      // K = 80: three blocks of 32, the last padded; an odd block count pads
      // each row of packed zero points.
      {"q4_partial_block", 4, 80, 8, 32, true, false},
      {"q8_zero_points", 8, 48, 8, 16, true, true},
  };
  for (const NBitsCase& k : cases) {
    SCOPED_TRACE(k.name);
    OnnxBuilder b(17, 8);
    b.Opset("com.microsoft", 1);
    b.Input("a", {2, 3, k.k});
    const int64_t blocks = (k.k + k.block - 1) / k.block, blob = k.block * k.bits / 8;
    b.InitializerRaw("B", {k.n, blocks, blob}, kOnnxUInt8, Bytes(k.n * blocks * blob, 1));
    b.Initializer("scales", {k.n * blocks}, Scales(k.n * blocks, 3));
    std::vector<std::string> ins = {"a", "B", "scales"};
    if (k.zero_points) {
      const int64_t row = (blocks * k.bits + 7) / 8;
      b.InitializerRaw("zp", {k.n * row}, kOnnxUInt8, Bytes(k.n * row, 2));
      ins.push_back("zp");
    }
    if (k.bias) {
      std::vector<float> bias(k.n);
      for (int64_t i = 0; i < k.n; ++i) bias[i] = 0.25f * static_cast<float>(i % 5) - 0.5f;
      b.Initializer("bias", {k.n}, bias);
      if (!k.zero_points) ins.push_back("");
      ins.push_back("");  // g_idx
      ins.push_back("bias");
    }
    auto* n = b.DomainNode("com.microsoft", "MatMulNBits", ins, {"y"});
    OnnxBuilder::AttrInt(n, "K", k.k);
    OnnxBuilder::AttrInt(n, "N", k.n);
    OnnxBuilder::AttrInt(n, "bits", k.bits);
    OnnxBuilder::AttrInt(n, "block_size", k.block);
    b.Output("y", {2, 3, k.n});
    CheckAgainstOrt("matmulnbits_" + k.name, b, k.bits == 4 ? DType::kQUInt4 : DType::kQUInt8);
  }
}

TEST(OrtBlockQuantized, GatherBlockQuantizedUint8Packed) {
  // A 16 x 64 table, two 4-bit values per byte along the last axis, blocks
  // of 16 along it; ids are graph inputs in [0, 16).
  OnnxBuilder b(17, 8);
  b.Opset("com.microsoft", 1);
  b.InitializerRaw("table", {16, 32}, kOnnxUInt8, Bytes(16 * 32, 4));
  b.Initializer("scales", {16, 4}, Scales(64, 5));
  b.InitializerRaw("zp", {16, 2}, kOnnxUInt8, Bytes(32, 6));
  b.Input("ids", {2, 3}, onnx::TensorProto::INT64);
  auto* n = b.DomainNode("com.microsoft", "GatherBlockQuantized", {"table", "ids", "scales", "zp"},
                         {"y"});
  OnnxBuilder::AttrInt(n, "bits", 4);
  OnnxBuilder::AttrInt(n, "block_size", 16);
  OnnxBuilder::AttrInt(n, "quantize_axis", 1);
  b.Output("y", {2, 3, 64});
  CheckAgainstOrt("gather_uint8", b, DType::kQUInt4);
}

// Signed 4-bit values packed two to a byte, low nibble first.
std::string PackedInt4(size_t n, uint32_t seed) { return Bytes((n + 1) / 2, seed); }

TEST(OrtBlockQuantized, GatherBlockQuantizedInt4) {
  OnnxBuilder b(21, 10);
  b.Opset("com.microsoft", 1);
  b.InitializerRaw("table", {16, 32}, kOnnxInt4, PackedInt4(16 * 32, 7));
  b.Initializer("scales", {16, 2}, Scales(32, 8));
  b.Input("ids", {4}, onnx::TensorProto::INT64);
  auto* n =
      b.DomainNode("com.microsoft", "GatherBlockQuantized", {"table", "ids", "scales"}, {"y"});
  OnnxBuilder::AttrInt(n, "bits", 4);
  OnnxBuilder::AttrInt(n, "block_size", 16);
  OnnxBuilder::AttrInt(n, "quantize_axis", 1);
  b.Output("y", {4, 32});
  CheckAgainstOrt("gather_int4", b, DType::kQInt4);
}

TEST(OrtBlockQuantized, BlockedInt4DequantizeLinear) {
  // Opset 21: W [K = 64, N = 16] int4 in blocks of 32 along K, scales and
  // zero points [2, 16]; y = x @ DequantizeLinear(W).
  OnnxBuilder b(21, 10);
  b.InitializerRaw("w", {64, 16}, kOnnxInt4, PackedInt4(64 * 16, 9));
  b.Initializer("s", {2, 16}, Scales(32, 10));
  b.InitializerRaw("z", {2, 16}, kOnnxInt4, PackedInt4(32, 11));
  auto* dq = b.Node("DequantizeLinear", {"w", "s", "z"}, {"wf"});
  OnnxBuilder::AttrInt(dq, "axis", 0);
  OnnxBuilder::AttrInt(dq, "block_size", 32);
  b.Input("x", {3, 64});
  b.Node("MatMul", {"x", "wf"}, {"y"});
  b.Output("y", {3, 16});
  // With its graph optimizations on, ONNX Runtime fuses DequantizeLinear +
  // MatMul into its MatMulNBits kernel, which quantizes x to int8 (an error
  // of 0.02 here): the model as written is what it runs with them off.
  testing::OrtRunOptions as_written;
  as_written.optimize = false;
  CheckAgainstOrt("dq_int4", b, DType::kQInt4, as_written);
}

TEST(BlockQuantizedImport, BadBlockSizeIsAnError) {
  OnnxBuilder b(17, 8);
  b.Opset("com.microsoft", 1);
  b.Input("a", {1, 64});
  b.InitializerRaw("B", {8, 2, 16}, kOnnxUInt8, Bytes(256, 1));
  b.Initializer("scales", {16}, Scales(16, 1));
  auto* n = b.DomainNode("com.microsoft", "MatMulNBits", {"a", "B", "scales"}, {"y"});
  OnnxBuilder::AttrInt(n, "K", 64);
  OnnxBuilder::AttrInt(n, "N", 8);
  OnnxBuilder::AttrInt(n, "bits", 4);
  OnnxBuilder::AttrInt(n, "block_size", 24);
  b.Output("y", {1, 8});
  const fs::path file = fs::path(::testing::TempDir()) / "blockq_bad.onnx";
  ASSERT_TRUE(WriteFileAtomically(file.string(), b.Bytes()).ok());
  absl::StatusOr<Graph> g = ReadOnnx(file.string());
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("block_size 24"), std::string_view::npos) << g.status();
}

TEST(BlockQuantizedImport, OutOfRangeInt4ByteIsAnError) {
  // A 4-bit tensor holds one element per byte inside egret: a byte outside
  // [-8, 7] is refused, not wrapped.
  TensorType t(DType::kQInt4, {2});
  const std::vector<uint8_t> bytes = {7, 0x70};
  absl::StatusOr<Tensor> r = Tensor::FromBytes(t, bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("outside [-8, 7]"), std::string_view::npos) << r.status();
  const std::vector<uint8_t> ok = {7, 0xf8};  // 7, -8
  absl::StatusOr<Tensor> s = Tensor::FromBytes(t, ok);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->GetValue(1), -8);
}

}  // namespace
}  // namespace egret
