// Cast, QNN_Cast, Quantize and Dequantize.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "egret/executor/kernels/dnnl_support.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/simd.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// Reads stored values [begin, begin + n) of `t` as Tensor::GetValue does.
template <typename T>
void LoadValues(const Tensor& t, int64_t begin, int64_t n, double* v) {
  const T* p = reinterpret_cast<const T*>(t.bytes().data()) + begin;  // operator new: aligned
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(p[i]);
}

bool LoadValues(const Tensor& t, int64_t begin, int64_t n, double* v) {
  switch (t.type().dtype) {
    case DType::kQUInt8:
    case DType::kQUInt4:
    case DType::kBool:
      LoadValues<uint8_t>(t, begin, n, v);
      return true;
    case DType::kQInt8:
    case DType::kQInt4:
      LoadValues<int8_t>(t, begin, n, v);
      return true;
    case DType::kQUInt16:
      LoadValues<uint16_t>(t, begin, n, v);
      return true;
    case DType::kQInt16:
      LoadValues<int16_t>(t, begin, n, v);
      return true;
    case DType::kFloat16: {
      const uint16_t* p = reinterpret_cast<const uint16_t*>(t.bytes().data()) + begin;
      for (int64_t i = 0; i < n; ++i) v[i] = WidenHalf(p[i]);
      return true;
    }
    case DType::kFloat32:
      LoadValues<float>(t, begin, n, v);
      return true;
    case DType::kInt32:
    case DType::kQInt32:
      LoadValues<int32_t>(t, begin, n, v);
      return true;
    case DType::kInt64:
      LoadValues<int64_t>(t, begin, n, v);
      return true;
    case DType::kFloat64:
      LoadValues<double>(t, begin, n, v);
      return true;
    case DType::kUInt32:
      LoadValues<uint32_t>(t, begin, n, v);
      return true;
    case DType::kUInt64:
      LoadValues<uint64_t>(t, begin, n, v);
      return true;
    case DType::kBFloat16: {
      const uint16_t* p = reinterpret_cast<const uint16_t*>(t.bytes().data()) + begin;
      for (int64_t i = 0; i < n; ++i) v[i] = BFloat16ToFloat(p[i]);
      return true;
    }
    default:
      return false;
  }
}

// Stores v[0, n) at [begin, begin + n) of `t` as Tensor::SetValue does:
// integers rounded (halves away from zero) and saturated, NaN as 0.
template <typename T>
void StoreRounded(const double* v, int64_t n, Tensor& t, int64_t begin) {
  T* p = reinterpret_cast<T*>(t.mutable_bytes().data()) + begin;
  const int64_t lo = StorageMin(t.type().dtype), hi = StorageMax(t.type().dtype);
  const double lo_d = static_cast<double>(lo), hi_d = static_cast<double>(hi);
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(v[i])) {
      p[i] = 0;
      continue;
    }
    const double r = std::round(v[i]);
    p[i] = r <= lo_d ? static_cast<T>(lo) : r >= hi_d ? static_cast<T>(hi) : static_cast<T>(r);
  }
}

