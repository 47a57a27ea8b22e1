// Tensors as real numbers and back, the conversions every kernel shares
// (kernels_internal.h): reading stored numbers as doubles or floats
// (dequantizing per tensor or per axis, halves widened through F16C), plain
// integers exactly, and storing reals, floats or integers into a tensor of
// any dtype (quantized as Tensor::SetReal, halves narrowed), in loops that
// vectorize (hence this file's compile options in egret/executor/CMakeLists.txt).
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/simd.h"

namespace egret::backend_internal {
namespace {

// Calls f(begin, end, stepsize, zero_offset) for consecutive runs of the
// elements of `t` that share an encoding (the whole tensor when it has one,
// else each run of a per-axis channel), or, when `t`'s per-axis channels are
// its last axis (runs of one element), rows(channels, first, last,
// stepsizes, zero_offsets) for rows [first, last) of channels elements each,
// with the per-axis arrays themselves (one entry per channel).
// Whole-tensor runs and rows are split over the threads (ParallelFor).
template <typename F, typename Rows>
void ForEachEncodingRun(const TensorType& t, F f, Rows rows) {
  const int64_t n = t.num_elements();
  if (!t.per_axis) {
    ParallelFor(n, kElementwiseGrain,
                [&](int64_t begin, int64_t end) { f(begin, end, t.stepsize, t.zero_offset); });
    return;
  }
  const int axis = t.per_axis->axis;
  int64_t inner = 1;
  for (int d = axis + 1; d < t.rank(); ++d) inner *= t.dims[d];
  const int64_t channels = t.dims[axis];
  if (inner == 0 || channels == 0) return;
  if (t.blocked()) {
    // Blocks along the last axis are runs; along another axis each element
    // of a block row has its own cell.
    const int64_t block = t.per_axis->block_size;
    if (inner != 1) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = t.ChannelOf(i);
        f(i, i + 1, t.StepsizeAt(c), t.ZeroOffsetAt(c));
      }
      return;
    }
    const int64_t blocks = (channels + block - 1) / block;
    for (int64_t row = 0, cell = 0; row < n / channels; ++row) {
      for (int64_t b = 0; b < blocks; ++b, ++cell) {
        const int64_t start = row * channels + b * block;
        f(start, std::min(start + block, (row + 1) * channels), t.StepsizeAt(cell),
          t.ZeroOffsetAt(cell));
      }
    }
    return;
  }
  if (inner == 1) {
    const float* steps = t.per_axis->stepsizes.data();
    const int32_t* zeros = t.per_axis->zero_offsets.data();
    ParallelFor(n / channels, std::max<int64_t>(1, kElementwiseGrain / channels),
                [&](int64_t first, int64_t last) { rows(channels, first, last, steps, zeros); });
    return;
  }
  for (int64_t start = 0, c = 0; start < n; start += inner, c = c + 1 == channels ? 0 : c + 1) {
    f(start, start + inner, t.StepsizeAt(c), t.ZeroOffsetAt(c));
  }
}

// out[i] = scale * (p[i] - zero) for i in [0, n), computed in double and
// stored as Out. Restrict pointers and locals: a store through Out* may not
// alias the inputs, so the loop vectorizes (through captured references it
// reloaded every pointer per element).
// For storage of at most 16 bits and a float result, in float: q - zero is
// exact in float (at most 17 bits), and one float multiplication rounds the
// product, which double computes exactly (24 + 17 bits), once: the same bits.
template <typename T, typename Out>
void DequantizeRun(const T* __restrict p, int64_t n, double scale, double zero,
                   Out* __restrict out) {
  if constexpr (sizeof(T) <= 2 && std::is_same_v<Out, float>) {
    const float s = static_cast<float>(scale), z = static_cast<float>(zero);
    WithWidestVectors([=]() __attribute__((always_inline)) {
      const T* __restrict in = p;
      float* __restrict o = out;
      const int64_t count = n;
      for (int64_t i = 0; i < count; ++i) o[i] = s * (static_cast<float>(in[i]) - z);
    });
  } else {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<Out>(scale * (static_cast<double>(p[i]) - zero));
    }
  }
}

