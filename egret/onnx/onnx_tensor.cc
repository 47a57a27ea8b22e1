#include <cmath>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/executor/transpose.h"
#include "egret/graph/checked_math.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/support/status_macros.h"

namespace egret::onnx_internal {
namespace {

using P = onnx::TensorProto;

// ONNX's 4-bit element types (onnx.proto since ONNX 1.16; Debian's 1.12
// headers predate them): two elements to a byte, the first in the low nibble.
constexpr int32_t kOnnxUInt4 = 21;
constexpr int32_t kOnnxInt4 = 22;

// `count` 4-bit elements from `packed` (low nibble first), one per byte,
// sign-extended when `is_signed`.
std::vector<uint8_t> UnpackNibbles(absl::Span<const uint8_t> packed, size_t count, bool is_signed) {
  std::vector<uint8_t> out(count);
  for (size_t i = 0; i < count; ++i) {
    uint8_t v = static_cast<uint8_t>(UnpackBits(packed.data(), static_cast<int64_t>(i), 4));
    if (is_signed && v >= 8) v = static_cast<uint8_t>(v | 0xf0);
    out[i] = v;
  }
  return out;
}

template <typename T>
void StoreAt(std::vector<uint8_t>& bytes, size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

}  // namespace

uint32_t UnpackBits(const uint8_t* bytes, int64_t i, int bits) {
  const int64_t bit = i * bits;
  uint32_t v = bytes[bit / 8] >> (bit % 8);
  if (bit % 8 + bits > 8) v |= static_cast<uint32_t>(bytes[bit / 8 + 1]) << (8 - bit % 8);
  return v & ((1u << bits) - 1);
}

void PackBits(uint8_t* bytes, int64_t i, int bits, uint32_t v) {
  const int64_t bit = i * bits;
  const uint32_t masked = v & ((1u << bits) - 1);
  bytes[bit / 8] = static_cast<uint8_t>(bytes[bit / 8] | (masked << (bit % 8)));
  if (bit % 8 + bits > 8) {
    bytes[bit / 8 + 1] = static_cast<uint8_t>(bytes[bit / 8 + 1] | (masked >> (8 - bit % 8)));
  }
}

absl::StatusOr<DType> DTypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case P::FLOAT:
      return DType::kFloat32;
    case P::FLOAT16:
      return DType::kFloat16;
    case P::INT32:
      return DType::kInt32;
    case P::INT64:
      return DType::kInt64;
    case P::BOOL:
      return DType::kBool;
    case P::UINT8:
      return DType::kQUInt8;
    case P::INT8:
      return DType::kQInt8;
    case P::UINT16:
      return DType::kQUInt16;
    case P::INT16:
      return DType::kQInt16;
    case P::DOUBLE:
      return DType::kFloat64;
    case P::UINT32:
      return DType::kUInt32;
    case P::UINT64:
      return DType::kUInt64;
    case P::BFLOAT16:
      return DType::kBFloat16;
    case P::STRING:
      return DType::kString;
    case kOnnxUInt4:
      return DType::kQUInt4;
    case kOnnxInt4:
      return DType::kQInt4;
    default:
      return absl::UnimplementedError(
          absl::StrCat("element type ", OnnxTypeName(elem_type), " is not supported by egret"));
  }
}

std::optional<int32_t> OnnxFromDType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return P::FLOAT;
    case DType::kFloat16:
      return P::FLOAT16;
    case DType::kInt32:
    case DType::kQInt32:
      return P::INT32;
    case DType::kInt64:
      return P::INT64;
    case DType::kBool:
      return P::BOOL;
    case DType::kQUInt8:
      return P::UINT8;
    case DType::kQInt8:
      return P::INT8;
    case DType::kQUInt16:
      return P::UINT16;
    case DType::kQInt16:
      return P::INT16;
    case DType::kFloat64:
      return P::DOUBLE;
    case DType::kUInt32:
      return P::UINT32;
    case DType::kUInt64:
      return P::UINT64;
    case DType::kBFloat16:
      return P::BFLOAT16;
    case DType::kString:
      return P::STRING;
    case DType::kQUInt4:
      return kOnnxUInt4;
    case DType::kQInt4:
      return kOnnxInt4;
    default:
      return std::nullopt;
  }
}

std::string OnnxTypeName(int32_t elem_type) {
  if (elem_type == kOnnxUInt4) return "UINT4";
  if (elem_type == kOnnxInt4) return "INT4";
  if (onnx::TensorProto_DataType_IsValid(elem_type)) {
    return onnx::TensorProto_DataType_Name(static_cast<P::DataType>(elem_type));
  }
  return absl::StrCat(elem_type);
}

