#include "egret/rules/cpp_cast.h"

#include <cmath>
#include <string>
#include <utility>

namespace egret::rules {
namespace {

struct NamedType {
  std::string_view name;
  CppType type;
};

constexpr CppType S(int bits) { return {CppType::Kind::kSigned, bits}; }
constexpr CppType U(int bits) { return {CppType::Kind::kUnsigned, bits}; }

constexpr NamedType kTypes[] = {
    {"bool", {CppType::Kind::kBool, 1}},
    {"float", {CppType::Kind::kFloat, 32}},
    {"double", {CppType::Kind::kFloat, 64}},
    {"long double", {CppType::Kind::kFloat, 64}},
    {"char", S(8)},
    {"signed char", S(8)},
    {"unsigned char", U(8)},
    {"short", S(16)},
    {"short int", S(16)},
    {"signed short", S(16)},
    {"unsigned short", U(16)},
    {"unsigned short int", U(16)},
    {"int", S(32)},
    {"signed", S(32)},
    {"signed int", S(32)},
    {"unsigned", U(32)},
    {"unsigned int", U(32)},
    {"long", S(64)},
    {"long int", S(64)},
    {"signed long", S(64)},
    {"unsigned long", U(64)},
    {"unsigned long int", U(64)},
    {"long long", S(64)},
    {"long long int", S(64)},
    {"signed long long", S(64)},
    {"unsigned long long", U(64)},
    {"unsigned long long int", U(64)},
    {"int8_t", S(8)},
    {"int16_t", S(16)},
    {"int32_t", S(32)},
    {"int64_t", S(64)},
    {"uint8_t", U(8)},
    {"uint16_t", U(16)},
    {"uint32_t", U(32)},
    {"uint64_t", U(64)},
    {"size_t", U(64)},
    {"ssize_t", S(64)},
    {"ptrdiff_t", S(64)},
    {"intptr_t", S(64)},
    {"uintptr_t", U(64)},
};

}  // namespace

std::optional<CppType> CppTypeNamed(std::string_view words) {
  for (const NamedType& t : kTypes) {
    if (t.name == words) return t.type;
  }
  return std::nullopt;
}

bool IsCppTypeWord(std::string_view word) {
  if (word == "signed" || word == "unsigned" || word == "short" || word == "long") return true;
  return CppTypeNamed(word).has_value();
}

int64_t CastInteger(int64_t v, const CppType& t) {
  if (t.kind == CppType::Kind::kBool) return v != 0;
  if (t.kind == CppType::Kind::kFloat || t.bits >= 64) return v;
  const uint64_t mask = (uint64_t{1} << t.bits) - 1;
  const uint64_t bits = static_cast<uint64_t>(v) & mask;
  if (t.kind == CppType::Kind::kUnsigned) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (t.bits - 1);
  return (bits & sign) != 0 ? static_cast<int64_t>(bits) - static_cast<int64_t>(mask) - 1
                            : static_cast<int64_t>(bits);
}

std::optional<int64_t> CastFloatToInteger(double v, const CppType& t) {
  if (t.kind == CppType::Kind::kBool) return v != 0;
  if (!std::isfinite(v)) return std::nullopt;
  const double truncated = std::trunc(v);
  if (truncated >= 9.2233720368547758e18 || truncated < -9.2233720368547758e18) {
    return std::nullopt;
  }
  return CastInteger(static_cast<int64_t>(truncated), t);
}

}  // namespace egret::rules
