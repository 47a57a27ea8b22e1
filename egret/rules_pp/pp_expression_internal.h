// Evaluation of #if / #elif controlling expressions (C integer constant
// expressions over intmax_t/uintmax_t), for the preprocessor only.
#ifndef EGRET_RULES_PP_PP_EXPRESSION_INTERNAL_H_
#define EGRET_RULES_PP_PP_EXPRESSION_INTERNAL_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "egret/rules_pp/token.h"
#include "egret/support/diagnostic.h"

namespace egret::rules::internal {

// Evaluates `tokens` (already macro-expanded; kEnd not included) as the
// expression of directive `directive` ("if" or "elif") written at
// `directive_loc`. Identifiers other than true/false are 0; a remaining
// `defined X` / `defined(X)` is answered by `is_defined`. Returns nullopt
// after reporting an error to `diags` (the caller treats that as false).
// `max_depth` bounds parenthesis/operator nesting.
std::optional<bool> EvaluatePpExpression(const std::vector<Token>& tokens,
                                         const SourceLocation& directive_loc,
                                         std::string_view directive, int max_depth,
                                         const std::function<bool(const std::string&)>& is_defined,
                                         DiagnosticList* diags);

// Value of a pp-number as an integer constant: false if it is not one (a
// float, bad digits, bad suffix, too large). *is_unsigned is set for a U
// suffix or a value above INT64_MAX. *error receives the reason.
bool ParsePpInteger(std::string_view text, unsigned long long* value, bool* is_unsigned,
                    std::string* error);

}  // namespace egret::rules::internal

#endif  // EGRET_RULES_PP_PP_EXPRESSION_INTERNAL_H_
