#include "egret/graph/tensor.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"

namespace egret {
namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Rounds to nearest (ties away from zero, as std::lround) and saturates.
template <typename T>
T SaturateRound(double v, int64_t lo, int64_t hi) {
  if (std::isnan(v)) return 0;
  double r = std::round(v);
  if (r <= static_cast<double>(lo)) return static_cast<T>(lo);
  if (r >= static_cast<double>(hi)) return static_cast<T>(hi);
  return static_cast<T>(r);
}

}  // namespace

uint16_t FloatToHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mant = x & 0x7fffffu;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff);
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

uint16_t FloatToBFloat16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7fc0u);
  const uint32_t rounding = ((x >> 16) & 1u) + 0x7fffu;
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float BFloat16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

Tensor::Tensor(TensorType type) : type_(std::move(type)) {
  if (IsString(type_.dtype)) strings_.resize(static_cast<size_t>(type_.num_elements()));
  bytes_.resize(static_cast<size_t>(type_.byte_size()));
  if (!bytes_.empty()) std::memset(bytes_.data(), 0, bytes_.size());
}

Tensor::Tensor(const Tensor& other)
    : type_(other.type_), elements_(other.elements_), strings_(other.strings_) {
  bytes_.resize(other.bytes_.size());
  if (!bytes_.empty()) std::memcpy(bytes_.data(), other.bytes_.data(), bytes_.size());
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) {
    type_ = other.type_;
    bytes_.clear();  // nothing for a reallocation to move
    bytes_.resize(other.bytes_.size());
    if (!bytes_.empty()) std::memcpy(bytes_.data(), other.bytes_.data(), bytes_.size());
    elements_ = other.elements_;
    strings_ = other.strings_;
  }
  return *this;
}

absl::StatusOr<Tensor> Tensor::FromStrings(TensorType type, std::vector<std::string> strings) {
  if (!type.is_tensor() || !IsString(type.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tensor::FromStrings of a ", type.ToString(), ", not a String tensor"));
  }
  if (static_cast<int64_t>(strings.size()) != type.num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(type.ToString(), " holds ", type.num_elements(),
                                                   " strings, got ", strings.size()));
  }
  Tensor t(TensorType{});
  t.type_ = std::move(type);
  t.strings_ = std::move(strings);
  return t;
}

absl::StatusOr<Tensor> Tensor::Container(TensorType type, std::vector<Tensor> elements) {
  if (type.is_tensor()) return absl::InvalidArgumentError("Tensor::Container of a tensor type");
  if (type.is_optional() && elements.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(type.ToString(), " holds at most one value, got ", elements.size()));
  }
  const ValueKind want =
      type.kind == ValueKind::kOptionalSequence ? ValueKind::kSequence : ValueKind::kTensor;
  for (size_t i = 0; i < elements.size(); ++i) {
    const TensorType& e = elements[i].type();
    if (e.kind != want || e.dtype != type.dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat(type.ToString(), " cannot hold element ", i, " of type ", e.ToString()));
    }
  }
  Tensor t(std::move(type));
  t.elements_ = std::move(elements);
  return t;
}

Tensor Tensor::Uninitialized(TensorType type) {
  Tensor t(TensorType{});
  t.type_ = std::move(type);
  t.bytes_.resize(static_cast<size_t>(t.type_.byte_size()));  // default-initialized: no fill
  return t;
}

bool Tensor::Retype(TensorType type) {
  if (IsString(type_.dtype) || IsString(type.dtype)) {
    if (type.dtype != type_.dtype || !type.is_tensor() ||
        type.num_elements() != type_.num_elements()) {
      return false;
    }
    type_ = std::move(type);
    return true;
  }
  if (!IsConcrete(type.dtype) || type.byte_size() != static_cast<int64_t>(bytes_.size()) ||
      !type.is_tensor() || !type_.is_tensor()) {
    return false;
  }
  type_ = std::move(type);
  return true;
}

