// Tokens of a rule file, as the preprocessor hands them to the parser: C++
// preprocessing tokens after macro expansion, each remembering where it was
// written and, when it came out of a macro, which macro and where that macro
// was used.
#ifndef EGRET_RULES_PP_TOKEN_H_
#define EGRET_RULES_PP_TOKEN_H_

#include <string>

#include "egret/support/diagnostic.h"

namespace egret::rules {

enum class TokenKind {
  kIdentifier,  // names and keywords: DEF_PACKAGE_OPTIMIZATION, Op, DType, ...
  kNumber,      // pp-number as written: 12, 0x1f, 1230u, 1.5e-3f, 010
  kString,      // "..." with its quotes; adjacent strings are NOT yet joined
  kChar,        // '...' with its quotes
  kPunct,       // ( ) , + - :: and every other C++ punctuator
  kEnd,         // end of the token stream (always the last token)
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  // Where the token's characters were written (for a token made by ##
  // pasting or # stringizing: where the macro's body wrote it).
  SourceLocation loc;
  // True when this is the first token on its physical source line (after
  // line continuations are joined). The grammar requires
  // DEF_PACKAGE_OPTIMIZATION and its '(' to start a line.
  bool at_line_start = false;
  // True when white space or a comment separates this token from the one
  // before it on the same logical line (used by # stringizing, and to print
  // tokens back as text).
  bool space_before = false;
  // On the name of a rule form (DEF_PACKAGE_OPTIMIZATION, ...): true when the
  // headers in effect where the rule was read define the legacy pass names
  // with the deprecated numbering (EARLY as 2000, ...). The parser then maps
  // the rule's numeric priority onto the current pass groups.
  bool old_pass_scheme = false;
  // When the token came out of a macro expansion: the outermost macro's name
  // and the location of its use in the user's file. Empty otherwise.
  std::string expanded_from;
  SourceLocation expansion_loc;

  bool Is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool IsPunct(std::string_view t) const { return Is(TokenKind::kPunct, t); }
  bool IsIdent(std::string_view t) const { return Is(TokenKind::kIdentifier, t); }
};

}  // namespace egret::rules

#endif  // EGRET_RULES_PP_TOKEN_H_
