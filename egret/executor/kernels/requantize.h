// Private to the backend: the last stage of an integer convolution, from
// its exact int32 sums to an 8-bit quantized output, in one pass.
//
// The value stored for sum s of output channel k is, by definition (the
// quantized convolution's contract in executor.h):
//   v = float(scale[k] * s + bias[k])     products and sums in double,
//                                         rounded once to float;
//   v = min(max(v, lo), hi)               when a fused activation clamps it,
//                                         in double, as ClampFloats;
//   q = v / step (float), rounded to nearest, halves to even, plus the zero
//       offset, saturated to the storage range; NaN stores the zero offset
//                                         (QuantizeFloatsInto).
// The portable path writes v to a float buffer and quantizes it in a second
// pass. Int8Requantizer gives the same bytes in one AVX-512 pass, at about
// half the instructions: it estimates the quantized value from the sum with
// one float fused multiply-add, and computes exactly (the definition, in
// vectors) only the blocks where some estimate lies too near a rounding
// tie for its error bound (requantize.cc) to decide, a few per cent of them.
// A clamp is applied to the quantized value, against the quantized bounds:
// the definition is monotone in v, so clamping then quantizing is
// quantizing then clamping.
#ifndef EGRET_EXECUTOR_KERNELS_REQUANTIZE_H_
#define EGRET_EXECUTOR_KERNELS_REQUANTIZE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "egret/graph/tensor.h"

namespace egret::backend_internal {

struct ActivationClamp;  // kernels_internal.h

// The fused loop for one convolution's outputs, prepared once (per-channel
// estimate coefficients and error bounds) and run on any number of rows.
class Int8Requantizer {
 public:
  // The requantizer for `channels` output channels of `type`, with `scale`
  // and `bias` of `channels` entries each (read by Run: they must outlive
  // the requantizer) and `clamp` null when nothing clamps. Nullopt unless
  // the fused loop applies: an AVX-512 CPU, the default rounding mode,
  // `type` QUInt8 or QInt8 with one encoding (a finite stepsize of at least
  // 2^-100 and a zero offset within +-2^16), and clamp bounds that are not
  // NaN. The caller then takes the portable path, which gives the same
  // bytes.
  static std::optional<Int8Requantizer> Make(int64_t channels, const double* scale,
                                             const double* bias, const ActivationClamp* clamp,
                                             const TensorType& type);

  // Stores rows x channels outputs (row-major, channel fastest) into `out`
  // as described above, from `sums` of the same layout. Safe to call from
  // several threads at once on disjoint rows.
  void Run(const int32_t* sums, int64_t rows, uint8_t* out) const;

  // The loop's operands, fixed per convolution (requantize.cc reads them).
  struct Operands {
    int64_t channels = 0;
    const double* scale = nullptr;
    const double* bias = nullptr;
    bool clamp = false;
    float lo = 0, hi = 0;  // float(clamp bounds): the float clamp equals the double one
    float step = 1;
    int32_t zero = 0, qmin = 0, qmax = 0;
    float first = 0, last = 0;  // the quantized bounds, clamp included
  };

 private:
  Int8Requantizer() = default;

  Operands operands_;
  // Per channel: the estimate's a, then bz, then tie (requantize.cc).
  std::vector<float> estimate_;
};

}  // namespace egret::backend_internal

#endif  // EGRET_EXECUTOR_KERNELS_REQUANTIZE_H_
