// Optimizes every real network with the shipped rule library and writes the
// results table of docs/results.md: per network, nodes and HVX cost before and
// after, e-graph size, time per stage, peak memory, and the verify result
// (reference executor, same random inputs, before vs after). Each network
// runs in its own process; its peak RSS covers import, optimization and
// verification.
//
//   model_results [--out FILE.md] [--no-verify] [--phase-mode keep|reseed]
//
// Networks: ../shared/models/onnx-light/*.onnx and the PP-OCR networks that
// scripts/fetch-models caches ($EGRET_MODEL_CACHE, default
// ~/.cache/egret/models/ppocr; skipped with a note when missing).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
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

namespace egret {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Model {
  std::string name;
  std::string path;
  OnnxImportOptions import;
};

std::vector<Model> Models() {
  std::vector<Model> models;
  std::vector<std::string> light;
  for (const auto& e :
       fs::directory_iterator(std::string(EGRET_SHARED_DIR) + "/models/onnx-light")) {
    if (e.path().extension() == ".onnx") light.push_back(e.path().string());
  }
  std::sort(light.begin(), light.end());
  for (const std::string& p : light) models.push_back({fs::path(p).stem().string(), p, {}});
  const char* env = std::getenv("EGRET_MODEL_CACHE");
  const char* home = std::getenv("HOME");
  std::string cache = env != nullptr && *env != '\0'
                          ? std::string(env)
                          : std::string(home != nullptr ? home : ".") + "/.cache/egret/models";
  // PP-OCR inputs are [N, 3, H, W] with symbolic dims: the sizes PaddleOCR uses.
  struct Ocr {
    const char* file;
    int64_t h, w;
  };
  for (Ocr o :
       {Ocr{"ch_ppocr_mobile_v2.0_cls_infer.onnx", 48, 192},
        Ocr{"ch_PP-OCRv4_rec_infer.onnx", 48, 320}, Ocr{"ch_PP-OCRv4_det_infer.onnx", 320, 320}}) {
    Model m{fs::path(o.file).stem().string(), cache + "/ppocr/" + o.file, {}};
    m.import.dim_params = {{"p2o.DynamicDimension.0", 1},
                           {"p2o.DynamicDimension.1", o.h},
                           {"p2o.DynamicDimension.2", o.w}};
    models.push_back(std::move(m));
  }
  return models;
}

std::string Verify(const Graph& in, const Graph& out) {
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(in, 1);
  if (!inputs.ok()) return std::string(inputs.status().message());
  absl::StatusOr<VerifyReport> report =
      VerifyGraphs(in, "input", out, "output", *inputs, {.rtol = 1e-3, .atol = 1e-4});
  if (!report.ok()) return std::string(report.status().message());
  double max_abs = 0;
  for (const OutputCheck& o : report->outputs) max_abs = std::max(max_abs, o.diff.max_abs);
  return absl::StrFormat("%s (max abs %.2g)", report->ok() ? "ok" : "FAIL", max_abs);
}

// One table row ("| ... |\n"), or a note ("- name: ...\n") when the network
// cannot be imported or optimized.
std::string RunModel(const Model& m, const rules::RuleSet& lib, bool verify,
                     const OptimizeOptions& options) {
  Clock::time_point t0 = Clock::now();
  absl::StatusOr<Graph> g = ReadOnnx(m.path, m.import);
  double import_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (!g.ok()) return absl::StrFormat("- %s: import failed: %s\n", m.name, g.status().message());
  DiagnosticList d;
  absl::StatusOr<OptimizeResult> r = Optimize(*g, lib, options, &d);
  if (!r.ok()) {
    return absl::StrFormat("- %s: optimize failed: %s\n", m.name, r.status().message());
  }
  const SaturationSummary& sat = r->saturation;
  std::string v = verify ? Verify(*g, r->graph) : "not run";
  return absl::StrFormat(
      "| %s | %d -> %d | %.6g | %.6g | %.2f%% | %d | %d | %d | %s | %.0f | %.0f | %.0f | %.0f | %s "
      "|\n",
      m.name, r->input_nodes, r->graph.num_nodes(), r->input_cost, r->output_cost,
      100.0 * (1.0 - r->output_cost / r->input_cost), sat.enodes, sat.eclasses, sat.iterations,
      StopReasonName(sat.stop_reason), import_ms, r->time.saturate_ms, r->time.extract_and_lower_ms,
      static_cast<double>(PeakRssBytes()) / (1 << 20), v);
}

int Main(int argc, char** argv) {
  std::string out_path;
  bool verify = true;
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
    } else {
      std::fprintf(stderr, "model_results: error: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  std::optional<rules::RuleSet> lib = LoadShippedRules("model_results");
  if (!lib) return 1;
  std::string md =
      "| network | nodes before -> after | HVX cost before | after | lower by | e-nodes | "
      "e-classes | iterations | stop | import ms | saturate ms | extract+lower ms | peak RSS MiB "
      "| verify |\n|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|\n";
  std::string notes;
  int failures = 0;
  for (const Model& m : Models()) {
    if (!fs::exists(m.path)) {
      notes +=
          absl::StrFormat("- %s: not run, %s is missing (scripts/fetch-models)\n", m.name, m.path);
      continue;
    }
    std::fprintf(stderr, "model_results: %s ...\n", m.name.c_str());
    // Each network runs in a child process, so that its peak RSS is its own.
    const ChildRun run = RunInChild([&] { return RunModel(m, *lib, verify, options); });
    const std::string& line = run.output;
    if (!run.exited_ok || line.empty()) {
      notes += absl::StrFormat("- %s: the run crashed\n", m.name);
      ++failures;
    } else if (line[0] == '-') {
      notes += line;
      ++failures;
    } else {
      md += line;
      if (verify && line.find("| ok") == std::string::npos) ++failures;
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
