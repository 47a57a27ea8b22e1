// ONNX Runtime as an independent oracle for egret's importer and reference
// executor: each real network is imported, run by `Execute` on seeded random
// inputs, and the same inputs are run through the original ONNX model by ONNX
// Runtime's CPU provider (tests/onnx/ort_run.js over npm's onnxruntime-node,
// installed by scripts/fetch-models). Every output egret can compute must
// match within tolerance; outputs that depend on an op egret has no kernel
// for are listed as not verified.
//
// Skips, with a message, when node, onnxruntime-node or a model is missing
// (scripts/fetch-models needs the npm registry). The 1024x1024 IS-Net
// networks take minutes on the reference executor: they run only with
// EGRET_SLOW_TESTS=1.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "egret/backend/executor.h"
#include "egret/backend/npy.h"
#include "egret/backend/test_data.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/support/file_io.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

std::string ModelCache() {
  if (const char* c = std::getenv("EGRET_MODEL_CACHE"); c != nullptr && *c != '\0') return c;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.cache/egret/models";
}

std::string OrtModule() { return ModelCache() + "/ort/node_modules/onnxruntime-node"; }

bool HaveNode() { return std::system("node --version >/dev/null 2>&1") == 0; }

struct OracleCase {
  std::string path;
  OnnxImportOptions import;
  // Graph inputs frozen to constants: egret imports them as such
  // (OnnxImportOptions::input_values); ONNX Runtime is fed them.
  std::map<std::string, Tensor> frozen;
  double rtol = 1e-3;
  double atol = 1e-4;
  bool slow = false;
};

OracleCase At(std::string path) {
  OracleCase c;
  c.path = std::move(path);
  return c;
}

Tensor Int64Scalar(int64_t v) {
  TensorType t;
  t.dtype = DType::kInt64;
  return Tensor::FromValues(t, {static_cast<double>(v)});
}

// Runs `c` through both and compares; skips when something is missing.
void CheckAgainstOrt(const OracleCase& c) {
  if (!fs::exists(c.path)) {
    GTEST_SKIP() << c.path << " is missing: run scripts/fetch-models (needs the npm registry)";
  }
  if (!HaveNode() || !fs::exists(OrtModule() + "/package.json")) {
    GTEST_SKIP() << "node or " << OrtModule()
                 << " is missing: run scripts/fetch-models (needs the npm registry)";
  }
  if (c.slow && std::getenv("EGRET_SLOW_TESTS") == nullptr) {
    GTEST_SKIP() << c.path << " takes minutes on the reference executor; set EGRET_SLOW_TESTS=1";
  }
  OnnxImportOptions import = c.import;
  for (const auto& [name, t] : c.frozen) import.input_values.emplace(name, t);
  absl::StatusOr<Graph> g = ReadOnnx(c.path, import);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, /*seed=*/1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();

  const fs::path dir = fs::path(::testing::TempDir()) /
                       absl::StrCat("ort_oracle_", fs::path(c.path).stem().string());
  fs::remove_all(dir);
  fs::create_directories(dir / "out");
  std::string feeds;
  auto feed = [&](const std::string& name, const Tensor& t) {
    const fs::path file = dir / absl::StrCat("in", feeds.size(), ".npy");
    ASSERT_TRUE(WriteFileAtomically(file.string(), EncodeNpy(t)).ok());
    absl::StrAppend(&feeds, " '", name, "=", file.string(), "'");
  };
  for (size_t i = 0; i < inputs->size(); ++i) feed(g->node(g->inputs()[i]).name, (*inputs)[i]);
  for (const auto& [name, t] : c.frozen) feed(name, t);
  const std::string cmd =
      absl::StrFormat("node '%s/tests/onnx/ort_run.js' '%s' '%s' '%s' 1%s > '%s' 2> '%s'",
                      EGRET_SOURCE_DIR, OrtModule(), c.path, (dir / "out").string(), feeds,
                      (dir / "ms.txt").string(), (dir / "err.txt").string());
  ASSERT_EQ(std::system(cmd.c_str()), 0)
      << "ONNX Runtime failed: " << ReadFile((dir / "err.txt").string()).value_or("");

  std::vector<std::string> unavailable;
  ExecuteOptions run;
  run.unavailable = &unavailable;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Tensor>> ours = Execute(*g, *inputs, run);
  const double egret_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(ours.ok()) << ours.status();

  absl::StatusOr<std::string> names = ReadFile((dir / "out" / "outputs.txt").string());
  ASSERT_TRUE(names.ok()) << names.status();
  std::vector<std::string> ort_names = absl::StrSplit(*names, '\n', absl::SkipEmpty());
  ASSERT_EQ(ort_names.size(), g->outputs().size());
  double max_abs = 0;
  int verified = 0;
  std::vector<std::string> not_verified;
  for (size_t k = 0; k < ort_names.size(); ++k) {
    const GraphOutput& o = g->outputs()[k];
    ASSERT_EQ(o.name, ort_names[k]) << "output " << k;
    if (!unavailable[k].empty()) {
      not_verified.push_back(absl::StrCat(o.name, " (", unavailable[k], ")"));
      continue;
    }
    const TensorType& type = g->TypeOf(o.value);
    absl::StatusOr<Tensor> want = ReadNpy((dir / "out" / absl::StrCat(k, ".npy")).string(), type);
    ASSERT_TRUE(want.ok()) << "output " << o.name << ": " << want.status();
    absl::StatusOr<std::vector<OutputDiff>> diff =
        CompareOutputs({&(*ours)[k], 1}, {&*want, 1}, c.rtol, c.atol);
    ASSERT_TRUE(diff.ok()) << diff.status();
    const OutputDiff& d = (*diff)[0];
    EXPECT_TRUE(d.within_tolerance())
        << "output " << o.name << ": " << d.mismatches << " of " << want->num_elements()
        << " elements differ from ONNX Runtime (max abs error " << d.max_abs << ", max rel error "
        << d.max_rel << ")";
    max_abs = std::max(max_abs, d.max_abs);
    ++verified;
  }
  const std::string ort_ms = ReadFile((dir / "ms.txt").string()).value_or("?\n");
  std::printf(
      "ORT oracle: %s: %d of %zu outputs match ONNX Runtime, max abs error %g; egret %.0f "
      "ms, ONNX Runtime %s",
      fs::path(c.path).filename().c_str(), verified, ort_names.size(), max_abs, egret_ms,
      ort_ms.c_str());
  for (const std::string& n : not_verified) std::printf("  not verified: %s\n", n.c_str());
  fs::remove_all(dir);
}

