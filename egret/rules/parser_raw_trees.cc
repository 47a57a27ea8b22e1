// Raw trees: an argument of a rule form parsed into its shape (calls, names,
// strings, numbers, X::Y) before it is given a meaning. Numeric constants
// joined by + - * / % are folded as C computes them, and C-style, functional
// and static_cast casts become a constant of the cast's type or
// UINT / INT / FLOAT(operand); both are beyond the HTP rule grammar and
// warned about as such.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/rules/number_literal.h"
#include "egret/rules/parser_internal.h"

namespace egret::rules::internal {

// --- raw trees -------------------------------------------------------------------

bool Parser::ParseRawRange(Range r, Raw* out, const char* what) {
  if (r.begin == r.end) {
    Error(Tok(r.end), absl::StrCat("expected ", what, " before '", Tok(r.end).text, "'"));
    return false;
  }
  size_t i = r.begin;
  if (!ParseRaw(i, r.end, out, 0)) return false;
  if (i != r.end) {
    Error(toks_[i], absl::StrCat("unexpected '", toks_[i].text, "' after ", what));
    return false;
  }
  return true;
}

void Parser::ParseStringRaw(size_t& i, size_t end, Raw* out) {
  out->kind = Raw::kString;
  out->tok = i;
  out->text.clear();
  while (i < end && toks_[i].kind == TokenKind::kString) {
    const Token& t = toks_[i];
    const std::string& s = t.text;
    if (s.size() < 2 || s.front() != '"' || s.back() != '"') {
      if (!out->bad_string) {
        Error(t, absl::StrCat("string constant ", s,
                              " is not allowed here: string prefixes and "
                              "raw strings cannot be used in rules"));
      }
      out->bad_string = true;
    } else {
      std::string_view body(s.data() + 1, s.size() - 2);
      for (char c : body) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (c == '\\' || c == ' ' || u < 0x21 || u > 0x7e) {
          if (!out->bad_string) {
            Error(t, absl::StrCat("string constant ", s,
                                  " may not contain spaces, escapes or unprintable characters"));
          }
          out->bad_string = true;
          break;
        }
      }
      out->text.append(body);
    }
    ++i;
  }
  if (out->text.empty() && !out->bad_string) {
    Error(toks_[out->tok], "empty string constant");
    out->bad_string = true;
  }
}

bool Parser::ParseRaw(size_t& i, size_t end, Raw* out, int depth) {
  return ParseInfixRaw(i, end, out, depth, 0);
}

bool Parser::ParseInfixRaw(size_t& i, size_t end, Raw* out, int depth, int level) {
  if (level == 2) return ParsePrimaryRaw(i, end, out, depth);
  if (!ParseInfixRaw(i, end, out, depth, level + 1)) return false;
  auto is_op = [&](const Token& t) {
    return level == 0 ? t.IsPunct("+") || t.IsPunct("-")
                      : t.IsPunct("*") || t.IsPunct("/") || t.IsPunct("%");
  };
  while (i < end && is_op(toks_[i])) {
    const size_t op = i++;
    Raw rhs;
    if (!ParseInfixRaw(i, end, &rhs, depth + 1, level + 1)) return false;
    if (!FoldArithmetic(op, out, rhs)) return false;
  }
  return true;
}

bool Parser::FoldArithmetic(size_t op, Raw* lhs, const Raw& rhs) {
  const std::string& o = toks_[op].text;
  if (lhs->kind != Raw::kNumber || rhs.kind != Raw::kNumber) {
    Error(Tok(op), absl::StrCat("'", o,
                                "' may only join numeric constants in a rule (use ADD, SUB, MUL, "
                                "DIV or REM for values)"));
    return false;
  }
  BeyondGrammar(op, absl::StrCat("infix '", o,
                                 "' is not in the HTP rule grammar (its arithmetic is ADD, SUB, "
                                 "MUL, DIV, REM, MOD)",
                                 kMayReject));
  NumberValue a = ParseNumber(lhs->text, lhs->negative);
  NumberValue b = ParseNumber(rhs.text, rhs.negative);
  for (const NumberValue* v : {&a, &b}) {
    if (!v->error.empty()) {
      Error(Tok(op), v->error);
      return false;
    }
  }
  Raw r;
  r.kind = Raw::kNumber;
  r.tok = lhs->tok;
  if (a.is_float || b.is_float) {
    const double x = a.is_float ? a.f : static_cast<double>(a.i);
    const double y = b.is_float ? b.f : static_cast<double>(b.i);
    if (o == "%") {
      Error(Tok(op), "'%' needs integer operands");
      return false;
    }
    const double v = o == "+" ? x + y : o == "-" ? x - y : o == "*" ? x * y : x / y;
    if (!std::isfinite(v)) {
      Error(Tok(op), "the value of this constant expression is not finite");
      return false;
    }
    r.negative = v < 0;
    r.text = absl::StrFormat("%.17g", std::fabs(v));
    if (r.text.find_first_of(".e") == std::string::npos) r.text += ".0";
  } else {
    const __int128 x = a.i, y = b.i;
    if ((o == "/" || o == "%") && y == 0) {
      Error(Tok(op), "division by zero in a constant expression");
      return false;
    }
    const __int128 v = o == "+"   ? x + y
                       : o == "-" ? x - y
                       : o == "*" ? x * y
                       : o == "/" ? x / y
                                  : x % y;
    if (v > std::numeric_limits<int64_t>::max() || v < -std::numeric_limits<int64_t>::max()) {
      Error(Tok(op), "the value of this constant expression is too large");
      return false;
    }
    r.negative = v < 0;
    const uint64_t mag = static_cast<uint64_t>(v < 0 ? -v : v);
    r.text = absl::StrCat(mag, a.is_size || b.is_size ? "u" : "");
  }
  *lhs = std::move(r);
  return true;
}

