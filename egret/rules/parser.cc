#include "egret/rules/parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/rules/cpp_cast.h"
#include "egret/rules/form_table.h"
#include "egret/rules/number_literal.h"
#include "egret/rules/pass_groups.h"
#include "egret/rules/pass_spec.h"
#include "egret/rules_pp/prelude.h"

namespace egret::rules {
namespace {

constexpr int kMaxDepth = 200;

// The ends of the warnings about forms beyond the HTP rule grammar.
constexpr char kTypecastRule[] = "(typecast ::= INT(...) | UINT(...) | FLOAT(...))";
constexpr char kMayReject[] = "; the HTP's parser may reject it";

// The forms that define a rule; DEF_OPTIM and DEF_OPT are the SDK's internal
// spellings of the two (its helper macros such as CONVERT_BINARY_OP_TO_FP16
// expand to them).
bool IsOptimizationForm(std::string_view name) {
  return name == "DEF_PACKAGE_OPTIMIZATION" || name == "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" ||
         name == "DEF_OPTIM" || name == "DEF_OPT";
}

// ---------------------------------------------------------------------------
// Numbers

// ---------------------------------------------------------------------------
// Raw trees: the shape of an argument before it is given a meaning.

struct Raw {
  enum Kind : uint8_t { kCall, kIdent, kString, kNumber, kQualified };
  Kind kind = kIdent;
  size_t tok = 0;     // the name / first string / number (or its sign) token
  std::string text;   // name, string contents (joined), number as written, member of X::Y
  std::string scope;  // kQualified: X of X::Y
  bool negative = false;
  bool bad_string = false;  // an error was already reported for this string
  std::vector<Raw> args;
};

struct Range {
  size_t begin = 0;
  size_t end = 0;  // exclusive; toks[end] is the ',' or ')' that ends the range
};

// ---------------------------------------------------------------------------

class Parser {
 public:
  Parser(const std::vector<Token>& toks, DiagnosticList* diags) : toks_(toks), diags_(diags) {}

  ParsedFile Run();

 private:
  const Token& Tok(size_t i) const { return toks_[i < toks_.size() ? i : toks_.size() - 1]; }
  void Error(const Token& t, std::string msg) {
    diags_->Add(DiagnosticAt(Severity::kError, OriginOf(t), std::move(msg)));
  }
  void Warning(const Token& t, std::string msg) {
    diags_->Add(DiagnosticAt(Severity::kWarning, OriginOf(t), std::move(msg)));
  }
  void Error(const Raw& r, std::string msg) { Error(Tok(r.tok), std::move(msg)); }
  // A warning about a form egret accepts beyond the HTP rule grammar
  // (docs/rule-language.md, "Beyond the grammar"), at token `at`: only when
  // `at` is spelled in the file that uses the rule, so a form inside a macro
  // of the prelude or of an included header (the SDK's) is not reported at
  // every use.
  void BeyondGrammar(size_t at, std::string msg) {
    if (Tok(at).loc.file != rule_file_) return;
    Warning(Tok(at), std::move(msg));
  }
  // BeyondGrammar when the identifier at `at` (a function or C++ name) is not
  // a <name> of the grammar: egret's lexer also takes '$' and bytes >= 0x80.
  void CheckGrammarName(size_t at) {
    const std::string& name = Tok(at).text;
    for (char c : name) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') {
        BeyondGrammar(at, absl::StrCat("name '", name,
                                       "' is not in the HTP rule grammar (<name> ::= "
                                       "[A-Za-z_][A-Za-z_0-9]*)",
                                       kMayReject));
        return;
      }
    }
  }

  // Scans from the '(' at `open` to its matching ')', splitting the depth-1
  // arguments at commas. Returns the index of the ')' or nullopt (an error
  // was reported) when the form does not end.
  std::optional<size_t> SplitArgs(size_t form, size_t open, std::vector<Range>* args);
  std::string TextOf(Range r) const;
  bool IsRuleFormAt(size_t i) const;

