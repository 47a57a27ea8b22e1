#include "egret/rules_pp/lexer.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace egret::rules {
namespace {

bool IsIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(unsigned char c) { return IsIdentStart(c) || IsDigit(c); }
bool IsHorizontalSpace(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

constexpr std::array<std::string_view, 5> kPunct3 = {"...", "<=>", "<<=", ">>=", "->*"};
constexpr std::array<std::string_view, 27> kPunct2 = {
    "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*", "<:", ":>", "<%", "%>", "%:"};
constexpr std::string_view kPunct1 = "{}[]#();:?.+-*/%^&|~!=<>,";

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& filename, DiagnosticList* diags,
        const LexOptions& options)
      : text_(text), filename_(filename), diags_(diags), options_(options) {}

  LexedText Run() {
    Splice();
    LexedText out;
    size_t p = 0;
    bool line_start = true;
    bool space = false;
    const size_t n = clean_.size();
    // Tokens so far on the current logical line (for header-name detection).
    int line_tokens = 0;
    bool include_line = false;
    while (p < n) {
      const char c = clean_[p];
      if (c == '\n') {
        line_start = true;
        space = false;
        line_tokens = 0;
        include_line = false;
        ++p;
        continue;
      }
      if (IsHorizontalSpace(c)) {
        space = true;
        ++p;
        continue;
      }
      if (c == '/' && p + 1 < n && (clean_[p + 1] == '/' || clean_[p + 1] == '*')) {
        size_t end;
        if (clean_[p + 1] == '/') {
          end = clean_.find('\n', p + 2);
          if (end == std::string::npos) end = n;
        } else {
          end = clean_.find("*/", p + 2);
          if (end == std::string::npos) {
            diags_->Error(LocAt(p), "unterminated comment");
            end = n;
          } else {
            end += 2;
          }
        }
        out.comments.push_back(Comment{LocAt(p), clean_.substr(p, end - p), out.tokens.size()});
        space = true;
        p = end;
        continue;
      }
      Token tok;
      tok.loc = LocAt(p);
      tok.at_line_start = line_start;
      tok.space_before = space && !line_start;
      const size_t start = p;
      std::string problem;
      bool raw = false;
      if (include_line && c == '<') {
        size_t close = p + 1;
        while (close < n && clean_[close] != '>' && clean_[close] != '\n') ++close;
        if (close < n && clean_[close] == '>') {
          tok.kind = TokenKind::kString;
          p = close + 1;
        }
      }
      if (p != start) {
        // A header name, lexed above.
      } else if (IsIdentStart(static_cast<unsigned char>(c))) {
        while (p < n && IsIdentChar(static_cast<unsigned char>(clean_[p]))) ++p;
        std::string_view ident(clean_.data() + start, p - start);
        const char next = p < n ? clean_[p] : '\0';
        if ((next == '"' || next == '\'') &&
            (ident == "u8" || ident == "u" || ident == "U" || ident == "L")) {
          tok.kind = next == '"' ? TokenKind::kString : TokenKind::kChar;
          p = ScanQuoted(p, &problem);
        } else if (next == '"' && (ident == "R" || ident == "u8R" || ident == "uR" ||
                                   ident == "UR" || ident == "LR")) {
          tok.kind = TokenKind::kString;
          raw = true;
          p = ScanRaw(p, &problem);
        } else {
          tok.kind = TokenKind::kIdentifier;
        }
      } else if (IsDigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && p + 1 < n && IsDigit(static_cast<unsigned char>(clean_[p + 1])))) {
        tok.kind = TokenKind::kNumber;
        ++p;
        while (p < n) {
          const char d = clean_[p];
          const char e = p + 1 < n ? clean_[p + 1] : '\0';
          if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') && (e == '+' || e == '-')) {
            p += 2;
          } else if (IsIdentChar(static_cast<unsigned char>(d)) || d == '.') {
            ++p;
          } else if (d == '\'' && IsIdentChar(static_cast<unsigned char>(e))) {
            p += 2;
          } else {
            break;
          }
        }
      } else if (c == '"' || c == '\'') {
        tok.kind = c == '"' ? TokenKind::kString : TokenKind::kChar;
        p = ScanQuoted(p, &problem);
      } else {
        tok.kind = TokenKind::kPunct;
        p = ScanPunct(p);
      }
      if (raw) {
        // Phase 2 is undone inside raw strings: keep the text as written.
        tok.text = std::string(text_.substr(orig_[start], orig_[p] - orig_[start]));
      } else {
        tok.text = clean_.substr(start, p - start);
      }
      if (!problem.empty()) {
        out.token_problems.push_back(
            {out.tokens.size(), Diagnostic{Severity::kError, tok.loc, problem, {}}});
      }
      ++line_tokens;
      if (line_tokens == 2 && options_.header_names && !out.tokens.empty() &&
          out.tokens.back().at_line_start &&
          (out.tokens.back().text == "#" || out.tokens.back().text == "%:") &&
          tok.kind == TokenKind::kIdentifier &&
          (tok.text == "include" || tok.text == "include_next" || tok.text == "import")) {
        include_line = true;
      } else {
        include_line = false;
      }
      out.tokens.push_back(std::move(tok));
      line_start = false;
      space = false;
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.loc = LocAt(n);
    end.at_line_start = true;
    out.tokens.push_back(std::move(end));
    return out;
  }

 private:
  // Phases 1-2: joins backslash-newline, turns \r\n into \n, and remembers
  // for each byte of clean_ where it was in text_.
  void Splice() {
    clean_.reserve(text_.size());
    orig_.reserve(text_.size() + 1);
    line_starts_.push_back(0);
    const size_t n = text_.size();
    for (size_t i = 0; i < n; ++i) {
      const char c = text_[i];
      if (c == '\n') line_starts_.push_back(static_cast<uint32_t>(i + 1));
      if (c == '\\') {
        size_t j = i + 1;
        while (j < n && (text_[j] == ' ' || text_[j] == '\t')) ++j;
        size_t nl = j;
        if (nl < n && text_[nl] == '\r' && nl + 1 < n && text_[nl + 1] == '\n') ++nl;
        if (nl < n && text_[nl] == '\n') {
          if (j != i + 1) {
            // Located by original offset; LocAt needs a clean offset, so
            // compute directly.
            diags_->Warning(LocOfOrig(i), "backslash and newline separated by space");
          }
          line_starts_.push_back(static_cast<uint32_t>(nl + 1));
          i = nl;
          continue;
        }
      }
      if (c == '\r' && i + 1 < n && text_[i + 1] == '\n') continue;
      clean_.push_back(c);
      orig_.push_back(static_cast<uint32_t>(i));
    }
    orig_.push_back(static_cast<uint32_t>(n));
  }

  SourceLocation LocOfOrig(size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const size_t line = static_cast<size_t>(it - line_starts_.begin());  // >= 1
    const size_t col = offset - line_starts_[line - 1] + 1;
    return SourceLocation{filename_, static_cast<int>(line), static_cast<int>(col)};
  }

  // line_starts_ is sorted: Splice() records them in order.
  SourceLocation LocAt(size_t clean_pos) const { return LocOfOrig(orig_[clean_pos]); }

  // From the opening quote at p (a " or '): returns the end of the literal,
  // with its ud-suffix. Sets *problem if it is not closed on its line.
  size_t ScanQuoted(size_t p, std::string* problem) {
    const char quote = clean_[p];
    const size_t n = clean_.size();
    ++p;
    while (p < n) {
      const char c = clean_[p];
      if (c == '\\' && p + 1 < n && clean_[p + 1] != '\n') {
        p += 2;
        continue;
      }
      if (c == '\n') break;
      ++p;
      if (c == quote) return ScanSuffix(p);
    }
    *problem =
        quote == '"' ? "missing terminating \" character" : "missing terminating ' character";
    return p;
  }

  size_t ScanSuffix(size_t p) {
    if (p < clean_.size() && IsIdentStart(static_cast<unsigned char>(clean_[p]))) {
      while (p < clean_.size() && IsIdentChar(static_cast<unsigned char>(clean_[p]))) ++p;
    }
    return p;
  }

  // Raw string from its opening quote at p.
  size_t ScanRaw(size_t p, std::string* problem) {
    const size_t n = clean_.size();
    size_t d = p + 1;
    while (d < n && d - (p + 1) <= 16) {
      const char c = clean_[d];
      if (c == '(' || c == ')' || c == '\\' || c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
          c == '\f' || c == '\r' || c == '"')
        break;
      ++d;
    }
    if (d >= n || clean_[d] != '(' || d - (p + 1) > 16) {
      *problem = "invalid raw string delimiter";
      size_t eol = clean_.find('\n', p);
      return eol == std::string::npos ? n : eol;
    }
    const std::string close = absl::StrCat(")", clean_.substr(p + 1, d - (p + 1)), "\"");
    const size_t end = clean_.find(close, d + 1);
    if (end == std::string::npos) {
      *problem = "unterminated raw string";
      return n;
    }
    return ScanSuffix(end + close.size());
  }

  size_t ScanPunct(size_t p) const {
    std::string_view rest(clean_.data() + p, clean_.size() - p);
    if (rest.substr(0, 4) == "%:%:") return p + 4;
    for (std::string_view s : kPunct3) {
      if (rest.substr(0, 3) == s) return p + 3;
    }
    for (std::string_view s : kPunct2) {
      if (rest.substr(0, 2) == s) {
        // "<::" is "<" "::" unless followed by ':' or '>' (C++11 [lex.pptoken]).
        if (s == "<:" && rest.size() >= 3 && rest[2] == ':' &&
            !(rest.size() >= 4 && (rest[3] == ':' || rest[3] == '>'))) {
          return p + 1;
        }
        return p + 2;
      }
    }
    if (kPunct1.find(rest[0]) != std::string_view::npos) return p + 1;
    return p + 1;  // a stray character: one byte
  }

  std::string_view text_;
  const std::string& filename_;
  DiagnosticList* diags_;
  LexOptions options_;
  std::string clean_;
  std::vector<uint32_t> orig_;
  std::vector<uint32_t> line_starts_;
};

}  // namespace

LexedText LexDetailed(std::string_view text, const std::string& filename, DiagnosticList* diags,
                      const LexOptions& options) {
  return Lexer(text, filename, diags, options).Run();
}

std::vector<Token> Lex(std::string_view text, const std::string& filename, DiagnosticList* diags) {
  LexedText lexed = LexDetailed(text, filename, diags);
  for (auto& [index, diag] : lexed.token_problems) diags->Add(std::move(diag));
  return std::move(lexed.tokens);
}

bool IsSinglePpToken(std::string_view text, TokenKind* kind) {
  if (text.empty()) return false;
  DiagnosticList diags;
  LexOptions options;
  options.header_names = false;
  LexedText lexed = LexDetailed(text, "", &diags, options);
  if (diags.error_count() + diags.warning_count() > 0 || !lexed.comments.empty() ||
      !lexed.token_problems.empty() || lexed.tokens.size() != 2 || lexed.tokens[0].text != text) {
    return false;
  }
  if (kind != nullptr) *kind = lexed.tokens[0].kind;
  return true;
}

}  // namespace egret::rules
