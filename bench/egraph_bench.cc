// E-graph engine benchmarks: add/lookup, union+rebuild, e-matching, and
// equality saturation of commutativity + associativity over a left-nested sum
// of N distinct leaves (egg's reference workload, see docs/performance.md).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "egret/egraph/builtin_rewrites.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/matcher.h"
#include "egret/egraph/pattern.h"
#include "egret/egraph/runner.h"
#include "egret/support/process_memory.h"

namespace egret {
namespace {

const TensorType& F32() {
  static const TensorType* t = new TensorType(DType::kFloat32, {4});
  return *t;
}

Id Add(EGraph& g, Symbol op, std::initializer_list<Id> ch, TypeId t, Payload p = 0) {
  return *g.Add(ENodeView{op, p, absl::Span<const Id>(ch.begin(), ch.size())}, t);
}

Id LeftNestedSum(EGraph& g, int n) {
  TypeId t = g.InternType(F32());
  Symbol add = Symbol::Intern("ElementWiseAdd");
  Id acc = Add(g, Symbol::Intern("x0"), {}, t);
  // The leaf names by absl::StrCat: GCC 12 at -O3 reports a -Wrestrict false
  // positive inside libstdc++ for `"x" + std::to_string(i)`.
  for (int i = 1; i < n; ++i)
    acc = Add(g, add, {acc, Add(g, Symbol::Intern(absl::StrCat("x", i)), {}, t)}, t);
  return acc;
}

// Saturates comm+assoc of ElementWiseAdd over a left-nested sum of N leaves.
// arg 0: N; arg 1: 0 = backoff scheduler (the default, as egg's), 1 = simple;
// arg 2: 1 = derivations recorded (the default, for provenance), 0 = not.
void BM_CommAssocSaturation(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  OpTable ops;
  OpTraits t;
  t.arity = 2;
  t.commutative = t.associative = true;
  ops.Set("ElementWiseAdd", t);
  std::vector<Rewrite> rules = BuiltinRewrites(ops);
  RunnerOptions o;
  o.limits.iterations = 1000;
  o.limits.nodes = 100'000'000;
  o.limits.seconds = 600;
  o.scheduler = state.range(1) == 0 ? SchedulerKind::kBackoff : SchedulerKind::kSimple;
  // This workload saturates under either policy; applying what a banned
  // semi-naive rule found takes fewer iterations (scheduler.h). The
  // side-by-side figures in docs/performance.md are measured with it.
  o.backoff.apply_found_when_banned = true;
  size_t nodes = 0, classes = 0, bytes = 0, iterations = 0;
  for (auto _ : state) {
    EGraph g(ops);
    g.set_record_derivations(state.range(2) != 0);
    LeftNestedSum(g, n);
    RunReport r = Runner(g, o).Run(rules);
    if (r.stop_reason != StopReason::kSaturated) state.SkipWithError("did not saturate");
    // EGRET_BENCH_REPORT=1: the runner's report (per iteration) on stderr.
    if (std::getenv("EGRET_BENCH_REPORT") != nullptr) {
      std::fprintf(stderr, "%s stored_nodes=%zu\n", r.ToString().c_str(), g.num_stored_nodes());
      for (const IterationReport& it : r.iterations) {
        std::fprintf(stderr, "  iter %zu memory=%zu\n", it.iteration, it.memory_bytes);
      }
    }
    nodes = g.num_nodes();
    classes = g.num_classes();
    bytes = r.peak_memory_bytes;
    iterations = r.iterations.size();
  }
  state.counters["enodes"] = static_cast<double>(nodes);
  state.counters["eclasses"] = static_cast<double>(classes);
  state.counters["iterations"] = static_cast<double>(iterations);
  state.counters["enodes_per_s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes_per_enode"] = static_cast<double>(bytes) / static_cast<double>(nodes);
  state.counters["egraph_MiB"] = static_cast<double>(bytes) / (1 << 20);
  state.counters["peak_rss_MiB"] = static_cast<double>(egret::PeakResidentBytes()) / (1 << 20);
}
BENCHMARK(BM_CommAssocSaturation)
    ->ArgsProduct({{6, 7, 8, 9, 10, 11}, {0, 1}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

// Adds 100k random binary nodes over 1k leaves, then looks each one up.
void BM_AddLookup(benchmark::State& state) {
  const int kLeaves = 1000, kNodes = static_cast<int>(state.range(0));
  std::mt19937 rng(1);
  Symbol f = Symbol::Intern("f");
  std::vector<std::pair<Id, Id>> pairs;
  for (auto _ : state) {
    EGraph g;
    TypeId t = g.InternType(F32());
    std::vector<Id> ids;
    for (int i = 0; i < kLeaves; ++i) ids.push_back(Add(g, f, {}, t, i + 1));
    pairs.clear();
    for (int i = 0; i < kNodes; ++i) {
      Id a = ids[rng() % ids.size()], b = ids[rng() % ids.size()];
      pairs.push_back({a, b});
      ids.push_back(Add(g, f, {a, b}, t));
    }
    size_t found = 0;
    for (auto [a, b] : pairs) {
      Id ch[2] = {a, b};
      found += g.Lookup(ENodeView{f, 0, ch}).has_value();
    }
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * kNodes * 2);
}
BENCHMARK(BM_AddLookup)->Arg(100'000)->Unit(benchmark::kMillisecond);

// A chain of unary nodes over 2 * k leaves; merges leaf i with leaf k + i and
// rebuilds, so congruence propagates up every chain.
void BM_UnionRebuild(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0)), depth = 10;
  Symbol f = Symbol::Intern("f"), leaf = Symbol::Intern("leaf");
  size_t unions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    EGraph g;
    TypeId t = g.InternType(F32());
    std::vector<Id> leaves;
    for (int i = 0; i < 2 * k; ++i) {
      Id x = Add(g, leaf, {}, t, i + 1);
      leaves.push_back(x);
      for (int d = 0; d < depth; ++d) x = Add(g, f, {x}, t);
    }
    state.ResumeTiming();
    for (int i = 0; i < k; ++i) (void)g.Union(leaves[i], leaves[k + i]);
    unions = k + g.Rebuild();
  }
  state.SetItemsProcessed(state.iterations() * unions);
}
BENCHMARK(BM_UnionRebuild)->Arg(10'000)->Unit(benchmark::kMillisecond);

// Counts matches of the associativity pattern on the saturated N = 9 e-graph.
void BM_EMatchAssoc(benchmark::State& state) {
  OpTable ops = OpTable::Default();
  EGraph g(ops);
  LeftNestedSum(g, static_cast<int>(state.range(0)));
  RunnerOptions o;
  o.limits.nodes = 100'000'000;
  o.limits.iterations = 1000;
  o.limits.seconds = 600;
  Runner(g, o).Run(BuiltinRewrites(ops));
  absl::StatusOr<Pattern> p = ParsePattern("(ElementWiseAdd ?a (ElementWiseAdd ?b ?c))");
  absl::StatusOr<CompiledPattern> c = CompilePattern(*p);
  Matcher m(*c);
  size_t matches = 0;
  for (auto _ : state) {
    // Not benchmark::DoNotOptimize(matches): its non-const form can drop the
    // store before it under GCC 12 (bench/graph_stages_bench.cc); the count
    // is read below, and CountAll is an out-of-line call.
    matches = m.CountAll(g);
  }
  state.counters["matches"] = static_cast<double>(matches);
  state.SetItemsProcessed(state.iterations() * matches);
}
BENCHMARK(BM_EMatchAssoc)->Arg(9)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace egret

BENCHMARK_MAIN();