  void ParseOptimization(size_t form, const std::vector<Range>& args, bool with_flags);
  void ParseOpForm(size_t form, const std::vector<Range>& args);
  bool ParsePassSpec(Range r, const Token& form, Rule* rule);
  void ParseRuleFlags(Range r, Rule* rule);
  std::optional<std::string> ParseStringArg(Range r, const char* what);
  std::optional<CostExpr> ParseCost(size_t& i, size_t end, int depth);
  std::optional<CostExpr> ParseCostTerm(size_t& i, size_t end, int depth);
  std::optional<CostExpr> ParseCostUnary(size_t& i, size_t end, int depth);

  // Raw trees.
  bool ParseRawRange(Range r, Raw* out, const char* what);
  // An operand: primaries joined by + - * / % (only numeric constants may be
  // joined; they are folded to one constant as C computes it).
  bool ParseRaw(size_t& i, size_t end, Raw* out, int depth);
  bool ParseInfixRaw(size_t& i, size_t end, Raw* out, int depth, int level);
  bool FoldArithmetic(size_t op, Raw* lhs, const Raw& rhs);
  bool ParsePrimaryRaw(size_t& i, size_t end, Raw* out, int depth);
  void ParseStringRaw(size_t& i, size_t end, Raw* out);
  // An arithmetic type name at i (`std::` allowed): advances i past it.
  std::optional<CppType> ReadTypeName(size_t& i, size_t end) const;
  // `out` = the cast of `operand` to `type` written at token `at`: a
  // constant folded as C++ converts it, else UINT / INT / FLOAT(operand).
  bool MakeCast(size_t at, const CppType& type, Raw operand, Raw* out);

  // Meanings.
  bool ConvertMatch(const Raw& r, MatchNode* out, bool root);
  ExprPtr Convert(const Raw& r);
  ExprPtr ConvertCall(const Raw& r);
  ExprPtr ConvertMacro(const Raw& r, const MacroRow& m);
  // Converts r.args under `spec` into `e` (children, name, split_tag, int_value).
  bool ConvertOperands(const Raw& r, std::string_view spec, Expr* e,
                       std::vector<ExprPtr>* children);
  bool OperandString(const Raw& a, const char* what, std::string* out);
  ExprPtr MakeTag(const Raw& a);

  const std::vector<Token>& toks_;
  DiagnosticList* diags_;
  ParsedFile out_;
  bool old_scheme_noted_ = false;  // the note about the deprecated pass numbering
  std::string rule_file_;          // where the rule being parsed is used (BeyondGrammar)
};

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

// --- match -------------------------------------------------------------------------

bool Parser::ConvertMatch(const Raw& r, MatchNode* out, bool root) {
  out->origin = OriginOf(Tok(r.tok));
  if (r.kind == Raw::kString) {
    if (root) {
      Error(r, "the root of a match must be Op(...) or OpVarIn(...), not an operand tag");
      return false;
    }
    if (r.bad_string) return false;
    out->kind = MatchKind::kTag;
    out->tag = r.text;
    return true;
  }
  if (r.kind == Raw::kCall && r.text == "LET") {
    if (root) {
      Error(r, "LET cannot be the root of a match");
      return false;
    }
    if (r.args.size() != 2) {
      Error(r, absl::StrCat("LET expects 2 operands (tag, Op or OpVarIn), got ", r.args.size()));
      return false;
    }
    if (r.args[0].kind != Raw::kString) {
      Error(r.args[0], "the first operand of LET must be an operand tag (a string constant)");
      return false;
    }
    if (r.args[0].bad_string) return false;
    const Raw& inner = r.args[1];
    if (inner.kind != Raw::kCall || (inner.text != "Op" && inner.text != "OpVarIn")) {
      Error(inner, "the second operand of LET must be Op(...) or OpVarIn(...)");
      return false;
    }
    out->kind = MatchKind::kLet;
    out->tag = r.args[0].text;
    out->operands.emplace_back();
    return ConvertMatch(inner, &out->operands.back(), false);
  }
  if (r.kind == Raw::kCall && (r.text == "Op" || r.text == "OpVarIn")) {
    out->kind = r.text == "Op" ? MatchKind::kOp : MatchKind::kOpVarIn;
    if (r.args.empty() || r.args[0].kind != Raw::kString) {
      Error(
          r.args.empty() ? r : r.args[0],
          absl::StrCat("the first operand of ", r.text, " must be an op name (a string constant)"));
      return false;
    }
    if (r.args[0].bad_string) return false;
    out->op = r.args[0].text;
    bool ok = true;
    out->operands.resize(r.args.size() - 1);
    for (size_t k = 1; k < r.args.size(); ++k) {
      ok &= ConvertMatch(r.args[k], &out->operands[k - 1], false);
    }
    return ok;
  }
  Error(r, root ? "the root of a match must be Op(...) or OpVarIn(...)"
                : absl::StrCat("expected an operand tag, Op, OpVarIn or LET in a match, found '",
                               Tok(r.tok).text, "'"));
  return false;
}

