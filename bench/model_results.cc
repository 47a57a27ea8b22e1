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
// Quantized networks (an imported graph with a Quantize or Dequantize node:
// the QDQ networks scripts/make-qdq-models writes, ONNX's QLinear and integer
// ops) also get a row in a second table, "Quantized networks": HVX cost
// before and after, the ops left computing in float and the "Dequantize ->
// op -> Quantize" islands left (bench/quantized_stats.h), and the largest
// |egret - ONNX Runtime| of the *optimized* graph on each output, in
// quantization steps of that output. In the main table, verify allows a
// quantized output one step of its encoding (VerifyOptions::quant_steps), and
// the ONNX Runtime comparison one step of the coarsest output (rtol 0) when
// every output is a Dequantize.
//
//   model_results [--out FILE.md] [--no-verify] [--no-ort] [--only NAME]
//                 [--phase-mode keep|reseed]
//
// Networks: ../shared/models/onnx-light/*.onnx and the npm networks that
// scripts/fetch-models caches ($EGRET_MODEL_CACHE, default
// ~/.cache/egret/models: PP-OCR, silero VAD, M-LSD, BlazeFace, IS-Net, and
// the QDQ networks in qdq/; skipped with a note when missing).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/child_run.h"
#include "bench/quantized_stats.h"
#include "bench/shipped_rules.h"
#include "egret/executor/executor.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
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
  // Statically quantized (QDQ, per-channel weights) networks,
  // docs/quantized-models.md; their tolerances are set from their output
  // steps (Tolerances below).
  for (const char* f : {"qdq_resnet50", "qdq_mobilenet", "qdq_ppocr_cls"}) {
    models.push_back(Named(f, cache + "/qdq/" + f + ".onnx"));
  }
  return models;
}

struct Tolerance {
  double rtol, atol;
};

// The tolerances of the ONNX Runtime comparison: the model's; for a quantized
// network whose outputs are all Dequantize nodes, one quantization step of
// its coarsest output (rtol 0). (Verify needs no such thing: VerifyGraphs
// allows each quantized output one step of its own encoding.)
Tolerance Tolerances(const Model& m, const Graph& g) {
  if (!IsQuantizedNetwork(g)) return {m.rtol, m.atol};
  std::vector<double> steps = OutputSteps(g);
  if (steps.empty() || *std::min_element(steps.begin(), steps.end()) <= 0) return {m.rtol, m.atol};
  return {0, *std::max_element(steps.begin(), steps.end()) * 1.0001};
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
  return absl::StrFormat("%s (max abs %.2g%s)",
                         report->failed() ? "FAIL"
                         : report->ok()   ? "ok"
                                          : "incomplete",
                         max_abs, skipped);
}

// egret's reference executor on the imported graph against ONNX Runtime on
// the model: the largest difference, or why there is none.
std::string AgainstOrt(const Model& m, const Tolerance& tol, const Graph& g) {
  if (!testing::OrtUnavailableReason().empty()) return "-";
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 1);
  if (!inputs.ok()) return std::string(inputs.status().message());
  absl::StatusOr<testing::OracleComparison> c =
      testing::CompareWithOrt(m.path, g, *inputs, m.frozen, tol.rtol, tol.atol);
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

// The optimized graph `out` of the network imported as `in` against ONNX
// Runtime running the model, on the same seeded inputs: per output, the
// largest |egret - ONNX Runtime| in quantization steps of the output
// ("logits 0.98 (step 0.0357)"), and for the outputs that are not a
// Dequantize their largest absolute difference ("2 float outputs: max abs
// 0.0021 (y)"). `*over` is set when a quantized output is more than one step
// off (or the comparison could not be made).
std::string StepsAgainstOrt(const Model& m, const Graph& in, const Graph& out, bool* over) {
  *over = false;
  if (!testing::OrtUnavailableReason().empty()) return "-";
  *over = true;
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(in, 1);
  if (!inputs.ok()) return absl::StrFormat("error: %s", inputs.status().message());
  std::vector<std::pair<std::string, Tensor>> feeds = m.frozen;
  for (size_t i = 0; i < inputs->size(); ++i) {
    feeds.emplace_back(in.node(in.inputs()[i]).name, (*inputs)[i]);
  }
  std::vector<TensorType> types;
  for (const GraphOutput& o : out.outputs()) types.push_back(out.TypeOf(o.value));
  absl::StatusOr<testing::OrtOutputs> expected = testing::RunOnOrt(m.path, feeds, types);
  if (!expected.ok()) return absl::StrFormat("error: %s", expected.status().message());
  std::vector<std::string> unavailable;
  absl::StatusOr<std::vector<Tensor>> actual = Execute(out, *inputs, {.unavailable = &unavailable});
  if (!actual.ok()) return absl::StrFormat("error: %s", actual.status().message());
  const std::vector<double> steps = OutputSteps(in);
  if (steps.size() != out.outputs().size()) {
    return absl::StrFormat("error: %d outputs before optimization, %d after", steps.size(),
                           out.outputs().size());
  }
  std::string text;
  bool any_over = false;
  int quantized = 0, floats = 0;
  double float_max = -1;
  std::string float_max_name;
  for (size_t k = 0; k < steps.size(); ++k) {
    const std::string& name = out.outputs()[k].name;
    if (name != expected->names[k]) {
      return absl::StrFormat("error: output %d is '%s' in egret's graph, '%s' in ONNX Runtime's", k,
                             name, expected->names[k]);
    }
    if (!unavailable[k].empty()) {
      absl::StrAppendFormat(&text, "%s%s not computed (%s)", text.empty() ? "" : ", ", name,
                            unavailable[k]);
      any_over = true;
      continue;
    }
    absl::StatusOr<std::vector<OutputDiff>> d = CompareOutputs(
        absl::MakeConstSpan(&(*actual)[k], 1), absl::MakeConstSpan(&expected->tensors[k], 1), 0, 0);
    if (!d.ok()) return absl::StrFormat("error: output %s: %s", name, d.status().message());
    const double max_abs = (*d)[0].max_abs;
    if (steps[k] > 0) {
      ++quantized;
      const double in_steps = max_abs / steps[k];
      absl::StrAppendFormat(&text, "%s%s %.3g (step %.3g)", text.empty() ? "" : ", ", name,
                            in_steps, steps[k]);
      any_over = any_over || !(in_steps <= 1.0001);
    } else {
      ++floats;
      if (max_abs > float_max) {
        float_max = max_abs;
        float_max_name = name;
      }
    }
  }
  // Outputs that are not a Dequantize: one summary.
  if (floats > 0) {
    absl::StrAppendFormat(&text, "%s%d float output%s: max abs %.2g (%s)", text.empty() ? "" : ", ",
                          floats, floats == 1 ? "" : "s", float_max, float_max_name);
  }
  *over = any_over;
  const char* verdict = any_over ? "OVER ONE STEP:" : quantized > 0 ? "ok" : "no quantized output:";
  return absl::StrFormat("%s %s", verdict, text);
}