bool StoreValues(const double* v, int64_t n, Tensor& t, int64_t begin) {
  switch (t.type().dtype) {
    case DType::kQUInt8:
    case DType::kQUInt4:
      StoreRounded<uint8_t>(v, n, t, begin);
      return true;
    case DType::kQInt8:
    case DType::kQInt4:
      StoreRounded<int8_t>(v, n, t, begin);
      return true;
    case DType::kQUInt16:
      StoreRounded<uint16_t>(v, n, t, begin);
      return true;
    case DType::kQInt16:
      StoreRounded<int16_t>(v, n, t, begin);
      return true;
    case DType::kInt32:
    case DType::kQInt32:
      StoreRounded<int32_t>(v, n, t, begin);
      return true;
    case DType::kInt64:
      StoreRounded<int64_t>(v, n, t, begin);
      return true;
    case DType::kUInt32:
      StoreRounded<uint32_t>(v, n, t, begin);
      return true;
    case DType::kFloat64: {
      double* p = reinterpret_cast<double*>(t.mutable_bytes().data()) + begin;
      std::copy(v, v + n, p);
      return true;
    }
    case DType::kBool: {
      uint8_t* p = t.mutable_bytes().data() + begin;
      for (int64_t i = 0; i < n; ++i) p[i] = v[i] != 0.0 ? 1 : 0;
      return true;
    }
    case DType::kFloat32: {
      float* p = reinterpret_cast<float*>(t.mutable_bytes().data()) + begin;
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(v[i]);
      return true;
    }
    case DType::kFloat16: {
      uint16_t* p = reinterpret_cast<uint16_t*>(t.mutable_bytes().data()) + begin;
      for (int64_t i = 0; i < n; ++i) p[i] = NarrowToHalf(static_cast<float>(v[i]));
      return true;
    }
    default:
      return false;
  }
}

// `in`'s values read as floats (FloatsIn) and stored in `type`, a Float32
// or Float16 (FloatsOut): for a float or quantized `in`, the real value
// rounded to float, then to the output's precision.
Tensor FloatsAs(const Tensor& in, const TensorType& type) {
  FloatsOut y(type);
  ReadRealsInto(in, y.data());  // what FloatsIn reads, straight into the output
  return y.Finish();
}

// out[i] = convert(in[i]) for the n stored elements, over the threads, with
// the widest vectors the CPU has.
template <typename In, typename Out, typename F>
void ConvertEach(const Tensor& in, Tensor& out, F convert) {
  const In* src = reinterpret_cast<const In*>(in.bytes().data());  // operator new: aligned
  Out* dst = reinterpret_cast<Out*>(out.mutable_bytes().data());
  ParallelFor(in.num_elements(), kElementwiseGrain, [=](int64_t first, int64_t last) {
    WithWidestVectors([=]() __attribute__((always_inline)) {
      const In* __restrict a = src;
      Out* __restrict b = dst;
      for (int64_t i = first; i < last; ++i) b[i] = convert(a[i]);
    });
  });
}

// The conversions one machine operation does exactly as LoadValues then
// StoreValues (the double in between is exact for these sources): 8- and
// 16-bit storage to Float32 (exact), Int32 and UInt32 storage to Float32 (one
// rounding in the current mode, as double to float), Float32 to Int32
// (truncated, NaN to 0, saturated); and Int64/UInt64 to Float32, rounded
// once (LoadValues's double would round a value beyond 2^53 first). False
// for any other pair.
bool CastDirectly(const Tensor& in, Tensor& out) {
  const DType from = in.type().dtype, to = out.type().dtype;
  if (to == DType::kFloat32) {
    auto widen = [](auto v) { return static_cast<float>(v); };
    switch (from) {
      case DType::kQUInt8:
      case DType::kQUInt4:
      case DType::kBool:
        ConvertEach<uint8_t, float>(in, out, widen);
        return true;
      case DType::kQInt8:
      case DType::kQInt4:
        ConvertEach<int8_t, float>(in, out, widen);
        return true;
      case DType::kQUInt16:
        ConvertEach<uint16_t, float>(in, out, widen);
        return true;
      case DType::kQInt16:
        ConvertEach<int16_t, float>(in, out, widen);
        return true;
      case DType::kInt32:
      case DType::kQInt32:
        ConvertEach<int32_t, float>(in, out, widen);
        return true;
      case DType::kUInt32:
        ConvertEach<uint32_t, float>(in, out, widen);
        return true;
      // 64-bit integers to float in one rounding (through double would
      // round twice beyond 2^53).
      case DType::kInt64:
        ConvertEach<int64_t, float>(in, out, widen);
        return true;
      case DType::kUInt64:
        ConvertEach<uint64_t, float>(in, out, widen);
        return true;
      default:
        return false;
    }
  }
  if (from == DType::kFloat32 && to == DType::kInt32) {
    // Every float at or past +-2^31 saturates: no float lies strictly
    // between 2^31 - 128 and 2^31.
    ConvertEach<float, int32_t>(in, out, [](float v) {
      const float t = v != v ? 0.0f : v;
      return t >= 2147483648.0f    ? INT32_MAX
             : t <= -2147483648.0f ? INT32_MIN
                                   : static_cast<int32_t>(t);
    });
    return true;
  }
  return false;
}

