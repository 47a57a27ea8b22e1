#include "egret/rules_pp/preprocessor.h"

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/rules_pp/lexer.h"
#include "egret/rules_pp/pp_expression_internal.h"
#include "egret/rules_pp/prelude.h"
#include "egret/support/file_io.h"

namespace egret::rules {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCommandLineFile = "<command line>";
constexpr std::string_view kBuiltinFile = "<built-in>";

// Rule forms that start a rule (DEF_OPTIM / DEF_OPT: the SDK's internal
// spellings, which its helper macros such as CONVERT_BINARY_OP_TO_FP16 use).
bool IsOptimizationFormName(std::string_view name) {
  return name == "DEF_PACKAGE_OPTIMIZATION" || name == "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" ||
         name == "DEF_OPTIM" || name == "DEF_OPT";
}

// Names the parser reads itself and that are never macro-expanded, whatever
// a header defines: the rule forms and FROM_DEFAULT_PACKAGE (which the SDK
// defines as a C++ call).
bool IsRuleFormName(std::string_view name) {
  return IsOptimizationFormName(name) || name == "DEF_PACKAGE_OP" ||
         name == "DEF_PACKAGE_OP_AND_COST_AND_FLAGS" ||
         name == "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS" || name == "DEF_TENSOR_PROPERTIES" ||
         name == "DEF_PACKAGE_PARAM_ORDER" || name == "FROM_DEFAULT_PACKAGE";
}

// The legacy pass names with their values in the deprecated numbering.
constexpr std::pair<std::string_view, std::string_view> kOldPassValues[] = {
    {"GRAPH_CLEANUP", "100"}, {"PRE_QNN", "500"}, {"QNN", "1000"},
    {"EARLY", "2000"},        {"MIDDLE", "3000"}, {"LATE", "4000"},
};

bool IsHash(const Token& t) { return t.IsPunct("#") || t.IsPunct("%:"); }
bool IsHashHash(const Token& t) { return t.IsPunct("##") || t.IsPunct("%:%:"); }

// Macros whose answer in #if is always 0 (egret knows no attributes,
// builtins or features); they take one parenthesized argument.
bool IsHasQuery(std::string_view name) {
  return name == "__has_attribute" || name == "__has_cpp_attribute" || name == "__has_builtin" ||
         name == "__has_feature" || name == "__has_extension" ||
         name == "__has_declspec_attribute" || name == "__has_warning";
}
bool IsHasInclude(std::string_view name) {
  return name == "__has_include" || name == "__has_include_next";
}

struct Macro {
  enum class Builtin { kNone, kFile, kLine, kCounter };
  std::string name;
  int name_id = 0;
  bool function_like = false;
  bool variadic = false;  // the last parameter collects the rest
  std::vector<std::string> params;
  std::vector<Token> body;
  std::vector<int> param_of;  // per body token: parameter index or -1
  SourceLocation loc;         // of the name in its #define
  bool from_prelude = false;  // replaced silently by a later #define
  bool never_expand = false;
  Builtin builtin = Builtin::kNone;
};
using MacroPtr = std::shared_ptr<const Macro>;

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

// A token during expansion: hs is its hide set (the macros that must not be
// expanded again from it, C's "blue paint").
struct PPToken {
  Token tok;
  int hs = 0;
  bool placemarker = false;
};

// Interned sets of macro-name ids; id 0 is the empty set.
class HideSets {
 public:
  HideSets() {
    sets_.emplace_back();
    ids_[std::vector<int>{}] = 0;
  }
  bool Contains(int hs, int name) const {
    const std::vector<int>& s = sets_[hs];
    return std::binary_search(s.begin(), s.end(), name);
  }
  int With(int hs, int name) {
    if (Contains(hs, name)) return hs;
    auto [it, inserted] = with_.try_emplace(std::make_pair(hs, name), 0);
    if (!inserted) return it->second;
    std::vector<int> s = sets_[hs];
    s.insert(std::lower_bound(s.begin(), s.end(), name), name);
    const int id = Intern(std::move(s));
    with_[std::make_pair(hs, name)] = id;
    return id;
  }
  int Union(int a, int b) {
    if (a == b || b == 0) return a;
    if (a == 0) return b;
    auto key = std::make_pair(std::min(a, b), std::max(a, b));
    if (auto it = union_.find(key); it != union_.end()) return it->second;
    std::vector<int> s;
    std::set_union(sets_[a].begin(), sets_[a].end(), sets_[b].begin(), sets_[b].end(),
                   std::back_inserter(s));
    const int id = Intern(std::move(s));
    union_[key] = id;
    return id;
  }
  int Intersect(int a, int b) {
    if (a == b) return a;
    if (a == 0 || b == 0) return 0;
    std::vector<int> s;
    std::set_intersection(sets_[a].begin(), sets_[a].end(), sets_[b].begin(), sets_[b].end(),
                          std::back_inserter(s));
    return Intern(std::move(s));
  }

