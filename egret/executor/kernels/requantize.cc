#include "egret/executor/kernels/requantize.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <vector>

#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EGRET_REQUANTIZE_AVX512 1
#endif

// GCC 12 reports its own intrinsics' `__m512i __Y = __Y` placeholder
// (_mm512_undefined_epi32, the unused source of an unmasked min or max) as
// maybe uninitialized once they are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace egret::backend_internal {
namespace {

#ifdef EGRET_REQUANTIZE_AVX512

using Operands = Int8Requantizer::Operands;

// The definition for one block of up to 16 channels (mask m), as integers in
// the storage range. The double affine map of 2 x 8 sums (multiply, then
// add: this file is compiled with -ffp-contract=off and no FMA is used),
// rounded to float by cvtpd2ps (the current rounding mode,
// round-to-nearest-even); the clamp in float (for a float x and a double
// bound b, max(x, float(b)) = float(max(x, b)) since rounding is monotone);
// the quotient by the step; the quotient clamped to +-2^24 (any value beyond
// saturates either way, and within it cvtps2dq rounds halves to even
// exactly as the portable loop); the zero offset added and the storage range
// applied in integers; NaN (from a NaN or infinite operand of the affine
// map) stores the zero offset, saturated.
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) inline __m512i
ExactBlock(const Operands& a, const int32_t* s, int64_t k, __mmask16 m) {
  const __mmask8 m_lo = static_cast<__mmask8>(m), m_hi = static_cast<__mmask8>(m >> 8);
  const __m512i si = _mm512_maskz_loadu_epi32(m, s + k);
  const __m512d s_lo = _mm512_cvtepi32_pd(_mm512_castsi512_si256(si));
  const __m512d s_hi = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(si, 1));
  const __m512d v_lo = _mm512_add_pd(_mm512_mul_pd(_mm512_maskz_loadu_pd(m_lo, a.scale + k), s_lo),
                                     _mm512_maskz_loadu_pd(m_lo, a.bias + k));
  const __m512d v_hi =
      _mm512_add_pd(_mm512_mul_pd(_mm512_maskz_loadu_pd(m_hi, a.scale + k + 8), s_hi),
                    _mm512_maskz_loadu_pd(m_hi, a.bias + k + 8));
  __m512 v =
      _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(v_lo)), _mm512_cvtpd_ps(v_hi), 1);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  if (a.clamp) v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(a.lo)), _mm512_set1_ps(a.hi));
  __m512 quotient = _mm512_div_ps(v, _mm512_set1_ps(a.step));
  quotient = _mm512_min_ps(_mm512_max_ps(quotient, _mm512_set1_ps(-16777216.0f)),
                           _mm512_set1_ps(16777216.0f));
  const __m512i zero = _mm512_set1_epi32(a.zero);
  __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(quotient), zero);
  q = _mm512_mask_mov_epi32(q, nan, zero);
  return _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(a.qmin)),
                          _mm512_set1_epi32(a.qmax));
}

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) inline void StoreBlock(
    uint8_t* o, int64_t k, __mmask16 m, __m512i q) {
  if (m == 0xFFFF) {
    // Unmasked: a masked byte store measured several times slower.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + k), _mm512_cvtepi32_epi8(q));
  } else {
    _mm512_mask_cvtepi32_storeu_epi8(o + k, m, q);
  }
}

// The estimate's per-channel operands (y = fma(float(sum), a[k], bz[k]) is
// the quotient plus the zero offset to within 0.5 - tie[k] wherever the
// result does not saturate) and the bounds results are clamped to, in
// registers: the loop stores bytes, which may alias any memory, so values
// read through a reference would be read again for every block.
struct Estimator {
  const float* a;
  const float* bz;
  const float* tie;
  __m512 first, last, magnitude;
};

template <bool kFull>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) inline __m512
LoadFloats(const float* p, __mmask16 m) {
  return kFull ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p);
}

// Stores again, exactly, the n listed blocks of a row.
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) inline void RedoListed(
    const Operands& a, const int32_t* s, uint8_t* o, const int64_t* listed, int n, int64_t full,
    __mmask16 tail) {
  for (int i = 0; i < n; ++i) {
    const int64_t k = listed[i];
    const __mmask16 m = k < full ? static_cast<__mmask16>(0xFFFF) : tail;
    StoreBlock(o, k, m, ExactBlock(a, s, k, m));
  }
}

