// Reading the files of a run: the stack of open files (each lexed once and
// shared by every #include of it), their comments (EXTERNAL_SHAPEFN
// annotations) and lexing problems, and the directive lines: each is taken
// whole and dispatched by name (#if groups to pp_conditional.cc, #include to
// pp_include.cc, #define/#undef to pp_macro_definition.cc); #line, #error,
// #warning and #pragma once are handled here.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/rules_pp/preprocessor_internal.h"

namespace egret::rules::internal {
namespace {

std::string Unquote(std::string_view s) {
  std::string out;
  if (s.size() < 2) return out;
  s = s.substr(1, s.size() - 2);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out.push_back(s[i]);
  }
  return out;
}

}  // namespace

void Preprocessor::PushFile(std::shared_ptr<const SourceFile> src, std::string dir,
                            std::string canonical) {
  OpenFile f;
  f.src = std::move(src);
  f.dir = std::move(dir);
  f.canonical = std::move(canonical);
  files_.push_back(std::move(f));
}

Token Preprocessor::Adjusted(const OpenFile& f, const Token& t) const {
  Token out = t;
  if (f.line_delta != 0) out.loc.line += f.line_delta;
  if (f.presumed_file) out.loc.file = *f.presumed_file;
  return out;
}

// Moves past token f.pos; comments before it and its lexing problems count
// only when `active` (not in a skipped #if group).
void Preprocessor::Consume(OpenFile& f, bool active) {
  const LexedText& lx = f.src->lexed;
  FlushComments(f, f.pos, active);
  while (f.problem_pos < lx.token_problems.size() &&
         lx.token_problems[f.problem_pos].first <= f.pos) {
    if (active && lx.token_problems[f.problem_pos].first == f.pos) {
      Diagnostic d = lx.token_problems[f.problem_pos].second;
      if (f.line_delta != 0) d.loc.line += f.line_delta;
      if (f.presumed_file) d.loc.file = *f.presumed_file;
      diags_->Add(std::move(d));
    }
    ++f.problem_pos;
  }
  ++f.pos;
}

void Preprocessor::FlushComments(OpenFile& f, size_t upto, bool active) {
  const std::vector<Comment>& comments = f.src->lexed.comments;
  while (f.comment_pos < comments.size() && comments[f.comment_pos].next_token <= upto) {
    if (active) ProcessComment(f, comments[f.comment_pos]);
    ++f.comment_pos;
  }
}

void Preprocessor::ProcessComment(const OpenFile& f, const Comment& c) {
  static constexpr std::string_view kMarker = ":::EXTERNAL_SHAPEFN:::";
  const size_t at = c.text.find(kMarker);
  if (at == std::string::npos) return;
  SourceLocation loc = c.loc;
  if (f.line_delta != 0) loc.line += f.line_delta;
  if (f.presumed_file) loc.file = *f.presumed_file;
  const size_t open = c.text.find('{', at + kMarker.size());
  const size_t close = c.text.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    diags_->Warning(loc, "malformed EXTERNAL_SHAPEFN annotation: expected '{ ... }'");
    return;
  }
  std::string_view inner(c.text.data() + open + 1, close - open - 1);
  while (!inner.empty() && std::isspace(static_cast<unsigned char>(inner.front()))) {
    inner.remove_prefix(1);
  }
  while (!inner.empty() && std::isspace(static_cast<unsigned char>(inner.back()))) {
    inner.remove_suffix(1);
  }
  annotations_.emplace_back(std::move(loc), std::string(inner));
}

void Preprocessor::FinishFile() {
  OpenFile& f = files_.back();
  if (!aborted_) {
    for (const CondFrame& c : f.conds) {
      diags_->Error(c.loc, absl::StrFormat("unterminated #%s", c.directive));
    }
  }
  FlushComments(f, f.src->lexed.tokens.size(), true);
  files_.pop_back();
}

// The next token of the files after directives and #if groups.
bool Preprocessor::NextFromFiles(PPToken* out) {
  while (!files_.empty() && !aborted_) {
    OpenFile& f = files_.back();
    const Token& t = f.src->lexed.tokens[f.pos];
    if (t.kind == TokenKind::kEnd) {
      FinishFile();
      continue;
    }
    if (!CountWork(t)) return false;
    if (t.at_line_start && IsHash(t)) {
      HandleDirective();
      continue;
    }
    out->tok = Adjusted(f, t);
    out->hs = 0;
    out->placemarker = false;
    Consume(f, true);
    return true;
  }
  return false;
}

// The tokens of the directive line after the '#' at f.pos (consumed).
std::vector<Token> Preprocessor::TakeLine(OpenFile& f, bool active) {
  std::vector<Token> line;
  const std::vector<Token>& toks = f.src->lexed.tokens;
  while (toks[f.pos].kind != TokenKind::kEnd && !toks[f.pos].at_line_start) {
    if (active) line.push_back(Adjusted(f, toks[f.pos]));
    Consume(f, active);
  }
  return line;
}

