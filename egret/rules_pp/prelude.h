// egret's built-in prelude: its own definitions of the helper macros that
// op-package rule files take from the QNN SDK headers (IS_QUANT_TYPE,
// SAME_QUANT, CAST_TO_FP16, TYPICAL_CONV_SLICE, ...), written in the rule
// grammar's primitives, so that a rule file reads without the SDK. The
// preprocessor reads it before -D definitions and the user's file; a #define
// of the same name in the user's file or headers silently replaces it.
// docs/rule-prelude.md lists every macro and its meaning.
#ifndef EGRET_RULES_PP_PRELUDE_H_
#define EGRET_RULES_PP_PRELUDE_H_

#include <string_view>

#include "egret/support/diagnostic.h"

namespace egret::rules {

// The file name of the prelude in token locations.
inline constexpr std::string_view kPreludeFileName = "<egret-prelude>";

// The prelude: #define lines only.
std::string_view PreludeText();

// True if `loc` points into the prelude (a token written by a prelude macro).
inline bool IsPreludeLocation(const SourceLocation& loc) { return loc.file == kPreludeFileName; }

}  // namespace egret::rules

#endif  // EGRET_RULES_PP_PRELUDE_H_
