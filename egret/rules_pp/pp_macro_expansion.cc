// Macro expansion as C does it: a token stream read from the files or from a
// list, each macro name expanded (built-ins, object-like, function-like with
// its arguments collected and pre-expanded), the result rescanned with the
// hide sets of C's "blue paint" so a macro is not expanded again inside its
// own expansion; # stringizes, ## pastes, __VA_OPT__ and GNU `, ##
// __VA_ARGS__`. The token limits bound memory and work.
#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/rules_pp/lexer.h"
#include "egret/rules_pp/preprocessor_internal.h"

namespace egret::rules::internal {
namespace {

// The legacy pass names with their values in the deprecated numbering.
constexpr std::pair<std::string_view, std::string_view> kOldPassValues[] = {
    {"GRAPH_CLEANUP", "100"}, {"PRE_QNN", "500"}, {"QNN", "1000"},
    {"EARLY", "2000"},        {"MIDDLE", "3000"}, {"LATE", "4000"},
};

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace

bool Preprocessor::Pull(std::vector<PPToken>* stack, bool from_files, PPToken* t) {
  if (!stack->empty()) {
    *t = std::move(stack->back());
    stack->pop_back();
    return CountWork(t->tok);
  }
  return from_files && NextFromFiles(t);
}

// Expands everything readable from `stack` (and then the files) into out.
void Preprocessor::ExpandLoop(std::vector<PPToken>* stack, bool from_files,
                              std::vector<PPToken>* out, int depth) {
  PPToken t;
  while (!aborted_ && Pull(stack, from_files, &t)) {
    if (t.tok.kind == TokenKind::kIdentifier) {
      MacroPtr m = Lookup(t.tok.text);
      if (m != nullptr && !m->never_expand && !hide_.Contains(t.hs, m->name_id)) {
        if (Expand(m, t, stack, from_files, depth)) continue;
      }
    }
    if (out->size() >= options_.max_tokens) {
      Abort(UserLoc(t.tok),
            from_files ? absl::StrFormat("preprocessed output exceeds the limit of %d tokens",
                                         options_.max_tokens)
                       : absl::StrFormat("macro expansion exceeds the limit of %d tokens",
                                         options_.max_tokens));
      return;
    }
    if (t.tok.kind == TokenKind::kIdentifier && IsOptimizationFormName(t.tok.text)) {
      t.tok.old_pass_scheme = OldPassSchemeInEffect();
    }
    out->push_back(std::move(t));
  }
}

// True when a legacy pass name is defined with its deprecated value
// (EARLY as 2000, ...): the headers in effect use the old numbering.
bool Preprocessor::OldPassSchemeInEffect() {
  for (const auto& [name, value] : kOldPassValues) {
    MacroPtr m = Lookup(std::string(name));
    if (m != nullptr && !m->function_like && m->body.size() == 1 && m->body[0].text == value) {
      return true;
    }
  }
  return false;
}

std::vector<PPToken> Preprocessor::ExpandList(std::vector<PPToken> tokens, int depth) {
  std::reverse(tokens.begin(), tokens.end());
  std::vector<PPToken> out;
  ExpandLoop(&tokens, /*from_files=*/false, &out, depth);
  return out;
}

// Marks the expansion of `m` at `name` in every result token and pushes
// the result back for rescanning.
void Preprocessor::PushResult(std::vector<PPToken> result, const PPToken& name, const Macro& m,
                              std::vector<PPToken>* stack) {
  const bool outermost = name.tok.expanded_from.empty();
  for (PPToken& r : result) {
    r.tok.expanded_from = outermost ? m.name : name.tok.expanded_from;
    r.tok.expansion_loc = outermost ? name.tok.loc : name.tok.expansion_loc;
  }
  if (!result.empty()) {
    result[0].tok.at_line_start = name.tok.at_line_start;
    result[0].tok.space_before = name.tok.space_before;
  }
  stack->insert(stack->end(), std::make_move_iterator(result.rbegin()),
                std::make_move_iterator(result.rend()));
}

// Expands macro m named by `name`; false if it is a function-like macro
// not followed by '(' (then `name` is an ordinary identifier).
bool Preprocessor::Expand(const MacroPtr& m, const PPToken& name, std::vector<PPToken>* stack,
                          bool from_files, int depth) {
  if (m->builtin != Macro::Builtin::kNone) {
    PPToken r;
    r.tok = name.tok;
    const SourceLocation& at = UserLoc(name.tok);
    if (m->builtin == Macro::Builtin::kFile) {
      r.tok.kind = TokenKind::kString;
      r.tok.text = Quote(at.file);
    } else {
      r.tok.kind = TokenKind::kNumber;
      r.tok.text = absl::StrCat(m->builtin == Macro::Builtin::kLine ? at.line : counter_++);
    }
    std::vector<PPToken> result;
    result.push_back(std::move(r));
    PushResult(std::move(result), name, *m, stack);
    return true;
  }
  if (!m->function_like) {
    std::vector<std::vector<PPToken>> no_args;
    std::vector<PPToken> result =
        Substitute(*m, no_args, name, hide_.With(name.hs, m->name_id), depth);
    if (aborted_) return true;
    PushResult(std::move(result), name, *m, stack);
    return true;
  }
  PPToken next;
  if (!Pull(stack, from_files, &next)) return false;
  if (!next.tok.IsPunct("(")) {
    stack->push_back(std::move(next));
    return false;
  }
  std::vector<std::vector<PPToken>> args(1);
  const size_t nparams = m->params.size();
  int paren = 0;
  PPToken t;
  PPToken rparen;
  while (true) {
    if (!Pull(stack, from_files, &t)) {
      if (!aborted_) {
        ErrorAt(name.tok,
                absl::StrFormat("unterminated argument list invoking macro \"%s\"", m->name));
      }
      return true;
    }
    if (t.tok.kind == TokenKind::kPunct) {
      if (t.tok.text == "(") {
        ++paren;
      } else if (t.tok.text == ")") {
        if (paren == 0) {
          rparen = std::move(t);
          break;
        }
        --paren;
      } else if (t.tok.text == "," && paren == 0 && !(m->variadic && args.size() >= nparams)) {
        args.emplace_back();
        continue;
      }
    }
    args.back().push_back(std::move(t));
  }
  size_t arg_tokens = 0;
  for (const auto& a : args) arg_tokens += a.size();
  struct Release {
    size_t& live;
    size_t n;
    ~Release() { live -= n; }
  } release{live_, arg_tokens};
  if (!Reserve(name.tok, arg_tokens)) return true;
  size_t given = args.size();
  if (nparams == 0 && given == 1 && args[0].empty()) {
    args.clear();
    given = 0;
  }
  if (m->variadic) {
    if (given + 1 == nparams) {
      args.emplace_back();
    } else if (given + 1 < nparams) {
      ErrorAt(name.tok,
              absl::StrFormat("macro \"%s\" requires at least %d arguments, but only %d given",
                              m->name, nparams - 1, given));
      return true;
    }
  } else if (given != nparams) {
    if (given < nparams) {
      ErrorAt(name.tok, absl::StrFormat("macro \"%s\" requires %d arguments, but only %d given",
                                        m->name, nparams, given));
    } else {
      ErrorAt(name.tok, absl::StrFormat("macro \"%s\" passed %d arguments, but takes just %d",
                                        m->name, given, nparams));
    }
    return true;
  }
  const int hs = hide_.With(hide_.Intersect(name.hs, rparen.hs), m->name_id);
  std::vector<PPToken> result = Substitute(*m, args, name, hs, depth);
  if (aborted_) return true;
  PushResult(std::move(result), name, *m, stack);
  return true;
}

PPToken Preprocessor::Stringize(const std::vector<PPToken>& arg, const Token& hash) {
  std::string s = "\"";
  for (size_t i = 0; i < arg.size(); ++i) {
    const Token& t = arg[i].tok;
    if (i > 0 && (t.space_before || t.at_line_start)) s += ' ';
    if (t.kind == TokenKind::kString || t.kind == TokenKind::kChar) {
      for (char c : t.text) {
        if (c == '"' || c == '\\') s += '\\';
        s += c;
      }
    } else {
      s += t.text;
    }
  }
  s += '"';
  PPToken r;
  r.tok = hash;
  r.tok.kind = TokenKind::kString;
  r.tok.text = std::move(s);
  return r;
}

// Appends `tok` to os, pasting it onto the last token when *paste.
void Preprocessor::Push(std::vector<PPToken>* os, PPToken tok, bool* paste, const PPToken& name) {
  if (!*paste || os->empty()) {
    *paste = false;
    os->push_back(std::move(tok));
    return;
  }
  *paste = false;
  PPToken& lhs = os->back();
  if (tok.placemarker) return;
  if (lhs.placemarker) {
    lhs = std::move(tok);
    return;
  }
  const std::string text = lhs.tok.text + tok.tok.text;
  TokenKind kind;
  if (!IsSinglePpToken(text, &kind)) {
    ErrorAt(name.tok,
            absl::StrFormat("pasting \"%s\" and \"%s\" does not give a valid preprocessing token",
                            lhs.tok.text, tok.tok.text));
    os->push_back(std::move(tok));
    return;
  }
  lhs.tok.text = text;
  lhs.tok.kind = kind;
}

std::vector<PPToken> Preprocessor::Substitute(const Macro& m,
                                              const std::vector<std::vector<PPToken>>& args,
                                              const PPToken& name, int hs, int depth) {
  const std::vector<Token>& body = m.body;
  const int va = m.variadic ? static_cast<int>(m.params.size()) - 1 : -1;
  // The body with __VA_OPT__(...) resolved: indices into body, -1 for a
  // placemarker.
  std::vector<int> idx;
  idx.reserve(body.size());
  for (size_t k = 0; k < body.size(); ++k) {
    if (va >= 0 && body[k].IsIdent("__VA_OPT__")) {
      int d = 0;
      size_t close = k + 1;
      for (; close < body.size(); ++close) {
        if (body[close].IsPunct("(")) ++d;
        if (body[close].IsPunct(")") && --d == 0) break;
      }
      if (!args[va].empty()) {
        for (size_t j = k + 2; j < close; ++j) idx.push_back(static_cast<int>(j));
      } else {
        idx.push_back(-1);
      }
      k = close;
      continue;
    }
    idx.push_back(static_cast<int>(k));
  }
  auto param_at = [&](size_t i) { return i < idx.size() && idx[i] >= 0 ? m.param_of[idx[i]] : -1; };
  auto is_hashhash_at = [&](size_t i) {
    return i < idx.size() && idx[i] >= 0 && IsHashHash(body[idx[i]]);
  };
  std::vector<std::optional<std::vector<PPToken>>> expanded(args.size());
  size_t expanded_tokens = 0;
  struct Release {
    size_t& live;
    const size_t& n;
    ~Release() { live -= n; }
  } release{live_, expanded_tokens};
  std::vector<PPToken> os;
  bool paste = false;
  PPToken placemarker;
  placemarker.placemarker = true;
  for (size_t k = 0; k < idx.size() && !aborted_; ++k) {
    if (idx[k] < 0) {
      Push(&os, placemarker, &paste, name);
      continue;
    }
    const Token& bt = body[idx[k]];
    const int p = m.param_of[idx[k]];
    if (m.function_like && IsHash(bt) && param_at(k + 1) >= 0) {
      Push(&os, Stringize(args[param_at(k + 1)], bt), &paste, name);
      ++k;
      continue;
    }
    if (IsHashHash(bt)) {
      if (va >= 0 && param_at(k + 1) == va && k > 0 && idx[k - 1] >= 0 &&
          body[idx[k - 1]].IsPunct(",") && !os.empty() && os.back().tok.IsPunct(",")) {
        // GNU `, ## __VA_ARGS__`: no comma when there are no variable
        // arguments; otherwise the arguments follow the comma unpasted.
        if (args[va].empty()) {
          os.pop_back();
        } else {
          for (const PPToken& a : args[va]) os.push_back(a);
        }
        ++k;
        continue;
      }
      paste = true;
      continue;
    }
    if (p >= 0) {
      const bool raw = paste || is_hashhash_at(k + 1);
      if (!raw && !expanded[p]) {
        if (depth + 1 > options_.max_nesting) {
          Abort(UserLoc(name.tok),
                absl::StrFormat("macro arguments nested too deeply (more than %d levels)",
                                options_.max_nesting));
          return {};
        }
        expanded[p] = ExpandList(args[p], depth + 1);
        expanded_tokens += expanded[p]->size();
        if (!Reserve(name.tok, expanded[p]->size())) return {};
      }
      const std::vector<PPToken>& src = raw ? args[p] : *expanded[p];
      if (src.empty()) {
        if (raw) Push(&os, placemarker, &paste, name);
        continue;
      }
      if (!CountWork(name.tok, src.size())) return {};
      if (os.size() + src.size() > options_.max_tokens) {
        Abort(UserLoc(name.tok), absl::StrFormat("macro expansion exceeds the limit of %d tokens",
                                                 options_.max_tokens));
        return {};
      }
      for (size_t j = 0; j < src.size(); ++j) {
        PPToken a = src[j];
        if (j == 0) {
          a.tok.space_before = bt.space_before;
          a.tok.at_line_start = false;
        }
        Push(&os, std::move(a), &paste, name);
      }
      continue;
    }
    if (!CountWork(name.tok)) return {};
    Push(&os, PPToken{bt, 0, false}, &paste, name);
  }
  std::vector<PPToken> result;
  result.reserve(os.size());
  for (PPToken& t : os) {
    if (t.placemarker) continue;
    t.hs = hide_.Union(t.hs, hs);
    result.push_back(std::move(t));
  }
  return result;
}

}  // namespace egret::rules::internal