// out[i] = scale * (element i as T - zero), computed in double and stored
// as Out (rounded once when Out is float), each element with its own
// encoding (per-tensor or per-axis).
template <typename T, typename Out>
void ReadAs(const Tensor& t, bool quantized, Out* out) {
  const T* p = reinterpret_cast<const T*>(t.bytes().data());  // operator new: aligned
  if (!quantized) {
    const int64_t n = t.num_elements();
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(static_cast<double>(p[i]));
    return;
  }
  ForEachEncodingRun(
      t.type(),
      [p, out](int64_t begin, int64_t end, float stepsize, int32_t zero) {
        DequantizeRun(p + begin, end - begin, stepsize, zero, out + begin);
      },
      [p, out](int64_t channels, int64_t first, int64_t last, const float* __restrict scale,
               const int32_t* __restrict z) {
        for (int64_t r = first; r < last; ++r) {
          const T* __restrict q = p + r * channels;
          Out* __restrict o = out + r * channels;
          for (int64_t c = 0; c < channels; ++c) {
            o[c] = static_cast<Out>(static_cast<double>(scale[c]) *
                                    (static_cast<double>(q[c]) - static_cast<double>(z[c])));
          }
        }
      });
}

// x rounded to an integer, halves to even, when the rounding mode is the
// default round-to-nearest-even: adding and subtracting 2^23 leaves a float
// below 2^23 rounded by the addition itself (one that large is an integer
// already). A loop of it vectorizes, where std::nearbyint is a libm call.
[[gnu::always_inline]] inline float RoundToEvenInNearestMode(float x) {
  constexpr float kTwo23 = 8388608.0f;
  const float a = std::fabs(x);
  const float rounded = std::copysign((a + kTwo23) - kTwo23, x);
  return a < kTwo23 ? rounded : x;  // else an integer, infinite or NaN
}

// Each float of x quantized into storage T: as Tensor::SetReal
// (QuantizeReal: the division in float, halves to even, plus the zero
// offset; NaN to the zero offset), saturated. In float for storage of at
// most 16 bits: a rounded quotient below 2^24 in magnitude plus a zero
// offset of at most 2^16 is exact, and a larger one saturates either way. In
// double for 32-bit storage.
template <typename T>
using QuantizeAcc = std::conditional_t<sizeof(T) <= 2, float, double>;

template <typename T, bool kNearest>
[[gnu::always_inline]] inline T QuantizeOne(float v, float step, QuantizeAcc<T> zero,
                                            QuantizeAcc<T> lo, QuantizeAcc<T> hi) {
  using Acc = QuantizeAcc<T>;
  const float r = v / step;
  const float rounded = kNearest ? RoundToEvenInNearestMode(r) : RoundHalfToEven(r);
  Acc q = zero + static_cast<Acc>(rounded);
  q = v != v ? zero : q;
  q = q < lo ? lo : q;
  q = q > hi ? hi : q;
  return static_cast<T>(q);
}

// A run of one encoding. Restrict pointers and locals, so that the stores
// through T* (a character type for 8-bit storage, which may alias anything)
// do not make the compiler reload the operands per element: the kNearest
// loop vectorizes. (Multiplying by the step's reciprocal instead, with the
// blocks whose quotients come near a tie redone by division, measured no
// faster with AVX-512: the division is not what bounds this loop.)
template <typename T, bool kNearest>
void QuantizeRun(const float* __restrict x, int64_t n, float step, QuantizeAcc<T> zero,
                 QuantizeAcc<T> lo, QuantizeAcc<T> hi, T* __restrict out) {
  WithWidestVectors([=]() __attribute__((always_inline)) {
    // Locals: stores through T* (a character type) could alias the closure.
    const float* __restrict in = x;
    T* __restrict o = out;
    const int64_t count = n;
    const float s = step;
    const QuantizeAcc<T> z = zero, l = lo, h = hi;
    for (int64_t i = 0; i < count; ++i) o[i] = QuantizeOne<T, kNearest>(in[i], s, z, l, h);
  });
}

