// The C preprocessor of rule files: op-package sources are C++ with #define
// helper macros, #include of SDK headers and #if blocks; this turns one into
// the token stream the rule parser reads.
//
// Supported: #define (object-like, function-like, variadic with __VA_ARGS__,
// GNU named variadics `args...`, `, ##__VA_ARGS__`, __VA_OPT__), # and ##,
// #undef, #include "..." / <...> (searched beside the including file, then in
// the -I directories; a missing "..." file is a warning and is skipped, a
// missing <...> file, a system header, is skipped silently), #pragma
// once and include guards, #if/#ifdef/#ifndef/#elif/#elifdef/#elifndef/#else/
// #endif with defined(), __has_include and full integer constant expressions
// (unknown identifiers are 0), #error, #warning, #line. Other directives
// (#pragma, ...) are ignored. Macro expansion follows C (rescanning; a macro is
// not expanded again inside its own expansion).
//
// The rule forms DEF_PACKAGE_OPTIMIZATION, DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS,
// DEF_OPTIM, DEF_OPT, DEF_PACKAGE_OP, DEF_PACKAGE_OP_AND_COST_AND_FLAGS,
// DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS, DEF_TENSOR_PROPERTIES,
// DEF_PACKAGE_PARAM_ORDER and FROM_DEFAULT_PACKAGE (which the parser reads
// itself) are never expanded, even when a header defines them (defined()
// still sees such a definition). Each rule-form name that reaches the output
// records in Token::old_pass_scheme whether a legacy pass name (EARLY, LATE,
// ...) is then defined with its deprecated value.
//
// Predefined: __cplusplus (201703L), __FILE__, __LINE__, __COUNTER__, __EGRET__
// (1), and the prelude's helper macros (prelude.h) unless use_prelude is false.
#ifndef EGRET_RULES_PP_PREPROCESSOR_H_
#define EGRET_RULES_PP_PREPROCESSOR_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/rules_pp/token.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

struct PreprocessOptions {
  std::vector<std::string> include_dirs;  // -I, searched in order
  std::vector<std::string> defines;       // -D: "NAME" or "NAME=VALUE"
  bool use_prelude = true;                // egret's built-in helper macros
  // False: no file is ever opened for #include (each is skipped with the
  // "cannot find include file" warning); for fuzzing.
  bool follow_includes = true;
  // Limits: more output tokens than max_tokens, more than max_tokens held in
  // macro arguments and expansions at once, or more than 16 x max_tokens
  // tokens handled in total (reading, skipping, expanding) is an error and
  // ends the run.
  size_t max_tokens = size_t{1} << 21;
  int max_include_depth = 200;
  int max_nesting = 256;  // macro arguments within arguments, #if parentheses
};

struct PreprocessedFile {
  std::vector<Token> tokens;  // after expansion; always ends with a kEnd token
  // Text of each `// :::EXTERNAL_SHAPEFN::: { ... }` annotation comment (the part
  // between the braces) and where it was written.
  std::vector<std::pair<SourceLocation, std::string>> external_fn_annotations;
};

// Preprocesses the file at `path`. Errors/warnings go to diags (several per
// run; the result is still usable for reporting further errors). Returns a
// non-OK status only when the main file cannot be read.
//
// Token locations: every token keeps where its characters were written (for
// a token from a macro body, inside the macro's definition; prelude macros
// live in the file named kPreludeFileName of prelude.h). A token that came
// out of a macro expansion carries expanded_from = the outermost macro's name
// and expansion_loc = where that macro was used.
absl::StatusOr<PreprocessedFile> PreprocessFile(const std::string& path,
                                                const PreprocessOptions& options,
                                                DiagnosticList* diags);

// Same for text held in memory; `filename` names it in locations and is the
// base of relative #include "..." searches (its directory).
absl::StatusOr<PreprocessedFile> PreprocessText(std::string_view text, const std::string& filename,
                                                const PreprocessOptions& options,
                                                DiagnosticList* diags);

// A diagnostic about `tok` that points into the user's file: at the token
// itself when it was written there (also as a macro argument; note "in
// expansion of macro 'X'" at the macro's use), else (a token a macro body
// wrote, in the file, a header or the prelude) at the use of the outermost
// macro, with the note "expanded from macro 'X'" at the spelling in the body.
// Parser and checker errors use the same rule (OriginOf, parser.h).
Diagnostic DiagnosticAt(const Token& tok, Severity severity, std::string message);

// Writes tokens back as text: a space where space_before is set and a newline
// before each at_line_start token (the kEnd token is not printed). For tests
// and `--preprocess` style output.
std::string TokensToText(const std::vector<Token>& tokens);

}  // namespace egret::rules

#endif  // EGRET_RULES_PP_PREPROCESSOR_H_
