// The rule parser's entry points (parser.h) and its top-level statements:
// the rule forms found at the start of a line, their arguments split at the
// depth-1 commas, each form handed to its family (parser_package_forms.cc)
// or, for DEF_TENSOR_PROPERTIES and DEF_PACKAGE_PARAM_ORDER, recorded as
// written; and the origin of a token in the user's file.
#include "egret/rules/parser.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/rules/parser_internal.h"

namespace egret::rules {
namespace internal {

ParsedFile Parser::Run() {
  if (toks_.empty()) return std::move(out_);
  size_t i = 0;
  const size_t n = toks_.size();
  while (i < n && toks_[i].kind != TokenKind::kEnd) {
    const Token& t = toks_[i];
    if (t.kind != TokenKind::kIdentifier) {
      ++i;
      continue;
    }
    const bool optimization = IsOptimizationForm(t.text);
    const bool op_form = t.text == "DEF_PACKAGE_OP" ||
                         t.text == "DEF_PACKAGE_OP_AND_COST_AND_FLAGS" ||
                         t.text == "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS";
    const bool record = t.text == "DEF_TENSOR_PROPERTIES" || t.text == "DEF_PACKAGE_PARAM_ORDER";
    if (!optimization && !op_form && !record) {
      ++i;
      continue;
    }
    const bool has_paren = Tok(i + 1).IsPunct("(");
    if (!t.at_line_start) {
      // Ordinary C++ that mentions the name; a rule there would be invisible
      // to rule tools, so say so.
      if (optimization && has_paren) {
        Warning(t, absl::StrCat(t.text,
                                " is not at the start of a line and is ignored (a rule must start "
                                "its line)"));
      }
      ++i;
      continue;
    }
    if (!has_paren) {
      if (optimization) Error(Tok(i + 1), absl::StrCat("expected '(' after ", t.text));
      ++i;
      continue;
    }
    const Token& open = Tok(i + 1);
    const SourceLocation& name_loc = OriginOf(t).loc;
    const SourceLocation& open_loc = OriginOf(open).loc;
    if (optimization && (open_loc.file != name_loc.file || open_loc.line != name_loc.line)) {
      Error(open, absl::StrCat("the '(' of ", t.text, " must be on the same line as the name"));
    }
    std::vector<Range> args;
    std::optional<size_t> close = SplitArgs(i, i + 1, &args);
    if (!close) {
      // SplitArgs stopped at the next rule form (or the end): resume there.
      size_t j = i + 2;
      while (j < n && toks_[j].kind != TokenKind::kEnd && !IsRuleFormAt(j)) ++j;
      i = j;
      continue;
    }
    if (optimization) {
      const Token& after = Tok(*close + 1);
      if (after.IsPunct("(") || after.IsPunct(",")) {
        Error(after, absl::StrCat("'", after.text, "' may not follow the closing ')' of ", t.text));
      }
      ParseOptimization(i, args,
                        t.text == "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" || t.text == "DEF_OPTIM");
    } else if (op_form) {
      ParseOpForm(i, args);
    } else if (t.text == "DEF_TENSOR_PROPERTIES") {
      TensorProperties p;
      p.loc = OriginOf(t).loc;
      for (Range r : args) p.args.push_back(TextOf(r));
      out_.tensor_properties.push_back(std::move(p));
    } else {
      ParamOrder p;
      p.loc = OriginOf(t).loc;
      if (!args.empty()) {
        if (std::optional<std::string> s = ParseStringArg(args[0], "op name")) {
          p.op_name = *s;
          for (size_t k = 1; k < args.size(); ++k) p.args.push_back(TextOf(args[k]));
          out_.param_orders.push_back(std::move(p));
        }
      } else {
        Error(t, "DEF_PACKAGE_PARAM_ORDER needs an op name");
      }
    }
    i = *close + 1;
  }
  return std::move(out_);
}

bool Parser::IsRuleFormAt(size_t i) const {
  const Token& t = toks_[i];
  return t.kind == TokenKind::kIdentifier && t.at_line_start && IsOptimizationForm(t.text) &&
         Tok(i + 1).IsPunct("(");
}

std::optional<size_t> Parser::SplitArgs(size_t form, size_t open, std::vector<Range>* args) {
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open; i < toks_.size(); ++i) {
    const Token& t = toks_[i];
    if (t.kind == TokenKind::kEnd || (i > open && IsRuleFormAt(i))) {
      Error(toks_[form], absl::StrCat("missing ')' at the end of ", toks_[form].text));
      return std::nullopt;
    }
    if (t.kind != TokenKind::kPunct) continue;
    if (t.text == "(" || t.text == "[" || t.text == "{") {
      ++depth;
    } else if (t.text == ")" || t.text == "]" || t.text == "}") {
      --depth;
      if (depth == 0) {
        if (!(i == open + 1 && args->empty())) args->push_back({start, i});
        return i;
      }
    } else if (t.text == "," && depth == 1) {
      args->push_back({start, i});
      start = i + 1;
    }
  }
  Error(toks_[form], absl::StrCat("missing ')' at the end of ", toks_[form].text));
  return std::nullopt;
}

std::string Parser::TextOf(Range r) const {
  std::string s;
  for (size_t i = r.begin; i < r.end; ++i) {
    if (i > r.begin && toks_[i].space_before) s += ' ';
    s += toks_[i].text;
  }
  return s;
}

std::optional<std::string> Parser::ParseStringArg(Range r, const char* what) {
  if (r.begin != r.end && toks_[r.begin].IsIdent("FROM_DEFAULT_PACKAGE")) {
    size_t i = r.begin;
    Raw raw;
    if (!ParsePrimaryRaw(i, r.end, &raw, 0)) return std::nullopt;
    if (i != r.end) {
      Error(Tok(i), absl::StrCat("unexpected '", Tok(i).text, "' after the ", what));
      return std::nullopt;
    }
    if (raw.bad_string) return std::nullopt;
    return raw.text;
  }
  if (r.begin == r.end || toks_[r.begin].kind != TokenKind::kString) {
    Error(Tok(r.begin), absl::StrCat("expected a string constant (", what, ")"));
    return std::nullopt;
  }
  Raw raw;
  size_t i = r.begin;
  ParseStringRaw(i, r.end, &raw);
  if (i != r.end) {
    Error(Tok(i), absl::StrCat("unexpected '", Tok(i).text, "' after the ", what));
    return std::nullopt;
  }
  if (raw.bad_string) return std::nullopt;
  return raw.text;
}

}  // namespace internal

