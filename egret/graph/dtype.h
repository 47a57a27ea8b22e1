// Element types of tensors, with the numeric values of the QNN SDK's DType
// enum (see docs/graph-format.md). Bool is egret's own addition.
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
  kBool = 10,   // egret extension (not in QNN's enum)
  kNone = 254,  // an op with no tensor output
  kMulti = 255, // an op with several outputs, read through "$Out"
};

// QNN spelling: "QUInt8", "Float32", ..., "Bool", "None", "Multi", "UNKNOWN".
std::string_view DTypeName(DType t);
// Inverse of DTypeName; nullopt for an unknown name.
std::optional<DType> ParseDType(std::string_view name);
// Inverse of the numeric value; nullopt when no DType has it.
std::optional<DType> DTypeFromValue(int value);

// Bytes per element: 1 for QUInt8/QInt8/Bool, 2 for the 16-bit types, 4 for
// Float32/Int32/QInt32, 8 for Int64, 0 for Unknown/None/Multi.
int ElementSize(DType t);
// QUInt8, QInt8, QUInt16, QInt16, QInt32.
bool IsQuantized(DType t);
// QInt8, QInt16, QInt32.
bool IsQuantizedSigned(DType t);
// Float32, Float16.
bool IsFloat(DType t);
// A type that can hold tensor data (not Unknown, None or Multi).
bool IsConcrete(DType t);

// The integer range of a quantized (or integer) storage type.
int64_t StorageMin(DType t);
int64_t StorageMax(DType t);

}  // namespace egret

#endif  // EGRET_GRAPH_DTYPE_H_
