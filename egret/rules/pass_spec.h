// The pass position of a rule (the first operand of DEF_PACKAGE_OPTIMIZATION):
// an integer constant expression over numbers, pass-group names
// (pass_groups.h), + - * / %, parentheses, C-style, functional and
// static_cast casts to integer types, and integer suffixes. With the QNN SDK
// headers the names arrive already replaced by numbers (`3050 + 1`), without
// them as names (`EARLY + 1`).
#ifndef EGRET_RULES_PASS_SPEC_H_
#define EGRET_RULES_PASS_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "egret/rules_pp/token.h"

namespace egret::rules {

struct PassSpecValue {
  bool ok = false;
  int64_t priority = 0;
  // The pass-group names the expression used (none: a purely numeric spec).
  std::vector<std::string> names;
  // When !ok: the message and the index of the token it is about.
  std::string error;
  size_t error_tok = 0;
};

// Evaluates toks[begin, end). Values are limited to +-2^40 (larger is an
// error); the result may be negative (the caller rejects it).
PassSpecValue EvaluatePassSpec(const std::vector<Token>& toks, size_t begin, size_t end);

// Where a pass position as written departs from the HTP rule grammar
// (pass_spec ::= <name> | <name> '+' <integer_const>, the constant decimal
// with no sign or suffix), which EvaluatePassSpec accepts: the token to warn
// at and the message ("pass offset '0x10' is not a plain decimal constant
// ..."). Tokens that one macro use produced count as one name (EARLY
// replaced by a header's number); a pass position wholly inside one macro
// use is not judged (its spelling is the macro's). nullopt when it conforms.
struct PassSpecDeviation {
  size_t tok = 0;
  std::string message;
};
std::optional<PassSpecDeviation> PassSpecBeyondGrammar(const std::vector<Token>& toks, size_t begin,
                                                       size_t end);

// The deprecated numbering of pass names (BEGIN 0, GRAPH_CLEANUP 100,
// PRE_QNN 500, QNN 1000, EARLY 2000, MIDDLE 3000, LATE 4000) mapped onto the
// current pass groups piecewise: a priority in [old X, old next) becomes the
// current X plus its offset from old X (old EARLY+5 = 2005 -> 3055).
int64_t MapOldSchemePriority(int64_t old_priority);

}  // namespace egret::rules

#endif  // EGRET_RULES_PASS_SPEC_H_
