// The rule parser's state and the records its pieces share: the raw tree of
// an argument before it is given a meaning, the token range of an argument,
// and the Parser class. Each member function lives in the file of its family,
// named at its group below. Internal to the rules stage; the entry point is
// ParseRuleTokens() in parser.h.
#ifndef EGRET_RULES_PARSER_INTERNAL_H_
#define EGRET_RULES_PARSER_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "egret/rules/ast.h"
#include "egret/rules/cpp_cast.h"
#include "egret/rules/form_table.h"
#include "egret/rules/parser.h"
#include "egret/rules_pp/token.h"
#include "egret/support/diagnostic.h"

namespace egret::rules::internal {

inline constexpr int kMaxDepth = 200;

// The ends of the warnings about forms beyond the HTP rule grammar.
inline constexpr char kTypecastRule[] = "(typecast ::= INT(...) | UINT(...) | FLOAT(...))";
inline constexpr char kMayReject[] = "; the HTP's parser may reject it";

// The forms that define a rule; DEF_OPTIM and DEF_OPT are the SDK's internal
// spellings of the two (its helper macros such as CONVERT_BINARY_OP_TO_FP16
// expand to them).
inline bool IsOptimizationForm(std::string_view name) {
  return name == "DEF_PACKAGE_OPTIMIZATION" || name == "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" ||
         name == "DEF_OPTIM" || name == "DEF_OPT";
}

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

// One run of the parser over a token stream; out_ collects what it finds.
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

  // ---- The top-level statements: parser.cc ----

  // Scans from the '(' at `open` to its matching ')', splitting the depth-1
  // arguments at commas. Returns the index of the ')' or nullopt (an error
  // was reported) when the form does not end.
  std::optional<size_t> SplitArgs(size_t form, size_t open, std::vector<Range>* args);
  std::string TextOf(Range r) const;
  bool IsRuleFormAt(size_t i) const;
  std::optional<std::string> ParseStringArg(Range r, const char* what);

  // ---- DEF_PACKAGE_OPTIMIZATION and DEF_PACKAGE_OP*: parser_package_forms.cc ----

  void ParseOptimization(size_t form, const std::vector<Range>& args, bool with_flags);
  void ParseOpForm(size_t form, const std::vector<Range>& args);
  bool ParsePassSpec(Range r, const Token& form, Rule* rule);
  void ParseRuleFlags(Range r, Rule* rule);
  std::optional<CostExpr> ParseCost(size_t& i, size_t end, int depth);
  std::optional<CostExpr> ParseCostTerm(size_t& i, size_t end, int depth);
  std::optional<CostExpr> ParseCostUnary(size_t& i, size_t end, int depth);

  // ---- Raw trees: parser_raw_trees.cc ----

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

  // ---- Meanings: the match pattern (parser_match.cc), constraints and
  // replacements (parser_expressions.cc) ----

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

}  // namespace egret::rules::internal

#endif  // EGRET_RULES_PARSER_INTERNAL_H_
