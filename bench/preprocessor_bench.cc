// The rule-file preprocessor on a hostile input: a function-like macro with
// N parameters (docs/reliability.md: with N = 200,000 the duplicate-parameter
// check was quadratic and took 40 to 80 s). Three workloads, each reported
// with its fitted complexity (BigO): the #define alone, a #define whose body
// names every parameter, and that #define invoked with N arguments.
//
//   build/bench/preprocessor_bench --benchmark_filter=Define
#include <string>

#include "benchmark/benchmark.h"
#include "egret/rules_pp/preprocessor.h"

namespace egret::rules {
namespace {

// "#define M(p0,p1,...,pN-1) BODY\n" where BODY is p0, or every parameter in
// order when `body_uses_all`; with `invoke`, followed by "M(1,1,...,1)".
std::string HostileMacro(int n, bool body_uses_all, bool invoke) {
  std::string s = "#define M(";
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += ',';
    s += 'p';
    s += std::to_string(i);
  }
  s += ") ";
  for (int i = 0; i < (body_uses_all ? n : 1); ++i) {
    s += " p";
    s += std::to_string(i);
  }
  s += '\n';
  if (invoke) {
    s += "M(";
    for (int i = 0; i < n; ++i) s += i > 0 ? ",1" : "1";
    s += ")\n";
  }
  return s;
}

void Run(benchmark::State& state, bool body_uses_all, bool invoke) {
  const int n = static_cast<int>(state.range(0));
  const std::string text = HostileMacro(n, body_uses_all, invoke);
  PreprocessOptions options;
  options.use_prelude = false;
  for (auto _ : state) {
    DiagnosticList diags;
    absl::StatusOr<PreprocessedFile> f = PreprocessText(text, "hostile.rules", options, &diags);
    if (!f.ok() || diags.error_count() != 0) {
      state.SkipWithError("the hostile file did not preprocess cleanly");
      return;
    }
    benchmark::DoNotOptimize(f->tokens.size());
  }
  state.SetComplexityN(n);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}

void BM_DefineManyParams(benchmark::State& state) { Run(state, false, false); }
void BM_DefineBodyNamesEveryParam(benchmark::State& state) { Run(state, true, false); }
void BM_InvokeWithEveryArg(benchmark::State& state) { Run(state, true, true); }

BENCHMARK(BM_DefineManyParams)
    ->RangeMultiplier(4)
    ->Range(3125, 200000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();
BENCHMARK(BM_DefineBodyNamesEveryParam)
    ->RangeMultiplier(4)
    ->Range(3125, 200000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();
BENCHMARK(BM_InvokeWithEveryArg)
    ->RangeMultiplier(4)
    ->Range(3125, 200000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace
}  // namespace egret::rules

BENCHMARK_MAIN();