std::string Light(const std::string& name) {
  return absl::StrCat(EGRET_SHARED_DIR, "/models/onnx-light/", name);
}

TEST(OrtOracle, Squeezenet) { CheckAgainstOrt(At(Light("light_squeezenet.onnx"))); }
TEST(OrtOracle, Shufflenet) { CheckAgainstOrt(At(Light("light_shufflenet.onnx"))); }
TEST(OrtOracle, InceptionV1) { CheckAgainstOrt(At(Light("light_inception_v1.onnx"))); }

TEST(OrtOracle, PpOcrClassifier) {
  OracleCase c = At(ModelCache() + "/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx");
  c.import.dim_params = {{"p2o.DynamicDimension.0", 1},
                         {"p2o.DynamicDimension.1", 48},
                         {"p2o.DynamicDimension.2", 192}};
  CheckAgainstOrt(c);
}

TEST(OrtOracle, PpOcrRecognizer) {
  OracleCase c = At(ModelCache() + "/ppocr/ch_PP-OCRv4_rec_infer.onnx");
  c.import.input_shapes = {{"x", {1, 3, 48, 320}}};
  CheckAgainstOrt(c);
}

TEST(OrtOracle, PpOcrDetector) {
  OracleCase c = At(ModelCache() + "/ppocr/ch_PP-OCRv4_det_infer.onnx");
  c.import.input_shapes = {{"x", {1, 3, 160, 160}}};
  CheckAgainstOrt(c);
}

TEST(OrtOracle, BlazeFaceFront) {
  CheckAgainstOrt(At(ModelCache() + "/blazeface/face_detection_front_128x128_barracuda.onnx"));
}

TEST(OrtOracle, BlazeFaceBack) {
  CheckAgainstOrt(At(ModelCache() + "/blazeface/face_detection_back_256x256_barracuda.onnx"));
}

TEST(OrtOracle, MlsdTiny) { CheckAgainstOrt(At(ModelCache() + "/mlsd/mlsd_320x320_tiny.onnx")); }

TEST(OrtOracle, MlsdLarge) { CheckAgainstOrt(At(ModelCache() + "/mlsd/mlsd_512x512_large.onnx")); }

// Silero VAD streams 512 samples at 16 kHz with a [2, 1, 128] LSTM state; the
// sample rate decides which branch of the model's If runs.
OracleCase Silero(const std::string& file) {
  OracleCase c = At(ModelCache() + "/silero/" + file);
  c.import.input_shapes = {{"input", {1, 512}}, {"state", {2, 1, 128}}};
  c.frozen.emplace("sr", Int64Scalar(16000));
  return c;
}

TEST(OrtOracle, SileroVadV5) { CheckAgainstOrt(Silero("silero_vad_v5.onnx")); }
TEST(OrtOracle, SileroVadV6) { CheckAgainstOrt(Silero("silero_vad_v6.onnx")); }

// IS-Net in float16: egret rounds each op's result to float16 once, ONNX
// Runtime's CPU kernels accumulate differently; the tolerance is a few
// float16 steps of the [0, 1] mask.
OracleCase IsNet(const std::string& file) {
  OracleCase c = At(ModelCache() + "/isnet/" + file);
  c.rtol = c.atol = 1e-2;
  c.slow = true;
  return c;
}

TEST(OrtOracle, IsNetFp16) { CheckAgainstOrt(IsNet("isnet_fp16.onnx")); }
TEST(OrtOracle, IsNetQuint8) { CheckAgainstOrt(IsNet("isnet_quint8.onnx")); }

}  // namespace
}  // namespace egret
