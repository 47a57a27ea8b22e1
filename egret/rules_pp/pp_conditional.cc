// Conditional compilation: the groups of #if/#ifdef/#ifndef/#elif/
// #elifdef/#elifndef/#else/#endif. A group not taken is skipped without
// expansion (nested #if blocks counted, comments and lexing problems in it
// ignored); #ifdef tests the macro table, and #if / #elif answer `defined`,
// __has_include and the __has_* queries, expand the rest and hand it to
// pp_expression.cc.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/rules_pp/pp_expression_internal.h"
#include "egret/rules_pp/preprocessor_internal.h"

namespace egret::rules::internal {

// Skips groups of the innermost #if of file fi until a group is taken or
// its #endif is read.
void Preprocessor::SkipGroup(size_t fi) {
  int nest = 0;
  while (!aborted_) {
    OpenFile& f = files_[fi];
    const std::vector<Token>& toks = f.src->lexed.tokens;
    const Token& t = toks[f.pos];
    if (t.kind == TokenKind::kEnd) return;  // FinishFile reports the open #if
    if (!CountWork(t)) return;
    if (!(t.at_line_start && IsHash(t))) {
      Consume(f, false);
      continue;
    }
    const Token& dn = toks[f.pos + 1];
    if (dn.kind != TokenKind::kIdentifier || dn.at_line_start) {
      Consume(f, false);
      continue;
    }
    const std::string& d = dn.text;
    if (d == "if" || d == "ifdef" || d == "ifndef") {
      ++nest;
      Consume(f, false);
      TakeLine(f, false);
      continue;
    }
    if (nest > 0 ||
        !(d == "endif" || d == "else" || d == "elif" || d == "elifdef" || d == "elifndef")) {
      if (nest > 0 && d == "endif") --nest;
      Consume(f, false);
      TakeLine(f, false);
      continue;
    }
    FlushComments(f, f.pos, false);  // comments of the skipped group
    Consume(f, true);                // '#'
    std::vector<Token> line = TakeLine(f, true);
    CondFrame& c = f.conds.back();
    if (d == "endif") {
      WarnExtraTokens(line, 1);
      f.conds.pop_back();
      return;
    }
    if (c.in_else) {
      diags_->Error(line[0].loc, absl::StrFormat("#%s after #else", d));
      continue;
    }
    if (d == "else") {
      WarnExtraTokens(line, 1);
      c.in_else = true;
      if (!c.taken) {
        c.taken = true;
        return;
      }
      continue;
    }
    if (c.taken) continue;
    std::optional<bool> cond =
        d == "elif" ? EvalIf(line, "elif") : EvalIfdef(line, d == "elifndef");
    if (cond.value_or(false)) {
      files_[fi].conds.back().taken = true;
      return;
    }
  }
}

std::optional<bool> Preprocessor::EvalIfdef(const std::vector<Token>& line, bool negate) {
  if (line.size() < 2) {
    diags_->Error(line[0].loc,
                  absl::StrFormat("no macro name given in #%s directive", line[0].text));
    return std::nullopt;
  }
  if (line[1].kind != TokenKind::kIdentifier) {
    diags_->Error(line[1].loc, "macro names must be identifiers");
    return std::nullopt;
  }
  WarnExtraTokens(line, 2);
  return IsDefined(line[1].text) != negate;
}

// #if / #elif: `defined` and __has_include are answered before expansion.
std::optional<bool> Preprocessor::EvalIf(const std::vector<Token>& line,
                                         std::string_view directive) {
  std::vector<PPToken> pre;
  auto number = [](const Token& at, bool v) {
    PPToken p;
    p.tok = at;
    p.tok.kind = TokenKind::kNumber;
    p.tok.text =
        std::string(1, v ? '1' : '0');  // not "1"/"0": GCC 12 -O3 -Wrestrict false positive
    return p;
  };
  for (size_t i = 1; i < line.size(); ++i) {
    const Token& t = line[i];
    if (t.IsIdent("defined")) {
      size_t j = i + 1;
      const bool paren = j < line.size() && line[j].IsPunct("(");
      if (paren) ++j;
      if (j >= line.size() || line[j].kind != TokenKind::kIdentifier) {
        diags_->Error(j < line.size() ? line[j].loc : t.loc,
                      "operator \"defined\" requires an identifier");
        return std::nullopt;
      }
      const bool v = IsDefined(line[j].text);
      if (paren) {
        if (j + 1 >= line.size() || !line[j + 1].IsPunct(")")) {
          diags_->Error(line[j].loc, "missing ')' after \"defined\"");
          return std::nullopt;
        }
        ++j;
      }
      pre.push_back(number(t, v));
      i = j;
    } else if (t.kind == TokenKind::kIdentifier && (IsHasInclude(t.text) || IsHasQuery(t.text))) {
      size_t j = i + 1;
      if (j >= line.size() || !line[j].IsPunct("(")) {
        diags_->Error(t.loc, absl::StrFormat("missing '(' after \"%s\"", t.text));
        return std::nullopt;
      }
      int depth = 0;
      size_t close = j;
      for (; close < line.size(); ++close) {
        if (line[close].IsPunct("(")) ++depth;
        if (line[close].IsPunct(")") && --depth == 0) break;
      }
      if (close >= line.size()) {
        diags_->Error(t.loc, absl::StrFormat("missing ')' after \"%s\"", t.text));
        return std::nullopt;
      }
      bool v = false;
      if (IsHasInclude(t.text)) {
        std::vector<Token> spec(line.begin() + j + 1, line.begin() + close);
        std::string header;
        bool angled = false;
        if (!HeaderSpec(spec, &header, &angled)) {
          diags_->Error(t.loc, absl::StrFormat("\"%s\" requires a header name", t.text));
          return std::nullopt;
        }
        v = !FindInclude(header, files_.back().dir).empty();
      }
      pre.push_back(number(t, v));
      i = close;
    } else {
      pre.push_back(PPToken{t, 0, false});
    }
  }
  std::vector<PPToken> expanded = ExpandList(std::move(pre), 1);
  if (aborted_) return std::nullopt;
  std::vector<Token> toks;
  toks.reserve(expanded.size());
  for (PPToken& p : expanded) toks.push_back(std::move(p.tok));
  return internal::EvaluatePpExpression(
      toks, line[0].loc, directive, options_.max_nesting,
      [this](const std::string& n) { return IsDefined(n); }, diags_);
}

}  // namespace egret::rules::internal