// v rounded to float toward zero, with the lowest significand bit set when
// that is inexact ("round to odd"). Rounding the result to nearest even in a
// format with at least two bits fewer (Float16, BFloat16) gives what
// rounding v itself would: a Float64 cast to those types rounds once, as
// ONNX's reference (numpy) does, not twice through float.
float RoundToOddFloat(double v) {
  if (!std::isfinite(v)) return static_cast<float>(v);
  float f = static_cast<float>(v);
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  if (static_cast<double>(f) != v) f = std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
  return f;
}

// An integer or Bool element as a 128-bit integer (exact for every one).
bool LoadInteger(const Tensor& t, int64_t i, __int128* v) {
  const uint8_t* p = t.bytes().data() + i * ElementSize(t.type().dtype);
  auto load = [p](auto x) {
    std::memcpy(&x, p, sizeof(x));
    return static_cast<__int128>(x);
  };
  switch (t.type().dtype) {
    case DType::kBool:
    case DType::kQUInt8:
    case DType::kQUInt4:
      *v = load(uint8_t{});
      return true;
    case DType::kQInt8:
    case DType::kQInt4:
      *v = load(int8_t{});
      return true;
    case DType::kQUInt16:
      *v = load(uint16_t{});
      return true;
    case DType::kQInt16:
      *v = load(int16_t{});
      return true;
    case DType::kInt32:
    case DType::kQInt32:
      *v = load(int32_t{});
      return true;
    case DType::kUInt32:
      *v = load(uint32_t{});
      return true;
    case DType::kInt64:
      *v = load(int64_t{});
      return true;
    case DType::kUInt64:
      *v = load(uint64_t{});
      return true;
    default:
      return false;
  }
}

// A cast between integer (or Bool) types of which one is Int64 or UInt64,
// whose values double may not hold: through 128-bit integers, saturated as
// SetValue saturates (Bool: not zero). False, nothing written, otherwise.
bool CastIntegers(const Tensor& in, Tensor& out) {
  const DType from = in.type().dtype, to = out.type().dtype;
  auto wide = [](DType t) { return t == DType::kInt64 || t == DType::kUInt64; };
  if (!(wide(from) || wide(to)) || IsFloat(to) || !IsConcrete(to)) return false;
  __int128 probe = 0;
  if (in.num_elements() > 0 && !LoadInteger(in, 0, &probe)) return false;
  const __int128 lo = to == DType::kBool ? 0 : StorageMin(to);
  const __int128 hi = to == DType::kUInt64 ? static_cast<__int128>(UINT64_MAX) : StorageMax(to);
  const int size = ElementSize(to);
  uint8_t* bytes = out.mutable_bytes().data();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    __int128 v = 0;
    LoadInteger(in, i, &v);
    v = to == DType::kBool ? (v != 0) : std::clamp(v, lo, hi);
    const uint64_t low = static_cast<uint64_t>(v);  // two's complement: the low bytes
    std::memcpy(bytes + i * size, &low, static_cast<size_t>(size));
  }
  return true;
}

