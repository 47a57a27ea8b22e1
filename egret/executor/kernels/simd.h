// Private to the backend: running a streaming loop with the widest vectors
// the CPU has.
//
// egret is built for the baseline x86-64 ISA (SSE2), so the compiler
// vectorizes the kernels' loops four floats wide. WithWidestVectors(f) runs
// f's body from a copy compiled for AVX-512 when the CPU and OS support it
// (CPUID), else the baseline one. Both compute the same bits: the kernels'
// loops are plain IEEE operations and conversions, and the files that use
// this are compiled with -ffp-contract=off, so that no a * b + c becomes a
// fused multiply-add in one copy and not in the other.
#ifndef EGRET_EXECUTOR_KERNELS_SIMD_H_
#define EGRET_EXECUTOR_KERNELS_SIMD_H_

namespace egret::backend_internal {

// Whether this CPU runs AVX-512 F, BW, DQ and VL code (and the OS saves the
// registers). Read once.
bool HasAvx512();

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
template <typename F>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), noinline)) void RunAvx512(F& f) {
  f();
}
#endif

// Calls f() (a lambda marked __attribute__((always_inline)), so that its body is
// compiled into each copy), with AVX-512 code where the CPU has it.
template <typename F>
void WithWidestVectors(F&& f) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (HasAvx512()) {
    RunAvx512(f);
    return;
  }
#endif
  f();
}

}  // namespace egret::backend_internal

#endif  // EGRET_EXECUTOR_KERNELS_SIMD_H_
