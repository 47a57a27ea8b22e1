#include "egret/graph/dtype.h"

#include <limits>

#include "egret/support/enum_names.h"

namespace egret {
namespace {

constexpr auto kNames = MakeEnumNames<DType>({
    {DType::kUnknown, "UNKNOWN"}, {DType::kQUInt8, "QUInt8"},   {DType::kQUInt16, "QUInt16"},
    {DType::kQInt16, "QInt16"},   {DType::kFloat32, "Float32"}, {DType::kInt32, "Int32"},
    {DType::kQInt32, "QInt32"},   {DType::kQInt8, "QInt8"},     {DType::kFloat16, "Float16"},
    {DType::kInt64, "Int64"},     {DType::kBool, "Bool"},       {DType::kFloat64, "Float64"},
    {DType::kUInt32, "UInt32"},   {DType::kUInt64, "UInt64"},   {DType::kBFloat16, "BFloat16"},
    {DType::kString, "String"},   {DType::kQInt4, "QInt4"},     {DType::kQUInt4, "QUInt4"},
    {DType::kNone, "None"},       {DType::kMulti, "Multi"},
});

}  // namespace

std::string_view DTypeName(DType t) { return kNames.Name(t, "UNKNOWN"); }

std::optional<DType> ParseDType(std::string_view name) { return kNames.Parse(name); }

std::optional<DType> DTypeFromValue(int value) {
  for (const auto& [d, n] : kNames) {
    if (static_cast<int>(d) == value) return d;
  }
  return std::nullopt;
}

int ElementSize(DType t) {
  switch (t) {
    case DType::kQUInt8:
    case DType::kQInt8:
    case DType::kQUInt4:
    case DType::kQInt4:
    case DType::kBool:
      return 1;
    case DType::kQUInt16:
    case DType::kQInt16:
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kQInt32:
    case DType::kUInt32:
      return 4;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
      return 8;
    default:
      return 0;
  }
}

int StorageBits(DType t) {
  return t == DType::kQUInt4 || t == DType::kQInt4 ? 4 : 8 * ElementSize(t);
}

bool IsQuantized(DType t) {
  return t == DType::kQUInt4 || t == DType::kQInt4 || t == DType::kQUInt8 || t == DType::kQInt8 ||
         t == DType::kQUInt16 || t == DType::kQInt16 || t == DType::kQInt32;
}

bool IsQuantizedSigned(DType t) {
  return t == DType::kQInt4 || t == DType::kQInt8 || t == DType::kQInt16 || t == DType::kQInt32;
}

bool IsFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kFloat64 ||
         t == DType::kBFloat16;
}

bool IsPlainInteger(DType t) {
  return t == DType::kInt32 || t == DType::kInt64 || t == DType::kUInt32 || t == DType::kUInt64;
}

bool IsConcrete(DType t) { return ElementSize(t) > 0; }

int64_t StorageMin(DType t) {
  switch (t) {
    case DType::kQInt4:
      return -8;
    case DType::kQInt8:
      return std::numeric_limits<int8_t>::min();
    case DType::kQInt16:
      return std::numeric_limits<int16_t>::min();
    case DType::kQInt32:
    case DType::kInt32:
      return std::numeric_limits<int32_t>::min();
    case DType::kInt64:
      return std::numeric_limits<int64_t>::min();
    default:
      return 0;
  }
}

int64_t StorageMax(DType t) {
  switch (t) {
    case DType::kQInt4:
      return 7;
    case DType::kQUInt4:
      return 15;
    case DType::kQUInt8:
      return std::numeric_limits<uint8_t>::max();
    case DType::kQInt8:
      return std::numeric_limits<int8_t>::max();
    case DType::kQUInt16:
      return std::numeric_limits<uint16_t>::max();
    case DType::kQInt16:
      return std::numeric_limits<int16_t>::max();
    case DType::kQInt32:
    case DType::kInt32:
      return std::numeric_limits<int32_t>::max();
    case DType::kUInt32:
      return std::numeric_limits<uint32_t>::max();
    case DType::kInt64:
    case DType::kUInt64:
      return std::numeric_limits<int64_t>::max();
    case DType::kBool:
      return 1;
    default:
      return 0;
  }
}

}  // namespace egret
