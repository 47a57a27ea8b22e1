// The memory plan (backend/memory_plan.h) on the scaling study's synthetic
// networks (bench/synthetic_graphs.h, chains of 100 blocks as bench/scaling
// runs them), at 100k and 1M nodes: the whole plan, and the graph's own
// validation that the plan starts with. docs/memory-plan.md has the figures.
//
//   memory_plan_bench [--benchmark_filter=...]
//
// Arguments: family (0 resnet, 1 transformer), target node count.
#include <cstdint>

#include "absl/status/statusor.h"
#include "bench/synthetic_graphs.h"
#include "benchmark/benchmark.h"
#include "egret/backend/memory_plan.h"
#include "egret/graph/graph.h"

namespace egret {
namespace {

const Graph& GraphFor(const benchmark::State& state) {
  const auto family =
      state.range(0) == 0 ? SyntheticFamily::kResNet : SyntheticFamily::kTransformer;
  const int64_t nodes = state.range(1);
  // One graph per argument pair, built once (generating a 1M-node graph takes
  // about a second and is not what is measured).
  static auto* cache = new std::vector<std::pair<std::pair<int64_t, int64_t>, Graph>>();
  for (const auto& [key, g] : *cache) {
    if (key == std::pair(state.range(0), nodes)) return g;
  }
  SyntheticOptions o;
  o.blocks = BlocksForNodes(family, nodes);
  o.chain_blocks = 100;
  absl::StatusOr<Graph> g = MakeSyntheticGraph(family, o);
  if (!g.ok()) std::abort();
  cache->emplace_back(std::pair(state.range(0), nodes), *std::move(g));
  return cache->back().second;
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

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t family : {0, 1}) {
    for (int64_t nodes : {100'000, 1'000'000}) b->Args({family, nodes});
  }
  b->ArgNames({"family", "nodes"})->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
}

BENCHMARK(BM_PlanMemory)->Apply(Sizes);
BENCHMARK(BM_Validate)->Apply(Sizes);

}  // namespace
}  // namespace egret

BENCHMARK_MAIN();
