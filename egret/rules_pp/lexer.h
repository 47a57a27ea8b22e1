// The C++ preprocessing-token lexer of rule files (translation phases 1-3):
// line continuations are joined, comments are dropped (but remembered), and
// the text is cut into identifiers, pp-numbers, string and character literals
// (with prefixes, raw strings and user-defined suffixes) and punctuators, each
// with the exact place where it was written.
#ifndef EGRET_RULES_PP_LEXER_H_
#define EGRET_RULES_PP_LEXER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "egret/rules_pp/token.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

// Cuts `text` (the contents of `filename`) into preprocessing tokens.
//
// Every token carries its 1-based line and column (columns count bytes; a tab
// is one column) of its first character in the original text, before line
// continuations were joined; at_line_start and space_before are set as
// documented in token.h. The result always ends with one kEnd token located
// just after the last character.
//
// Errors (unterminated string, character literal, raw string or block
// comment) go to `diags`; lexing always continues to the end of the text. An
// unterminated literal becomes a token that runs to the end of its line.
// Characters that start no token (`@`, a stray backslash, ...) become one-byte
// kPunct tokens; later stages reject them where they matter.
std::vector<Token> Lex(std::string_view text, const std::string& filename, DiagnosticList* diags);

// A comment as written (with its // or /* */ delimiters; line continuations
// joined) and where it starts.
struct Comment {
  SourceLocation loc;
  std::string text;
  // Index (into LexedText::tokens) of the first token after the comment.
  size_t next_token = 0;
};

// What the preprocessor needs beyond Lex(): the comments, and the problems of
// individual tokens kept apart so that a literal inside a skipped `#if 0`
// block (e.g. an apostrophe in prose) is not an error.
struct LexedText {
  std::vector<Token> tokens;  // as returned by Lex()
  std::vector<Comment> comments;
  // (index of token, its diagnostic): reported by whoever uses the token.
  std::vector<std::pair<size_t, Diagnostic>> token_problems;
};

// Options of LexDetailed().
struct LexOptions {
  // After `#` `include` (or include_next / import) at the start of a line, lex
  // `<...>` as one kString token whose text keeps the angle brackets.
  bool header_names = true;
};

// Like Lex(), but returns comments and token problems separately instead of
// reporting the token problems. An unterminated block comment is still
// reported to `diags` at once.
LexedText LexDetailed(std::string_view text, const std::string& filename, DiagnosticList* diags,
                      const LexOptions& options = {});

// True if `text` is exactly one preprocessing token (no comments, no white
// space), e.g. the result of ## pasting. `kind` receives its kind.
bool IsSinglePpToken(std::string_view text, TokenKind* kind);

}  // namespace egret::rules

#endif  // EGRET_RULES_PP_LEXER_H_
