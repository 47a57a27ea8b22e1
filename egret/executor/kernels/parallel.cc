#include "egret/executor/kernels/parallel.h"

#include <algorithm>

#include "egret/executor/kernels/dnnl_support.h"

// libgomp's entry points, which code compiled with -fopenmp calls for a
// `#pragma omp parallel` region (GOMP_parallel, GCC 4.9 and later) and the
// OpenMP API's thread queries (OpenMP 5.0, section 3.2). egret's sources are
// not OpenMP code; they hand libgomp a function to run on its team, as
// dnnl_support.cc sets the team's size.
extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
}

namespace egret::backend_internal {
namespace {

struct Job {
  int64_t n;
  int64_t chunks;
  absl::FunctionRef<void(int64_t, int64_t)>* f;
};

// Runs on every thread of the team: chunk c goes to thread c mod team size.
void RunChunks(void* data) {
  const Job& job = *static_cast<const Job*>(data);
  const int64_t team = std::max(1, omp_get_num_threads());
  for (int64_t c = omp_get_thread_num(); c < job.chunks; c += team) {
    (*job.f)(c * job.n / job.chunks, (c + 1) * job.n / job.chunks);
  }
}

}  // namespace

void ParallelFor(int64_t n, int64_t grain, absl::FunctionRef<void(int64_t, int64_t)> f) {
  if (n <= 0) return;
  const int64_t chunks = std::min<int64_t>(KernelThreads(), n / std::max<int64_t>(grain, 1));
  if (chunks <= 1) {
    f(0, n);
    return;
  }
  Job job{n, chunks, &f};
  GOMP_parallel(RunChunks, &job, static_cast<unsigned>(chunks), 0);
}

}  // namespace egret::backend_internal