// The estimate for the block of 16 channels at k (mask m): stores its
// results, and returns whether some lane is too near a tie to trust them.
template <bool kFull>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) inline bool
EstimateBlock(const Estimator& e, const int32_t* s, uint8_t* o, int64_t k, __mmask16 m) {
  const __m512i si = kFull ? _mm512_loadu_si512(s + k) : _mm512_maskz_loadu_epi32(m, s + k);
  const __m512 y = _mm512_fmadd_ps(_mm512_cvtepi32_ps(si), LoadFloats<kFull>(e.a + k, m),
                                   LoadFloats<kFull>(e.bz + k, m));
  const __m512 nearest = _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 off = _mm512_and_ps(_mm512_sub_ps(y, nearest), e.magnitude);
  StoreBlock(o, k, m, _mm512_cvttps_epi32(_mm512_min_ps(_mm512_max_ps(nearest, e.first), e.last)));
  return _mm512_mask_cmp_ps_mask(m, off, LoadFloats<kFull>(e.tie + k, m), _CMP_NLE_UQ) != 0;
}

// Sixteen channels at a time, the last block of a row masked: the estimate
// (one conversion and one fused multiply-add), rounded to nearest, clamped
// to [first, last]. The blocks with some lane too near a tie are listed as
// they come (without a branch: the list grows by the comparison's result)
// and then stored again by ExactBlock. The estimate's result equals the
// definition's because the definition is a monotone function of the value
// v it clamps and quantizes: clamping v to [lo, hi] and then quantizing is
// quantizing v and clamping to the quantized bounds.
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void RunRows8(
    const Operands& a, const float* estimate, const int32_t* sums, int64_t rows, uint8_t* out) {
  constexpr int kListed = 32;
  int64_t listed[kListed + 1];
  const int64_t channels = a.channels;
  const Estimator e{estimate,
                    estimate + channels,
                    estimate + 2 * channels,
                    _mm512_set1_ps(a.first),
                    _mm512_set1_ps(a.last),
                    _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff))};
  const int64_t full = channels / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (channels - full)) - 1);
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* s = sums + r * channels;
    uint8_t* o = out + r * channels;
    int n = 0;
    for (int64_t k = 0; k < full; k += 16) {
      listed[n] = k;
      n += EstimateBlock<true>(e, s, o, k, 0xFFFF) ? 1 : 0;
      if (n == kListed) {
        RedoListed(a, s, o, listed, n, full, tail);
        n = 0;
      }
    }
    if (full < channels) {
      listed[n] = full;
      n += EstimateBlock<false>(e, s, o, full, tail) ? 1 : 0;
    }
    RedoListed(a, s, o, listed, n, full, tail);
  }
}

// The definition for one float v (the portable QuantizeOne, saturated): the
// quantized clamp bounds.
float QuantizedBound(float v, const Operands& a) {
  const float r = std::nearbyint(v / a.step);  // the rounding mode is to nearest
  const double q = std::isnan(v) ? a.zero : static_cast<double>(r) + a.zero;
  return static_cast<float>(std::min<double>(std::max<double>(q, a.qmin), a.qmax));
}

#endif  // EGRET_REQUANTIZE_AVX512

}  // namespace

