// The reference executor (backend/executor.h) on real networks: one benchmark
// per network, each running the imported graph on the same seeded random
// inputs `egret run --random 0` uses (backend/test_data.h), timed per run in
// wall time (real time: the executor may use several threads).
//
// Networks: ../shared/models/onnx-light/*.onnx, and PP-OCR det/rec/cls and
// BlazeFace (as bench/executor_vs_ort.js) from the model cache (scripts/fetch-models;
// tests/onnx/ort_oracle.h: ModelCache), at the input sizes docs/results.md uses. A network whose
// file is missing is skipped with a message on stderr. Reading and importing the model and making
// the inputs are not timed.
//
// Each network runs with 1 thread and with every core (`threads:N` in the
// name; ExecuteOptions::threads). The first run of a process creates the
// oneDNN primitives (JIT compilation); later ones find them in oneDNN's
// primitive cache, so these are warm figures (`egret run --repeat`).
//
// Counters: nodes (nodes computed per run), peak_live_MiB (the executor's
// ExecuteStats::peak_live_bytes) and peak_rss_MiB (the process's peak RSS
// after the network's runs; a high-water mark over the networks run so far,
// so run one network with --benchmark_filter for its own). items_per_second
// is nodes computed per second.
//
//   build/bench/executor [--benchmark_filter=resnet50] [--benchmark_repetitions=3]
#include "egret/executor/executor.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/time_execute.h"
#include "benchmark/benchmark.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/support/process_memory.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

struct Network {
  std::string name;
  std::string path;
  OnnxImportOptions import;
};

std::vector<Network> Networks() {
  std::vector<Network> out;
  std::vector<std::string> light;
  std::error_code ec;
  for (const auto& e :
       fs::directory_iterator(std::string(EGRET_SHARED_DIR) + "/models/onnx-light", ec)) {
    if (e.path().extension() == ".onnx") light.push_back(e.path().string());
  }
  if (ec) {
    std::fprintf(stderr,
                 "bench/executor: skipping the onnx-light networks: %s/models/onnx-light: %s\n",
                 EGRET_SHARED_DIR, ec.message().c_str());
  }
  std::sort(light.begin(), light.end());
  for (const std::string& p : light) out.push_back({fs::path(p).stem().string(), p, {}});
  // PP-OCR inputs are [N, 3, H, W] with symbolic dims: the sizes PaddleOCR
  // uses (as in bench/model_results.cc).
  struct Ocr {
    const char* file;
    int64_t h, w;
  };
  for (Ocr o :
       {Ocr{"ch_ppocr_mobile_v2.0_cls_infer.onnx", 48, 192},
        Ocr{"ch_PP-OCRv4_rec_infer.onnx", 48, 320}, Ocr{"ch_PP-OCRv4_det_infer.onnx", 320, 320}}) {
    Network n{fs::path(o.file).stem().string(), testing::ModelCache() + "/ppocr/" + o.file, {}};
    n.import.dim_params = {{"p2o.DynamicDimension.0", 1},
                           {"p2o.DynamicDimension.1", o.h},
                           {"p2o.DynamicDimension.2", o.w}};
    out.push_back(std::move(n));
  }
  for (const char* f :
       {"face_detection_front_128x128_barracuda", "face_detection_back_256x256_barracuda"}) {
    out.push_back({f, testing::ModelCache() + "/blazeface/" + f + ".onnx", {}});
  }
  return out;
}

void BM_Execute(benchmark::State& state, const Network& net) {
  absl::StatusOr<Graph> g = ReadOnnx(net.path, net.import);
  if (!g.ok()) {
    state.SkipWithError(std::string(g.status().message()).c_str());
    return;
  }
  ExecuteStats stats;
  if (!TimeExecute(state, *g, {.stats = &stats, .threads = static_cast<int>(state.range(0))})) {
    return;
  }
  state.SetItemsProcessed(state.iterations() * stats.nodes_run);
  state.counters["nodes"] = static_cast<double>(stats.nodes_run);
  state.counters["peak_live_MiB"] = static_cast<double>(stats.peak_live_bytes) / (1 << 20);
  state.counters["peak_rss_MiB"] = static_cast<double>(egret::PeakResidentBytes()) / (1 << 20);
}

}  // namespace
}  // namespace egret

int main(int argc, char** argv) {
  egret::KeepFreedMemoryForReuse();  // as the egret command does
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const egret::Network& n : egret::Networks()) {
    if (!std::filesystem::exists(n.path)) {
      std::fprintf(stderr,
                   "bench/executor: skipping %s: %s is missing (run scripts/fetch-models)\n",
                   n.name.c_str(), n.path.c_str());
      continue;
    }
    benchmark::RegisterBenchmark(("BM_Execute/" + n.name).c_str(), egret::BM_Execute, n)
        ->ArgName("threads")
        ->Arg(1)
        ->Arg(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
