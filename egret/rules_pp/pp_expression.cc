#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/rules_pp/pp_expression_internal.h"

namespace egret::rules::internal {
namespace {

// A value of a #if expression: intmax_t or uintmax_t, held as 64 bits.
struct Value {
  uint64_t bits = 0;
  bool is_unsigned = false;

  int64_t AsSigned() const { return static_cast<int64_t>(bits); }
  bool IsTrue() const { return bits != 0; }
};

Value Bool(bool b) { return Value{b ? 1u : 0u, false}; }

// Where to report a problem with `tok`: its use site in the user's file.
const SourceLocation& UserLoc(const Token& tok) {
  return tok.expanded_from.empty() ? tok.loc : tok.expansion_loc;
}

// C++ alternative spellings of operators.
std::string_view AlternativeOperator(std::string_view ident) {
  if (ident == "and") return "&&";
  if (ident == "or") return "||";
  if (ident == "not") return "!";
  if (ident == "bitand") return "&";
  if (ident == "bitor") return "|";
  if (ident == "xor") return "^";
  if (ident == "compl") return "~";
  if (ident == "not_eq") return "!=";
  return {};
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Evaluator {
 public:
  Evaluator(const std::vector<Token>& tokens, const SourceLocation& loc, std::string_view directive,
            int max_depth, const std::function<bool(const std::string&)>& is_defined,
            DiagnosticList* diags)
      : tokens_(tokens),
        loc_(loc),
        directive_(directive),
        max_depth_(max_depth),
        is_defined_(is_defined),
        diags_(diags) {
    for (Token& t : tokens_) {
      if (t.kind != TokenKind::kIdentifier) continue;
      std::string_view op = AlternativeOperator(t.text);
      if (!op.empty()) {
        t.kind = TokenKind::kPunct;
        t.text = std::string(op);
      }
    }
  }

  std::optional<bool> Run() {
    if (tokens_.empty()) {
      Fail(loc_, absl::StrFormat("#%s with no expression", directive_));
      return std::nullopt;
    }
    Value v = Comma(true);
    if (!failed_ && pos_ < tokens_.size()) {
      Fail(UserLoc(tokens_[pos_]),
           absl::StrFormat("missing binary operator before token \"%s\"", tokens_[pos_].text));
    }
    if (failed_) return std::nullopt;
    return v.IsTrue();
  }

 private:
  void Fail(const SourceLocation& loc, std::string message) {
    if (failed_) return;
    failed_ = true;
    diags_->Error(loc, std::move(message));
  }

  const Token* Peek() const { return pos_ < tokens_.size() ? &tokens_[pos_] : nullptr; }
  bool PeekPunct(std::string_view p) const {
    const Token* t = Peek();
    return t != nullptr && t->IsPunct(p);
  }

  Value Comma(bool ev) {
    Value v = Conditional(ev);
    while (!failed_ && PeekPunct(",")) {
      ++pos_;
      v = Conditional(ev);
    }
    return v;
  }

  Value Conditional(bool ev) {
    Value c = Binary(0, ev);
    if (failed_ || !PeekPunct("?")) return c;
    const Token& q = tokens_[pos_++];
    if (!Enter(q)) return {};
    Value a = Comma(ev && c.IsTrue());
    if (!failed_ && !PeekPunct(":")) {
      Fail(UserLoc(q), "'?' without following ':'");
      return {};
    }
    ++pos_;
    Value b = Conditional(ev && !c.IsTrue());
    --depth_;
    Value r = c.IsTrue() ? a : b;
    r.is_unsigned = a.is_unsigned || b.is_unsigned;
    return r;
  }

  // Binary operators by precedence level, loosest first.
  static int LevelOf(const Token& t) {
    if (t.kind != TokenKind::kPunct) return -1;
    const std::string& s = t.text;
    if (s == "||") return 0;
    if (s == "&&") return 1;
    if (s == "|") return 2;
    if (s == "^") return 3;
    if (s == "&") return 4;
    if (s == "==" || s == "!=") return 5;
    if (s == "<" || s == ">" || s == "<=" || s == ">=") return 6;
    if (s == "<<" || s == ">>") return 7;
    if (s == "+" || s == "-") return 8;
    if (s == "*" || s == "/" || s == "%") return 9;
    return -1;
  }
  static constexpr int kLevels = 10;

  Value Binary(int level, bool ev) {
    if (level == kLevels) return Unary(ev);
    Value lhs = Binary(level + 1, ev);
    while (!failed_) {
      const Token* t = Peek();
      if (t == nullptr || LevelOf(*t) != level) break;
      const Token& op = *t;
      ++pos_;
      bool rhs_ev = ev;
      if (op.text == "&&") rhs_ev = ev && lhs.IsTrue();
      if (op.text == "||") rhs_ev = ev && !lhs.IsTrue();
      Value rhs = Binary(level + 1, rhs_ev);
      if (failed_) break;
      lhs = Apply(op, lhs, rhs, rhs_ev);
    }
    return lhs;
  }

  Value Apply(const Token& op, Value a, Value b, bool ev) {
    const std::string& s = op.text;
    if (s == "&&") return Bool(a.IsTrue() && b.IsTrue());
    if (s == "||") return Bool(a.IsTrue() || b.IsTrue());
    const bool u = a.is_unsigned || b.is_unsigned;
    if (s == "==") return Bool(a.bits == b.bits);
    if (s == "!=") return Bool(a.bits != b.bits);
    if (s == "<" || s == ">" || s == "<=" || s == ">=") {
      int cmp;
      if (u) {
        cmp = a.bits < b.bits ? -1 : a.bits > b.bits ? 1 : 0;
      } else {
        cmp = a.AsSigned() < b.AsSigned() ? -1 : a.AsSigned() > b.AsSigned() ? 1 : 0;
      }
      if (s == "<") return Bool(cmp < 0);
      if (s == ">") return Bool(cmp > 0);
      if (s == "<=") return Bool(cmp <= 0);
      return Bool(cmp >= 0);
    }
    if (s == "|") return Value{a.bits | b.bits, u};
    if (s == "^") return Value{a.bits ^ b.bits, u};
    if (s == "&") return Value{a.bits & b.bits, u};
    if (s == "+") return Value{a.bits + b.bits, u};
    if (s == "-") return Value{a.bits - b.bits, u};
    if (s == "*") return Value{a.bits * b.bits, u};
    if (s == "/" || s == "%") {
      if (b.bits == 0) {
        if (ev) Fail(UserLoc(op), "division by zero in #if");
        return Value{0, u};
      }
      if (u) return Value{s == "/" ? a.bits / b.bits : a.bits % b.bits, true};
      const int64_t x = a.AsSigned(), y = b.AsSigned();
      if (x == std::numeric_limits<int64_t>::min() && y == -1) {
        return Value{s == "/" ? a.bits : 0, false};  // wraps, as the hardware would
      }
      return Value{static_cast<uint64_t>(s == "/" ? x / y : x % y), false};
    }
    // Shifts: the result has the left operand's type; a negative count
    // shifts the other way.
    int64_t count = b.is_unsigned && b.bits > 64 ? 64 : b.AsSigned();
    bool left = s == "<<";
    if (count < 0) {
      left = !left;
      count = count < -64 ? 64 : -count;
    }
    if (left) return Value{count >= 64 ? 0 : a.bits << count, a.is_unsigned};
    if (a.is_unsigned) return Value{count >= 64 ? 0 : a.bits >> count, true};
    const int64_t x = a.AsSigned();
    if (count >= 64) return Value{x < 0 ? ~uint64_t{0} : 0, false};
    return Value{static_cast<uint64_t>(x >> count), false};
  }

  bool Enter(const Token& at) {
    if (++depth_ > max_depth_) {
      Fail(UserLoc(at), absl::StrFormat("#%s expression nested too deeply", directive_));
      return false;
    }
    return true;
  }

  Value Unary(bool ev) {
    const Token* t = Peek();
    if (t == nullptr) {
      Fail(tokens_.empty() ? loc_ : UserLoc(tokens_.back()),
           absl::StrFormat("missing value at end of #%s expression", directive_));
      return {};
    }
    if (t->kind == TokenKind::kPunct &&
        (t->text == "+" || t->text == "-" || t->text == "~" || t->text == "!")) {
      const Token& op = *t;
      ++pos_;
      if (!Enter(op)) return {};
      Value v = Unary(ev);
      --depth_;
      if (op.text == "-") return Value{uint64_t{0} - v.bits, v.is_unsigned};
      if (op.text == "~") return Value{~v.bits, v.is_unsigned};
      if (op.text == "!") return Bool(!v.IsTrue());
      return v;
    }
    return Primary(ev);
  }

  Value Primary(bool ev) {
    const Token& t = tokens_[pos_];
    switch (t.kind) {
      case TokenKind::kNumber: {
        ++pos_;
        unsigned long long value = 0;
        bool is_unsigned = false;
        std::string error;
        if (!ParsePpInteger(t.text, &value, &is_unsigned, &error)) {
          Fail(UserLoc(t), error);
          return {};
        }
        return Value{value, is_unsigned};
      }
      case TokenKind::kChar:
        ++pos_;
        return CharValue(t);
      case TokenKind::kIdentifier:
        ++pos_;
        if (t.text == "defined") return Defined(t);
        if (t.text == "true") return Bool(true);
        return Bool(false);  // "false" and every unknown identifier
      case TokenKind::kPunct:
        if (t.text == "(") {
          ++pos_;
          if (!Enter(t)) return {};
          Value v = Comma(ev);
          --depth_;
          if (failed_) return {};
          if (!PeekPunct(")")) {
            Fail(Peek() != nullptr ? UserLoc(*Peek()) : UserLoc(t), "missing ')' in expression");
            return {};
          }
          ++pos_;
          return v;
        }
        break;
      default:
        break;
    }
    Fail(UserLoc(t),
         absl::StrFormat("token \"%s\" is not valid in preprocessor expressions", t.text));
    return {};
  }

  Value Defined(const Token& op) {
    bool paren = PeekPunct("(");
    if (paren) ++pos_;
    const Token* name = Peek();
    if (name == nullptr || name->kind != TokenKind::kIdentifier) {
      Fail(name != nullptr ? UserLoc(*name) : UserLoc(op),
           "operator \"defined\" requires an identifier");
      return {};
    }
    ++pos_;
    if (paren) {
      if (!PeekPunct(")")) {
        Fail(UserLoc(*name), "missing ')' after \"defined\"");
        return {};
      }
      ++pos_;
    }
    return Bool(is_defined_(name->text));
  }

  Value CharValue(const Token& t) {
    std::string_view s = t.text;
    const bool prefixed = s[0] != '\'';
    size_t open = s.find('\'');
    size_t close = s.rfind('\'');
    if (close == open) return {};  // unterminated: already reported by the lexer
    std::string_view body = s.substr(open + 1, close - open - 1);
    if (body.empty()) {
      Fail(UserLoc(t), "empty character constant");
      return {};
    }
    uint64_t value = 0;
    int count = 0;
    uint64_t last = 0;
    for (size_t i = 0; i < body.size();) {
      uint64_t c = static_cast<unsigned char>(body[i++]);
      if (c == '\\' && i < body.size()) {
        const char e = body[i++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case 'a':
            c = '\a';
            break;
          case 'b':
            c = '\b';
            break;
          case 'f':
            c = '\f';
            break;
          case 'v':
            c = '\v';
            break;
          case 'x': {
            c = 0;
            while (i < body.size() && HexDigit(body[i]) >= 0) c = (c << 4) | HexDigit(body[i++]);
            break;
          }
          default:
            if (e >= '0' && e <= '7') {
              c = e - '0';
              for (int k = 0; k < 2 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++k) {
                c = c * 8 + (body[i++] - '0');
              }
            } else {
              c = static_cast<unsigned char>(e);  // \\ \' \" \? and unknown escapes
            }
        }
      }
      last = c;
      value = (value << 8) | (c & 0xff);
      ++count;
    }
    if (prefixed) return Value{last, false};
    if (count == 1)
      return Value{static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(last))), false};
    return Value{static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(value))), false};
  }

  std::vector<Token> tokens_;
  const SourceLocation& loc_;
  std::string_view directive_;
  int max_depth_;
  const std::function<bool(const std::string&)>& is_defined_;
  DiagnosticList* diags_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool failed_ = false;
};

}  // namespace

