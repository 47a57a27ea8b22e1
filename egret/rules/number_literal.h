// Numeric constants of rule files as C writes them: decimal, hex, binary and
// octal integers with u/l suffixes and digit separators, floats with an
// optional f/l suffix.
#ifndef EGRET_RULES_NUMBER_LITERAL_H_
#define EGRET_RULES_NUMBER_LITERAL_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace egret::rules {

struct NumberValue {
  bool is_float = false;
  bool is_size = false;  // U suffix
  int64_t i = 0;
  double f = 0;
  std::string error;  // non-empty: not a valid constant
  // Non-empty: a valid constant to warn about (an octal constant >= 8, as the
  // grammar asks; a form beyond the grammar: binary, digit separators, an l
  // suffix on a float).
  std::string warning;
};

// The value of the pp-number `text` (negated when `negative`). A value beyond
// int64, an invalid digit or suffix is an error (NumberValue::error).
NumberValue ParseNumber(std::string_view text, bool negative);

}  // namespace egret::rules

#endif  // EGRET_RULES_NUMBER_LITERAL_H_
