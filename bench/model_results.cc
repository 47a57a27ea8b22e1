// Optimizes every real network with the shipped rule library and writes the
// results table of docs/results.md: per network, nodes and HVX cost before and
// after, the ops left off the HTP, e-graph size, time per stage, peak memory,
// the verify result (reference executor, same random inputs, before vs after)
// and the largest difference between egret's reference executor on the
// imported graph and ONNX Runtime on the original model (tests/onnx/
// ort_oracle.h; "-" when onnxruntime-node is not installed). Each network runs
// in its own process; its peak RSS covers import, optimization and
// verification.
//
//   model_results [--out FILE.md] [--no-verify] [--no-ort] [--only NAME]
//                 [--phase-mode keep|reseed]
//
// Networks: ../shared/models/onnx-light/*.onnx and the npm networks that
// scripts/fetch-models caches ($EGRET_MODEL_CACHE, default
// ~/.cache/egret/models: PP-OCR, silero VAD, M-LSD, BlazeFace, IS-Net;
// skipped with a note when missing).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/child_run.h"
#include "bench/shipped_rules.h"
#include "egret/backend/test_data.h"
#include "egret/backend/verify.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules/rule_set.h"
#include "egret/support/file_io.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Model {
  std::string name;
  std::string path;
  OnnxImportOptions import;
  // Graph inputs frozen to constants (also fed to ONNX Runtime).
  std::vector<std::pair<std::string, Tensor>> frozen;
  double rtol = 1e-3, atol = 1e-4;
};

Model Named(std::string name, std::string path) {
  Model m;
  m.name = std::move(name);
  m.path = std::move(path);
  return m;
}

Tensor Int64Scalar(int64_t v) {
  TensorType t;
  t.dtype = DType::kInt64;
  return Tensor::FromValues(t, {static_cast<double>(v)});
}

std::vector<Model> Models() {
  std::vector<Model> models;
  std::vector<std::string> light;
  for (const auto& e :
       fs::directory_iterator(std::string(EGRET_SHARED_DIR) + "/models/onnx-light")) {
    if (e.path().extension() == ".onnx") light.push_back(e.path().string());
  }
  std::sort(light.begin(), light.end());
  for (const std::string& p : light) models.push_back(Named(fs::path(p).stem().string(), p));
  const std::string cache = testing::ModelCache();
  // PP-OCR inputs are [N, 3, H, W] with symbolic dims: the sizes PaddleOCR uses.
  struct Ocr {
    const char* file;
    int64_t h, w;
  };
  for (Ocr o :
       {Ocr{"ch_ppocr_mobile_v2.0_cls_infer.onnx", 48, 192},
        Ocr{"ch_PP-OCRv4_rec_infer.onnx", 48, 320}, Ocr{"ch_PP-OCRv4_det_infer.onnx", 320, 320}}) {
    Model m = Named(fs::path(o.file).stem().string(), cache + "/ppocr/" + o.file);
    m.import.dim_params = {{"p2o.DynamicDimension.0", 1},
                           {"p2o.DynamicDimension.1", o.h},
                           {"p2o.DynamicDimension.2", o.w}};
    models.push_back(std::move(m));
  }
  // Silero VAD: 512 samples at 16 kHz, batch 1; the sample rate decides the
  // model's If.
  for (const char* v : {"silero_vad_v5", "silero_vad_v6"}) {
    Model m = Named(v, cache + "/silero/" + v + ".onnx");
    m.import.input_shapes = {{"input", {1, 512}}, {"state", {2, 1, 128}}};
    m.frozen.emplace_back("sr", Int64Scalar(16000));
    models.push_back(std::move(m));
  }
  // M-LSD's decoder amplifies float32 rounding: ONNX Runtime with and without
  // its graph optimizations differs by up to 0.025 (tests/onnx/ort_oracle_test).
  for (const char* f : {"mlsd_320x320_tiny", "mlsd_512x512_large"}) {
    Model m = Named(f, cache + "/mlsd/" + f + ".onnx");
    m.atol = 5e-2;
    models.push_back(std::move(m));
  }
  for (const char* f : {"blazeface/face_detection_front_128x128_barracuda",
                        "blazeface/face_detection_back_256x256_barracuda"}) {
    models.push_back(Named(fs::path(f).filename().string(), cache + "/" + f + ".onnx"));
  }
  // IS-Net in float16 and dynamically quantized: egret rounds to float16 per
  // op, ONNX Runtime accumulates differently, hence the looser tolerance.
  for (const char* f : {"isnet_fp16", "isnet_quint8"}) {
    Model m = Named(f, cache + "/isnet/" + f + ".onnx");
    m.rtol = m.atol = 1e-2;
    models.push_back(std::move(m));
  }
  return models;
}

std::string Verify(const Model& m, const Graph& in, const Graph& out) {
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(in, 1);
  if (!inputs.ok()) return std::string(inputs.status().message());
  absl::StatusOr<VerifyReport> report =
      VerifyGraphs(in, "input", out, "output", *inputs, {.rtol = m.rtol, .atol = m.atol});
  if (!report.ok()) return std::string(report.status().message());
  double max_abs = 0;
  for (const OutputCheck& o : report->outputs) max_abs = std::max(max_abs, o.diff.max_abs);
  std::string skipped = report->not_verified() == 0
                            ? ""
                            : absl::StrFormat(", %d of %d outputs not verified",
                                              report->not_verified(), report->outputs.size());
  return absl::StrFormat("%s (max abs %.2g%s)", report->ok() ? "ok" : "FAIL", max_abs, skipped);
}

