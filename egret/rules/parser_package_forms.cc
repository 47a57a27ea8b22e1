// The DEF_PACKAGE_* statements: DEF_PACKAGE_OPTIMIZATION (and its
// _WITH_FLAGS, DEF_OPTIM and DEF_OPT spellings) read into a Rule, with its
// pass spec and rule flags; and DEF_PACKAGE_OP* read into an
// OpImplementation, with its cost expression and op flags.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/rules/number_literal.h"
#include "egret/rules/parser_internal.h"
#include "egret/rules/pass_groups.h"
#include "egret/rules/pass_spec.h"

namespace egret::rules::internal {

// --- DEF_PACKAGE_OPTIMIZATION ----------------------------------------------

void Parser::ParseOptimization(size_t form, const std::vector<Range>& args, bool with_flags) {
  const Token& ft = toks_[form];
  const size_t want = with_flags ? 5 : 4;
  if (args.size() != want) {
    Error(ft, absl::StrCat(ft.text, " expects ", want, " arguments (",
                           with_flags ? "pass, flags, match, constraint, replacement"
                                      : "pass, match, constraint, replacement",
                           "), got ", args.size()));
    return;
  }
  Rule rule;
  rule.origin = OriginOf(ft);
  rule.form = ft.text;
  rule_file_ = rule.origin.loc.file;
  bool ok = ParsePassSpec(args[0], ft, &rule);
  size_t k = 1;
  if (with_flags) ParseRuleFlags(args[k++], &rule);
  Raw match, constraint, replacement;
  ok &= ParseRawRange(args[k], &match, "a match expression");
  ok &= ParseRawRange(args[k + 1], &constraint, "a constraint expression");
  ok &= ParseRawRange(args[k + 2], &replacement, "a replacement expression");
  if (!ok) return;
  ok &= ConvertMatch(match, &rule.match, /*root=*/true);
  rule.constraint = Convert(constraint);
  rule.replacement = Convert(replacement);
  if (!ok || !rule.constraint || !rule.replacement) return;
  out_.rules.push_back(std::move(rule));
}

bool Parser::ParsePassSpec(Range r, const Token& form, Rule* rule) {
  PassSpecValue v = EvaluatePassSpec(toks_, r.begin, r.end);
  if (!v.ok) {
    Error(Tok(v.error_tok), v.error);
    return false;
  }
  if (std::optional<PassSpecDeviation> d = PassSpecBeyondGrammar(toks_, r.begin, r.end)) {
    BeyondGrammar(d->tok, d->message);
  }
  rule->pass_origin = OriginOf(Tok(r.begin));
  int64_t priority = v.priority;
  if (form.old_pass_scheme && v.names.empty()) {
    priority = MapOldSchemePriority(priority);
    if (!old_scheme_noted_) {
      old_scheme_noted_ = true;
      Diagnostic d = DiagnosticAt(Severity::kNote, rule->pass_origin,
                                  "the headers in effect number the passes in the deprecated "
                                  "scheme (EARLY is 2000); their priorities are mapped onto the "
                                  "current pass groups (docs/rule-language.md)");
      diags_->Add(std::move(d));
    }
  }
  if (priority < 0) {
    Error(Tok(r.begin), absl::StrCat("the pass position may not be negative (", priority, ")"));
    return false;
  }
  // Spelled as the group written first when the expression starts with it
  // (TILING+10), else as the group the priority falls into.
  const Token& first = Tok(r.begin);
  std::optional<int64_t> named = first.kind == TokenKind::kIdentifier && v.names.size() == 1 &&
                                         v.names[0] == first.text && !form.old_pass_scheme
                                     ? PassGroupValue(first.text)
                                     : std::nullopt;
  if (named && *named <= priority) {
    rule->pass_name = first.text;
  } else {
    rule->pass_name = std::string(PassGroupAt(priority));
  }
  const int64_t base = *PassGroupValue(rule->pass_name);
  rule->pass_offset = priority - base;
  rule->has_offset = rule->pass_offset != 0 || r.end - r.begin > 1;
  rule->priority = priority;
  return true;
}

void Parser::ParseRuleFlags(Range r, Rule* rule) {
  if (r.begin == r.end) {
    Error(Tok(r.end), "expected rule flags (0 or flag names joined by '|')");
    return;
  }
  for (size_t i = r.begin; i < r.end; ++i) {
    const Token& t = toks_[i];
    if (t.IsPunct("|") || t.IsPunct("(") || t.IsPunct(")")) continue;
    if (t.kind == TokenKind::kNumber && (t.text == "0" || t.text == "0u" || t.text == "0U")) {
      continue;
    }
    if (t.kind == TokenKind::kIdentifier) {
      if (Tok(i + 1).IsPunct("::") && i + 2 < r.end) continue;  // Flags::name
      uint32_t bit = RuleFlagBit(t.text);
      if (bit == 0) Warning(t, absl::StrCat("unknown rule flag '", t.text, "'"));
      rule->flags.push_back(t.text);
      rule->flag_bits |= bit;
      continue;
    }
    if (t.IsPunct("::")) continue;
    Error(t, absl::StrCat("unexpected '", t.text, "' in rule flags"));
    return;
  }
}

// --- DEF_PACKAGE_OP* -----------------------------------------------------------

void Parser::ParseOpForm(size_t form, const std::vector<Range>& args) {
  const Token& ft = toks_[form];
  const bool simple = ft.text == "DEF_PACKAGE_OP";
  const bool cost_fn = ft.text == "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS";
  if (simple ? args.size() != 2 : args.size() < 3) {
    Error(ft, absl::StrCat(ft.text,
                           simple ? " expects 2 arguments (implementation, op name)"
                                  : " expects at least 3 arguments (implementation, op "
                                    "name, cost, flags...)",
                           ", got ", args.size()));
    return;
  }
  OpImplementation impl;
  impl.form = ft.text;
  impl.loc = OriginOf(ft).loc;
  if (args[0].begin == args[0].end) {
    Error(Tok(args[0].end), "expected the implementation expression");
    return;
  }
  impl.impl = TextOf(args[0]);
  std::optional<std::string> name = ParseStringArg(args[1], "op name");
  if (!name) return;
  impl.op_name = *name;
  if (simple) {
    impl.cost = CostExpr::Named("GLACIAL");
    impl.flags.push_back("RESOURCE_HVX");
    impl.flag_bits = kResourceHvx;
    out_.ops.push_back(std::move(impl));
    return;
  }
  Range c = args[2];
  if (c.begin == c.end) {
    Error(Tok(c.end), "expected a cost");
    return;
  }
  if (cost_fn) {
    impl.cost.kind = CostExpr::Kind::kFunction;
    impl.cost.name = TextOf(c);
  } else {
    size_t i = c.begin;
    std::optional<CostExpr> cost = ParseCost(i, c.end, 0);
    if (!cost) return;
    if (i != c.end) {
      Error(toks_[i], absl::StrCat("unexpected '", toks_[i].text, "' in the cost"));
      return;
    }
    impl.cost = std::move(*cost);
  }
  for (size_t k = 3; k < args.size(); ++k) {
    Range f = args[k];
    size_t i = f.begin;
    if (i == f.end) {
      Error(Tok(f.end), "expected a flag name");
      return;
    }
    bool ok = true;
    std::vector<std::string> names;
    // NAME, Flags::NAME, or NAMEs joined by '|'; a lone 0 means no flags.
    while (i < f.end) {
      const Token& t = toks_[i];
      if (t.kind == TokenKind::kIdentifier && Tok(i + 1).IsPunct("::") && i + 2 < f.end) {
        i += 2;
        continue;
      }
      if (t.kind == TokenKind::kIdentifier) {
        names.push_back(t.text);
      } else if (!(t.IsPunct("|") || (t.kind == TokenKind::kNumber && t.text == "0"))) {
        Error(t, absl::StrCat("unexpected '", t.text, "' in op flags"));
        ok = false;
        break;
      }
      ++i;
    }
    if (!ok) return;
    for (std::string& n : names) {
      impl.flag_bits |= OpFlagBit(n);
      impl.flags.push_back(std::move(n));
    }
  }
  out_.ops.push_back(std::move(impl));
}

std::optional<CostExpr> Parser::ParseCost(size_t& i, size_t end, int depth) {
  std::optional<CostExpr> lhs = ParseCostTerm(i, end, depth);
  while (lhs && i < end && (toks_[i].IsPunct("+") || toks_[i].IsPunct("-"))) {
    CostExpr e;
    e.kind = toks_[i].text == "+" ? CostExpr::Kind::kAdd : CostExpr::Kind::kSub;
    ++i;
    std::optional<CostExpr> rhs = ParseCostTerm(i, end, depth);
    if (!rhs) return std::nullopt;
    e.args.push_back(std::move(*lhs));
    e.args.push_back(std::move(*rhs));
    lhs = std::move(e);
  }
  return lhs;
}

std::optional<CostExpr> Parser::ParseCostTerm(size_t& i, size_t end, int depth) {
  std::optional<CostExpr> lhs = ParseCostUnary(i, end, depth);
  while (lhs && i < end && (toks_[i].IsPunct("*") || toks_[i].IsPunct("/"))) {
    CostExpr e;
    e.kind = toks_[i].text == "*" ? CostExpr::Kind::kMul : CostExpr::Kind::kDiv;
    ++i;
    std::optional<CostExpr> rhs = ParseCostUnary(i, end, depth);
    if (!rhs) return std::nullopt;
    e.args.push_back(std::move(*lhs));
    e.args.push_back(std::move(*rhs));
    lhs = std::move(e);
  }
  return lhs;
}

std::optional<CostExpr> Parser::ParseCostUnary(size_t& i, size_t end, int depth) {
  if (depth > kMaxDepth) {
    Error(Tok(i), "cost expression nested too deeply");
    return std::nullopt;
  }
  if (i >= end) {
    Error(Tok(i), "expected a cost");
    return std::nullopt;
  }
  const Token& t = toks_[i];
  if (t.IsPunct("-")) {
    ++i;
    std::optional<CostExpr> a = ParseCostUnary(i, end, depth + 1);
    if (!a) return std::nullopt;
    CostExpr e;
    e.kind = CostExpr::Kind::kNeg;
    e.args.push_back(std::move(*a));
    return e;
  }
  if (t.IsPunct("(")) {
    ++i;
    std::optional<CostExpr> a = ParseCost(i, end, depth + 1);
    if (!a) return std::nullopt;
    if (i >= end || !toks_[i].IsPunct(")")) {
      Error(Tok(i), "expected ')' in the cost");
      return std::nullopt;
    }
    ++i;
    return a;
  }
  if (t.kind == TokenKind::kNumber) {
    NumberValue v = ParseNumber(t.text, false);
    if (!v.error.empty()) {
      Error(t, v.error);
      return std::nullopt;
    }
    ++i;
    return CostExpr::Number(v.is_float ? v.f : static_cast<double>(v.i));
  }
  if (t.kind == TokenKind::kIdentifier) {
    if (NamedCost(t.text)) {
      ++i;
      return CostExpr::Named(t.text);
    }
    if ((t.text == "COST_OF" || t.text == "COST_OF_F") && i + 1 < end &&
        toks_[i + 1].IsPunct("(")) {
      const bool f = t.text == "COST_OF_F";
      i += 2;
      if (i >= end || toks_[i].kind != TokenKind::kIdentifier) {
        Error(Tok(i), absl::StrCat("expected a function name in ", t.text));
        return std::nullopt;
      }
      CostExpr e;
      e.kind = f ? CostExpr::Kind::kCostOfF : CostExpr::Kind::kCostOf;
      e.name = toks_[i].text;
      ++i;
      if (!f) {
        if (i >= end || !toks_[i].IsPunct(",")) {
          Error(Tok(i), "expected ',' and a base cost in COST_OF");
          return std::nullopt;
        }
        ++i;
        std::optional<CostExpr> base = ParseCost(i, end, depth + 1);
        if (!base) return std::nullopt;
        e.args.push_back(std::move(*base));
      }
      if (i >= end || !toks_[i].IsPunct(")")) {
        Error(Tok(i), absl::StrCat("expected ')' at the end of ", t.text));
        return std::nullopt;
      }
      ++i;
      return e;
    }
    Error(t, absl::StrCat("unknown cost '", t.text,
                          "' (expected GLACIAL, SNAIL, FAST, FREE, DISABLE, a number, COST_OF or "
                          "COST_OF_F)"));
    return std::nullopt;
  }
  Error(t, absl::StrCat("unexpected '", t.text, "' in the cost"));
  return std::nullopt;
}

}  // namespace egret::rules::internal
