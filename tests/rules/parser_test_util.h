// What the parser tests (tests/rules/parser*_test.cc) share: parsing a text
// from Lex() directly (so that they do not depend on the preprocessor's macro
// handling), and the printed constraint or replacement of a one-rule text,
// or its first error.
#ifndef EGRET_TESTS_RULES_PARSER_TEST_UTIL_H_
#define EGRET_TESTS_RULES_PARSER_TEST_UTIL_H_

#include <string>
#include <string_view>
#include <vector>

#include "egret/rules/parser.h"
#include "egret/rules_pp/lexer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::rules {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Parsed {
  ParsedFile file;
  DiagnosticList diags;
};

inline Parsed Parse(std::string_view text) {
  Parsed p;
  std::vector<Token> toks = Lex(text, "t.rules", &p.diags);
  p.file = ParseRuleTokens(toks, &p.diags);
  return p;
}

// Parses one rule whose constraint is `cst` and returns the constraint text.
inline std::string Constraint(const std::string& cst, DiagnosticList* diags = nullptr) {
  Parsed p =
      Parse("DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"A\",\"x\"), " + cst + ", \"x\")\n");
  if (diags != nullptr) *diags = p.diags;
  if (p.file.rules.size() != 1) return "<no rule: " + p.diags.ToString() + ">";
  return ToString(*p.file.rules[0].constraint);
}

inline std::string Replacement(const std::string& repl) {
  Parsed p = Parse("DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"A\",\"x\"), OK, " + repl + ")\n");
  if (p.file.rules.size() != 1) return "<no rule: " + p.diags.ToString() + ">";
  return ToString(*p.file.rules[0].replacement);
}

inline std::string FirstError(const std::string& text) {
  Parsed p = Parse(text);
  for (const Diagnostic& d : p.diags.all()) {
    if (d.severity == Severity::kError) return FormatDiagnostic(d.loc, d.severity, d.message);
  }
  return "";
}

}  // namespace egret::rules

#endif  // EGRET_TESTS_RULES_PARSER_TEST_UTIL_H_
