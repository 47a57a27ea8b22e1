// Include search: the header name of an #include (expanded when it is not
// "..." or <...> as written), the file it names (beside the including file,
// then in the -I directories), the depth limit, #pragma once, and the cache
// of lexed files.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "egret/rules_pp/preprocessor_internal.h"
#include "egret/support/file_io.h"

namespace egret::rules::internal {
namespace {

namespace fs = std::filesystem;

}  // namespace

// "file" or <file> from the tokens of an #include (after expansion).
bool Preprocessor::HeaderSpec(const std::vector<Token>& toks, std::string* name, bool* angled) {
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
std::string Preprocessor::FindInclude(const std::string& name, const std::string& dir) const {
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

void Preprocessor::DoInclude(const std::vector<Token>& line, size_t fi) {
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

}  // namespace egret::rules::internal