// Cast converts stored numbers: float to an integer type truncates toward
// zero, anything to Bool is "not zero", other conversions round and saturate.
// Quantized storage values are converted as the integers they are.
Result Cast(const KernelContext& c) {
  const Tensor& in = c.In(0);
  const TensorType& ot = c.outputs[0];
  std::vector<Tensor> result;
  // The same dtype: the stored values themselves. Float16 <-> Float32: as
  // below (a float widened exactly; a float narrowed as SetValue does).
  if (in.type().dtype == ot.dtype && IsConcrete(ot.dtype)) {
    result.push_back(*Tensor::FromBytes(ot, in.bytes()));
    return result;
  }
  if ((in.type().dtype == DType::kFloat16 && ot.dtype == DType::kFloat32) ||
      (in.type().dtype == DType::kFloat32 && ot.dtype == DType::kFloat16)) {
    result.push_back(FloatsAs(in, ot));
    return result;
  }
  Tensor out = Tensor::Uninitialized(ot);  // every path below writes every element
  if (CastDirectly(in, out) || CastIntegers(in, out)) {
    result.push_back(std::move(out));
    return result;
  }
  if (in.type().dtype == DType::kFloat64 &&
      (ot.dtype == DType::kFloat16 || ot.dtype == DType::kBFloat16)) {
    const double* src = reinterpret_cast<const double*>(in.bytes().data());  // aligned
    uint16_t* dst = reinterpret_cast<uint16_t*>(out.mutable_bytes().data());
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const float f = RoundToOddFloat(src[i]);
      dst[i] = ot.dtype == DType::kFloat16 ? FloatToHalf(f) : FloatToBFloat16(f);
    }
    result.push_back(std::move(out));
    return result;
  }
  const bool truncate = IsFloat(in.type().dtype) && !IsFloat(ot.dtype) && ot.dtype != DType::kBool;
  // Typed loops over blocks of values, as GetValue and SetValue convert one.
  constexpr int64_t kBlock = 4096;
  std::atomic<bool> typed{true};
  ParallelFor(in.num_elements(), kElementwiseGrain, [&](int64_t first, int64_t last) {
    double v[kBlock];
    for (int64_t begin = first; begin < last && typed; begin += kBlock) {
      const int64_t n = std::min(kBlock, last - begin);
      if (!LoadValues(in, begin, n, v)) {
        typed = false;
        return;
      }
      if (truncate) {
        for (int64_t i = 0; i < n; ++i) v[i] = std::trunc(v[i]);
      }
      if (!StoreValues(v, n, out, begin)) typed = false;
    }
  });
  if (!typed) {  // a dtype the loops do not cover: element by element
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const double v = in.GetValue(i);
      out.SetValue(i, truncate ? std::trunc(v) : v);
    }
  }
  result.push_back(std::move(out));
  return result;
}

// QNN_Cast, Quantize and Dequantize keep the real value; the output type's
// encoding does the rest (q = round(r / stepsize) + zero_offset, saturated;
// a float output rounds to its precision, an Int32 one to an integer).
Result Requantize(const KernelContext& c) {
  std::vector<Tensor> result;
  const TensorType& ot = c.outputs[0];
  // Through floats when that is exact: a float or quantized value read as
  // float (ReadRealsAs rounds its real value once), stored in a float type
  // (a Float16 from that float, as MakeTensor does) or quantized (SetReal
  // divides the value rounded to float).
  if (FloatComputable(*c.inputs[0].type) &&
      (ot.dtype == DType::kFloat32 || ot.dtype == DType::kFloat16 || IsQuantized(ot.dtype))) {
    if (!IsQuantized(ot.dtype)) {
      result.push_back(FloatsAs(c.In(0), ot));
      return result;
    }
    const FloatsIn x(c.In(0));
    Tensor out = Tensor::Uninitialized(ot);  // QuantizeFloats writes all or fails
    if (QuantizeFloats(x.span(), out)) {
      result.push_back(std::move(out));
      return result;
    }
  }
  result.push_back(MakeTensor(c.outputs[0], ReadReals(c.In(0))));
  return result;
}

}  // namespace

void RegisterConvertKernels(KernelTable& t) {
  t.emplace("Cast", Cast);
  t.emplace("QNN_Cast", Requantize);
  t.emplace("Quantize", Requantize);
  t.emplace("Dequantize", Requantize);
}

}  // namespace egret::backend_internal