 private:
  int Intern(std::vector<int> s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<int>(sets_.size()));
    if (inserted) sets_.push_back(std::move(s));
    return it->second;
  }
  std::vector<std::vector<int>> sets_;
  absl::flat_hash_map<std::vector<int>, int> ids_;
  absl::flat_hash_map<std::pair<int, int>, int> with_;
  absl::flat_hash_map<std::pair<int, int>, int> union_;
};

// A lexed file, shared by every #include of it.
struct SourceFile {
  std::string path;
  LexedText lexed;
};

// An open #if: where, which directive, and whether one of its groups has
// been taken (so later #elif/#else groups are skipped).
struct CondFrame {
  SourceLocation loc;
  std::string directive;
  bool taken = false;
  bool in_else = false;
};

// A file being read.
struct OpenFile {
  std::shared_ptr<const SourceFile> src;
  std::string dir;        // base of relative #include "..."; empty: none
  std::string canonical;  // for #pragma once
  size_t pos = 0;
  size_t comment_pos = 0;
  size_t problem_pos = 0;
  std::vector<CondFrame> conds;
  int line_delta = 0;  // from #line
  std::optional<std::string> presumed_file;
};

// Where a diagnostic about `tok` belongs in the user's file.
const SourceLocation& UserLoc(const Token& tok) {
  return tok.expanded_from.empty() ? tok.loc : tok.expansion_loc;
}

std::string Unquote(std::string_view s) {
  std::string out;
  if (s.size() < 2) return out;
  s = s.substr(1, s.size() - 2);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out.push_back(s[i]);
  }
  return out;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

class Preprocessor {
 public:
  Preprocessor(const PreprocessOptions& options, DiagnosticList* diags)
      : options_(options), diags_(diags) {
    work_limit_ = options_.max_tokens > SIZE_MAX / 16 ? SIZE_MAX : options_.max_tokens * 16;
  }

  PreprocessedFile Run(std::string_view text, const std::string& filename) {
    // The built-in macros and the prelude are the same for every file: they
    // are read once per process and each run starts from a copy of the
    // resulting table (a rule file's preprocessing no longer re-reads the
    // 100-odd prelude definitions first).
    const InitialMacros& initial = Initial(options_.use_prelude);
    macros_ = initial.macros;
    name_ids_ = initial.name_ids;
    counter_ = initial.counter;
    for (size_t i = 0; i < options_.defines.size() && !aborted_; ++i) {
      const std::string& d = options_.defines[i];
      const size_t eq = d.find('=');
      std::string line = eq == std::string::npos
                             ? absl::StrCat("#define ", d, " 1")
                             : absl::StrCat("#define ", d.substr(0, eq), " ", d.substr(eq + 1));
      // One definition per line of <command line>, so locations name the -D.
      std::string text_lines(i, '\n');
      text_lines += line;
      ProcessAuxiliary(text_lines, std::string(kCommandLineFile));
    }
    auto src = std::make_shared<SourceFile>();
    src->path = filename;
    src->lexed = LexDetailed(text, filename, diags_);
    const Token end_token = src->lexed.tokens.back();
    std::string dir = fs::path(filename).parent_path().string();
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(fs::path(filename), ec);
    PushFile(std::move(src), dir.empty() ? "." : dir, ec ? filename : canon.string());

    std::vector<PPToken> out;
    ExpandLoop(&pending_, /*from_files=*/true, &out, 0);
    PreprocessedFile result;
    result.tokens.reserve(out.size() + 1);
    for (PPToken& t : out) result.tokens.push_back(std::move(t.tok));
    result.tokens.push_back(end_token);
    result.tokens.back().text.clear();
    result.external_fn_annotations = std::move(annotations_);
    return result;
  }

 private:
  // ---- Errors and limits ----

  void Abort(const SourceLocation& loc, std::string message) {
    if (aborted_) return;
    aborted_ = true;
    diags_->Error(loc, std::move(message));
  }

  void ErrorAt(const Token& tok, std::string message) {
    diags_->Add(DiagnosticAt(tok, Severity::kError, std::move(message)));
  }

  // Tokens held in macro arguments and their expansions (all nesting levels)
  // may not exceed max_tokens either: that bounds memory.
  bool Reserve(const Token& at, size_t n) {
    live_ += n;
    if (live_ > options_.max_tokens) {
      Abort(UserLoc(at),
            absl::StrFormat("macro expansion exceeds the limit of %d tokens", options_.max_tokens));
    }
    return !aborted_;
  }

