// The stages that read a whole graph once each, on the scaling study's
// synthetic networks (bench/synthetic_graphs.h, chains of 100 blocks as
// bench/scaling runs them) at 100k and 1M nodes: Graph::Validate, the seed
// (the graph into an e-graph, pipeline/seed_internal.h) and the memory plan
// (backend/memory_plan.h). With one process per stage and size, a profile at
// 100k and one at 1M compare function by function. docs/memory-plan.md has
// the figures.
//
//   graph_stages_bench [--benchmark_filter=...]
//
// Arguments: family (0 resnet, 1 transformer), target node count.
#include <cstdint>

#include "absl/status/statusor.h"
#include "bench/synthetic_graphs.h"
#include "benchmark/benchmark.h"
#include "egret/backend/memory_plan.h"
#include "egret/graph/graph.h"
#include "egret/pipeline/seed_internal.h"

namespace egret {
namespace {

const Graph& GraphFor(const benchmark::State& state) {
  return CachedSyntheticGraph(
      state.range(0) == 0 ? SyntheticFamily::kResNet : SyntheticFamily::kTransformer,
      state.range(1), /*chain_blocks=*/100);
}

void SetCounters(benchmark::State& state, const Graph& g) {
  state.counters["nodes"] = static_cast<double>(g.num_nodes());
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(g.num_nodes()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_PlanMemory(benchmark::State& state) {
  const Graph& g = GraphFor(state);
  int64_t arena = 0;
  for (auto _ : state) {
    absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
    if (!plan.ok()) {
      state.SkipWithError(plan.status().ToString().c_str());
      return;
    }
    arena = plan->arena_bytes;
    benchmark::DoNotOptimize(arena);
  }
  SetCounters(state, g);
  state.counters["arena_bytes"] = static_cast<double>(arena);
}

void BM_Validate(benchmark::State& state) {
  const Graph& g = GraphFor(state);
  for (auto _ : state) {
    absl::Status s = g.Validate();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  SetCounters(state, g);
}

void BM_Seed(benchmark::State& state) {
  const Graph& g = GraphFor(state);
  size_t enodes = 0;
  for (auto _ : state) {
    absl::StatusOr<Seeded> s = Seed(g);
    if (!s.ok()) {
      state.SkipWithError(s.status().ToString().c_str());
      return;
    }
    enodes = s->eg.num_nodes();
    benchmark::DoNotOptimize(enodes);
  }
  SetCounters(state, g);
  state.counters["enodes"] = static_cast<double>(enodes);
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t family : {0, 1}) {
    for (int64_t nodes : {100'000, 1'000'000}) b->Args({family, nodes});
  }
  b->ArgNames({"family", "nodes"})->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
}

BENCHMARK(BM_PlanMemory)->Apply(Sizes);
BENCHMARK(BM_Validate)->Apply(Sizes);
BENCHMARK(BM_Seed)->Apply(Sizes);

}  // namespace
}  // namespace egret

BENCHMARK_MAIN();