// Stores each float of x quantized into `type`'s storage T (QuantizeOne),
// each element with its own encoding. kNearest: the rounding mode is the
// default round-to-nearest-even (RoundToEvenInNearestMode, a loop that
// vectorizes); else RoundHalfToEven.
template <typename T, bool kNearest>
void QuantizeAs(const float* x, const TensorType& type, uint8_t* bytes) {
  using Acc = QuantizeAcc<T>;
  T* out = reinterpret_cast<T*>(bytes);  // operator new: aligned
  const Acc lo = static_cast<Acc>(StorageMin(type.dtype));
  const Acc hi = static_cast<Acc>(StorageMax(type.dtype));
  ForEachEncodingRun(
      type,
      [x, out, lo, hi](int64_t begin, int64_t end, float stepsize, int32_t zero) {
        QuantizeRun<T, kNearest>(x + begin, end - begin, stepsize, static_cast<Acc>(zero), lo, hi,
                                 out + begin);
      },
      [x, out, lo, hi](int64_t channels, int64_t first, int64_t last, const float* __restrict step,
                       const int32_t* __restrict zero) {
        for (int64_t r = first; r < last; ++r) {
          const float* __restrict xr = x + r * channels;
          T* __restrict o = out + r * channels;
          for (int64_t c = 0; c < channels; ++c) {
            o[c] = QuantizeOne<T, kNearest>(xr[c], step[c], static_cast<Acc>(zero[c]), lo, hi);
          }
        }
      });
}

template <typename T>
void QuantizeAs(const float* x, const TensorType& type, uint8_t* bytes) {
  if (std::fegetround() == FE_TONEAREST) {
    QuantizeAs<T, true>(x, type, bytes);
  } else {
    QuantizeAs<T, false>(x, type, bytes);
  }
}

const float* HalfTable() {
  static const float* const kTable = [] {
    auto* t = new float[65536];
    for (uint32_t h = 0; h < 65536; ++h) t[h] = HalfToFloat(static_cast<uint16_t>(h));
    return t;
  }();
  return kTable;
}

__attribute__((target("f16c"))) uint16_t F16cNarrow(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}

// CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports has no "f16c").
bool CpuHasF16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
}

const bool kHasF16c = CpuHasF16c();

// Eight halves at a time through F16C, the lanes holding a NaN (whose
// payload the hardware treats differently) through the table.
__attribute__((target("avx,f16c"))) void F16cWiden(const uint16_t* in, size_t n, float* out) {
  const float* table = HalfTable();
  size_t i = 0;
  const __m128i exp_mask = _mm_set1_epi16(0x7C00), mant_mask = _mm_set1_epi16(0x03FF);
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i inf_or_nan = _mm_cmpeq_epi16(_mm_and_si128(h, exp_mask), exp_mask);
    const __m128i zero_mant = _mm_cmpeq_epi16(_mm_and_si128(h, mant_mask), _mm_setzero_si128());
    if (_mm_movemask_epi8(_mm_andnot_si128(zero_mant, inf_or_nan)) != 0) {
      for (size_t k = i; k < i + 8; ++k) out[k] = table[in[k]];
      continue;
    }
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = table[in[i]];
}

// Eight floats at a time, rounded to nearest even; NaN lanes through
// FloatToHalf (its quiet NaN, not the hardware's payload).
__attribute__((target("avx,f16c"))) void F16cNarrowAll(const float* in, size_t n, uint16_t* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_loadu_ps(in + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)) != 0) {
      for (size_t k = i; k < i + 8; ++k) out[k] = FloatToHalf(in[k]);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
  }
  for (; i < n; ++i) out[i] = NarrowToHalf(in[i]);
}

}  // namespace

float WidenHalf(uint16_t h) { return HalfTable()[h]; }

void WidenHalves(const uint16_t* in, size_t n, float* out) {
  ParallelFor(static_cast<int64_t>(n), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    const size_t m = static_cast<size_t>(end - begin);
    if (kHasF16c) {
      F16cWiden(in + begin, m, out + begin);
      return;
    }
    const float* table = HalfTable();
    for (size_t i = 0; i < m; ++i) out[begin + i] = table[in[begin + i]];
  });
}

void NarrowToHalves(const float* in, size_t n, uint16_t* out) {
  ParallelFor(static_cast<int64_t>(n), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    const size_t m = static_cast<size_t>(end - begin);
    if (kHasF16c) {
      F16cNarrowAll(in + begin, m, out + begin);
      return;
    }
    for (size_t i = 0; i < m; ++i) out[begin + i] = FloatToHalf(in[begin + i]);
  });
}

uint16_t NarrowToHalf(float f) {
  // NaN payloads are FloatToHalf's (a quiet NaN), not the hardware's.
  if (kHasF16c && !std::isnan(f)) return F16cNarrow(f);
  return FloatToHalf(f);
}