bool Parser::ParsePrimaryRaw(size_t& i, size_t end, Raw* out, int depth) {
  if (depth > kMaxDepth) {
    Error(Tok(i), "expression nested too deeply");
    return false;
  }
  if (i >= end) {
    Error(Tok(i), absl::StrCat("expected an expression before '", Tok(i).text, "'"));
    return false;
  }
  const Token& t = toks_[i];
  switch (t.kind) {
    case TokenKind::kString:
      ParseStringRaw(i, end, out);
      return true;
    case TokenKind::kNumber:
      out->kind = Raw::kNumber;
      out->tok = i;
      out->text = t.text;
      ++i;
      return true;
    case TokenKind::kPunct:
      if (t.text == "(") {
        size_t j = i + 1;
        std::optional<CppType> type = ReadTypeName(j, end);
        if (type && j < end && toks_[j].IsPunct(")")) {  // C-style cast
          const size_t at = i;
          BeyondGrammar(
              at, absl::StrCat("C-style cast '", TextOf({at, j + 1}),
                               "' is not in the HTP rule grammar ", kTypecastRule, kMayReject));
          i = j + 1;
          Raw operand;
          if (!ParsePrimaryRaw(i, end, &operand, depth + 1)) return false;
          return MakeCast(at, *type, std::move(operand), out);
        }
        // A parenthesized constant expression: (2 * 1024).
        BeyondGrammar(i, absl::StrCat("parentheses around an expression are not in the HTP rule "
                                      "grammar (a '(' only follows the name of a form)",
                                      kMayReject));
        ++i;
        if (!ParseRaw(i, end, out, depth + 1)) return false;
        if (i >= end || !toks_[i].IsPunct(")")) {
          Error(Tok(i), absl::StrCat("expected ')', found '", Tok(i).text, "'"));
          return false;
        }
        ++i;
        return true;
      }
      if ((t.text == "-" || t.text == "+") && i + 1 < end &&
          toks_[i + 1].kind == TokenKind::kNumber) {
        out->kind = Raw::kNumber;
        out->tok = i;
        out->negative = t.text == "-";
        out->text = toks_[i + 1].text;
        i += 2;
        return true;
      }
      Error(t, absl::StrCat("expected an expression, found '", t.text, "'"));
      return false;
    case TokenKind::kIdentifier:
      break;
    default:
      Error(t, absl::StrCat("expected an expression, found '", t.text, "'"));
      return false;
  }
  if (t.text == "FROM_DEFAULT_PACKAGE" && i + 1 < end && toks_[i + 1].IsPunct("(")) {
    // The op of the default package: the op name itself, whichever
    // definition the headers give the macro (the preprocessor never expands
    // it).
    const size_t at = i;
    i += 2;
    if (i >= end || toks_[i].kind != TokenKind::kString) {
      Error(Tok(i), "FROM_DEFAULT_PACKAGE expects an op name (a string constant)");
      return false;
    }
    ParseStringRaw(i, end, out);
    if (i >= end || !toks_[i].IsPunct(")")) {
      Error(Tok(i), absl::StrCat("expected ')' at the end of FROM_DEFAULT_PACKAGE, found '",
                                 Tok(i).text, "'"));
      return false;
    }
    ++i;
    (void)at;
    return true;
  }
  if (t.text == "static_cast") {
    const size_t at = i;
    BeyondGrammar(
        at, absl::StrCat("static_cast is not in the HTP rule grammar ", kTypecastRule, kMayReject));
    ++i;
    std::optional<CppType> type;
    if (i < end && toks_[i].IsPunct("<")) {
      ++i;
      type = ReadTypeName(i, end);
    }
    if (!type || i >= end || !toks_[i].IsPunct(">") || i + 1 >= end || !toks_[i + 1].IsPunct("(")) {
      Error(Tok(i), "expected static_cast<T>(value) with an arithmetic type T");
      return false;
    }
    i += 2;
    Raw operand;
    if (!ParseRaw(i, end, &operand, depth + 1)) return false;
    if (i >= end || !toks_[i].IsPunct(")")) {
      Error(Tok(i),
            absl::StrCat("expected ')' at the end of static_cast, found '", Tok(i).text, "'"));
      return false;
    }
    ++i;
    return MakeCast(at, *type, std::move(operand), out);
  }
  {
    size_t j = i;
    std::optional<CppType> type = ReadTypeName(j, end);
    if (type && j < end && toks_[j].IsPunct("(")) {  // functional cast: size_t(x)
      const size_t at = i;
      BeyondGrammar(
          at, absl::StrCat("C++ cast '", TextOf({at, j}), "(...)' is not in the HTP rule grammar ",
                           kTypecastRule, kMayReject));
      i = j + 1;
      Raw operand;
      if (!ParseRaw(i, end, &operand, depth + 1)) return false;
      if (i >= end || !toks_[i].IsPunct(")")) {
        Error(Tok(i),
              absl::StrCat("expected ')' at the end of the cast, found '", Tok(i).text, "'"));
        return false;
      }
      ++i;
      return MakeCast(at, *type, std::move(operand), out);
    }
  }
  out->tok = i;
  out->text = t.text;
  ++i;
  if (i < end && toks_[i].IsPunct("::")) {
    if (i + 1 < end && toks_[i + 1].kind == TokenKind::kIdentifier) {
      out->kind = Raw::kQualified;
      out->scope = t.text;
      out->text = toks_[i + 1].text;
      i += 2;
      return true;
    }
    Error(Tok(i + 1), "expected a name after '::'");
    return false;
  }
  if (i < end && toks_[i].IsPunct("(")) {
    out->kind = Raw::kCall;
    ++i;
    if (i < end && toks_[i].IsPunct(")")) {
      ++i;
      return true;
    }
    while (true) {
      out->args.emplace_back();
      if (!ParseRaw(i, end, &out->args.back(), depth + 1)) return false;
      if (i < end && toks_[i].IsPunct(",")) {
        ++i;
        continue;
      }
      if (i < end && toks_[i].IsPunct(")")) {
        ++i;
        return true;
      }
      Error(Tok(i), absl::StrCat("expected ',' or ')' in the operands of ", t.text, ", found '",
                                 Tok(i).text, "'"));
      return false;
    }
  }
  out->kind = Raw::kIdent;
  return true;
}

