#include "egret/executor/kernels/simd.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace egret::backend_internal {
namespace {

bool DetectAvx512() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned a = 0, b = 0, c = 0, d = 0;
  // Leaf 1, ECX bit 27: the OS enabled XSAVE, so XGETBV may be read.
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & bit_OSXSAVE) == 0) return false;
  // XCR0 bits 1, 2, 5, 6, 7: the OS saves the SSE, AVX, opmask and both
  // halves of the ZMM state.
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0xE6) != 0xE6) return false;
  // Leaf 7, EBX: AVX-512 F (bit 16), DQ (17), BW (30), VL (31).
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  const unsigned want = bit_AVX512F | bit_AVX512DQ | bit_AVX512BW | bit_AVX512VL;
  return (b & want) == want;
#else
  return false;
#endif
}

}  // namespace

bool HasAvx512() {
  static const bool kHas = DetectAvx512();
  return kHas;
}

}  // namespace egret::backend_internal