template <typename Out>
void ReadRealsInto(const Tensor& t, Out* out) {
  const size_t n = static_cast<size_t>(t.num_elements());
  const TensorType& ty = t.type();
  const bool q = IsQuantized(ty.dtype);
  const uint8_t* p = t.bytes().data();
  switch (ty.dtype) {
    case DType::kFloat32:
      if constexpr (std::is_same_v<Out, float>) {
        if (n > 0) std::memcpy(out, p, n * sizeof(float));
      } else {
        ReadAs<float>(t, false, out);
      }
      break;
    case DType::kFloat16:
      if constexpr (std::is_same_v<Out, float>) {
        // Tensor storage is allocated by operator new: aligned for uint16_t.
        WidenHalves(reinterpret_cast<const uint16_t*>(p), n, out);
      } else {
        for (size_t i = 0; i < n; ++i) {
          uint16_t h;
          std::memcpy(&h, p + i * 2, 2);
          out[i] = WidenHalf(h);
        }
      }
      break;
    case DType::kQUInt8:
    case DType::kQUInt4:
      ReadAs<uint8_t>(t, q, out);
      break;
    case DType::kQInt8:
    case DType::kQInt4:
      ReadAs<int8_t>(t, q, out);
      break;
    case DType::kQUInt16:
      ReadAs<uint16_t>(t, q, out);
      break;
    case DType::kQInt16:
      ReadAs<int16_t>(t, q, out);
      break;
    case DType::kQInt32:
    case DType::kInt32:
      ReadAs<int32_t>(t, q, out);
      break;
    default:  // Int64, Bool, Float64, UInt32, UInt64, BFloat16: the generic accessor.
      for (size_t i = 0; i < n; ++i) {
        out[i] = static_cast<Out>(t.GetReal(static_cast<int64_t>(i)));
      }
      break;
  }
}

template <typename Out>
std::vector<Out> ReadRealsAs(const Tensor& t) {
  std::vector<Out> out(static_cast<size_t>(t.num_elements()));
  ReadRealsInto(t, out.data());
  return out;
}

// T, const when Byte is.
template <typename Byte, typename T>
using StorageAs = std::conditional_t<std::is_const_v<Byte>, const T, T>;

// Calls f(T*) with `bytes` as the storage type T of quantized `dtype` (a
// const T* for const bytes); false, and f not called, for another dtype.
template <typename Byte, typename F>
bool WithQuantizedStorage(DType dtype, Byte* bytes, F f) {
  static_assert(std::is_same_v<std::remove_const_t<Byte>, uint8_t>);
  switch (dtype) {
    case DType::kQUInt8:
    case DType::kQUInt4:
      f(reinterpret_cast<StorageAs<Byte, uint8_t>*>(bytes));
      return true;
    case DType::kQInt8:
    case DType::kQInt4:
      f(reinterpret_cast<StorageAs<Byte, int8_t>*>(bytes));
      return true;
    case DType::kQUInt16:
      f(reinterpret_cast<StorageAs<Byte, uint16_t>*>(bytes));
      return true;
    case DType::kQInt16:
      f(reinterpret_cast<StorageAs<Byte, int16_t>*>(bytes));
      return true;
    case DType::kQInt32:
      f(reinterpret_cast<StorageAs<Byte, int32_t>*>(bytes));
      return true;
    default:
      return false;
  }
}

bool QuantizeFloats(absl::Span<const float> x, Tensor& out) {
  const TensorType& type = out.type();
  if (static_cast<int64_t>(x.size()) < type.num_elements()) return false;
  return WithQuantizedStorage(type.dtype, out.mutable_bytes().data(), [&](auto* storage) {
    using T = std::remove_pointer_t<decltype(storage)>;
    QuantizeAs<T>(x.data(), type, reinterpret_cast<uint8_t*>(storage));
  });
}

bool QuantizeFloatsInto(const float* x, int64_t n, const TensorType& type, uint8_t* bytes) {
  if (type.per_axis) return false;
  return WithQuantizedStorage(type.dtype, bytes, [&](auto* out) {
    using T = std::remove_pointer_t<decltype(out)>;
    using Acc = QuantizeAcc<T>;
    const Acc lo = static_cast<Acc>(StorageMin(type.dtype));
    const Acc hi = static_cast<Acc>(StorageMax(type.dtype));
    const Acc zero = static_cast<Acc>(type.zero_offset);
    if (std::fegetround() == FE_TONEAREST) {
      QuantizeRun<T, true>(x, n, type.stepsize, zero, lo, hi, out);
    } else {
      QuantizeRun<T, false>(x, n, type.stepsize, zero, lo, hi, out);
    }
  });
}