// --- constraints and replacements -----------------------------------------------------

ExprPtr Parser::MakeTag(const Raw& a) {
  ExprPtr e = NewExpr(ExprKind::kTag, OriginOf(Tok(a.tok)));
  e->name = a.text;
  return e;
}

bool Parser::OperandString(const Raw& a, const char* what, std::string* out) {
  if (a.kind != Raw::kString) {
    Error(a,
          absl::StrCat("expected ", what, " (a string constant), found '", Tok(a.tok).text, "'"));
    return false;
  }
  if (a.bad_string) return false;
  *out = a.text;
  return true;
}

ExprPtr Parser::Convert(const Raw& r) {
  const Origin origin = OriginOf(Tok(r.tok));
  switch (r.kind) {
    case Raw::kString: {
      if (r.bad_string) return nullptr;
      return MakeTag(r);
    }
    case Raw::kNumber: {
      NumberValue v = ParseNumber(r.text, r.negative);
      if (!v.error.empty()) {
        Error(r, v.error);
        return nullptr;
      }
      if (!v.warning.empty()) Warning(Tok(r.tok), v.warning);
      if (v.is_float) {
        ExprPtr e = NewExpr(ExprKind::kFloatConst, origin);
        e->float_value = v.f;
        return e;
      }
      ExprPtr e = NewExpr(v.is_size ? ExprKind::kSizeConst : ExprKind::kIntConst, origin);
      e->int_value = v.i;
      return e;
    }
    case Raw::kQualified: {
      if (r.scope != "DType") {
        Error(r, absl::StrCat("unknown name '", r.scope, "::", r.text,
                              "' (only DType::<tag> is "
                              "allowed)"));
        return nullptr;
      }
      std::optional<DType> dt = ParseDType(r.text);
      if (!dt) {
        Error(Tok(r.tok + 2), absl::StrCat("'", r.text, "' is not a tag of the DType enum"));
        return nullptr;
      }
      ExprPtr e = NewExpr(ExprKind::kDTypeConst, origin);
      e->dtype = *dt;
      return e;
    }
    case Raw::kIdent: {
      if (r.text == "OK" || r.text == "true" || r.text == "false") {
        ExprPtr e = NewExpr(ExprKind::kBoolConst, origin);
        e->int_value = r.text != "false";
        return e;
      }
      if (r.text == "INF" || r.text == "NEG_INF") {
        ExprPtr e = NewExpr(ExprKind::kFloatConst, origin);
        e->float_value = r.text == "INF" ? std::numeric_limits<double>::infinity()
                                         : -std::numeric_limits<double>::infinity();
        return e;
      }
      if (FindForm(r.text) != nullptr || FindMacro(r.text) != nullptr || r.text == "LET" ||
          r.text == "OpVarIn") {
        Error(r, absl::StrCat("'", r.text, "' needs operands in parentheses"));
        return nullptr;
      }
      // Any other identifier is a C++ name the package supplies: the checker
      // accepts it in a constraint (a rule egret keeps but cannot run) and
      // reports it elsewhere as an unknown name.
      CheckGrammarName(r.tok);
      ExprPtr e = NewExpr(ExprKind::kCppName, origin);
      e->name = r.text;
      return e;
    }
    case Raw::kCall:
      return ConvertCall(r);
  }
  return nullptr;
}

