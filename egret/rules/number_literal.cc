#include "egret/rules/number_literal.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"

namespace egret::rules {

NumberValue ParseNumber(std::string_view text, bool negative) {
  NumberValue v;
  const std::string shown = absl::StrCat(negative ? "-" : "", std::string(text));
  const bool hex = text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const bool is_float = hex ? text.find_first_of(".pP") != std::string_view::npos
                            : text.find_first_of(".eE") != std::string_view::npos;
  if (is_float) {
    std::string body(text);
    if (!body.empty() &&
        (body.back() == 'f' || body.back() == 'F' || body.back() == 'l' || body.back() == 'L')) {
      body.pop_back();
    }
    char* end = nullptr;
    errno = 0;
    double d = std::strtod(body.c_str(), &end);
    if (body.empty() || end != body.c_str() + body.size()) {
      v.error = absl::StrCat("invalid floating constant '", shown, "'");
      return v;
    }
    v.is_float = true;
    v.f = negative ? -d : d;
    if (text.back() == 'l' || text.back() == 'L') {
      v.warning = absl::StrCat("suffix '", std::string(1, text.back()), "' of '", std::string(text),
                               "' is not in the HTP rule grammar (float_const: as in C, with an "
                               "optional 'f' suffix); the HTP's parser may reject it");
    }
    return v;
  }
  // Integer: digits then a suffix of u/U and l/L/ll/LL in either order.
  size_t end = text.size();
  int u = 0, l = 0;
  while (end > 0) {
    char c = text[end - 1];
    if (c == 'u' || c == 'U') {
      ++u;
    } else if (c == 'l' || c == 'L') {
      ++l;
    } else {
      break;
    }
    --end;
  }
  std::string_view digits = text.substr(0, end);
  if (u > 1 || l > 2 || digits.empty()) {
    v.error = absl::StrCat("invalid integer constant '", shown, "'");
    return v;
  }
  int base = 10;
  if (hex) {
    base = 16;
    digits.remove_prefix(2);
  } else if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
    base = 2;
    digits.remove_prefix(2);
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8;
  }
  if (digits.empty()) {
    v.error = absl::StrCat("invalid integer constant '", shown, "'");
    return v;
  }
  uint64_t value = 0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else if (c == '\'') {
      continue;  // C++14 digit separator
    } else {
      d = 99;
    }
    if (d >= base) {
      v.error = base == 8 ? absl::StrCat("invalid digit '", std::string(1, c),
                                         "' in octal constant '", shown, "'")
                          : absl::StrCat("invalid integer constant '", shown, "'");
      return v;
    }
    if (value > (std::numeric_limits<uint64_t>::max() - d) / base) {
      v.error = absl::StrCat("integer constant '", shown, "' is too large");
      return v;
    }
    value = value * base + d;
  }
  if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    v.error = absl::StrCat("integer constant '", shown, "' is too large");
    return v;
  }
  if (base == 8 && value >= 8) {
    v.warning = absl::StrCat("octal constant '", std::string(text), "' has the value ", value);
  } else if (base == 2) {
    v.warning = absl::StrCat("binary constant '", std::string(text),
                             "' is not in the HTP rule grammar (integer_const: as in C, decimal, "
                             "octal or hex); the HTP's parser may reject it");
  } else if (digits.find('\'') != std::string_view::npos) {
    v.warning = absl::StrCat("digit separator in '", std::string(text),
                             "' is not in the HTP rule grammar (integer_const: as in C); the HTP's "
                             "parser may reject it");
  }
  v.is_size = u > 0;
  v.i = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
  return v;
}

}  // namespace egret::rules