absl::StatusOr<TensorType> MakeType(int32_t elem_type, Dims dims) {
  absl::StatusOr<DType> dt = DTypeFromOnnx(elem_type);
  if (!dt.ok()) return dt.status();
  EGRET_RETURN_IF_ERROR(CheckShape(dims));
  return TensorType(*dt, std::move(dims));
}

absl::StatusOr<std::optional<TensorType>> ContainerTypeFromOnnx(const onnx::TypeProto& tp) {
  auto tensor_elem = [](const onnx::TypeProto& e) -> absl::StatusOr<DType> {
    if (!e.has_tensor_type()) {
      return absl::UnimplementedError(
          "a sequence or optional of anything but tensors is not supported by egret");
    }
    return DTypeFromOnnx(e.tensor_type().elem_type());
  };
  if (tp.has_sequence_type()) {
    EGRET_ASSIGN_OR_RETURN(DType dt, tensor_elem(tp.sequence_type().elem_type()));
    return TensorType::Container(ValueKind::kSequence, dt);
  }
  if (tp.has_optional_type()) {
    const onnx::TypeProto& e = tp.optional_type().elem_type();
    if (e.has_sequence_type()) {
      EGRET_ASSIGN_OR_RETURN(DType dt, tensor_elem(e.sequence_type().elem_type()));
      return TensorType::Container(ValueKind::kOptionalSequence, dt);
    }
    EGRET_ASSIGN_OR_RETURN(DType dt, tensor_elem(e));
    return TensorType::Container(ValueKind::kOptionalTensor, dt);
  }
  if (tp.has_map_type() || tp.has_sparse_tensor_type()) {
    return absl::UnimplementedError("map and sparse tensor values are not supported by egret");
  }
  return std::optional<TensorType>();
}

bool TypeToOnnx(const TensorType& t, onnx::TypeProto* tp) {
  tp->Clear();
  const std::optional<int32_t> et = OnnxFromDType(t.dtype);
  if (!et) return false;
  onnx::TypeProto* tensor = tp;
  switch (t.kind) {
    case ValueKind::kTensor:
      break;
    case ValueKind::kSequence:
      tensor = tp->mutable_sequence_type()->mutable_elem_type();
      break;
    case ValueKind::kOptionalTensor:
      tensor = tp->mutable_optional_type()->mutable_elem_type();
      break;
    case ValueKind::kOptionalSequence:
      tensor = tp->mutable_optional_type()
                   ->mutable_elem_type()
                   ->mutable_sequence_type()
                   ->mutable_elem_type();
      break;
  }
  tensor->mutable_tensor_type()->set_elem_type(*et);
  if (t.is_tensor()) {
    auto* shape = tensor->mutable_tensor_type()->mutable_shape();
    for (int64_t d : t.dims) shape->add_dim()->set_dim_value(d);
  }
  return true;
}

absl::StatusOr<Tensor> SequenceFromProto(const onnx::SequenceProto& proto, const TensorType& type) {
  if (type.kind != ValueKind::kSequence) {
    return absl::InvalidArgumentError(
        absl::StrCat("a sequence where ", type.ToString(), " is wanted"));
  }
  if (proto.elem_type() != onnx::SequenceProto::TENSOR &&
      !(proto.elem_type() == onnx::SequenceProto::UNDEFINED && proto.tensor_values_size() == 0)) {
    return absl::UnimplementedError("a sequence of anything but tensors is not supported by egret");
  }
  std::vector<Tensor> elements;
  for (const onnx::TensorProto& t : proto.tensor_values()) {
    EGRET_ASSIGN_OR_RETURN(Tensor e, TensorFromProto(t));
    elements.push_back(std::move(e));
  }
  return Tensor::Container(type, std::move(elements));
}

absl::StatusOr<Tensor> OptionalFromProto(const onnx::OptionalProto& proto, const TensorType& type) {
  if (!type.is_optional()) {
    return absl::InvalidArgumentError(
        absl::StrCat("an optional where ", type.ToString(), " is wanted"));
  }
  std::vector<Tensor> elements;
  if (type.kind == ValueKind::kOptionalSequence && proto.has_sequence_value()) {
    EGRET_ASSIGN_OR_RETURN(
        Tensor e, SequenceFromProto(proto.sequence_value(),
                                    TensorType::Container(ValueKind::kSequence, type.dtype)));
    elements.push_back(std::move(e));
  } else if (type.kind == ValueKind::kOptionalTensor && proto.has_tensor_value()) {
    EGRET_ASSIGN_OR_RETURN(Tensor e, TensorFromProto(proto.tensor_value()));
    elements.push_back(std::move(e));
  } else if (proto.has_tensor_value() || proto.has_sequence_value() ||
             proto.has_sparse_tensor_value() || proto.has_map_value() ||
             proto.has_optional_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the optional's value is not of type ", type.ToString()));
  }
  return Tensor::Container(type, std::move(elements));
}