bool ParsePpInteger(std::string_view text, unsigned long long* value, bool* is_unsigned,
                    std::string* error) {
  std::string digits;
  digits.reserve(text.size());
  for (char c : text) {
    if (c != '\'') digits.push_back(c);
  }
  int base = 10;
  size_t i = 0;
  if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
    base = 2;
    i = 2;
  } else if (digits.size() >= 1 && digits[0] == '0') {
    base = 8;
  }
  const size_t first = i;
  unsigned long long v = 0;
  bool overflow = false;
  char bad_octal = 0;
  for (; i < digits.size(); ++i) {
    const int d = HexDigit(digits[i]);
    if (d < 0 || (base != 16 && d >= 10) || (base == 2 && d >= 2)) break;
    if (base == 8 && d >= 8 && bad_octal == 0) bad_octal = digits[i];
    if (__builtin_mul_overflow(v, static_cast<unsigned long long>(base), &v) ||
        __builtin_add_overflow(v, static_cast<unsigned long long>(d), &v)) {
      overflow = true;
    }
  }
  std::string_view suffix(digits.data() + i, digits.size() - i);
  if (suffix.find('.') != std::string_view::npos ||
      (base == 16 && (suffix.find('p') != std::string_view::npos ||
                      suffix.find('P') != std::string_view::npos)) ||
      (base != 16 && !suffix.empty() && (suffix[0] == 'e' || suffix[0] == 'E'))) {
    *error = "floating constant in preprocessor expression";
    return false;
  }
  if (i == first && base != 8) {
    *error = absl::StrFormat("invalid integer constant \"%s\"", text);
    return false;
  }
  bool u = false;
  int longs = 0;
  bool size_suffix = false;
  for (size_t k = 0; k < suffix.size();) {
    const char c = suffix[k];
    if ((c == 'u' || c == 'U') && !u) {
      u = true;
      ++k;
    } else if ((c == 'l' || c == 'L') && longs == 0 && !size_suffix) {
      longs = (k + 1 < suffix.size() && suffix[k + 1] == c) ? 2 : 1;
      k += longs;
    } else if ((c == 'z' || c == 'Z') && !size_suffix && longs == 0) {
      size_suffix = true;
      ++k;
    } else {
      *error = absl::StrFormat("invalid suffix \"%s\" on integer constant", suffix);
      return false;
    }
  }
  if (bad_octal != 0) {
    *error = absl::StrFormat("invalid digit \"%c\" in octal constant", bad_octal);
    return false;
  }
  if (overflow) {
    *error = "integer constant is too large for its type";
    return false;
  }
  *value = v;
  *is_unsigned = u || v > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max());
  return true;
}

std::optional<bool> EvaluatePpExpression(const std::vector<Token>& tokens,
                                         const SourceLocation& directive_loc,
                                         std::string_view directive, int max_depth,
                                         const std::function<bool(const std::string&)>& is_defined,
                                         DiagnosticList* diags) {
  return Evaluator(tokens, directive_loc, directive, max_depth, is_defined, diags).Run();
}

}  // namespace egret::rules::internal
