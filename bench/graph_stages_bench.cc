// The stages that read a whole graph once each, on the scaling study's
// synthetic networks (bench/synthetic_graphs.h, chains of 100 blocks as
// bench/scaling runs them) at 100k and 1M nodes: Graph::Validate, the seed
// (the graph into an e-graph, pipeline/seed_internal.h), the graph's price
// (cost::GraphCost, the pipeline's input_cost and output_cost), the memory
// plan (backend/memory_plan.h) and lowering (backend/lower.h). With one
// process per stage and size, a profile at 100k and one at 1M compare
// function by function. docs/memory-plan.md has the figures; lowering's are
// in docs/history/million-node-graphs.md (round 32).
//
//   graph_stages_bench [--benchmark_filter=...]
//
// Arguments: family (0 resnet, 1 transformer), target node count.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/shipped_rules.h"
#include "bench/synthetic_graphs.h"
#include "benchmark/benchmark.h"
#include "egret/backend/memory_plan.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/make_cost_model.h"
#include "egret/extract_egraph/egraph_problem.h"
#include "egret/graph/graph.h"
#include "egret/pipeline/seed_internal.h"
#include "egret/rules/rule_set.h"

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

// Times `stage` (a callable from the graph to absl::Status) on the graph the
// arguments name; a failed stage ends the benchmark with its error.
//
// The stages' results are kept in counters and read after the loop, not
// passed to benchmark::DoNotOptimize: with GCC 12.2 and benchmark 1.7.1, the
// non-const overload (asm "+m,r") on a variable reached through a lambda's
// reference capture made the store before it vanish (BM_Seed's counter read
// 0). Each stage is an out-of-line library call, which nothing can elide.
template <typename Stage>
void TimeStage(benchmark::State& state, Stage stage) {
  const Graph& g = GraphFor(state);
  for (auto _ : state) {
    absl::Status s = stage(g);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  SetCounters(state, g);
}

void BM_PlanMemory(benchmark::State& state) {
  int64_t arena = 0;
  TimeStage(state, [&arena](const Graph& g) -> absl::Status {
    absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
    if (!plan.ok()) return plan.status();
    arena = plan->arena_bytes;
    return absl::OkStatus();
  });
  state.counters["arena_bytes"] = static_cast<double>(arena);
}

void BM_Validate(benchmark::State& state) {
  TimeStage(state, [](const Graph& g) { return g.Validate(); });
}

void BM_Seed(benchmark::State& state) {
  size_t enodes = 0;
  TimeStage(state, [&enodes](const Graph& g) -> absl::Status {
    absl::StatusOr<Seeded> s = Seed(g);
    if (!s.ok()) return s.status();
    enodes = s->eg.num_nodes();
    return absl::OkStatus();
  });
  state.counters["enodes"] = static_cast<double>(enodes);
}

// Lowering (LowerSeeded: the choice to a graph, with names) of the seeded
// graph with every class's first node chosen: the input back, the lowering
// the pipeline's "lower" lap times after extraction. The seed is made once,
// outside the loop.
void BM_Lower(benchmark::State& state) {
  absl::StatusOr<Seeded> s = Seed(GraphFor(state));
  if (!s.ok()) {
    state.SkipWithError(s.status().ToString().c_str());
    return;
  }
  absl::flat_hash_map<Id, NodeIdx> choice;
  for (Id c : s->eg.Classes()) choice[c] = s->eg.ClassNodes(c)[0];
  size_t nodes = 0;
  TimeStage(state, [&](const Graph&) -> absl::Status {
    absl::StatusOr<Graph> g = LowerSeeded(*s, choice, nullptr, nullptr);
    if (!g.ok()) return g.status();
    nodes = g->num_nodes();
    return absl::OkStatus();
  });
  state.counters["lowered"] = static_cast<double>(nodes);
}

// The extraction problem of the seeded (unsaturated) e-graph, priced with
// the shipped rule library's cost model: the pipeline's "problem" lap, over
// the input's classes only. The seed is made once, outside the loop.
void BM_Problem(benchmark::State& state) {
  static const std::optional<rules::RuleSet> lib = LoadShippedRules("graph_stages_bench");
  if (!lib) {
    state.SkipWithError("the rule library does not load");
    return;
  }
  absl::StatusOr<Seeded> s = Seed(GraphFor(state));
  if (!s.ok()) {
    state.SkipWithError(s.status().ToString().c_str());
    return;
  }
  const cost::HvxCostModel model = cost::MakeCostModel(lib->ops, {}, GraphFor(state).options());
  size_t nodes = 0;
  TimeStage(state, [&](const Graph&) -> absl::Status {
    absl::StatusOr<extract::EGraphProblem> p = extract::BuildProblem(s->eg, model, s->Roots());
    if (!p.ok()) return p.status();
    nodes = p->problem.num_nodes();
    return absl::OkStatus();
  });
  state.counters["problem_nodes"] = static_cast<double>(nodes);
}

// Every node priced with the shipped rule library's cost model, as
// Optimize() prices its input (its report's `input_cost` lap).
void BM_GraphCost(benchmark::State& state) {
  static const std::optional<rules::RuleSet> lib = LoadShippedRules("graph_stages_bench");
  if (!lib) {
    state.SkipWithError("the rule library does not load");
    return;
  }
  const cost::HvxCostModel model = cost::MakeCostModel(lib->ops, {}, GraphFor(state).options());
  double total = 0;
  TimeStage(state, [&](const Graph& g) {
    total = cost::GraphCost(g, model, nullptr);
    return absl::OkStatus();
  });
  state.counters["cost"] = total;
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
BENCHMARK(BM_GraphCost)->Apply(Sizes);
BENCHMARK(BM_Lower)->Apply(Sizes);
BENCHMARK(BM_Problem)->Apply(Sizes);

}  // namespace
}  // namespace egret

BENCHMARK_MAIN();