std::optional<CppType> Parser::ReadTypeName(size_t& i, size_t end) const {
  size_t j = i;
  if (j + 1 < end && toks_[j].IsIdent("std") && toks_[j + 1].IsPunct("::")) j += 2;
  std::string words;
  while (j < end && toks_[j].kind == TokenKind::kIdentifier && IsCppTypeWord(toks_[j].text)) {
    if (!words.empty()) words += ' ';
    words += toks_[j].text;
    ++j;
  }
  std::optional<CppType> t = CppTypeNamed(words);
  if (t) i = j;
  return t;
}

bool Parser::MakeCast(size_t at, const CppType& type, Raw operand, Raw* out) {
  const bool is_int = type.kind == CppType::Kind::kSigned || type.kind == CppType::Kind::kUnsigned;
  if (operand.kind == Raw::kNumber) {
    // A constant: the value the cast gives, as a constant of the cast's type.
    NumberValue v = ParseNumber(operand.text, operand.negative);
    if (!v.error.empty()) {
      Error(operand, v.error);
      return false;
    }
    *out = Raw{};
    out->tok = at;
    if (type.kind == CppType::Kind::kBool) {
      out->kind = Raw::kIdent;
      out->text = (v.is_float ? v.f != 0 : v.i != 0) ? "true" : "false";
      return true;
    }
    out->kind = Raw::kNumber;
    if (is_int) {
      std::optional<int64_t> n =
          v.is_float ? CastFloatToInteger(v.f, type) : std::optional(CastInteger(v.i, type));
      if (!n) {
        Error(Tok(at), absl::StrCat("the value of '", operand.negative ? "-" : "", operand.text,
                                    "' does not fit the type of the cast"));
        return false;
      }
      out->negative = *n < 0;
      const uint64_t mag =
          *n < 0 ? uint64_t{0} - static_cast<uint64_t>(*n) : static_cast<uint64_t>(*n);
      out->text = absl::StrCat(mag, type.kind == CppType::Kind::kUnsigned ? "u" : "");
      return true;
    }
    double f = v.is_float ? v.f : static_cast<double>(v.i);
    if (type.bits == 32) f = static_cast<float>(f);
    if (!std::isfinite(f)) {
      Error(Tok(at), "the value of the cast is not finite");
      return false;
    }
    out->negative = f < 0;
    out->text = absl::StrFormat("%.17g", std::fabs(f));
    if (out->text.find_first_of(".e") == std::string::npos) out->text += ".0";
    return true;
  }
  if (!is_int && type.kind != CppType::Kind::kFloat) {
    Error(Tok(at), "a cast to bool is only allowed of a constant");
    return false;
  }
  // Any other value: UINT / INT / FLOAT of it.
  *out = Raw{};
  out->kind = Raw::kCall;
  out->tok = at;
  out->text = type.kind == CppType::Kind::kUnsigned ? "UINT"
              : type.kind == CppType::Kind::kSigned ? "INT"
                                                    : "FLOAT";
  out->args.push_back(std::move(operand));
  return true;
}

}  // namespace egret::rules::internal
