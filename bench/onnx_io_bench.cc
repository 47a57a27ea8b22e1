// Writing and reading ONNX files with large weights (docs/performance.md,
// "ONNX files"): a chain of `layers` FullyConnected layers of width `width`
// on a [1, 8, width] float32 sequence, the shape of an LLM's projections.
// egret holds a FullyConnected weight as [units, k], ONNX's MatMul reads it
// as [k, units]: the writer writes each weight transposed back, the case in
// which it once converted every weight twice (docs/results.md, the Llama
// decoder). Reported: the weights' bytes per second.
//
//   build/bench/onnx_io_bench
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "egret/api/graph_builder.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"

namespace egret {
namespace {

// The chain; each weight's floats are small and seeded by its layer.
Graph Projections(int layers, int64_t width) {
  api::GraphBuilder b("projections");
  ValueRef x = b.Input("x", TensorType(DType::kFloat32, Dims{1, 8, width}));
  for (int l = 0; l < layers; ++l) {
    Tensor w(TensorType(DType::kFloat32, Dims{width, width}));
    auto bytes = w.mutable_bytes();
    for (size_t i = 0; i < bytes.size() / sizeof(float); ++i) {
      const float v = static_cast<float>((i * 2654435761u + static_cast<size_t>(l)) % 1000) * 1e-6f;
      std::memcpy(bytes.data() + i * sizeof(float), &v, sizeof(float));
    }
    ValueRef c = b.Constant(absl::StrCat("w", l), std::move(w));
    x = b.Op("FullyConnected", {x, c});
  }
  b.Output(x, "y");
  absl::StatusOr<Graph> g = std::move(b).Build();
  if (!g.ok()) std::abort();
  return *std::move(g);
}

void BM_WriteOnnx(benchmark::State& state) {
  const int layers = static_cast<int>(state.range(0));
  const int64_t width = state.range(1);
  const Graph g = Projections(layers, width);
  for (auto _ : state) {
    absl::StatusOr<OnnxFiles> files = WriteOnnxFiles(g, "projections.onnx");
    if (!files.ok()) {
      state.SkipWithError(std::string(files.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(files->model.data());
  }
  state.SetBytesProcessed(state.iterations() * layers * width * width * 4);
}
BENCHMARK(BM_WriteOnnx)->Args({8, 1024})->Args({8, 2048})->Unit(benchmark::kMillisecond);

void BM_ReadOnnx(benchmark::State& state) {
  const int layers = static_cast<int>(state.range(0));
  const int64_t width = state.range(1);
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(Projections(layers, width), "p.onnx");
  if (!bytes.ok()) {
    state.SkipWithError(std::string(bytes.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<Graph> g = ParseOnnx(*bytes, "projections.onnx");
    if (!g.ok()) {
      state.SkipWithError(std::string(g.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(g->num_nodes());
  }
  state.SetBytesProcessed(state.iterations() * layers * width * width * 4);
}
BENCHMARK(BM_ReadOnnx)->Args({8, 1024})->Args({8, 2048})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace egret

BENCHMARK_MAIN();