FloatRange RangeWithZero(absl::Span<const float> x) {
  // Sixteen independent minima and maxima in SSE registers (GCC leaves the
  // plain loop scalar): _mm_min_ps(v, lo) is exactly `v < lo ? v : lo`, and
  // min and max do not depend on the order they are taken in (a NaN never
  // compares, and -0 < +0 is false). v - v is NaN exactly for a NaN or an
  // infinity, so `odd` says whether to look for a NaN. Memory-bound: wider
  // vectors would not help.
  const float* const p = x.data();
  const int64_t n = static_cast<int64_t>(x.size());
  constexpr int kStep = 16;
  const int64_t whole = n - n % kStep;
  __m128 lo[4], hi[4], odd[4];
  for (int k = 0; k < 4; ++k) lo[k] = hi[k] = odd[k] = _mm_setzero_ps();
  for (int64_t i = 0; i < whole; i += kStep) {
    for (int k = 0; k < 4; ++k) {
      const __m128 v = _mm_loadu_ps(p + i + 4 * k);
      lo[k] = _mm_min_ps(v, lo[k]);
      hi[k] = _mm_max_ps(v, hi[k]);
      odd[k] = _mm_add_ps(odd[k], _mm_sub_ps(v, v));
    }
  }
  FloatRange r;
  bool any_odd = false;
  for (int k = 0; k < 4; ++k) {
    float l[4], h[4], o[4];
    _mm_storeu_ps(l, lo[k]);
    _mm_storeu_ps(h, hi[k]);
    _mm_storeu_ps(o, odd[k]);
    for (int j = 0; j < 4; ++j) {
      r.lo = l[j] < r.lo ? l[j] : r.lo;
      r.hi = h[j] > r.hi ? h[j] : r.hi;
      any_odd = any_odd || o[j] != 0.0f;
    }
  }
  for (int64_t i = whole; i < n; ++i) {
    r.lo = p[i] < r.lo ? p[i] : r.lo;
    r.hi = p[i] > r.hi ? p[i] : r.hi;
    r.has_nan = r.has_nan || p[i] != p[i];
  }
  for (int64_t i = 0; any_odd && !r.has_nan && i < whole; ++i) r.has_nan = p[i] != p[i];
  return r;
}

template std::vector<double> ReadRealsAs<double>(const Tensor& t);
template std::vector<float> ReadRealsAs<float>(const Tensor& t);
template void ReadRealsInto<float>(const Tensor& t, float* out);

std::vector<double> ReadReals(const Tensor& t) { return ReadRealsAs<double>(t); }

std::vector<__int128> ReadIntegers(const Tensor& t) {
  std::vector<__int128> out(static_cast<size_t>(t.num_elements()));
  const uint8_t* p = t.bytes().data();
  auto load = [&out, p](auto v) {
    for (size_t i = 0; i < out.size(); ++i) {
      std::memcpy(&v, p + i * sizeof(v), sizeof(v));
      out[i] = v;
    }
  };
  switch (t.type().dtype) {
    case DType::kInt64:
      load(int64_t{});
      break;
    case DType::kUInt64:
      load(uint64_t{});
      break;
    case DType::kUInt32:
      load(uint32_t{});
      break;
    default:
      load(int32_t{});
      break;
  }
  return out;
}

Tensor MakeIntegerTensor(const TensorType& type, absl::Span<const __int128> v) {
  Tensor t(type);
  const __int128 lo = StorageMin(type.dtype);
  const __int128 hi =
      type.dtype == DType::kUInt64 ? static_cast<__int128>(UINT64_MAX) : StorageMax(type.dtype);
  const size_t size = static_cast<size_t>(ElementSize(type.dtype));
  const int64_t n = std::min<int64_t>(type.num_elements(), static_cast<int64_t>(v.size()));
  uint8_t* bytes = t.mutable_bytes().data();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t low = static_cast<uint64_t>(std::clamp(v[i], lo, hi));  // the low bytes
    std::memcpy(bytes + i * size, &low, size);
  }
  return t;
}