absl::StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto) {
  std::string label = proto.name().empty() ? "tensor" : absl::StrCat("tensor '", proto.name(), "'");
  if (proto.data_location() == P::EXTERNAL || proto.external_data_size() > 0) {
    return absl::UnimplementedError(
        absl::StrCat(label, " has external data, which is read only with the model from its file"));
  }
  if (proto.segment().begin() != 0 || proto.segment().end() != 0) {
    return absl::UnimplementedError(absl::StrCat(label, " is segmented (not supported)"));
  }
  if (proto.dims_size() > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s has rank %d, more than %d", label, proto.dims_size(), kMaxRank));
  }
  Dims dims(proto.dims().begin(), proto.dims().end());
  if (absl::Status s = CheckShape(dims); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s", label, s.message()));
  }
  const int64_t n = SaturatingProduct(dims);
  absl::StatusOr<DType> dt = DTypeFromOnnx(proto.data_type());
  if (!dt.ok()) return absl::UnimplementedError(absl::StrCat(label, ": ", dt.status().message()));
  TensorType type(*dt, std::move(dims));
  if (IsString(*dt)) {
    if (proto.string_data_size() != n) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: holds %d strings, %s needs %d", label,
                                                        proto.string_data_size(), type.ToString(),
                                                        n));
    }
    return Tensor::FromStrings(
        type, std::vector<std::string>(proto.string_data().begin(), proto.string_data().end()));
  }
  const size_t esize = static_cast<size_t>(ElementSize(*dt));
  const size_t count = static_cast<size_t>(n);
  if (StorageBits(*dt) == 4) {
    // Packed two to a byte in raw_data, or one packed byte per int32_data entry.
    const size_t packed = (count + 1) / 2;
    std::vector<uint8_t> bytes;
    if (proto.has_raw_data()) {
      const std::string& raw = proto.raw_data();
      if (raw.size() != packed) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: raw_data has %d bytes, %s needs %d", label, raw.size(), type.ToString(), packed));
      }
      bytes.assign(raw.begin(), raw.end());
    } else {
      if (static_cast<size_t>(proto.int32_data_size()) != packed) {
        return absl::InvalidArgumentError(absl::StrFormat("%s: holds %d packed values, %s needs %d",
                                                          label, proto.int32_data_size(),
                                                          type.ToString(), packed));
      }
      for (int32_t v : proto.int32_data()) bytes.push_back(static_cast<uint8_t>(v));
    }
    return Tensor::FromBytes(type, UnpackNibbles(bytes, count, IsQuantizedSigned(*dt)));
  }
  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    if (raw.size() != count * esize) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: raw_data has %d bytes, %s needs %d",
                                                        label, raw.size(), type.ToString(),
                                                        count * esize));
    }
    return Tensor::FromBytes(
        type, absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(raw.data()), raw.size()));
  }
  auto mismatch = [&](int have) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: holds %d values, %s needs %d", label, have, type.ToString(), count));
  };
  // The values are counted before anything is allocated: the dims alone may
  // ask for far more than the file holds.
  // The typed field each element type uses (onnx.proto): float_data,
  // double_data, int64_data, uint64_data (UINT32 and UINT64), else
  // int32_data (INT32, the narrow integers, FLOAT16 and BFLOAT16 bits).
  const int have = proto.data_type() == P::FLOAT    ? proto.float_data_size()
                   : proto.data_type() == P::DOUBLE ? proto.double_data_size()
                   : proto.data_type() == P::INT64  ? proto.int64_data_size()
                   : proto.data_type() == P::UINT32 || proto.data_type() == P::UINT64
                       ? proto.uint64_data_size()
                       : proto.int32_data_size();
  if (static_cast<size_t>(have) != count) return mismatch(have);
  std::vector<uint8_t> bytes(count * esize);
  switch (proto.data_type()) {
    case P::FLOAT:
      if (static_cast<size_t>(proto.float_data_size()) != count) {
        return mismatch(proto.float_data_size());
      }
      for (size_t i = 0; i < count; ++i) StoreAt<float>(bytes, i, proto.float_data(i));
      break;
    case P::INT64:
      if (static_cast<size_t>(proto.int64_data_size()) != count) {
        return mismatch(proto.int64_data_size());
      }
      for (size_t i = 0; i < count; ++i) StoreAt<int64_t>(bytes, i, proto.int64_data(i));
      break;
    case P::DOUBLE:
      for (size_t i = 0; i < count; ++i) StoreAt<double>(bytes, i, proto.double_data(i));
      break;
    case P::UINT64:
      for (size_t i = 0; i < count; ++i) StoreAt<uint64_t>(bytes, i, proto.uint64_data(i));
      break;
    case P::UINT32:
      for (size_t i = 0; i < count; ++i) {
        StoreAt<uint32_t>(bytes, i, static_cast<uint32_t>(proto.uint64_data(i)));
      }
      break;
    default:  // INT32, FLOAT16/BFLOAT16 (bits), and the narrow integer types use int32_data
      if (static_cast<size_t>(proto.int32_data_size()) != count) {
        return mismatch(proto.int32_data_size());
      }
      for (size_t i = 0; i < count; ++i) {
        int32_t v = proto.int32_data(i);
        switch (esize) {
          case 1:
            bytes[i] = static_cast<uint8_t>(v);
            break;
          case 2:
            StoreAt<uint16_t>(bytes, i, static_cast<uint16_t>(v));
            break;
          default:
            StoreAt<int32_t>(bytes, i, v);
        }
      }
  }
  return Tensor::FromBytes(type, bytes);
}

