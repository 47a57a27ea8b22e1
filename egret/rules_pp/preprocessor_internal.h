// The preprocessor's state and the records its pieces share: a macro, a
// token during expansion with its hide set, a lexed file and an open one with
// its #if stack, and the Preprocessor class. Each member function lives in the
// file of its idea, named at its group below. Internal to the rules_pp stage;
// the entry points are in preprocessor.h.
#ifndef EGRET_RULES_PP_PREPROCESSOR_INTERNAL_H_
#define EGRET_RULES_PP_PREPROCESSOR_INTERNAL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "egret/rules_pp/lexer.h"
#include "egret/rules_pp/preprocessor.h"
#include "egret/rules_pp/token.h"
#include "egret/support/diagnostic.h"

namespace egret::rules::internal {

// Rule forms that start a rule (DEF_OPTIM / DEF_OPT: the SDK's internal
// spellings, which its helper macros such as CONVERT_BINARY_OP_TO_FP16 use).
inline bool IsOptimizationFormName(std::string_view name) {
  return name == "DEF_PACKAGE_OPTIMIZATION" || name == "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" ||
         name == "DEF_OPTIM" || name == "DEF_OPT";
}

inline bool IsHash(const Token& t) { return t.IsPunct("#") || t.IsPunct("%:"); }
inline bool IsHashHash(const Token& t) { return t.IsPunct("##") || t.IsPunct("%:%:"); }

// Macros whose answer in #if is always 0 (egret knows no attributes,
// builtins or features); they take one parenthesized argument.
inline bool IsHasQuery(std::string_view name) {
  return name == "__has_attribute" || name == "__has_cpp_attribute" || name == "__has_builtin" ||
         name == "__has_feature" || name == "__has_extension" ||
         name == "__has_declspec_attribute" || name == "__has_warning";
}
inline bool IsHasInclude(std::string_view name) {
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
inline const SourceLocation& UserLoc(const Token& tok) {
  return tok.expanded_from.empty() ? tok.loc : tok.expansion_loc;
}

// One run of the preprocessor: the macro table, the open files and the
// limits.
class Preprocessor {
 public:
  Preprocessor(const PreprocessOptions& options, DiagnosticList* diags)
      : options_(options), diags_(diags) {
    work_limit_ = options_.max_tokens > SIZE_MAX / 16 ? SIZE_MAX : options_.max_tokens * 16;
  }

  // A run and the initial macro table: preprocessor.cc.
  PreprocessedFile Run(std::string_view text, const std::string& filename);

 private:
  // ---- Errors and limits, used by every piece ----

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

  // ---- The macro table; the built-ins, the prelude and -D: preprocessor.cc ----

  // The macro table after the built-ins (and the prelude, when used).
  struct InitialMacros {
    absl::flat_hash_map<std::string, MacroPtr> macros;
    absl::flat_hash_map<std::string, int> name_ids;
    int counter = 0;
  };

  static const InitialMacros& Initial(bool with_prelude);
  static const InitialMacros* MakeInitial(bool with_prelude);

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

  void DefineBuiltins();
  void ProcessAuxiliary(std::string_view text, const std::string& name);
  void ProcessAuxiliary(std::shared_ptr<const SourceFile> src);

  // ---- Reading files and directives: pp_directives.cc ----

  void PushFile(std::shared_ptr<const SourceFile> src, std::string dir, std::string canonical);
  Token Adjusted(const OpenFile& f, const Token& t) const;
  void Consume(OpenFile& f, bool active);
  void FlushComments(OpenFile& f, size_t upto, bool active);
  void ProcessComment(const OpenFile& f, const Comment& c);
  void FinishFile();
  bool NextFromFiles(PPToken* out);
  std::vector<Token> TakeLine(OpenFile& f, bool active);
  void WarnExtraTokens(const std::vector<Token>& line, size_t used);
  void HandleDirective();
  void DoLine(const std::vector<Token>& line, size_t first, size_t fi, int raw_hash_line);

  // ---- Conditional compilation: pp_conditional.cc ----

  void SkipGroup(size_t fi);
  std::optional<bool> EvalIfdef(const std::vector<Token>& line, bool negate);
  std::optional<bool> EvalIf(const std::vector<Token>& line, std::string_view directive);

  // ---- Include search: pp_include.cc ----

  static bool HeaderSpec(const std::vector<Token>& toks, std::string* name, bool* angled);
  std::string FindInclude(const std::string& name, const std::string& dir) const;
  void DoInclude(const std::vector<Token>& line, size_t fi);

  // ---- Macro definitions: pp_macro_definition.cc ----

  void DoUndef(const std::vector<Token>& line);
  void DoDefine(const std::vector<Token>& line);

  // ---- Expansion: pp_macro_expansion.cc ----

  bool Pull(std::vector<PPToken>* stack, bool from_files, PPToken* t);
  void ExpandLoop(std::vector<PPToken>* stack, bool from_files, std::vector<PPToken>* out,
                  int depth);
  bool OldPassSchemeInEffect();
  std::vector<PPToken> ExpandList(std::vector<PPToken> tokens, int depth);
  void PushResult(std::vector<PPToken> result, const PPToken& name, const Macro& m,
                  std::vector<PPToken>* stack);
  bool Expand(const MacroPtr& m, const PPToken& name, std::vector<PPToken>* stack, bool from_files,
              int depth);
  PPToken Stringize(const std::vector<PPToken>& arg, const Token& hash);
  void Push(std::vector<PPToken>* os, PPToken tok, bool* paste, const PPToken& name);
  std::vector<PPToken> Substitute(const Macro& m, const std::vector<std::vector<PPToken>>& args,
                                  const PPToken& name, int hs, int depth);

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

}  // namespace egret::rules::internal

#endif  // EGRET_RULES_PP_PREPROCESSOR_INTERNAL_H_