  bool CountWork(const Token& at, size_t n = 1) {
    work_ += n;
    if (work_ > work_limit_) {
      Abort(UserLoc(at),
            absl::StrFormat("preprocessing exceeds the work limit of %d tokens", work_limit_));
    }
    return !aborted_;
  }

  // ---- Macros ----

  // The macro table after the built-ins (and the prelude, when used).
  struct InitialMacros {
    absl::flat_hash_map<std::string, MacroPtr> macros;
    absl::flat_hash_map<std::string, int> name_ids;
    int counter = 0;
  };

  static const InitialMacros& Initial(bool with_prelude) {
    static const InitialMacros* const tables[2] = {MakeInitial(false), MakeInitial(true)};
    return *tables[with_prelude ? 1 : 0];
  }

  static const InitialMacros* MakeInitial(bool with_prelude) {
    static const PreprocessOptions defaults;
    DiagnosticList diags;
    Preprocessor pp(defaults, &diags);
    pp.DefineBuiltins();
    if (with_prelude) {
      pp.in_prelude_ = true;
      pp.ProcessAuxiliary(PreludeText(), std::string(kPreludeFileName));
      pp.in_prelude_ = false;
    }
    // The prelude is egret's own text: a diagnostic in it is a bug here.
    assert(!diags.has_errors() && !pp.aborted_);
    return new InitialMacros{std::move(pp.macros_), std::move(pp.name_ids_), pp.counter_};
  }

  int NameId(const std::string& name) {
    auto [it, inserted] = name_ids_.try_emplace(name, static_cast<int>(name_ids_.size()) + 1);
    return it->second;
  }

  MacroPtr Lookup(const std::string& name) const {
    auto it = macros_.find(name);
    return it == macros_.end() ? nullptr : it->second;
  }

  bool IsDefined(const std::string& name) const {
    return macros_.contains(name) || IsHasInclude(name) || IsHasQuery(name);
  }

  void DefineBuiltins() {
    const std::pair<const char*, Macro::Builtin> builtins[] = {
        {"__FILE__", Macro::Builtin::kFile},
        {"__LINE__", Macro::Builtin::kLine},
        {"__COUNTER__", Macro::Builtin::kCounter}};
    for (const auto& [name, kind] : builtins) {
      auto m = std::make_shared<Macro>();
      m->name = name;
      m->name_id = NameId(m->name);
      m->builtin = kind;
      m->loc = SourceLocation{std::string(kBuiltinFile), 0, 0};
      macros_[m->name] = std::move(m);
    }
    in_prelude_ = true;  // user definitions replace these silently
    ProcessAuxiliary("#define __cplusplus 201703L\n#define __EGRET__ 1\n",
                     std::string(kBuiltinFile));
    in_prelude_ = false;
  }

  // Reads text made of directives (prelude, -D); any other tokens are dropped.
  void ProcessAuxiliary(std::string_view text, const std::string& name) {
    if (aborted_) return;
    auto src = std::make_shared<SourceFile>();
    src->path = name;
    src->lexed = LexDetailed(text, name, diags_);
    ProcessAuxiliary(std::move(src));
  }

  void ProcessAuxiliary(std::shared_ptr<const SourceFile> src) {
    if (aborted_) return;
    std::string name = src->path;
    PushFile(std::move(src), "", std::move(name));
    std::vector<PPToken> ignored;
    ExpandLoop(&pending_, /*from_files=*/true, &ignored, 0);
    pending_.clear();
  }

  // ---- Reading files ----

  void PushFile(std::shared_ptr<const SourceFile> src, std::string dir, std::string canonical) {
    OpenFile f;
    f.src = std::move(src);
    f.dir = std::move(dir);
    f.canonical = std::move(canonical);
    files_.push_back(std::move(f));
  }

  Token Adjusted(const OpenFile& f, const Token& t) const {
    Token out = t;
    if (f.line_delta != 0) out.loc.line += f.line_delta;
    if (f.presumed_file) out.loc.file = *f.presumed_file;
    return out;
  }

  // Moves past token f.pos; comments before it and its lexing problems count
  // only when `active` (not in a skipped #if group).
  void Consume(OpenFile& f, bool active) {
    const LexedText& lx = f.src->lexed;
    FlushComments(f, f.pos, active);
    while (f.problem_pos < lx.token_problems.size() &&
           lx.token_problems[f.problem_pos].first <= f.pos) {
      if (active && lx.token_problems[f.problem_pos].first == f.pos) {
        Diagnostic d = lx.token_problems[f.problem_pos].second;
        if (f.line_delta != 0) d.loc.line += f.line_delta;
        if (f.presumed_file) d.loc.file = *f.presumed_file;
        diags_->Add(std::move(d));
      }
      ++f.problem_pos;
    }
    ++f.pos;
  }

