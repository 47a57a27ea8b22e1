// Element types of tensors, with the numeric values of the QNN SDK's DType
// enum (see docs/graph-format.md). Bool, Float64, UInt32, UInt64 and BFloat16
// are egret's own additions (values QNN's enum does not use here); the HTP has
// no implementation for them, so nodes of those types run off it (CPU
// fallback, egret/cost).
#ifndef EGRET_GRAPH_DTYPE_H_
#define EGRET_GRAPH_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace egret {

enum class DType : uint8_t {
  kUnknown = 0,
  kQUInt8 = 1,
  kQUInt16 = 2,
  kQInt16 = 3,
  kFloat32 = 4,
  kInt32 = 5,
  kQInt32 = 6,
  kQInt8 = 7,
  kFloat16 = 8,
  kInt64 = 9,
  kBool = 10,      // egret extension (not in QNN's enum)
  kFloat64 = 11,   // egret extension: IEEE double
  kUInt32 = 12,    // egret extension: unsigned 32-bit integer
  kUInt64 = 13,    // egret extension: unsigned 64-bit integer
  kBFloat16 = 14,  // egret extension: bfloat16 (the upper half of a float32)
  kString = 15,    // egret extension: ONNX's STRING (Tensor::strings(), no bytes)
  kQInt4 = 16,     // egret extension: signed 4-bit quantized, [-8, 7], one per byte
  kQUInt4 = 17,    // egret extension: unsigned 4-bit quantized, [0, 15], one per byte
  kNone = 254,     // an op with no tensor output
  kMulti = 255,    // an op with several outputs, read through "$Out"
};

// QNN spelling: "QUInt8", "Float32", ..., "Bool", "Float64", "UInt32",
// "UInt64", "BFloat16", "String", "None", "Multi", "UNKNOWN".
std::string_view DTypeName(DType t);
// Inverse of DTypeName; nullopt for an unknown name.
std::optional<DType> ParseDType(std::string_view name);
// Inverse of the numeric value; nullopt when no DType has it.
std::optional<DType> DTypeFromValue(int value);

// Bytes per element as egret holds it: 1 for QUInt8/QInt8/Bool and for the
// 4-bit QUInt4/QInt4 (one element per byte, unpacked), 2 for the 16-bit types
// (QUInt16, QInt16, Float16, BFloat16), 4 for Float32/Int32/QInt32/UInt32, 8
// for Int64/UInt64/Float64, 0 for Unknown/None/Multi and for String (whose
// elements are std::strings a Tensor keeps apart from its bytes).
int ElementSize(DType t);
// Bits per element as a device or a file stores it: 4 for QUInt4/QInt4
// (two to a byte), else 8 * ElementSize.
int StorageBits(DType t);
// QUInt4, QInt4, QUInt8, QInt8, QUInt16, QInt16, QInt32.
bool IsQuantized(DType t);
// QInt4, QInt8, QInt16, QInt32.
bool IsQuantizedSigned(DType t);
// Float32, Float16, Float64, BFloat16.
bool IsFloat(DType t);
// Int32, Int64, UInt32, UInt64 (plain integers: not quantized, not Bool).
bool IsPlainInteger(DType t);
// A type whose tensors hold their elements as bytes (not Unknown, None,
// Multi or String).
bool IsConcrete(DType t);
// String: ONNX's text elements. Only the ONNX kernels that read or make text
// (Cast, CastLike, StringNormalizer) take such tensors; the executor refuses
// any other op on them.
inline bool IsString(DType t) { return t == DType::kString; }

// The integer range of a quantized (or integer) storage type. UInt64's
// maximum is clamped to int64's (StorageMax(kUInt64) is INT64_MAX); code
// that must reach 2^64 - 1 reads the storage as uint64_t.
int64_t StorageMin(DType t);
int64_t StorageMax(DType t);

}  // namespace egret

#endif  // EGRET_GRAPH_DTYPE_H_
