#include "egret/pipeline/verify_optimized.h"

#include <chrono>
#include <vector>

#include "egret/executor/test_data.h"
#include "egret/pipeline/optimize.h"

namespace egret {

absl::StatusOr<VerifyReport> VerifyOptimized(const Graph& input, const std::string& input_name,
                                             OptimizeResult* result, uint64_t seed,
                                             const VerifyOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(input, seed);
  absl::StatusOr<VerifyReport> v = inputs.ok() ? VerifyGraphs(input, input_name, result->graph,
                                                              "optimized graph", *inputs, options)
                                               : absl::StatusOr<VerifyReport>(inputs.status());
  result->time.verify_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (v.ok()) {
    result->verify = VerifySummary{v->verdict(), v->outputs, v->reference_peak_live_bytes,
                                   v->candidate_peak_live_bytes, PeakRssBytes()};
  }
  return v;
}

}  // namespace egret
