// ONNX out, checked by ONNX Runtime: each network is imported, optimized with
// the shipped rule library, written as standard-only ONNX (checked by ONNX's
// C++ checker), and the original model and the written one run on ONNX
// Runtime's CPU provider (tests/onnx/ort_oracle.h) on the same seeded inputs;
// their outputs must agree (float tolerance, one quantization step for the
// QDQ networks).
//
// Both sides run on ONNX Runtime, so no network waits for egret's reference
// executor. Every network of docs/results.md runs by default: the cost per
// network is import + optimize + two ONNX Runtime sessions, under a second
// for most, 10 to 25 s for ZFNet, VGG19 and the two 1024x1024 IS-Nets (about
// 80 s in all on the 2-core CI machine kind). Splat weights are written as
// ConstantOfShape (docs/onnx-export.md), so VGG19's written model is 0.2 MB,
// not 548 MB. Skips, with a message, when node, onnxruntime-node or a model
// is missing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/io/graph_io.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/pipeline/optimize.h"
#include "egret/support/file_io.h"
#include "onnx/onnx_pb.h"
#include "tests/lib/shipped_library.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using testing::ModelCache;

struct ExportCase {
  std::string path;
  OnnxImportOptions import;
  std::vector<std::pair<std::string, Tensor>> frozen;
  double rtol = 1e-3;
  double atol = 1e-4;
  bool quantized = false;        // outputs may differ by one step of their encoding
  size_t max_written_bytes = 0;  // when not 0, a bound on the written model's size
  bool external_data = false;    // initializers of 1 KiB or more in a .data file
  // The written model has no more ONNX nodes and no more Transposes than the
  // input, but for these allowances (each case that has one says why;
  // docs/onnx-export.md, "Against the input").
  int extra_nodes = 0;
  int extra_transposes = 0;
  // When not 0, a bound on the written files' size as a multiple of the
  // input's (quantized models keep their integer weights).
  double max_size_ratio = 0;
};

// ONNX nodes (subgraphs included) and Transposes of the model file `path`.
struct NodeCounts {
  int nodes = 0;
  int transposes = 0;
  int identities = 0;
};
void CountNodes(const onnx::GraphProto& g, NodeCounts* c) {
  for (const auto& n : g.node()) {
    ++c->nodes;
    c->transposes += n.op_type() == "Transpose";
    c->identities += n.op_type() == "Identity";
    for (const auto& a : n.attribute()) {
      if (a.has_g()) CountNodes(a.g(), c);
      for (const auto& sub : a.graphs()) CountNodes(sub, c);
    }
  }
}
NodeCounts CountsOf(const std::string& path) {
  NodeCounts c;
  absl::StatusOr<std::string> bytes = ReadFile(path);
  onnx::ModelProto m;
  EXPECT_TRUE(bytes.ok() && m.ParseFromString(*bytes)) << path;
  CountNodes(m.graph(), &c);
  return c;
}

#if defined(EGRET_SANITIZED)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