  void FlushComments(OpenFile& f, size_t upto, bool active) {
    const std::vector<Comment>& comments = f.src->lexed.comments;
    while (f.comment_pos < comments.size() && comments[f.comment_pos].next_token <= upto) {
      if (active) ProcessComment(f, comments[f.comment_pos]);
      ++f.comment_pos;
    }
  }

  void ProcessComment(const OpenFile& f, const Comment& c) {
    static constexpr std::string_view kMarker = ":::EXTERNAL_SHAPEFN:::";
    const size_t at = c.text.find(kMarker);
    if (at == std::string::npos) return;
    SourceLocation loc = c.loc;
    if (f.line_delta != 0) loc.line += f.line_delta;
    if (f.presumed_file) loc.file = *f.presumed_file;
    const size_t open = c.text.find('{', at + kMarker.size());
    const size_t close = c.text.rfind('}');
    if (open == std::string::npos || close == std::string::npos || close < open) {
      diags_->Warning(loc, "malformed EXTERNAL_SHAPEFN annotation: expected '{ ... }'");
      return;
    }
    std::string_view inner(c.text.data() + open + 1, close - open - 1);
    while (!inner.empty() && std::isspace(static_cast<unsigned char>(inner.front()))) {
      inner.remove_prefix(1);
    }
    while (!inner.empty() && std::isspace(static_cast<unsigned char>(inner.back()))) {
      inner.remove_suffix(1);
    }
    annotations_.emplace_back(std::move(loc), std::string(inner));
  }

  void FinishFile() {
    OpenFile& f = files_.back();
    if (!aborted_) {
      for (const CondFrame& c : f.conds) {
        diags_->Error(c.loc, absl::StrFormat("unterminated #%s", c.directive));
      }
    }
    FlushComments(f, f.src->lexed.tokens.size(), true);
    files_.pop_back();
  }

  // The next token of the files after directives and #if groups.
  bool NextFromFiles(PPToken* out) {
    while (!files_.empty() && !aborted_) {
      OpenFile& f = files_.back();
      const Token& t = f.src->lexed.tokens[f.pos];
      if (t.kind == TokenKind::kEnd) {
        FinishFile();
        continue;
      }
      if (!CountWork(t)) return false;
      if (t.at_line_start && IsHash(t)) {
        HandleDirective();
        continue;
      }
      out->tok = Adjusted(f, t);
      out->hs = 0;
      out->placemarker = false;
      Consume(f, true);
      return true;
    }
    return false;
  }

  // The tokens of the directive line after the '#' at f.pos (consumed).
  std::vector<Token> TakeLine(OpenFile& f, bool active) {
    std::vector<Token> line;
    const std::vector<Token>& toks = f.src->lexed.tokens;
    while (toks[f.pos].kind != TokenKind::kEnd && !toks[f.pos].at_line_start) {
      if (active) line.push_back(Adjusted(f, toks[f.pos]));
      Consume(f, active);
    }
    return line;
  }

  void WarnExtraTokens(const std::vector<Token>& line, size_t used) {
    if (line.size() > used) {
      diags_->Warning(line[used].loc,
                      absl::StrFormat("extra tokens at end of #%s directive", line[0].text));
    }
  }