std::optional<Int8Requantizer> Int8Requantizer::Make(int64_t channels, const double* scale,
                                                     const double* bias,
                                                     const ActivationClamp* clamp,
                                                     const TensorType& type) {
#ifdef EGRET_REQUANTIZE_AVX512
  if (!HasAvx512() || std::fegetround() != FE_TONEAREST) return std::nullopt;
  if ((type.dtype != DType::kQUInt8 && type.dtype != DType::kQInt8) || type.per_axis) {
    return std::nullopt;
  }
  // A step below 2^-100 would let a subnormal float's absolute error count.
  if (!std::isfinite(type.stepsize) || type.stepsize < 0x1p-100f) return std::nullopt;
  if (type.zero_offset < -(1 << 16) || type.zero_offset > (1 << 16)) return std::nullopt;
  if (clamp != nullptr && (std::isnan(clamp->lo) || std::isnan(clamp->hi))) return std::nullopt;
  Int8Requantizer q;
  Operands& a = q.operands_;
  a.channels = channels;
  a.scale = scale;
  a.bias = bias;
  a.clamp = clamp != nullptr;
  a.lo = clamp != nullptr ? static_cast<float>(clamp->lo) : 0.0f;
  a.hi = clamp != nullptr ? static_cast<float>(clamp->hi) : 0.0f;
  a.step = type.stepsize;
  a.zero = type.zero_offset;
  a.qmin = static_cast<int32_t>(StorageMin(type.dtype));
  a.qmax = static_cast<int32_t>(StorageMax(type.dtype));
  a.first = static_cast<float>(a.qmin);
  a.last = static_cast<float>(a.qmax);
  if (clamp != nullptr) {
    a.first = std::max(a.first, QuantizedBound(a.lo, a));
    a.last = std::min(a.last, QuantizedBound(a.hi, a));
    a.first = std::min(a.first, a.last);  // lo > hi: every value is hi
  }
  // The estimate's error, with X = (scale * sum + bias) / step the exact
  // quotient and bk = bias / step; u = 2^-24, float's unit roundoff.
  //  - The definition's quotient r (v rounded to float, then the float
  //    division): within u |X| of rounding v, u |X| of the division, and
  //    2^-53 |sum * scale / step| of the double map: |r - X| <= 2u |X| + tiny.
  //  - The estimate y = fma(float(sum), a, bz), a = scale / step and
  //    bz = bk + zero each rounded to float: u |sum * a| from float(sum),
  //    u |sum * a| from a, u |bk + zero| from bz, u |y| from the fma:
  //    |y - (X + zero)| <= 2u |X - bk| + u (|bk| + |zero| + |y|) + tiny.
  //  - So |y - (r + zero)| <= 4u (|X| + |bk| + |zero| + |y|) + tiny. Where
  //    the result does not saturate, |X| <= reach and |y| <= 257.
  // `error` is twice that bound, plus 2^-40 for subnormal floats' absolute
  // error (a step of at least 2^-100 keeps it below 2^-49). A lane with
  // |y - rint(y)| <= 0.5 - error has r + zero within 0.5 of rint(y): the same
  // rounding. Beyond the unsaturated range the estimate's relative error
  // stays below 2^-20, so it saturates the same way. A channel whose scale
  // or bias is not finite, or whose estimate would leave float's normal
  // range, is always computed exactly (tie -1).
  const double step = static_cast<double>(a.step);
  const double reach = std::max(std::abs(a.qmin - 1.0 - a.zero), std::abs(a.qmax + 1.0 - a.zero));
  q.estimate_.resize(static_cast<size_t>(3 * channels));
  float* const ea = q.estimate_.data();
  float* const eb = ea + channels;
  float* const et = eb + channels;
  for (int64_t k = 0; k < channels; ++k) {
    const double ak = scale[k] / step;
    const double bk = bias[k] / step;
    const double bz = bk + a.zero;
    const bool representable = std::isfinite(ak) && std::isfinite(bk) &&
                               (ak == 0 || (std::abs(ak) >= 0x1p-100 && std::abs(ak) <= 0x1p60)) &&
                               std::abs(bz) <= 0x1p60;
    ea[k] = representable ? static_cast<float>(ak) : 0.0f;
    eb[k] = representable ? static_cast<float>(bz) : 0.0f;
    const double error = (reach + std::abs(bk) + std::abs(a.zero) + 258) * 0x1p-21 + 0x1p-40;
    et[k] = representable ? static_cast<float>(0.5 - error) : -1.0f;  // -1: every lane exact
  }
  return q;
#else
  (void)channels, (void)scale, (void)bias, (void)clamp, (void)type;
  return std::nullopt;
#endif
}

void Int8Requantizer::Run(const int32_t* sums, int64_t rows, uint8_t* out) const {
#ifdef EGRET_REQUANTIZE_AVX512
  RunRows8(operands_, estimate_.data(), sums, rows, out);
#else
  (void)sums, (void)rows, (void)out;
#endif
}

}  // namespace egret::backend_internal
