// C++ arithmetic type names as rule files write them in casts
// (`size_t(CHANNEL_SPLIT_SIZE)`, `(int)3`, `static_cast<uint32_t>(x)`), and
// what converting a constant to such a type gives.
#ifndef EGRET_RULES_CPP_CAST_H_
#define EGRET_RULES_CPP_CAST_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace egret::rules {

struct CppType {
  enum class Kind : uint8_t { kSigned, kUnsigned, kFloat, kBool };
  Kind kind = Kind::kSigned;
  int bits = 64;  // integer width (8, 16, 32, 64); unused for float and bool
};

// The type that the identifier sequence `words` names (already joined with
// single spaces, `std::` removed): "int", "unsigned int", "unsigned",
// "long long", "size_t", "int32_t", "uint8_t", "float", "double", "bool", ...
// nullopt when it is not an arithmetic type egret knows.
std::optional<CppType> CppTypeNamed(std::string_view words);

// True if `word` can appear in such a type name (int, unsigned, size_t, ...).
bool IsCppTypeWord(std::string_view word);

// Integer constant `v` converted to integer type `t` (wrapping to the
// width as C++ does; a 64-bit unsigned value above INT64_MAX keeps its bits).
int64_t CastInteger(int64_t v, const CppType& t);

// Floating constant `v` converted to integer type `t` (truncation toward
// zero, then as CastInteger); nullopt when the value does not fit (NaN, inf,
// beyond 64 bits).
std::optional<int64_t> CastFloatToInteger(double v, const CppType& t);

}  // namespace egret::rules

#endif  // EGRET_RULES_CPP_CAST_H_