void TensorToProto(const Tensor& t, onnx::TensorProto* proto) {
  proto->Clear();
  for (int64_t d : t.type().dims) proto->add_dims(d);
  proto->set_data_type(OnnxFromDType(t.type().dtype).value_or(P::UNDEFINED));
  if (IsString(t.type().dtype)) {
    for (const std::string& e : t.strings()) proto->add_string_data(e);
    return;
  }
  if (StorageBits(t.type().dtype) == 4) {
    std::string packed((t.bytes().size() + 1) / 2, '\0');
    for (size_t i = 0; i < t.bytes().size(); ++i) {
      PackBits(reinterpret_cast<uint8_t*>(packed.data()), static_cast<int64_t>(i), 4, t.bytes()[i]);
    }
    proto->set_raw_data(std::move(packed));
    return;
  }
  proto->set_raw_data(reinterpret_cast<const char*>(t.bytes().data()), t.bytes().size());
}

Tensor TransposeTensor(const Tensor& t, absl::Span<const int> perm) {
  Tensor out(t.type().Permuted(std::vector<int>(perm.begin(), perm.end())));
  if (t.num_elements() == 0) return out;
  // False when the elements have no bytes (strings, containers): then the
  // permuted type alone.
  TransposeStoredElements(t, std::vector<int64_t>(perm.begin(), perm.end()), out);
  return out;
}

namespace {
int64_t Product(const Dims& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) p *= d[i];
  return p;
}
}  // namespace

Tensor ReshapeTensor(const Tensor& t, Dims dims) {
  TensorType type = t.type();
  type.dims = std::move(dims);
  if (const auto& q = t.type().per_axis) {
    // The channels stay where they are when some new axis has the old axis's
    // size and the same number of elements after it.
    const Dims& old = t.type().dims;
    const int64_t inner = Product(old, q->axis + 1, old.size());
    type.per_axis.reset();
    for (int a = 0; a < type.rank(); ++a) {
      if (type.dims[a] == old[q->axis] && Product(type.dims, a + 1, type.dims.size()) == inner) {
        (void)type.SetPerAxis(a, q->stepsizes, q->zero_offsets, q->block_size);
        break;
      }
    }
    if (!type.per_axis) type.ClearQuantization();
  }
  return *Tensor::FromBytes(type, t.bytes());
}

Tensor SplatTensor(const Tensor& t, TensorType type) {
  const size_t esize = static_cast<size_t>(ElementSize(type.dtype));
  std::vector<uint8_t> bytes(static_cast<size_t>(type.num_elements()) * esize);
  if (t.num_elements() > 0 && !bytes.empty()) {
    const uint8_t* v = t.bytes().data();
    bool zero = true;
    for (size_t b = 0; b < esize; ++b) zero = zero && v[b] == 0;
    if (!zero) {
      for (size_t off = 0; off < bytes.size(); off += esize) std::memcpy(&bytes[off], v, esize);
    }
  }
  return *Tensor::FromBytes(std::move(type), bytes);
}

std::vector<int64_t> TensorInts(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  const uint8_t* p = t.bytes().data();
  for (size_t i = 0; i < out.size(); ++i) {
    if (t.type().dtype == DType::kInt64) {
      std::memcpy(&out[i], p + i * 8, 8);
    } else if (t.type().dtype == DType::kInt32) {
      int32_t v;
      std::memcpy(&v, p + i * 4, 4);
      out[i] = v;
    } else {
      double v = t.GetValue(static_cast<int64_t>(i));
      out[i] = !std::isfinite(v) ? 0
               : v >= 9e18       ? INT64_MAX
               : v <= -9e18      ? INT64_MIN
                                 : std::llround(v);
    }
  }
  return out;
}

}  // namespace egret::onnx_internal