  void HandleDirective() {
    const size_t fi = files_.size() - 1;
    {
      OpenFile& f = files_[fi];
      Consume(f, true);  // '#'
    }
    const int raw_hash_line = files_[fi].src->lexed.tokens[files_[fi].pos - 1].loc.line;
    std::vector<Token> line = TakeLine(files_[fi], true);
    if (line.empty()) return;  // null directive
    const Token& name = line[0];
    if (name.kind == TokenKind::kNumber) {  // GNU line marker: # 12 "file"
      DoLine(line, 0, fi, raw_hash_line);
      return;
    }
    if (name.kind != TokenKind::kIdentifier) return;
    const std::string& d = name.text;
    if (d == "define") {
      DoDefine(line);
    } else if (d == "undef") {
      DoUndef(line);
    } else if (d == "include" || d == "include_next" || d == "import") {
      DoInclude(line, fi);
    } else if (d == "if" || d == "ifdef" || d == "ifndef") {
      bool cond = false;
      if (d == "if") {
        cond = EvalIf(line, "if").value_or(false);
      } else {
        cond = EvalIfdef(line, d == "ifndef").value_or(false);
      }
      files_[fi].conds.push_back(CondFrame{name.loc, d, cond, false});
      if (!cond) SkipGroup(fi);
    } else if (d == "elif" || d == "elifdef" || d == "elifndef" || d == "else") {
      OpenFile& f = files_[fi];
      if (f.conds.empty()) {
        diags_->Error(name.loc, absl::StrFormat("#%s without #if", d));
        return;
      }
      CondFrame& c = f.conds.back();
      if (c.in_else) {
        diags_->Error(name.loc, absl::StrFormat("#%s after #else", d));
      }
      if (d == "else") {
        WarnExtraTokens(line, 1);
        c.in_else = true;
      }
      SkipGroup(fi);  // the group being processed was the taken one
    } else if (d == "endif") {
      OpenFile& f = files_[fi];
      if (f.conds.empty()) {
        diags_->Error(name.loc, "#endif without #if");
        return;
      }
      WarnExtraTokens(line, 1);
      f.conds.pop_back();
    } else if (d == "error" || d == "warning") {
      std::vector<Token> rest(line.begin() + 1, line.end());
      std::string text = absl::StrCat("#", d);
      if (!rest.empty()) absl::StrAppend(&text, " ", TokensToText(rest));
      if (d == "error") {
        diags_->Error(name.loc, std::move(text));
      } else {
        diags_->Warning(name.loc, std::move(text));
      }
    } else if (d == "line") {
      DoLine(line, 1, fi, raw_hash_line);
    } else if (d == "pragma") {
      if (line.size() >= 2 && line[1].IsIdent("once")) once_.insert(files_[fi].canonical);
    }
    // Every other directive (#pragma ..., #ident, #assert, ...) is ignored.
  }

  // Skips groups of the innermost #if of file fi until a group is taken or
  // its #endif is read.
  void SkipGroup(size_t fi) {
    int nest = 0;
    while (!aborted_) {
      OpenFile& f = files_[fi];
      const std::vector<Token>& toks = f.src->lexed.tokens;
      const Token& t = toks[f.pos];
      if (t.kind == TokenKind::kEnd) return;  // FinishFile reports the open #if
      if (!CountWork(t)) return;
      if (!(t.at_line_start && IsHash(t))) {
        Consume(f, false);
        continue;
      }
      const Token& dn = toks[f.pos + 1];
      if (dn.kind != TokenKind::kIdentifier || dn.at_line_start) {
        Consume(f, false);
        continue;
      }
      const std::string& d = dn.text;
      if (d == "if" || d == "ifdef" || d == "ifndef") {
        ++nest;
        Consume(f, false);
        TakeLine(f, false);
        continue;
      }
      if (nest > 0 ||
          !(d == "endif" || d == "else" || d == "elif" || d == "elifdef" || d == "elifndef")) {
        if (nest > 0 && d == "endif") --nest;
        Consume(f, false);
        TakeLine(f, false);
        continue;
      }
      FlushComments(f, f.pos, false);  // comments of the skipped group
      Consume(f, true);                // '#'
      std::vector<Token> line = TakeLine(f, true);
      CondFrame& c = f.conds.back();
      if (d == "endif") {
        WarnExtraTokens(line, 1);
        f.conds.pop_back();
        return;
      }
      if (c.in_else) {
        diags_->Error(line[0].loc, absl::StrFormat("#%s after #else", d));
        continue;
      }
      if (d == "else") {
        WarnExtraTokens(line, 1);
        c.in_else = true;
        if (!c.taken) {
          c.taken = true;
          return;
        }
        continue;
      }
      if (c.taken) continue;
      std::optional<bool> cond =
          d == "elif" ? EvalIf(line, "elif") : EvalIfdef(line, d == "elifndef");
      if (cond.value_or(false)) {
        files_[fi].conds.back().taken = true;
        return;
      }
    }
  }

  std::optional<bool> EvalIfdef(const std::vector<Token>& line, bool negate) {
    if (line.size() < 2) {
      diags_->Error(line[0].loc,
                    absl::StrFormat("no macro name given in #%s directive", line[0].text));
      return std::nullopt;
    }
    if (line[1].kind != TokenKind::kIdentifier) {
      diags_->Error(line[1].loc, "macro names must be identifiers");
      return std::nullopt;
    }
    WarnExtraTokens(line, 2);
    return IsDefined(line[1].text) != negate;
  }

