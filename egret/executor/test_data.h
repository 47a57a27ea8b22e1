// Inputs and comparisons for checking that two graphs compute the same thing:
// seeded random inputs and per-output error statistics.
#ifndef EGRET_EXECUTOR_TEST_DATA_H_
#define EGRET_EXECUTOR_TEST_DATA_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"

namespace egret {

// One tensor per graph input (g.inputs() order) of the input's type, filled
// from `seed` alone (the same seed gives the same bytes on every platform):
// float types uniform in [-1, 1), quantized types uniform over the storage
// range, Int32/Int64 uniform in [0, 16), Bool 0 or 1. Fails for an input
// whose dtype holds no data, and (kUnimplemented) for a sequence or
// optional input, whose element shapes its type does not give.
absl::StatusOr<std::vector<Tensor>> MakeRandomInputs(const Graph& g, uint64_t seed);

// How far one actual output is from its expected value, over real values.
struct OutputDiff {
  double max_abs = 0;      // max |a - e|
  double max_rel = 0;      // max |a - e| / |e| (0 where both are 0, inf where only e is 0)
  int64_t mismatches = 0;  // elements with |a - e| > atol + rtol * |e| (NaN vs not NaN counts)
  bool within_tolerance() const { return mismatches == 0; }
};

// Compares actual[i] with expected[i] element by element (the numpy allclose
// rule above); a sequence or optional compares its tensors in order, their
// statistics merged into its OutputDiff. Fails with kInvalidArgument when
// the counts, dims, kinds or container lengths differ; dtypes may differ
// (values are compared as reals).
absl::StatusOr<std::vector<OutputDiff>> CompareOutputs(absl::Span<const Tensor> actual,
                                                       absl::Span<const Tensor> expected,
                                                       double rtol, double atol);

}  // namespace egret

#endif  // EGRET_EXECUTOR_TEST_DATA_H_
