// Private to the backend: splitting a streaming kernel's loop over the
// threads ExecuteOptions::threads allows.
//
// The work runs on the OpenMP thread team of libgomp, the runtime Debian's
// oneDNN runs on (dnnl_support.h), so the executor's own loops and oneDNN's
// primitives share one set of threads instead of competing. The split is a
// fixed function of (n, grain, KernelThreads()): a kernel whose chunks write
// disjoint outputs gives the same bits for every thread count.
#ifndef EGRET_EXECUTOR_KERNELS_PARALLEL_H_
#define EGRET_EXECUTOR_KERNELS_PARALLEL_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace egret::backend_internal {

// Calls f(begin, end) on consecutive, disjoint ranges covering [0, n), at
// most KernelThreads() of them and none (but a lone one) shorter than
// `grain`, concurrently, and returns when all have returned. With one thread,
// or n < 2 * grain, it is f(0, n) on the calling thread. f must not throw.
void ParallelFor(int64_t n, int64_t grain, absl::FunctionRef<void(int64_t, int64_t)> f);

// The grain for a loop doing a few operations per element: big enough that
// waking the team (a few microseconds) is a small part of each chunk.
inline constexpr int64_t kElementwiseGrain = 1 << 15;

}  // namespace egret::backend_internal

#endif  // EGRET_EXECUTOR_KERNELS_PARALLEL_H_