  // #if / #elif: `defined` and __has_include are answered before expansion.
  std::optional<bool> EvalIf(const std::vector<Token>& line, std::string_view directive) {
    std::vector<PPToken> pre;
    auto number = [](const Token& at, bool v) {
      PPToken p;
      p.tok = at;
      p.tok.kind = TokenKind::kNumber;
      p.tok.text =
          std::string(1, v ? '1' : '0');  // not "1"/"0": GCC 12 -O3 -Wrestrict false positive
      return p;
    };
    for (size_t i = 1; i < line.size(); ++i) {
      const Token& t = line[i];
      if (t.IsIdent("defined")) {
        size_t j = i + 1;
        const bool paren = j < line.size() && line[j].IsPunct("(");
        if (paren) ++j;
        if (j >= line.size() || line[j].kind != TokenKind::kIdentifier) {
          diags_->Error(j < line.size() ? line[j].loc : t.loc,
                        "operator \"defined\" requires an identifier");
          return std::nullopt;
        }
        const bool v = IsDefined(line[j].text);
        if (paren) {
          if (j + 1 >= line.size() || !line[j + 1].IsPunct(")")) {
            diags_->Error(line[j].loc, "missing ')' after \"defined\"");
            return std::nullopt;
          }
          ++j;
        }
        pre.push_back(number(t, v));
        i = j;
      } else if (t.kind == TokenKind::kIdentifier && (IsHasInclude(t.text) || IsHasQuery(t.text))) {
        size_t j = i + 1;
        if (j >= line.size() || !line[j].IsPunct("(")) {
          diags_->Error(t.loc, absl::StrFormat("missing '(' after \"%s\"", t.text));
          return std::nullopt;
        }
        int depth = 0;
        size_t close = j;
        for (; close < line.size(); ++close) {
          if (line[close].IsPunct("(")) ++depth;
          if (line[close].IsPunct(")") && --depth == 0) break;
        }
        if (close >= line.size()) {
          diags_->Error(t.loc, absl::StrFormat("missing ')' after \"%s\"", t.text));
          return std::nullopt;
        }
        bool v = false;
        if (IsHasInclude(t.text)) {
          std::vector<Token> spec(line.begin() + j + 1, line.begin() + close);
          std::string header;
          bool angled = false;
          if (!HeaderSpec(spec, &header, &angled)) {
            diags_->Error(t.loc, absl::StrFormat("\"%s\" requires a header name", t.text));
            return std::nullopt;
          }
          v = !FindInclude(header, files_.back().dir).empty();
        }
        pre.push_back(number(t, v));
        i = close;
      } else {
        pre.push_back(PPToken{t, 0, false});
      }
    }
    std::vector<PPToken> expanded = ExpandList(std::move(pre), 1);
    if (aborted_) return std::nullopt;
    std::vector<Token> toks;
    toks.reserve(expanded.size());
    for (PPToken& p : expanded) toks.push_back(std::move(p.tok));
    return internal::EvaluatePpExpression(
        toks, line[0].loc, directive, options_.max_nesting,
        [this](const std::string& n) { return IsDefined(n); }, diags_);
  }

  // "file" or <file> from the tokens of an #include (after expansion).
  static bool HeaderSpec(const std::vector<Token>& toks, std::string* name, bool* angled) {
    if (toks.empty()) return false;
    const Token& t = toks[0];
    if (t.kind == TokenKind::kString && t.text.size() >= 2 && t.text.front() == '<') {
      *name = t.text.substr(1, t.text.size() - 2);
      *angled = true;
      return toks.size() == 1;
    }
    if (t.kind == TokenKind::kString && t.text.size() >= 2 && t.text.front() == '"' &&
        t.text.back() == '"') {
      *name = t.text.substr(1, t.text.size() - 2);
      *angled = false;
      return toks.size() == 1;
    }
    if (t.IsPunct("<")) {
      std::string s;
      for (size_t i = 1; i < toks.size(); ++i) {
        if (toks[i].IsPunct(">")) {
          *name = s;
          *angled = true;
          return i + 1 == toks.size();
        }
        if (i > 1 && toks[i].space_before) s += ' ';
        s += toks[i].text;
      }
    }
    return false;
  }

  // Path of the first existing file: beside the includer, then -I dirs.
  std::string FindInclude(const std::string& name, const std::string& dir) const {
    if (name.empty() || !options_.follow_includes) return "";
    std::error_code ec;
    fs::path p(name);
    if (p.is_absolute()) return fs::is_regular_file(p, ec) ? name : "";
    if (!dir.empty()) {
      fs::path cand = fs::path(dir) / p;
      if (fs::is_regular_file(cand, ec)) return cand.lexically_normal().string();
    }
    for (const std::string& inc : options_.include_dirs) {
      fs::path cand = fs::path(inc) / p;
      if (fs::is_regular_file(cand, ec)) return cand.lexically_normal().string();
    }
    return "";
  }

