// Checking an optimization's result against the graph it was made from, as
// `egret optimize --verify` and Python's egret.optimize(verify=True) do: both
// graphs run by the reference executor on the same seeded random inputs
// (executor/test_data.h, executor/verify.h).
#ifndef EGRET_PIPELINE_VERIFY_OPTIMIZED_H_
#define EGRET_PIPELINE_VERIFY_OPTIMIZED_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "egret/executor/verify.h"
#include "egret/graph/graph.h"
#include "egret/pipeline/optimize_result.h"

namespace egret {

// Compares `result->graph` with `input` (named `input_name` in messages) on
// inputs drawn from `seed`. Sets result->time.verify_ms, and on success
// result->verify (verdict, outputs, peak live bytes, peak RSS). An error
// (inputs that cannot be made, a graph that cannot run) is returned as is.
absl::StatusOr<VerifyReport> VerifyOptimized(const Graph& input, const std::string& input_name,
                                             OptimizeResult* result, uint64_t seed,
                                             const VerifyOptions& options);

}  // namespace egret

#endif  // EGRET_PIPELINE_VERIFY_OPTIMIZED_H_