Origin OriginOf(const Token& t) {
  Origin o;
  if (t.expanded_from.empty()) {
    o.loc = t.loc;
    return o;
  }
  o.pp_macro = t.expanded_from;
  const SourceLocation& use = t.expansion_loc;
  const bool written_at_use = t.loc.file == use.file && std::make_pair(t.loc.line, t.loc.col) >=
                                                            std::make_pair(use.line, use.col);
  if (written_at_use) {
    o.loc = t.loc;
    o.macro_loc = use;
  } else {
    o.loc = use;
    o.macro_loc = t.loc;
    o.macro_loc_is_spelling = true;
  }
  return o;
}

Diagnostic DiagnosticAt(Severity severity, const Origin& origin, std::string message) {
  Diagnostic d;
  d.severity = severity;
  d.loc = origin.loc;
  d.message = std::move(message);
  if (!origin.pp_macro.empty()) {
    d.notes.emplace_back(origin.macro_loc,
                         absl::StrCat(origin.macro_loc_is_spelling ? "expanded from macro '"
                                                                   : "in expansion of macro '",
                                      origin.pp_macro, "'"));
  }
  return d;
}

ParsedFile ParseRuleTokens(const std::vector<Token>& tokens, DiagnosticList* diags) {
  if (tokens.empty() || tokens.back().kind != TokenKind::kEnd) {
    std::vector<Token> copy = tokens;
    copy.emplace_back();
    if (!tokens.empty()) copy.back().loc = tokens.back().loc;
    return internal::Parser(copy, diags).Run();
  }
  return internal::Parser(tokens, diags).Run();
}

}  // namespace egret::rules
