// The preprocessor's entry points (preprocessor.h) and one run of it: the
// built-in macros, the prelude and -D definitions read into the initial
// macro table, then the main file expanded into the output tokens. The
// pieces of a run live in the file of their idea (preprocessor_internal.h
// names them); #if expressions are evaluated in pp_expression.cc.
#include "egret/rules_pp/preprocessor.h"

#include <cassert>
#include <filesystem>
#include <memory>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/rules_pp/lexer.h"
#include "egret/rules_pp/prelude.h"
#include "egret/rules_pp/preprocessor_internal.h"
#include "egret/support/file_io.h"

namespace egret::rules {
namespace internal {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCommandLineFile = "<command line>";
constexpr std::string_view kBuiltinFile = "<built-in>";

}  // namespace

PreprocessedFile Preprocessor::Run(std::string_view text, const std::string& filename) {
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

const Preprocessor::InitialMacros& Preprocessor::Initial(bool with_prelude) {
  static const InitialMacros* const tables[2] = {MakeInitial(false), MakeInitial(true)};
  return *tables[with_prelude ? 1 : 0];
}

const Preprocessor::InitialMacros* Preprocessor::MakeInitial(bool with_prelude) {
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

void Preprocessor::DefineBuiltins() {
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
  ProcessAuxiliary("#define __cplusplus 201703L\n#define __EGRET__ 1\n", std::string(kBuiltinFile));
  in_prelude_ = false;
}

// Reads text made of directives (prelude, -D); any other tokens are dropped.
void Preprocessor::ProcessAuxiliary(std::string_view text, const std::string& name) {
  if (aborted_) return;
  auto src = std::make_shared<SourceFile>();
  src->path = name;
  src->lexed = LexDetailed(text, name, diags_);
  ProcessAuxiliary(std::move(src));
}

void Preprocessor::ProcessAuxiliary(std::shared_ptr<const SourceFile> src) {
  if (aborted_) return;
  std::string name = src->path;
  PushFile(std::move(src), "", std::move(name));
  std::vector<PPToken> ignored;
  ExpandLoop(&pending_, /*from_files=*/true, &ignored, 0);
  pending_.clear();
}

}  // namespace internal

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
  return internal::Preprocessor(options, diags).Run(text, filename);
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