bool Parser::ConvertOperands(const Raw& r, std::string_view spec, Expr* e,
                             std::vector<ExprPtr>* children) {
  bool ok = true;
  const size_t n = r.args.size();
  for (size_t k = 0; k < n; ++k) {
    const Raw& a = r.args[k];
    switch (SignatureLetter(spec, k, n)) {
      case 'e': {
        ExprPtr c = Convert(a);
        ok &= c != nullptr;
        children->push_back(std::move(c));
        break;
      }
      case 'g': {
        std::string tag;
        if (OperandString(a, "an operand tag", &tag)) {
          children->push_back(MakeTag(a));
        } else {
          ok = false;
          children->push_back(nullptr);
        }
        break;
      }
      case 's':
        ok &= OperandString(a, "an op name", &e->name);
        break;
      case 'o':
        ok &= OperandString(a, "an option name", &e->name);
        break;
      case 't':
        ok &= OperandString(a, "a split tag", &e->split_tag);
        break;
      case 'n':
        if (a.kind != Raw::kIdent) {
          Error(a, absl::StrCat("expected a name (a C identifier), found '", Tok(a.tok).text, "'"));
          ok = false;
        } else {
          CheckGrammarName(a.tok);
          e->name = a.text;
        }
        break;
      case 'i': {
        NumberValue v;
        if (a.kind == Raw::kNumber) v = ParseNumber(a.text, a.negative);
        if (a.kind != Raw::kNumber || v.is_float || !v.error.empty()) {
          Error(a, absl::StrCat("expected an integer constant, found '", Tok(a.tok).text, "'"));
          ok = false;
        } else {
          e->int_value = v.i;
        }
        break;
      }
      default:
        break;
    }
  }
  return ok;
}

ExprPtr Parser::ConvertCall(const Raw& r) {
  const Origin origin = OriginOf(Tok(r.tok));
  if (const MacroRow* m = FindMacro(r.text)) return ConvertMacro(r, *m);
  const FormRow* f = FindForm(r.text);
  if (f == nullptr) {
    if (r.text == "LET" || r.text == "OpVarIn") {
      Error(r, absl::StrCat(r.text, " may only be used in a match"));
    } else {
      Error(r, absl::StrCat("unknown function '", r.text, "'"));
    }
    return nullptr;
  }
  const char* spec = f->SignatureFor(r.args.size());
  if (spec == nullptr) {
    Error(r, absl::StrCat(r.text, " expects ", SignatureArityText(f->signature, f->alt_signature),
                          ", got ", r.args.size()));
    return nullptr;
  }
  ExprPtr e = NewExpr(f->kind, origin);
  if (!ConvertOperands(r, spec, e.get(), &e->args)) return nullptr;
  return e;
}

ExprPtr Parser::ConvertMacro(const Raw& r, const MacroRow& m) {
  if (!SignatureFits(m.signature, r.args.size())) {
    Error(r, absl::StrCat(r.text, " expects ", SignatureArityText(m.signature, nullptr), ", got ",
                          r.args.size()));
    return nullptr;
  }
  Expr holder;  // receives name / split_tag operands
  MacroCall call;
  call.origin = OriginOf(Tok(r.tok));
  if (!ConvertOperands(r, m.signature, &holder, &call.args)) return nullptr;
  call.name = std::move(holder.name);
  call.split_tag = std::move(holder.split_tag);
  ExprPtr e = m.expand(m, call);
  if (e->macro.empty()) e->macro = r.text;
  return e;
}

}  // namespace

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
    return Parser(copy, diags).Run();
  }
  return Parser(tokens, diags).Run();
}

}  // namespace egret::rules
