// The timed loop the executor benchmarks share: Execute of a graph on the
// seeded random inputs `egret run --random 0` uses (backend/test_data.h).
#ifndef EGRET_BENCH_TIME_EXECUTE_H_
#define EGRET_BENCH_TIME_EXECUTE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "egret/executor/executor.h"
#include "egret/executor/test_data.h"
#include "egret/graph/graph.h"

namespace egret {

// Runs Execute(g, inputs, options) once per benchmark iteration (making the
// inputs is not timed). A failure to make the inputs or to run skips the
// benchmark with its message; returns whether every run succeeded.
inline bool TimeExecute(benchmark::State& state, const Graph& g, const ExecuteOptions& options) {
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 0);
  if (!inputs.ok()) {
    state.SkipWithError(std::string(inputs.status().message()).c_str());
    return false;
  }
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> out = Execute(g, *inputs, options);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return false;
    }
    benchmark::DoNotOptimize(out->data());
  }
  return true;
}

}  // namespace egret

#endif  // EGRET_BENCH_TIME_EXECUTE_H_
