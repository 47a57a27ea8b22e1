// The reference executor's streaming kernels one at a time: each benchmark
// runs a one-node graph (plus the Dequantize/Quantize around the quantized
// convolution) on seeded random inputs, at the shapes real networks give
// them (ShuffleNet's channel shuffle and BatchNorm, MobileNet's quantized
// 1x1 convolution), so that a change to one loop is measured without the
// noise of a whole network. items_per_second is output elements per second.
//
//   build/bench/kernels [--benchmark_filter=Transpose] [--benchmark_repetitions=5]
//
// Each runs with 1 thread and with every core (`threads:N` in the name).
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/time_execute.h"
#include "benchmark/benchmark.h"
#include "egret/api/graph_builder.h"
#include "egret/executor/executor.h"

namespace egret {
namespace {

TensorType F32(Dims d) { return TensorType(DType::kFloat32, std::move(d)); }

// The dtype and encoding an Op's output is declared with (its dims are
// inferred).
std::optional<TensorType> Declared(DType dtype, int32_t zero = 0, float step = 1.0f) {
  std::optional<TensorType> t;
  t.emplace(dtype, Dims{1}, zero, step);
  return t;
}

Tensor Constant(TensorType type, double first, double step) {
  std::vector<double> v(static_cast<size_t>(type.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = first + step * static_cast<double>(i % 251);
  return Tensor::FromValues(std::move(type), v);
}

// Runs the graph `build` makes, timing Execute, with state.range(0) threads.
template <typename Build>
void RunGraph(benchmark::State& state, Build build) {
  api::GraphBuilder b;
  build(b);
  absl::StatusOr<Graph> g = std::move(b).Build();
  if (!g.ok()) {
    state.SkipWithError(std::string(g.status().message()).c_str());
    return;
  }
  ExecuteCache cache;
  ExecuteOptions options;
  options.threads = static_cast<int>(state.range(0));
  options.cache = &cache;
  if (!TimeExecute(state, *g, options)) return;
  int64_t elements = 0;
  for (const GraphOutput& out : g->outputs()) elements += g->TypeOf(out.value).num_elements();
  state.SetItemsProcessed(state.iterations() * elements);
}

// ShuffleNet's NHWC -> NCHW around its channel shuffle (and back).
void BM_TransposeNhwcToNchw(benchmark::State& state) {
  RunGraph(state, [](api::GraphBuilder& b) {
    ValueRef x = b.Input("x", F32({1, 56, 56, 112}));
    b.Output(b.Op("Transpose", {x, b.Shape({0, 3, 1, 2})}));
  });
}

void BM_TransposeNchwToNhwc(benchmark::State& state) {
  RunGraph(state, [](api::GraphBuilder& b) {
    ValueRef x = b.Input("x", F32({1, 112, 56, 56}));
    b.Output(b.Op("Transpose", {x, b.Shape({0, 2, 3, 1})}));
  });
}

// The shuffle itself: [1, 4, 28, 56, 56] -> [1, 28, 4, 56, 56], rows of
// 56 * 56 floats.
void BM_TransposeChannelShuffle(benchmark::State& state) {
  RunGraph(state, [](api::GraphBuilder& b) {
    ValueRef x = b.Input("x", F32({1, 4, 28, 56, 56}));
    b.Output(b.Op("Transpose", {x, b.Shape({0, 2, 1, 3, 4})}));
  });
}

void BM_Batchnorm(benchmark::State& state) {
  RunGraph(state, [](api::GraphBuilder& b) {
    ValueRef x = b.Input("x", F32({1, 56, 56, 112}));
    ValueRef scale = b.Constant("scale", Constant(F32({112}), 0.5, 0.01));
    ValueRef offset = b.Constant("offset", Constant(F32({112}), -0.2, 0.003));
    b.Output(b.Op("Batchnorm", {x, scale, offset}));
  });
}

void BM_Relu(benchmark::State& state) {
  RunGraph(state, [](api::GraphBuilder& b) {
    b.Output(b.Op("Relu", {b.Input("x", F32({1, 56, 56, 112}))}));
  });
}

void BM_QuantizeToUInt8(benchmark::State& state) {
  RunGraph(state, [](api::GraphBuilder& b) {
    ValueRef x = b.Input("x", F32({1, 64, 64, 32}));
    b.Output(b.Op("Quantize", {x}, Declared(DType::kQUInt8, 128, 0.0123f)));
  });
}

void BM_DequantizeFromUInt8(benchmark::State& state) {
  RunGraph(state, [](api::GraphBuilder& b) {
    ValueRef x = b.Input("x", TensorType(DType::kQUInt8, {1, 64, 64, 32}, 128, 0.0123f));
    b.Output(b.Op("Dequantize", {x}, Declared(DType::kFloat32)));
  });
}

// MobileNet's pointwise convolution in QDQ form: an 8-bit activation read
// through its Dequantize, per-channel 8-bit weights, the Float32 sum stored
// through the Quantize (executor.h: exact int8 convolutions).
void BM_QuantizedPointwiseConv(benchmark::State& state) {
  RunGraph(state, [](api::GraphBuilder& b) {
    ValueRef x = b.Input("x", TensorType(DType::kQUInt8, {1, 32, 32, 64}, 128, 0.02f));
    TensorType wt(DType::kQInt8, {1, 1, 64, 128});
    std::vector<float> steps(128);
    std::vector<int32_t> zeros(128, 0);
    for (size_t k = 0; k < steps.size(); ++k) steps[k] = 0.001f * static_cast<float>(k % 7 + 1);
    if (!wt.SetPerAxis(3, steps, zeros).ok()) return;
    ValueRef w = b.Constant("w", Constant(wt, -100, 1));
    ValueRef bias = b.Constant("bias", Constant(F32({128}), -0.5, 0.004));
    ValueRef dx = b.Op("Dequantize", {x}, Declared(DType::kFloat32));
    ValueRef dw = b.Op("Dequantize", {w}, Declared(DType::kFloat32));
    ValueRef conv = b.Op("Conv2d", {dx, dw, bias, b.Shape({1, 1, 1, 1}), b.Shape({0, 0, 0, 0})});
    b.Output(b.Op("Quantize", {conv}, Declared(DType::kQUInt8, 100, 0.05f)));
  });
}

void Threads(benchmark::internal::Benchmark* b) {
  b->Arg(1);
  const int all = static_cast<int>(std::thread::hardware_concurrency());
  if (all > 1) b->Arg(all);
  b->ArgName("threads")->UseRealTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_TransposeNhwcToNchw)->Apply(Threads);
BENCHMARK(BM_TransposeNchwToNhwc)->Apply(Threads);
BENCHMARK(BM_TransposeChannelShuffle)->Apply(Threads);
BENCHMARK(BM_Batchnorm)->Apply(Threads);
BENCHMARK(BM_Relu)->Apply(Threads);
BENCHMARK(BM_QuantizeToUInt8)->Apply(Threads);
BENCHMARK(BM_DequantizeFromUInt8)->Apply(Threads);
BENCHMARK(BM_QuantizedPointwiseConv)->Apply(Threads);

}  // namespace
}  // namespace egret

int main(int argc, char** argv) {
  egret::KeepFreedMemoryForReuse();  // as the egret command does
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