void CheckExport(const ExportCase& c) {
  if (!fs::exists(c.path)) {
    GTEST_SKIP() << c.path << " is missing: run scripts/fetch-models (needs the npm registry)";
  }
  if (std::string why = testing::OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  if (kSanitized) GTEST_SKIP() << "ONNX Runtime runs in the plain build";
  const auto start = std::chrono::steady_clock::now();
  OnnxImportOptions import = c.import;
  for (const auto& [name, t] : c.frozen) import.input_values.emplace(name, t);
  absl::StatusOr<Graph> g = ReadOnnx(c.path, import);
  ASSERT_TRUE(g.ok()) << g.status();
  DiagnosticList diags;
  // As `egret optimize -o OUT.onnx` runs: no device-lowering passes.
  OptimizeOptions opt;
  opt.device_lowering = false;
  opt.keep_quantized_weights = true;
  absl::StatusOr<OptimizeResult> r = Optimize(*g, testing::ShippedLibrary(), opt, &diags);
  ASSERT_TRUE(r.ok()) << r.status();

  const std::string out =
      absl::StrCat(::testing::TempDir(), "/egret_", fs::path(c.path).stem().string(), ".onnx");
  OnnxWriteOptions options;
  options.standard_only = true;
  options.external_data = c.external_data;
  options.records = false;
  // The model (and its .data file), checked by ONNX's checker, as
  // `egret optimize -o` writes them.
  absl::Status saved = SaveGraph(r->graph, out, GraphFormat::kOnnx, options);
  ASSERT_TRUE(saved.ok()) << saved;
  const std::string data = absl::StrCat(out, ".data");
  EXPECT_EQ(fs::exists(data), c.external_data);
  const uintmax_t model_bytes = fs::file_size(out);
  const uintmax_t data_bytes = c.external_data ? fs::file_size(data) : 0;
  if (c.max_written_bytes != 0) {
    EXPECT_LE(model_bytes, c.max_written_bytes);
  }
  if (c.max_size_ratio != 0) {
    EXPECT_LE(static_cast<double>(model_bytes + data_bytes),
              c.max_size_ratio * static_cast<double>(fs::file_size(c.path)));
  }
  // No worse than the input: nodes, Transposes, no Identity but for a graph
  // output that needs its name.
  const NodeCounts in = CountsOf(c.path), written = CountsOf(out);
  EXPECT_LE(written.nodes, in.nodes + c.extra_nodes);
  EXPECT_LE(written.transposes, in.transposes + c.extra_transposes);
  EXPECT_LE(written.identities, static_cast<int>(g->outputs().size()));

  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, /*seed=*/1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  std::vector<std::pair<std::string, Tensor>> feeds = c.frozen, egret_feeds;
  for (size_t i = 0; i < inputs->size(); ++i) {
    feeds.emplace_back(g->node(g->inputs()[i]).name, (*inputs)[i]);
    egret_feeds.emplace_back(g->node(g->inputs()[i]).name, (*inputs)[i]);
  }
  std::vector<TensorType> types;
  for (const GraphOutput& o : g->outputs()) types.push_back(g->TypeOf(o.value));
  absl::StatusOr<testing::OrtOutputs> want = testing::RunOnOrt(c.path, feeds, types);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<testing::OrtOutputs> got = testing::RunOnOrt(out, egret_feeds, types);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->names, want->names);
  double max_abs = 0;
  for (size_t k = 0; k < want->tensors.size(); ++k) {
    double atol = c.atol;
    if (c.quantized) {
      const double step = std::max(QuantizationStep(*g, k), QuantizationStep(r->graph, k));
      atol = std::max(atol, step * 1.0001);
    }
    absl::StatusOr<std::vector<OutputDiff>> d =
        CompareOutputs(absl::MakeConstSpan(&got->tensors[k], 1),
                       absl::MakeConstSpan(&want->tensors[k], 1), c.rtol, atol);
    ASSERT_TRUE(d.ok()) << d.status();
    max_abs = std::max(max_abs, (*d)[0].max_abs);
    EXPECT_TRUE((*d)[0].within_tolerance()) << want->names[k] << ": " << (*d)[0].mismatches
                                            << " elements differ, max abs " << (*d)[0].max_abs;
  }
  std::printf(
      "ONNX export vs original on ONNX Runtime: %s: %zu outputs, max abs %g (%zu nodes, %.2f MB "
      "written, %.1f s)\n",
      fs::path(c.path).filename().c_str(), want->tensors.size(), max_abs, r->graph.num_nodes(),
      static_cast<double>(model_bytes + data_bytes) / 1e6,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  fs::remove(out);
  fs::remove(data);
}

std::string Light(const std::string& name) {
  return absl::StrCat(EGRET_SHARED_DIR, "/models/onnx-light/", name);
}

ExportCase At(std::string path) {
  ExportCase c;
  c.path = std::move(path);
  return c;
}

TEST(OnnxExportOrt, Squeezenet) { CheckExport(At(Light("light_squeezenet.onnx"))); }
// The channel shuffles (Reshape, Transpose, Reshape in NCHW) are NHWC in
// egret; the layout Transposes around them pass their Reshapes
// (transpose_reshape_internal.h), leaving the shuffle's own (16 -> 16).
TEST(OnnxExportOrt, Shufflenet) { CheckExport(At(Light("light_shufflenet.onnx"))); }

TEST(OnnxExportOrt, PpOcrClassifier) {
  ExportCase c = At(ModelCache() + "/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx");
  c.import.dim_params = {{"p2o.DynamicDimension.0", 1},
                         {"p2o.DynamicDimension.1", 48},
                         {"p2o.DynamicDimension.2", 192}};
  CheckExport(c);
}

TEST(OnnxExportOrt, PpOcrRecognizer) {
  ExportCase c = At(ModelCache() + "/ppocr/ch_PP-OCRv4_rec_infer.onnx");
  c.import.input_shapes = {{"x", {1, 3, 48, 320}}};
  // Its attention takes q, k and v by Slices of one transposed tensor: that
  // Transpose stays above them (TidyGraph tries both), 9 -> 9, not one per
  // Slice (11).
  CheckExport(c);
}

TEST(OnnxExportOrt, PpOcrDetector) {
  ExportCase c = At(ModelCache() + "/ppocr/ch_PP-OCRv4_det_infer.onnx");
  c.import.input_shapes = {{"x", {1, 3, 160, 160}}};
  CheckExport(c);
}

TEST(OnnxExportOrt, BlazeFaceFront) {
  CheckExport(At(ModelCache() + "/blazeface/face_detection_front_128x128_barracuda.onnx"));
}

TEST(OnnxExportOrt, SileroVadV5) {
  ExportCase c = At(ModelCache() + "/silero/silero_vad_v5.onnx");
  c.import.input_shapes = {{"input", {1, 512}}, {"state", {2, 1, 128}}};
  TensorType t;
  t.dtype = DType::kInt64;
  c.frozen.emplace_back("sr", Tensor::FromValues(t, std::vector<double>{16000}));
  CheckExport(c);
}

ExportCase Qdq(const std::string& file) {
  ExportCase c = At(ModelCache() + "/qdq/" + file);
  c.quantized = true;
  c.max_size_ratio = 1.2;
  return c;
}

TEST(OnnxExportOrt, QdqMobilenet) { CheckExport(Qdq("qdq_mobilenet.onnx")); }
TEST(OnnxExportOrt, QdqPpOcrClassifier) { CheckExport(Qdq("qdq_ppocr_cls.onnx")); }

// Big weights (AlexNet, ZFNet, VGG), deep networks, 512x512 and 1024x1024
// inputs.
TEST(OnnxExportOrt, InceptionV1) { CheckExport(At(Light("light_inception_v1.onnx"))); }
TEST(OnnxExportOrt, InceptionV2) { CheckExport(At(Light("light_inception_v2.onnx"))); }
TEST(OnnxExportOrt, Resnet50) { CheckExport(At(Light("light_resnet50.onnx"))); }
TEST(OnnxExportOrt, Densenet121) { CheckExport(At(Light("light_densenet121.onnx"))); }
TEST(OnnxExportOrt, Alexnet) { CheckExport(At(Light("light_bvlc_alexnet.onnx"))); }
TEST(OnnxExportOrt, Zfnet512) { CheckExport(At(Light("light_zfnet512.onnx"))); }
// VGG19's 548 MB of weights are all 0.02: ConstantOfShape nodes, as in the
// source model (0.2 MB), not initializers.
TEST(OnnxExportOrt, Vgg19) {
  ExportCase c = At(Light("light_vgg19.onnx"));
  c.max_written_bytes = 1'000'000;
  CheckExport(c);
}
TEST(OnnxExportOrt, BlazeFaceBack) {
  // Eight of its depthwise convolutions have no bias; egret's have a zero
  // one, left out when written (149 -> 149, not 150 with a ConstantOfShape).
  CheckExport(At(ModelCache() + "/blazeface/face_detection_back_256x256_barracuda.onnx"));
}
TEST(OnnxExportOrt, SileroVadV6) {
  ExportCase c = At(ModelCache() + "/silero/silero_vad_v6.onnx");
  c.import.input_shapes = {{"input", {1, 512}}, {"state", {2, 1, 128}}};
  TensorType t;
  t.dtype = DType::kInt64;
  c.frozen.emplace_back("sr", Tensor::FromValues(t, std::vector<double>{16000}));
  CheckExport(c);
}
// M-LSD's decoder amplifies float32 rounding (see ort_oracle_test.cc): 0.05.
TEST(OnnxExportOrt, MlsdTiny) {
  ExportCase c = At(ModelCache() + "/mlsd/mlsd_320x320_tiny.onnx");
  c.atol = 5e-2;
  CheckExport(c);
}
TEST(OnnxExportOrt, MlsdLarge) {
  ExportCase c = At(ModelCache() + "/mlsd/mlsd_512x512_large.onnx");
  c.atol = 5e-2;
  CheckExport(c);
}
TEST(OnnxExportOrt, IsNetFp16) {
  ExportCase c = At(ModelCache() + "/isnet/isnet_fp16.onnx");
  c.rtol = c.atol = 1e-2;
  CheckExport(c);
}
TEST(OnnxExportOrt, IsNetQuint8) {
  ExportCase c = At(ModelCache() + "/isnet/isnet_quint8.onnx");
  c.rtol = c.atol = 1e-2;
  // Its dynamically quantized ConvIntegers are float Conv2d of dequantized
  // uint8 weights in egret (docs/onnx-import.md), written back as
  // ConvInteger on the uint8 weights (write_tidy_internal.h,
  // FuseIntegerProducts): 1084 -> 1084 nodes, not 1690.
  c.max_size_ratio = 1.2;
  CheckExport(c);
}
// Written with its weights as external data (out.onnx.data), which ONNX
// Runtime reads from beside the model.
TEST(OnnxExportOrt, QdqResnet50) {
  ExportCase c = Qdq("qdq_resnet50.onnx");
  c.external_data = true;
  c.max_written_bytes = 4'000'000;  // of 28 MB: the small scales and biases stay inline
  CheckExport(c);
}

}  // namespace
}  // namespace egret