  void DoInclude(const std::vector<Token>& line, size_t fi) {
    const Token& name_tok = line[0];
    std::vector<Token> spec(line.begin() + 1, line.end());
    std::string header;
    bool angled = false;
    if (!HeaderSpec(spec, &header, &angled)) {
      std::vector<PPToken> in;
      for (const Token& t : spec) in.push_back(PPToken{t, 0, false});
      std::vector<PPToken> expanded = ExpandList(std::move(in), 1);
      if (aborted_) return;
      spec.clear();
      for (PPToken& p : expanded) spec.push_back(std::move(p.tok));
      if (!HeaderSpec(spec, &header, &angled)) {
        diags_->Error(name_tok.loc,
                      absl::StrFormat("#%s expects \"FILENAME\" or <FILENAME>", name_tok.text));
        return;
      }
    }
    const SourceLocation& at = line.size() > 1 ? line[1].loc : name_tok.loc;
    if (header.empty()) {
      diags_->Error(at, absl::StrFormat("empty filename in #%s", name_tok.text));
      return;
    }
    if (static_cast<int>(files_.size()) > options_.max_include_depth) {
      // Almost always endless recursion: stop rather than flood.
      Abort(at, absl::StrFormat("#include nested too deeply (more than %d levels)",
                                options_.max_include_depth));
      return;
    }
    const std::string path = FindInclude(header, files_[fi].dir);
    if (path.empty()) {
      // A <...> header that is not found is a system or compiler header
      // (<cmath>, <vector>): it holds no rules, so it is skipped silently.
      if (!angled) {
        diags_->Warning(at, absl::StrFormat("cannot find include file \"%s\"; skipped", header));
      }
      return;
    }
    std::error_code ec;
    fs::path canon_path = fs::weakly_canonical(fs::path(path), ec);
    const std::string canonical = ec ? path : canon_path.string();
    if (once_.contains(canonical)) return;
    std::shared_ptr<const SourceFile>& cached = file_cache_[canonical];
    if (cached == nullptr) {
      absl::StatusOr<std::string> text = ReadFile(path, uint64_t{1} << 28);
      if (!text.ok()) {
        diags_->Error(at, absl::StrFormat("cannot read include file \"%s\": %s", header,
                                          text.status().message()));
        file_cache_.erase(canonical);
        return;
      }
      auto src = std::make_shared<SourceFile>();
      src->path = path;
      src->lexed = LexDetailed(*text, path, diags_);
      cached = std::move(src);
    }
    std::string dir = fs::path(path).parent_path().string();
    PushFile(cached, dir.empty() ? "." : dir, canonical);
  }

  void DoLine(const std::vector<Token>& line, size_t first, size_t fi, int raw_hash_line) {
    std::vector<Token> args(line.begin() + first, line.end());
    if (first == 1) {  // #line takes macros; a line marker does not
      std::vector<PPToken> in;
      for (const Token& t : args) in.push_back(PPToken{t, 0, false});
      std::vector<PPToken> expanded = ExpandList(std::move(in), 1);
      if (aborted_) return;
      args.clear();
      for (PPToken& p : expanded) args.push_back(std::move(p.tok));
    }
    if (args.empty()) {
      diags_->Error(line[0].loc, "#line directive requires a line number");
      return;
    }
    const Token& num = args[0];
    const bool digits = num.kind == TokenKind::kNumber && !num.text.empty() &&
                        std::all_of(num.text.begin(), num.text.end(),
                                    [](char c) { return c >= '0' && c <= '9'; }) &&
                        num.text.size() <= 9;
    if (!digits) {
      diags_->Error(num.loc,
                    absl::StrFormat("\"%s\" after #line is not a positive integer", num.text));
      return;
    }
    const int n = std::stoi(num.text);
    OpenFile& f = files_[fi];
    if (args.size() >= 2) {
      if (args[1].kind != TokenKind::kString || args[1].text.front() != '"') {
        diags_->Error(args[1].loc,
                      absl::StrFormat("invalid filename \"%s\" in #line directive", args[1].text));
        return;
      }
      std::string presumed = Unquote(args[1].text);
      if (presumed.empty()) {
        diags_->Error(args[1].loc, "empty filename in #line directive");
        return;
      }
      f.presumed_file = std::move(presumed);
      if (first == 1) WarnExtraTokens(args, 2);
    }
    // The line after the directive is line n.
    const std::vector<Token>& toks = f.src->lexed.tokens;
    int last_line = raw_hash_line;
    if (f.pos > 0) last_line = std::max(last_line, toks[f.pos - 1].loc.line);
    f.line_delta = n - (last_line + 1);
  }

