#include "tests/onnx/ort_oracle.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/types/span.h"
#include "egret/executor/executor.h"
#include "egret/executor/npy.h"
#include "egret/executor/test_data.h"
#include "egret/support/file_io.h"

namespace egret::testing {

namespace fs = std::filesystem;

namespace {

std::string OrtModule() { return ModelCache() + "/ort/node_modules/onnxruntime-node"; }

// Single-quoted for the shell (the paths are ours, but may hold spaces).
std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string ModelCache() {
  if (const char* c = std::getenv("EGRET_MODEL_CACHE"); c != nullptr && *c != '\0') return c;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.cache/egret/models";
}

std::string OrtUnavailableReason() {
  if (std::system("node --version >/dev/null 2>&1") != 0) {
    return "node is not installed, so ONNX Runtime cannot run";
  }
  if (!fs::exists(OrtModule() + "/package.json")) {
    return absl::StrCat(OrtModule(),
                        " is missing: run scripts/fetch-models (needs the npm registry)");
  }
  return "";
}

absl::StatusOr<OrtOutputs> RunOnOrt(const std::string& model,
                                    const std::vector<std::pair<std::string, Tensor>>& feeds,
                                    const std::vector<TensorType>& types,
                                    const OrtRunOptions& options) {
  std::error_code ec;
  const fs::path dir =
      fs::temp_directory_path(ec) /
      absl::StrFormat("egret_ort_%d_%s", getpid(), fs::path(model).stem().string());
  fs::remove_all(dir, ec);
  fs::create_directories(dir / "out", ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir.string()));
  std::string cmd =
      absl::StrCat("node ", Quoted(EGRET_SOURCE_DIR "/tests/onnx/ort_run.js"), " ",
                   Quoted(OrtModule()), " ", Quoted(model), " ", Quoted((dir / "out").string()),
                   " ", options.threads, " ", options.optimize ? "all" : "disabled");
  for (size_t i = 0; i < feeds.size(); ++i) {
    const fs::path file = dir / absl::StrCat("in", i, ".npy");
    if (absl::Status s = WriteFileAtomically(file.string(), EncodeNpy(feeds[i].second)); !s.ok()) {
      return s;
    }
    absl::StrAppend(&cmd, " ", Quoted(absl::StrCat(feeds[i].first, "=", file.string())));
  }
  absl::StrAppend(&cmd, " >", Quoted((dir / "ms.txt").string()), " 2>",
                  Quoted((dir / "err.txt").string()));
  if (std::system(cmd.c_str()) != 0) {
    std::string err = ReadFile((dir / "err.txt").string()).value_or("(no message)");
    fs::remove_all(dir, ec);
    return absl::InternalError(absl::StrCat("ONNX Runtime failed: ", absl::StripSuffix(err, "\n")));
  }
  OrtOutputs out;
  absl::StatusOr<std::string> names = ReadFile((dir / "out" / "outputs.txt").string());
  if (!names.ok()) return names.status();
  out.names = absl::StrSplit(*names, '\n', absl::SkipEmpty());
  if (out.names.size() != types.size()) {
    fs::remove_all(dir, ec);
    return absl::InvalidArgumentError(absl::StrFormat(
        "ONNX Runtime gives %d outputs, egret's graph has %d", out.names.size(), types.size()));
  }
  for (size_t k = 0; k < types.size(); ++k) {
    absl::StatusOr<Tensor> t = ReadNpy((dir / "out" / absl::StrCat(k, ".npy")).string(), types[k]);
    if (!t.ok()) {
      fs::remove_all(dir, ec);
      return absl::InvalidArgumentError(
          absl::StrFormat("output %s: %s", out.names[k], t.status().message()));
    }
    out.tensors.push_back(*std::move(t));
  }
  std::string ms = ReadFile((dir / "ms.txt").string()).value_or("");
  if (!absl::SimpleAtod(absl::StripSuffix(ms, "\n"), &out.run_ms)) out.run_ms = -1;
  fs::remove_all(dir, ec);
  return out;
}

absl::StatusOr<OracleComparison> CompareWithOrt(
    const std::string& model, const Graph& g, const std::vector<Tensor>& inputs,
    const std::vector<std::pair<std::string, Tensor>>& frozen, double rtol, double atol,
    const OrtRunOptions& options) {
  std::vector<std::pair<std::string, Tensor>> feeds = frozen;
  for (size_t i = 0; i < inputs.size(); ++i)
    feeds.emplace_back(g.node(g.inputs()[i]).name, inputs[i]);
  std::vector<TensorType> types;
  for (const GraphOutput& o : g.outputs()) types.push_back(g.TypeOf(o.value));
  absl::StatusOr<OrtOutputs> ort = RunOnOrt(model, feeds, types, options);
  if (!ort.ok()) return ort.status();

  OracleComparison c;
  c.outputs = g.outputs().size();
  c.ort_ms = ort->run_ms;
  std::vector<std::string> unavailable;
  ExecuteOptions run;
  run.unavailable = &unavailable;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Tensor>> ours = Execute(g, inputs, run);
  c.egret_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!ours.ok()) return ours.status();
  for (size_t k = 0; k < c.outputs; ++k) {
    const std::string& name = g.outputs()[k].name;
    if (name != ort->names[k]) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "output %d is '%s' in egret's graph, '%s' in ONNX Runtime's", k, name, ort->names[k]));
    }
    if (!unavailable[k].empty()) {
      c.not_verified.push_back(absl::StrFormat("output %s (%s)", name, unavailable[k]));
      continue;
    }
    absl::StatusOr<std::vector<OutputDiff>> diff = CompareOutputs(
        absl::MakeConstSpan(&(*ours)[k], 1), absl::MakeConstSpan(&ort->tensors[k], 1), rtol, atol);
    if (!diff.ok()) return diff.status();
    const OutputDiff& d = (*diff)[0];
    c.max_abs = std::max(c.max_abs, d.max_abs);
    ++c.verified;
    if (!d.within_tolerance()) {
      c.mismatches.push_back(absl::StrFormat(
          "output %s: %d of %d elements differ (max abs error %g, max rel error %g)", name,
          d.mismatches, ort->tensors[k].num_elements(), d.max_abs, d.max_rel));
    }
  }
  return c;
}

}  // namespace egret::testing