void Preprocessor::WarnExtraTokens(const std::vector<Token>& line, size_t used) {
  if (line.size() > used) {
    diags_->Warning(line[used].loc,
                    absl::StrFormat("extra tokens at end of #%s directive", line[0].text));
  }
}

void Preprocessor::HandleDirective() {
  const size_t fi = files_.size() - 1;
  {
    OpenFile& f = files_[fi];
    Consume(f, true);  // '#'
  }
  const int raw_hash_line = files_[fi].src->lexed.tokens[files_[fi].pos - 1].loc.line;
  std::vector<Token> line = TakeLine(files_[fi], true);
  if (line.empty()) return;  // null directive
  const Token& name = line[0];
  if (name.kind == TokenKind::kNumber) {  // GNU line marker: # 12 "file"
    DoLine(line, 0, fi, raw_hash_line);
    return;
  }
  if (name.kind != TokenKind::kIdentifier) return;
  const std::string& d = name.text;
  if (d == "define") {
    DoDefine(line);
  } else if (d == "undef") {
    DoUndef(line);
  } else if (d == "include" || d == "include_next" || d == "import") {
    DoInclude(line, fi);
  } else if (d == "if" || d == "ifdef" || d == "ifndef") {
    bool cond = false;
    if (d == "if") {
      cond = EvalIf(line, "if").value_or(false);
    } else {
      cond = EvalIfdef(line, d == "ifndef").value_or(false);
    }
    files_[fi].conds.push_back(CondFrame{name.loc, d, cond, false});
    if (!cond) SkipGroup(fi);
  } else if (d == "elif" || d == "elifdef" || d == "elifndef" || d == "else") {
    OpenFile& f = files_[fi];
    if (f.conds.empty()) {
      diags_->Error(name.loc, absl::StrFormat("#%s without #if", d));
      return;
    }
    CondFrame& c = f.conds.back();
    if (c.in_else) {
      diags_->Error(name.loc, absl::StrFormat("#%s after #else", d));
    }
    if (d == "else") {
      WarnExtraTokens(line, 1);
      c.in_else = true;
    }
    SkipGroup(fi);  // the group being processed was the taken one
  } else if (d == "endif") {
    OpenFile& f = files_[fi];
    if (f.conds.empty()) {
      diags_->Error(name.loc, "#endif without #if");
      return;
    }
    WarnExtraTokens(line, 1);
    f.conds.pop_back();
  } else if (d == "error" || d == "warning") {
    std::vector<Token> rest(line.begin() + 1, line.end());
    std::string text = absl::StrCat("#", d);
    if (!rest.empty()) absl::StrAppend(&text, " ", TokensToText(rest));
    if (d == "error") {
      diags_->Error(name.loc, std::move(text));
    } else {
      diags_->Warning(name.loc, std::move(text));
    }
  } else if (d == "line") {
    DoLine(line, 1, fi, raw_hash_line);
  } else if (d == "pragma") {
    if (line.size() >= 2 && line[1].IsIdent("once")) once_.insert(files_[fi].canonical);
  }
  // Every other directive (#pragma ..., #ident, #assert, ...) is ignored.
}

void Preprocessor::DoLine(const std::vector<Token>& line, size_t first, size_t fi,
                          int raw_hash_line) {
  std::vector<Token> args(line.begin() + first, line.end());
  if (first == 1) {  // #line takes macros; a line marker does not
    std::vector<PPToken> in;
    for (const Token& t : args) in.push_back(PPToken{t, 0, false});
    std::vector<PPToken> expanded = ExpandList(std::move(in), 1);
    if (aborted_) return;
    args.clear();
    for (PPToken& p : expanded) args.push_back(std::move(p.tok));
  }
  if (args.empty()) {
    diags_->Error(line[0].loc, "#line directive requires a line number");
    return;
  }
  const Token& num = args[0];
  const bool digits =
      num.kind == TokenKind::kNumber && !num.text.empty() &&
      std::all_of(num.text.begin(), num.text.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
      num.text.size() <= 9;
  if (!digits) {
    diags_->Error(num.loc,
                  absl::StrFormat("\"%s\" after #line is not a positive integer", num.text));
    return;
  }
  const int n = std::stoi(num.text);
  OpenFile& f = files_[fi];
  if (args.size() >= 2) {
    if (args[1].kind != TokenKind::kString || args[1].text.front() != '"') {
      diags_->Error(args[1].loc,
                    absl::StrFormat("invalid filename \"%s\" in #line directive", args[1].text));
      return;
    }
    std::string presumed = Unquote(args[1].text);
    if (presumed.empty()) {
      diags_->Error(args[1].loc, "empty filename in #line directive");
      return;
    }
    f.presumed_file = std::move(presumed);
    if (first == 1) WarnExtraTokens(args, 2);
  }
  // The line after the directive is line n.
  const std::vector<Token>& toks = f.src->lexed.tokens;
  int last_line = raw_hash_line;
  if (f.pos > 0) last_line = std::max(last_line, toks[f.pos - 1].loc.line);
  f.line_delta = n - (last_line + 1);
}

}  // namespace egret::rules::internal