  void DoUndef(const std::vector<Token>& line) {
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

  void DoDefine(const std::vector<Token>& line) {
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
          diags_->Warning(t.loc,
                          "__VA_ARGS__ can only appear in the expansion of a variadic macro");
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

  // ---- Expansion ----

  bool Pull(std::vector<PPToken>* stack, bool from_files, PPToken* t) {
    if (!stack->empty()) {
      *t = std::move(stack->back());
      stack->pop_back();
      return CountWork(t->tok);
    }
    return from_files && NextFromFiles(t);
  }

  // Expands everything readable from `stack` (and then the files) into out.
  void ExpandLoop(std::vector<PPToken>* stack, bool from_files, std::vector<PPToken>* out,
                  int depth) {
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
  bool OldPassSchemeInEffect() {
    for (const auto& [name, value] : kOldPassValues) {
      MacroPtr m = Lookup(std::string(name));
      if (m != nullptr && !m->function_like && m->body.size() == 1 && m->body[0].text == value) {
        return true;
      }
    }
    return false;
  }

  std::vector<PPToken> ExpandList(std::vector<PPToken> tokens, int depth) {
    std::reverse(tokens.begin(), tokens.end());
    std::vector<PPToken> out;
    ExpandLoop(&tokens, /*from_files=*/false, &out, depth);
    return out;
  }

  // Marks the expansion of `m` at `name` in every result token and pushes
  // the result back for rescanning.
  void PushResult(std::vector<PPToken> result, const PPToken& name, const Macro& m,
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
  bool Expand(const MacroPtr& m, const PPToken& name, std::vector<PPToken>* stack, bool from_files,
              int depth) {
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

  PPToken Stringize(const std::vector<PPToken>& arg, const Token& hash) {
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
  void Push(std::vector<PPToken>* os, PPToken tok, bool* paste, const PPToken& name) {
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

  std::vector<PPToken> Substitute(const Macro& m, const std::vector<std::vector<PPToken>>& args,
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
    auto param_at = [&](size_t i) {
      return i < idx.size() && idx[i] >= 0 ? m.param_of[idx[i]] : -1;
    };
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

  const PreprocessOptions& options_;
  DiagnosticList* diags_;
  size_t work_ = 0;
  size_t live_ = 0;
  size_t work_limit_ = 0;
  bool aborted_ = false;
  bool in_prelude_ = false;
  int counter_ = 0;
  absl::flat_hash_map<std::string, MacroPtr> macros_;
  absl::flat_hash_map<std::string, int> name_ids_;
  HideSets hide_;
  std::vector<OpenFile> files_;
  std::vector<PPToken> pending_;  // tokens pushed back for rescanning (reversed)
  absl::flat_hash_set<std::string> once_;
  absl::flat_hash_map<std::string, std::shared_ptr<const SourceFile>> file_cache_;
  std::vector<std::pair<SourceLocation, std::string>> annotations_;
};

}  // namespace

Diagnostic DiagnosticAt(const Token& tok, Severity severity, std::string message) {
  Diagnostic d;
  d.severity = severity;
  d.message = std::move(message);
  if (tok.expanded_from.empty()) {
    d.loc = tok.loc;
    return d;
  }
  const SourceLocation& use = tok.expansion_loc;
  const bool written_at_use =
      tok.loc.file == use.file &&
      std::make_pair(tok.loc.line, tok.loc.col) >= std::make_pair(use.line, use.col);
  if (written_at_use) {
    d.loc = tok.loc;
    d.notes.emplace_back(use, absl::StrFormat("in expansion of macro '%s'", tok.expanded_from));
  } else {
    d.loc = use;
    d.notes.emplace_back(tok.loc, absl::StrFormat("expanded from macro '%s'", tok.expanded_from));
  }
  return d;
}

absl::StatusOr<PreprocessedFile> PreprocessText(std::string_view text, const std::string& filename,
                                                const PreprocessOptions& options,
                                                DiagnosticList* diags) {
  return Preprocessor(options, diags).Run(text, filename);
}

absl::StatusOr<PreprocessedFile> PreprocessFile(const std::string& path,
                                                const PreprocessOptions& options,
                                                DiagnosticList* diags) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return PreprocessText(*text, path, options, diags);
}

std::string TokensToText(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::kEnd) break;
    if (!out.empty()) {
      if (t.at_line_start) {
        out += '\n';
      } else if (t.space_before) {
        out += ' ';
      }
    }
    out += t.text;
  }
  return out;
}

}  // namespace egret::rules