const float* FloatsAt(const TensorType& ty, const uint8_t* p, int64_t first, int64_t n,
                      float* scratch) {
  if (ty.dtype == DType::kFloat32) return reinterpret_cast<const float*>(p) + first;
  if (ty.per_axis) return nullptr;
  // DequantizeRun's arguments as ReadAs gives them for a per-tensor run.
  const double step = ty.stepsize, zero = ty.zero_offset;
  const bool quantized = WithQuantizedStorage(
      ty.dtype, p, [&](const auto* q) { DequantizeRun(q + first, n, step, zero, scratch); });
  return quantized ? scratch : nullptr;
}

Tensor MakeTensor(const TensorType& type, absl::Span<const double> reals) {
  const int64_t n = std::min<int64_t>(type.num_elements(), static_cast<int64_t>(reals.size()));
  if (type.dtype == DType::kFloat32) {
    Tensor t = Tensor::Uninitialized(type);
    float* out = reinterpret_cast<float*>(t.mutable_bytes().data());  // operator new: aligned
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(reals[i]);
    std::fill(out + n, out + type.num_elements(), 0.0f);  // a short `reals`: zeros
    return t;
  }
  if (type.dtype == DType::kFloat16) {
    // As Tensor::SetValue: rounded to float, then to half.
    Tensor t(type);  // zeros past a short `reals`
    uint8_t* bytes = t.mutable_bytes().data();
    for (int64_t i = 0; i < n; ++i) {
      const uint16_t h = NarrowToHalf(static_cast<float>(reals[i]));
      std::memcpy(bytes + i * 2, &h, 2);
    }
    return t;
  }
  Tensor t(type);
  if (IsQuantized(type.dtype) && n == type.num_elements()) {
    // SetReal divides the value rounded to float: the same, in one loop.
    const std::vector<float> f(reals.begin(), reals.begin() + n);
    if (QuantizeFloats(f, t)) return t;
  }
  for (int64_t i = 0; i < n; ++i) t.SetReal(i, reals[i]);
  return t;
}

FloatsIn::FloatsIn(const Tensor& t) {
  if (t.type().dtype == DType::kFloat32) {
    // Tensor storage is allocated by operator new: aligned for float.
    data_ = reinterpret_cast<const float*>(t.bytes().data());
  } else {
    converted_ = ReadRealsAs<float>(t);
    data_ = converted_.data();
  }
  size_ = static_cast<size_t>(t.num_elements());
}

FloatsOut::FloatsOut(const TensorType& type, Tensor* reuse) : type_(type), tensor_(TensorType{}) {
  size_ = static_cast<size_t>(std::max<int64_t>(type.num_elements(), 0));
  if (type.dtype != DType::kFloat32) {
    // Not zero-filled either: the kernel writes every element.
    scratch_.reset(new float[std::max<size_t>(size_, 1)]);
    data_ = scratch_.get();
    return;
  }
  if (reuse != nullptr && reuse->type().byte_size() == type.byte_size()) {
    tensor_ = std::move(*reuse);
    tensor_.Retype(type);
  } else {
    tensor_ = Tensor::Uninitialized(type);  // the kernel writes every element
  }
  data_ = reinterpret_cast<float*>(tensor_.mutable_bytes().data());
}

Tensor FloatsOut::Finish() {
  if (type_.dtype == DType::kFloat32) return std::move(tensor_);
  return FloatsToTensor(type_, absl::MakeConstSpan(scratch_.get(), size_));
}

Tensor FloatsToTensor(const TensorType& type, absl::Span<const float> values) {
  const size_t n =
      std::min(static_cast<size_t>(std::max<int64_t>(type.num_elements(), 0)), values.size());
  if (type.dtype == DType::kFloat32) {
    // One copy (no zero fill first); a short `values` is padded with zeros.
    Tensor t = Tensor::Uninitialized(type);
    float* out = reinterpret_cast<float*>(t.mutable_bytes().data());  // operator new: aligned
    std::copy(values.begin(), values.begin() + n, out);
    std::fill(out + n, out + type.num_elements(), 0.0f);
    return t;
  }
  if (type.dtype == DType::kFloat16) {
    Tensor t(type);
    NarrowToHalves(values.data(), n, reinterpret_cast<uint16_t*>(t.mutable_bytes().data()));
    return t;
  }
  Tensor t(type);
  if (n == values.size() && QuantizeFloats(values, t)) return t;
  for (size_t i = 0; i < n; ++i) t.SetReal(static_cast<int64_t>(i), values[i]);
  return t;
}

}  // namespace egret::backend_internal