absl::StatusOr<Tensor> Tensor::FromBytes(TensorType type, absl::Span<const uint8_t> bytes) {
  if (!IsConcrete(type.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor dtype ", std::string(DTypeName(type.dtype)), " cannot hold data"));
  }
  if (static_cast<int64_t>(bytes.size()) != type.byte_size()) {
    return absl::InvalidArgumentError(absl::StrCat("tensor of type ", type.ToString(), " needs ",
                                                   type.byte_size(), " bytes, got ", bytes.size()));
  }
  if (StorageBits(type.dtype) == 4) {
    // One 4-bit element per byte: a byte outside the range is not one.
    const int lo = static_cast<int>(StorageMin(type.dtype));
    const int hi = static_cast<int>(StorageMax(type.dtype));
    const bool is_signed = IsQuantizedSigned(type.dtype);
    for (size_t i = 0; i < bytes.size(); ++i) {
      const int v = is_signed ? static_cast<int8_t>(bytes[i]) : bytes[i];
      if (v < lo || v > hi) {
        return absl::InvalidArgumentError(
            absl::StrCat("element ", i, " of a ", std::string(DTypeName(type.dtype)), " tensor is ",
                         v, ", outside [", lo, ", ", hi, "]"));
      }
    }
  }
  Tensor t = Uninitialized(std::move(type));
  std::copy(bytes.begin(), bytes.end(), t.bytes_.begin());
  return t;
}

Tensor Tensor::FromValues(TensorType type, absl::Span<const double> values) {
  Tensor t(std::move(type));
  int64_t n = std::min<int64_t>(t.num_elements(), static_cast<int64_t>(values.size()));
  for (int64_t i = 0; i < n; ++i) t.SetValue(i, values[i]);
  return t;
}

double Tensor::GetValue(int64_t i) const {
  const uint8_t* p = bytes_.data() + i * ElementSize(type_.dtype);
  switch (type_.dtype) {
    case DType::kQUInt8:
    case DType::kQUInt4:
    case DType::kBool:
      return Load<uint8_t>(p);
    case DType::kQInt8:
    case DType::kQInt4:
      return Load<int8_t>(p);
    case DType::kQUInt16:
      return Load<uint16_t>(p);
    case DType::kQInt16:
      return Load<int16_t>(p);
    case DType::kFloat16:
      return HalfToFloat(Load<uint16_t>(p));
    case DType::kFloat32:
      return Load<float>(p);
    case DType::kInt32:
    case DType::kQInt32:
      return Load<int32_t>(p);
    case DType::kInt64:
      return static_cast<double>(Load<int64_t>(p));
    case DType::kFloat64:
      return Load<double>(p);
    case DType::kUInt32:
      return Load<uint32_t>(p);
    case DType::kUInt64:
      return static_cast<double>(Load<uint64_t>(p));
    case DType::kBFloat16:
      return BFloat16ToFloat(Load<uint16_t>(p));
    default:
      return 0.0;
  }
}

double Tensor::GetReal(int64_t i) const {
  double q = GetValue(i);
  if (!IsQuantized(type_.dtype)) return q;
  if (type_.per_axis) {
    const int64_t c = type_.ChannelOf(i);
    return static_cast<double>(type_.StepsizeAt(c)) * (q - type_.ZeroOffsetAt(c));
  }
  return static_cast<double>(type_.stepsize) * (q - type_.zero_offset);
}

void Tensor::SetValue(int64_t i, double v) {
  uint8_t* p = bytes_.data() + i * ElementSize(type_.dtype);
  DType t = type_.dtype;
  switch (t) {
    case DType::kQUInt8:
    case DType::kQUInt4:
      Store(p, SaturateRound<uint8_t>(v, StorageMin(t), StorageMax(t)));
      break;
    case DType::kBool:
      Store<uint8_t>(p, v != 0.0 ? 1 : 0);
      break;
    case DType::kQInt8:
    case DType::kQInt4:
      Store(p, SaturateRound<int8_t>(v, StorageMin(t), StorageMax(t)));
      break;
    case DType::kQUInt16:
      Store(p, SaturateRound<uint16_t>(v, StorageMin(t), StorageMax(t)));
      break;
    case DType::kQInt16:
      Store(p, SaturateRound<int16_t>(v, StorageMin(t), StorageMax(t)));
      break;
    case DType::kFloat16:
      Store(p, FloatToHalf(static_cast<float>(v)));
      break;
    case DType::kFloat32:
      Store(p, static_cast<float>(v));
      break;
    case DType::kInt32:
    case DType::kQInt32:
      Store(p, SaturateRound<int32_t>(v, StorageMin(t), StorageMax(t)));
      break;
    case DType::kInt64:
      Store(p, SaturateRound<int64_t>(v, StorageMin(t), StorageMax(t)));
      break;
    case DType::kFloat64:
      Store(p, v);
      break;
    case DType::kUInt32:
      Store(p, SaturateRound<uint32_t>(v, StorageMin(t), StorageMax(t)));
      break;
    case DType::kUInt64: {
      // 2^64 itself is a double; every double below it converts exactly.
      constexpr double kTwo64 = 18446744073709551616.0;
      const double r = std::isnan(v) ? 0.0 : std::round(v);
      Store(p, r <= 0.0      ? uint64_t{0}
               : r >= kTwo64 ? std::numeric_limits<uint64_t>::max()
                             : static_cast<uint64_t>(r));
      break;
    }
    case DType::kBFloat16:
      Store(p, FloatToBFloat16(static_cast<float>(v)));
      break;
    default:
      break;
  }
}

void Tensor::SetReal(int64_t i, double r) {
  if (!IsQuantized(type_.dtype)) {
    SetValue(i, r);
    return;
  }
  const int64_t c = type_.ChannelOf(i);
  SetValue(i, QuantizeReal(r, type_.StepsizeAt(c), type_.ZeroOffsetAt(c)));
}

float RoundHalfToEven(float x) {
  if (!std::isfinite(x)) return x;
  const float f = std::floor(x);
  const float diff = x - f;  // exact: the fraction of a float is a float
  if (diff > 0.5f) return f + 1.0f;
  if (diff < 0.5f) return f;
  return std::fmod(f, 2.0f) == 0.0f ? f : f + 1.0f;
}

double QuantizeReal(double r, float stepsize, int32_t zero_offset) {
  if (std::isnan(r)) return zero_offset;
  // As ONNX Runtime: the division in float32, halves to even.
  return static_cast<double>(RoundHalfToEven(static_cast<float>(r) / stepsize)) + zero_offset;
}

}  // namespace egret