// egret's reference executor on the imported graph against ONNX Runtime on
// the model: the largest difference, or why there is none.
std::string AgainstOrt(const Model& m, const Graph& g) {
  if (!testing::OrtUnavailableReason().empty()) return "-";
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 1);
  if (!inputs.ok()) return std::string(inputs.status().message());
  absl::StatusOr<testing::OracleComparison> c =
      testing::CompareWithOrt(m.path, g, *inputs, m.frozen, m.rtol, m.atol);
  if (!c.ok()) return absl::StrFormat("error: %s", c.status().message());
  std::string out =
      absl::StrFormat("%s %.2g", c->mismatches.empty() ? "ok" : "DIFFERS", c->max_abs);
  if (!c->not_verified.empty()) {
    absl::StrAppendFormat(&out, " (%d of %d outputs not compared)", c->not_verified.size(),
                          c->outputs);
  }
  return out;
}

// "onnx.LSTM x2, onnx.If x1", or "none".
std::string OffHtp(const OptimizeResult& r) {
  std::string out;
  for (const auto& [op, o] : r.off_htp) {
    absl::StrAppendFormat(&out, "%s%s x%d", out.empty() ? "" : ", ", op, o.nodes);
  }
  return out.empty() ? "none" : out;
}

// One table row ("| ... |\n"), or a note ("- name: ...\n") when the network
// cannot be imported or optimized.
std::string RunModel(const Model& m, const rules::RuleSet& lib, bool verify, bool ort,
                     const OptimizeOptions& options) {
  Clock::time_point t0 = Clock::now();
  OnnxImportOptions import = m.import;
  for (const auto& [name, t] : m.frozen) import.input_values.emplace(name, t);
  absl::StatusOr<Graph> g = ReadOnnx(m.path, import);
  double import_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (!g.ok()) return absl::StrFormat("- %s: import failed: %s\n", m.name, g.status().message());
  DiagnosticList d;
  absl::StatusOr<OptimizeResult> r = Optimize(*g, lib, options, &d);
  if (!r.ok()) {
    return absl::StrFormat("- %s: optimize failed: %s\n", m.name, r.status().message());
  }
  const SaturationSummary& sat = r->saturation;
  t0 = Clock::now();
  std::string v = verify ? Verify(m, *g, r->graph) : "not run";
  const double verify_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::string o = ort ? AgainstOrt(m, *g) : "not run";
  return absl::StrFormat(
      "| %s | %d -> %d | %s | %.6g | %.6g | %.2f%% | %d | %d | %d | %s | %.0f | %.0f | %.0f | %.0f "
      "| "
      "%.0f | %s | %s |\n",
      m.name, r->input_nodes, r->graph.num_nodes(), OffHtp(*r), r->input_cost, r->output_cost,
      100.0 * (1.0 - r->output_cost / r->input_cost), sat.enodes, sat.eclasses, sat.iterations,
      StopReasonName(sat.stop_reason), import_ms, r->time.saturate_ms, r->time.extract_and_lower_ms,
      verify_ms, static_cast<double>(PeakRssBytes()) / (1 << 20), v, o);
}

int Main(int argc, char** argv) {
  std::string out_path;
  bool verify = true;
  bool ort = true;
  std::string only;
  OptimizeOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) {
      out_path = argv[++i];
    } else if (a == "--phase-mode" && i + 1 < argc) {
      std::optional<PhaseMode> mode = ParsePhaseMode(argv[++i]);
      if (!mode) {
        std::fprintf(stderr, "model_results: error: --phase-mode must be keep or reseed\n");
        return 2;
      }
      options.phase_mode = *mode;
    } else if (a == "--no-verify") {
      verify = false;
    } else if (a == "--no-ort") {
      ort = false;
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "model_results: error: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  std::optional<rules::RuleSet> lib = LoadShippedRules("model_results");
  if (!lib) return 1;
  std::string md =
      "| network | nodes before -> after | off the HTP | HVX cost before | after | lower by | "
      "e-nodes | e-classes | iterations | stop | import ms | saturate ms | extract+lower ms | "
      "verify ms | peak RSS MiB | verify | vs ONNX Runtime (max abs) |\n"
      "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|\n";
  std::string notes;
  int failures = 0;
  for (const Model& m : Models()) {
    if (!only.empty() && m.name != only) continue;
    if (!fs::exists(m.path)) {
      notes +=
          absl::StrFormat("- %s: not run, %s is missing (scripts/fetch-models)\n", m.name, m.path);
      continue;
    }
    std::fprintf(stderr, "model_results: %s ...\n", m.name.c_str());
    // Each network runs in a child process, so that its peak RSS is its own.
    const ChildRun run = RunInChild([&] { return RunModel(m, *lib, verify, ort, options); });
    const std::string& line = run.output;
    if (!run.exited_ok || line.empty()) {
      notes += absl::StrFormat("- %s: the run crashed\n", m.name);
      ++failures;
    } else if (line[0] == '-') {
      notes += line;
      ++failures;
    } else {
      md += line;
      if (verify && line.find("| ok (") == std::string::npos) ++failures;
      if (line.find("DIFFERS") != std::string::npos || line.find("| error:") != std::string::npos) {
        ++failures;
      }
    }
  }
  md += notes;
  if (out_path.empty()) {
    std::fputs(md.c_str(), stdout);
  } else {
    absl::Status s = WriteFileAtomically(out_path, md);
    if (!s.ok()) {
      std::fprintf(stderr, "model_results: error: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace egret

int main(int argc, char** argv) { return egret::Main(argc, argv); }
