// Transposing a tensor's stored elements, outside an execution: the Transpose
// kernel's loops (axes of size 1 dropped and runs of consecutive axes merged,
// the matrix cases in cache-sized tiles, split over the executor's threads)
// for callers that permute constants, such as the ONNX importer and writer
// moving weights between ONNX's layouts and egret's.
#ifndef EGRET_EXECUTOR_TRANSPOSE_H_
#define EGRET_EXECUTOR_TRANSPOSE_H_

#include <cstdint>

#include "absl/types/span.h"
#include "egret/graph/tensor.h"

namespace egret {

// Writes the stored elements of `in` into `out`, whose dims are in's permuted
// by `perm` (out dim d = in dim perm[d]) and whose elements have in's size;
// the values are moved, not converted, whatever either encoding says. False,
// and `out` untouched, when the elements have no bytes of 1, 2, 4 or 8
// (strings, containers).
bool TransposeStoredElements(const Tensor& in, absl::Span<const int64_t> perm, Tensor& out);

}  // namespace egret

#endif  // EGRET_EXECUTOR_TRANSPOSE_H_
