// The rule parser: finds the top-level rule forms in the (preprocessed) token
// stream of an op-package source or a bare .rules file and builds their
// syntax trees (ast.h) and op registrations (op_registry.h).
//
// Recognized forms, each starting a line (tokens elsewhere are skipped):
//   DEF_PACKAGE_OPTIMIZATION(pass_spec, match, constraint, replacement)
//   DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(pass_spec, flags, match, constraint, replacement)
//   DEF_OPT / DEF_OPTIM: the same two (the SDK's internal spellings)
//   DEF_PACKAGE_OP(impl, "Op")
//   DEF_PACKAGE_OP_AND_COST_AND_FLAGS(impl, "Op", cost, FLAGS...)
//   DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(impl, "Op", cost_fn, FLAGS...)
//   DEF_TENSOR_PROPERTIES(...), DEF_PACKAGE_PARAM_ORDER("Op", ...)   (recorded as written)
// For DEF_PACKAGE_OPTIMIZATION*, the '(' must be on the same line as the name,
// and the first token after the closing ')' may not be '(' or ','.
#ifndef EGRET_RULES_PARSER_H_
#define EGRET_RULES_PARSER_H_

#include <string>
#include <vector>

#include "egret/rules/ast.h"
#include "egret/rules/op_registry.h"
#include "egret/rules_pp/token.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

// DEF_TENSOR_PROPERTIES(...): its arguments as written.
struct TensorProperties {
  SourceLocation loc;
  std::vector<std::string> args;
};

// DEF_PACKAGE_PARAM_ORDER("Op", ...): the op name and the other arguments as written.
struct ParamOrder {
  SourceLocation loc;
  std::string op_name;
  std::vector<std::string> args;
};

struct ParsedFile {
  std::vector<Rule> rules;  // in source order; rules with syntax errors are left out
  std::vector<OpImplementation> ops;
  std::vector<TensorProperties> tensor_properties;
  std::vector<ParamOrder> param_orders;
};

// Parses `tokens` (which must end with a kEnd token, as the preprocessor
// produces them). Syntax errors and warnings go to `diags`; parsing recovers
// at the next top-level form. Any token sequence is accepted without crashing;
// nesting deeper than 200 levels is an error. Types are not checked here (see
// checker.h).
ParsedFile ParseRuleTokens(const std::vector<Token>& tokens, DiagnosticList* diags);

// Where a token was written, as reported in diagnostics (Origin in ast.h):
// the token's own place when the user's file wrote it there (also as a macro
// argument), else the use of the outermost macro that produced it, with the
// spelling inside the macro body kept as the note location.
Origin OriginOf(const Token& t);

// A diagnostic at `origin`, with a note when the origin came out of a
// preprocessor macro: "in expansion of macro 'X'" at the macro's use, or
// "expanded from macro 'X'" at the spelling in the macro's body.
Diagnostic DiagnosticAt(Severity severity, const Origin& origin, std::string message);

}  // namespace egret::rules

#endif  // EGRET_RULES_PARSER_H_
