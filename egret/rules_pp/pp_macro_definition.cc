// Macro definitions: #define read into a Macro (object-like, function-like,
// variadic with __VA_ARGS__ or a GNU named parameter, each body token's
// parameter found once), its checks (__VA_OPT__, # and ##), the redefinition
// warning, and #undef. The rule-form names are marked never to expand.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "egret/rules_pp/preprocessor_internal.h"

namespace egret::rules::internal {
namespace {

// Names the parser reads itself and that are never macro-expanded, whatever
// a header defines: the rule forms and FROM_DEFAULT_PACKAGE (which the SDK
// defines as a C++ call).
bool IsRuleFormName(std::string_view name) {
  return IsOptimizationFormName(name) || name == "DEF_PACKAGE_OP" ||
         name == "DEF_PACKAGE_OP_AND_COST_AND_FLAGS" ||
         name == "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS" || name == "DEF_TENSOR_PROPERTIES" ||
         name == "DEF_PACKAGE_PARAM_ORDER" || name == "FROM_DEFAULT_PACKAGE";
}

bool SameDefinition(const Macro& a, const Macro& b) {
  if (a.function_like != b.function_like || a.variadic != b.variadic || a.params != b.params ||
      a.body.size() != b.body.size() || a.builtin != b.builtin) {
    return false;
  }
  for (size_t i = 0; i < a.body.size(); ++i) {
    if (a.body[i].text != b.body[i].text) return false;
    if (i > 0 && a.body[i].space_before != b.body[i].space_before) return false;
  }
  return true;
}

}  // namespace

void Preprocessor::DoUndef(const std::vector<Token>& line) {
  if (line.size() < 2) {
    diags_->Error(line[0].loc, "no macro name given in #undef directive");
    return;
  }
  if (line[1].kind != TokenKind::kIdentifier) {
    diags_->Error(line[1].loc, "macro names must be identifiers");
    return;
  }
  WarnExtraTokens(line, 2);
  macros_.erase(line[1].text);
}

void Preprocessor::DoDefine(const std::vector<Token>& line) {
  if (line.size() < 2) {
    diags_->Error(line[0].loc, "no macro name given in #define directive");
    return;
  }
  const Token& name = line[1];
  if (name.kind != TokenKind::kIdentifier) {
    diags_->Error(name.loc, "macro names must be identifiers");
    return;
  }
  if (name.text == "defined") {
    diags_->Error(name.loc, "\"defined\" cannot be used as a macro name");
    return;
  }
  auto m = std::make_shared<Macro>();
  m->name = name.text;
  m->name_id = NameId(m->name);
  m->loc = name.loc;
  m->from_prelude = in_prelude_;
  m->never_expand = IsRuleFormName(m->name);
  // Parameter name -> index, for the duplicate check and for finding the
  // parameters in the body in linear time (a hostile file declares
  // hundreds of thousands of parameters; docs/reliability.md). The keys
  // view the texts of `line`'s tokens, which outlive this function's use.
  absl::flat_hash_map<std::string_view, int> param_index;
  size_t i = 2;
  const size_t n = line.size();
  if (i < n && line[i].IsPunct("(") && !line[i].space_before) {
    m->function_like = true;
    ++i;
    bool closed = false;
    if (i < n && line[i].IsPunct(")")) {
      ++i;
      closed = true;
    }
    while (!closed) {
      if (i >= n) {
        diags_->Error(name.loc, "missing ')' in macro parameter list");
        return;
      }
      const Token& p = line[i];
      if (p.IsPunct("...")) {
        m->variadic = true;
        param_index.emplace("__VA_ARGS__", static_cast<int>(m->params.size()));
        m->params.push_back("__VA_ARGS__");
        ++i;
        if (i >= n || !line[i].IsPunct(")")) {
          diags_->Error(p.loc, "missing ')' after \"...\"");
          return;
        }
        ++i;
        break;
      }
      if (p.kind != TokenKind::kIdentifier) {
        diags_->Error(p.loc, absl::StrFormat("expected parameter name, found \"%s\"", p.text));
        return;
      }
      if (p.text == "__VA_ARGS__") {
        diags_->Error(p.loc, "__VA_ARGS__ can not be used as a parameter name");
        return;
      }
      if (!param_index.emplace(p.text, static_cast<int>(m->params.size())).second) {
        diags_->Error(p.loc, absl::StrFormat("duplicate macro parameter \"%s\"", p.text));
        return;
      }
      m->params.push_back(p.text);
      ++i;
      if (i < n && line[i].IsPunct("...")) {  // GNU named variadic: args...
        m->variadic = true;
        ++i;
        if (i >= n || !line[i].IsPunct(")")) {
          diags_->Error(line[i - 1].loc, "missing ')' after \"...\"");
          return;
        }
        ++i;
        break;
      }
      if (i < n && line[i].IsPunct(",")) {
        ++i;
        continue;
      }
      if (i < n && line[i].IsPunct(")")) {
        ++i;
        break;
      }
      if (i >= n) {
        diags_->Error(name.loc, "missing ')' in macro parameter list");
      } else {
        diags_->Error(line[i].loc,
                      absl::StrFormat("expected ',' or ')', found \"%s\"", line[i].text));
      }
      return;
    }
  }
  m->body.assign(line.begin() + i, line.end());
  for (Token& t : m->body) t.at_line_start = false;
  m->param_of.assign(m->body.size(), -1);
  const size_t nb = m->body.size();
  size_t va_opt_end = 0;  // one past the ')' of the __VA_OPT__ group being read
  for (size_t k = 0; k < nb; ++k) {
    Token& t = m->body[k];
    if (t.kind == TokenKind::kIdentifier) {
      if (auto p = param_index.find(t.text); p != param_index.end()) m->param_of[k] = p->second;
      if (m->param_of[k] < 0 && t.text == "__VA_ARGS__") {
        diags_->Warning(t.loc, "__VA_ARGS__ can only appear in the expansion of a variadic macro");
      }
      if (m->variadic && t.text == "__VA_OPT__") {
        if (k < va_opt_end) {
          diags_->Error(t.loc, "__VA_OPT__ may not appear in a __VA_OPT__");
          return;
        }
        if (k + 1 >= nb || !m->body[k + 1].IsPunct("(")) {
          diags_->Error(t.loc, "__VA_OPT__ must be followed by '('");
          return;
        }
        int depth = 0;
        size_t close = k + 1;
        for (; close < nb; ++close) {
          if (m->body[close].IsPunct("(")) ++depth;
          if (m->body[close].IsPunct(")") && --depth == 0) break;
        }
        if (close >= nb) {
          diags_->Error(t.loc, "unterminated __VA_OPT__");
          return;
        }
        va_opt_end = close + 1;
      }
    }
  }
  if (nb > 0 && (IsHashHash(m->body.front()) || IsHashHash(m->body.back()))) {
    const Token& at = IsHashHash(m->body.front()) ? m->body.front() : m->body.back();
    diags_->Error(at.loc, "'##' cannot appear at either end of a macro expansion");
    return;
  }
  if (m->function_like) {
    for (size_t k = 0; k < nb; ++k) {
      if (IsHash(m->body[k]) && (k + 1 >= nb || m->param_of[k + 1] < 0)) {
        diags_->Error(m->body[k].loc, "'#' is not followed by a macro parameter");
        return;
      }
    }
  }
  auto it = macros_.find(m->name);
  if (it != macros_.end() && !it->second->from_prelude && !SameDefinition(*it->second, *m)) {
    Diagnostic d{Severity::kWarning, name.loc, absl::StrFormat("\"%s\" redefined", m->name), {}};
    if (it->second->loc.line > 0)
      d.notes.emplace_back(it->second->loc, "previous definition is here");
    diags_->Add(std::move(d));
  }
  macros_[m->name] = std::move(m);
}

}  // namespace egret::rules::internal