// The row of the quantized table ("Q| ... |\n", the "Q" dropped by Main).
std::string QuantizedRow(const Model& m, const Graph& in, const OptimizeResult& r, bool ort) {
  const QuantizedStats before = CountQuantizedStats(in);
  const QuantizedStats after = CountQuantizedStats(r.graph);
  bool over = false;
  std::string steps = ort ? StepsAgainstOrt(m, in, r.graph, &over) : "not run";
  return absl::StrFormat(
      "Q| %s | %d / %d -> %d / %d | %.6g | %.6g | %.2f%% | %d -> %d | %s | %d -> %d | %s | %s |\n",
      m.name, before.quantize, before.dequantize, after.quantize, after.dequantize, r.input_cost,
      r.output_cost, 100.0 * (1.0 - r.output_cost / r.input_cost), before.num_float_ops(),
      after.num_float_ops(), TopKinds(after.float_ops, 4), before.num_islands(),
      after.num_islands(), TopKinds(after.islands, 4), steps);
}

// One table row ("| ... |\n"), followed for a quantized network by its row
// of the quantized table ("Q| ... |\n"); or a note ("- name: ...\n") when
// the network cannot be imported or optimized.
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
  const Tolerance tol = Tolerances(m, *g);
  const SaturationSummary& sat = r->saturation;
  t0 = Clock::now();
  std::string v = verify ? Verify(m, *g, r->graph) : "not run";
  const double verify_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::string o = ort ? AgainstOrt(m, tol, *g) : "not run";
  std::string row = absl::StrFormat(
      "| %s | %d -> %d | %s | %.6g | %.6g | %.2f%% | %d | %d | %d | %s | %.0f | %.0f | %.0f | %.0f "
      "| "
      "%.0f | %s | %s |\n",
      m.name, r->input_nodes, r->graph.num_nodes(), OffHtp(*r), r->input_cost, r->output_cost,
      100.0 * (1.0 - r->output_cost / r->input_cost), sat.enodes, sat.eclasses, sat.iterations,
      StopReasonName(sat.stop_reason), import_ms, r->time.saturate_ms, r->time.extract_and_lower_ms,
      verify_ms, static_cast<double>(PeakRssBytes()) / (1 << 20), v, o);
  if (IsQuantizedNetwork(*g)) row += QuantizedRow(m, *g, *r, ort);
  return row;
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
  std::string quantized;  // rows of the quantized table
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
    if (!run.exited_ok || run.output.empty()) {
      notes += absl::StrFormat("- %s: the run crashed\n", m.name);
      ++failures;
      continue;
    }
    if (run.output[0] == '-') {
      notes += run.output;
      ++failures;
      continue;
    }
    for (absl::string_view line : absl::StrSplit(run.output, '\n', absl::SkipEmpty())) {
      if (absl::StartsWith(line, "Q|")) {
        quantized += absl::StrCat(line.substr(1), "\n");
        if (line.find("| OVER ONE STEP") != absl::string_view::npos ||
            line.find("| error:") != absl::string_view::npos) {
          ++failures;
        }
        continue;
      }
      md += absl::StrCat(line, "\n");
      if (verify && line.find("| ok (") == absl::string_view::npos) ++failures;
      if (line.find("DIFFERS") != absl::string_view::npos ||
          line.find("| error:") != absl::string_view::npos) {
        ++failures;
      }
    }
  }
  md += notes;
  if (!quantized.empty()) {
    md +=
        "\nQuantized networks\n\n"
        "| network | Quantize / Dequantize before -> after | HVX cost before | after | lower by | "
        "float ops before -> after | left in float | D->op->Q islands before -> after | islands "
        "left | max \\|egret - ONNX Runtime\\| per output, in output steps |\n"
        "|---|---|---:|---:|---:|---|---|---|---|---|\n" +
        quantized;
  }
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
