#include "tests/layering/layering_check.h"

#include <algorithm>
#include <fstream>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/support/file_io.h"

namespace egret::layering {
namespace {

namespace fs = std::filesystem;

// Drops leading blanks, then `prefix`; false if `text` does not start so.
bool ConsumeToken(std::string_view& text, std::string_view prefix) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// The path a quoted `#include "path"` line names, if it is one.
std::optional<std::string_view> QuotedInclude(std::string_view line) {
  if (!ConsumeToken(line, "#") || !ConsumeToken(line, "include") || !ConsumeToken(line, "\"")) {
    return std::nullopt;
  }
  size_t end = line.find('"');
  if (end == std::string_view::npos) return std::nullopt;
  return line.substr(0, end);
}

// The blank-separated fields of `line`.
std::vector<std::string> Fields(std::string_view line) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (i < line.size()) {
    size_t j = line.find(' ', i);
    if (j == std::string_view::npos) j = line.size();
    if (j > i) fields.emplace_back(line.substr(i, j - i));
    i = j + 1;
  }
  return fields;
}

bool IsCppFile(const fs::path& p) { return p.extension() == ".h" || p.extension() == ".cc"; }

}  // namespace

absl::StatusOr<Manifest> ParseManifest(std::string_view text, std::string_view file) {
  Manifest m;
  absl::flat_hash_map<std::string, size_t> index;
  int line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::vector<std::string> f = Fields(text.substr(pos, eol - pos));
    pos = eol + 1;
    ++line_no;
    if (f.empty()) continue;
    auto error = [&](std::string_view what) {
      return absl::InvalidArgumentError(absl::StrFormat("%s:%d: error: %s", file, line_no, what));
    };
    if (f.size() < 2) return error(absl::StrCat("record '", f[0], "' names no stage"));
    if (f[0] == "stage") {
      if (f.size() != 3) return error("expected 'stage <name> <folder>'");
      if (index.contains(f[1])) return error(absl::StrCat("stage '", f[1], "' declared twice"));
      index[f[1]] = m.stages.size();
      Stage& s = m.stages.emplace_back();
      s.name = f[1];
      s.folder = f[2];
      continue;
    }
    auto it = index.find(f[1]);
    if (it == index.end())
      return error(absl::StrCat("'", f[0], "' of undeclared stage '", f[1], "'"));
    Stage& s = m.stages[it->second];
    if (f[0] == "deps") {
      s.deps.assign(f.begin() + 2, f.end());
    } else if (f[0] == "closure") {
      s.closure.insert(f.begin() + 2, f.end());
    } else if (f[0] == "source") {
      if (f.size() != 3) return error("expected 'source <stage> <file>'");
      s.sources.push_back(f[2]);
    } else {
      return error(absl::StrCat("unknown record '", f[0], "'"));
    }
  }
  for (const Stage& s : m.stages) {
    for (const std::string& d : s.closure) {
      if (!index.contains(d)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: error: stage '%s' builds on undeclared stage '%s'", file, s.name, d));
      }
    }
  }
  return m;
}

absl::StatusOr<Manifest> ReadManifest(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseManifest(*text, path);
}

namespace {

// The quoted egret/ includes of a file, with their line numbers.
struct Include {
  int line;
  std::string target;
};

std::vector<Include> EgretIncludes(const fs::path& path) {
  std::vector<Include> includes;
  std::ifstream in(path);
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    std::optional<std::string_view> inc = QuotedInclude(line);
    if (inc && inc->starts_with("egret/")) includes.push_back({line_no, std::string(*inc)});
  }
  return includes;
}

// "egret/<stage>/...": the stage folder a file is in ("" when not under
// egret/ or directly in it).
std::string StageFolder(const std::string& file) {
  constexpr std::string_view kRoot = "egret/";
  if (!file.starts_with(kRoot)) return "";
  const size_t slash = file.find('/', kRoot.size());
  return slash == std::string::npos ? "" : file.substr(0, slash);
}

// Assigns files to stages by their folder (layering_check.h).
class Assigner {
 public:
  Assigner(const Manifest& manifest, const fs::path& root, LayeringReport& report)
      : root_(root), report_(report) {
    for (const Stage& s : manifest.stages) {
      by_name_[s.name] = &s;
      const std::string expected = absl::StrCat("egret/", s.name);
      if (s.folder != expected) {
        report_.misplaced_stages.push_back(absl::StrCat(
            "stage ", s.name, " is declared in ", s.folder, "; its folder must be ", expected));
      }
      by_folder_[expected] = &s;
    }
  }

  const Stage& stage(const std::string& name) const { return *by_name_.at(name); }
  const std::vector<Include>& includes(const std::string& file) {
    auto [it, added] = includes_.try_emplace(file);
    if (added) it->second = EgretIncludes(root_ / file);
    return it->second;
  }

  // The stage of `file` (relative to the root), or nullptr when its folder
  // is no stage's (reported).
  const Stage* Assign(const std::string& file) {
    const std::string folder = StageFolder(file);
    auto it = by_folder_.find(folder);
    if (it == by_folder_.end()) {
      report_.unowned.push_back(absl::StrCat(
          file, ": belongs to no stage (",
          folder.empty() ? "not in a folder under egret/" : folder + " is not a stage's folder",
          ")"));
      return nullptr;
    }
    report_.stage_of[file] = it->second->name;
    return it->second;
  }

 private:
  fs::path root_;
  LayeringReport& report_;
  absl::flat_hash_map<std::string, const Stage*> by_name_;
  absl::flat_hash_map<std::string, const Stage*> by_folder_;  // "egret/<name>" -> stage
  std::map<std::string, std::vector<Include>> includes_;
};

}  // namespace

LayeringReport CheckLayering(const Manifest& manifest, const fs::path& root) {
  LayeringReport report;
  Assigner assigner(manifest, root, report);
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root / "egret", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() && IsCppFile(it->path())) {
      files.push_back(fs::relative(it->path(), root).generic_string());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) assigner.Assign(file);

  // Which stages each stage's files include, for the unused-dependency check.
  std::map<std::string, std::set<std::string>> used;
  for (const auto& [file, stage_name] : report.stage_of) {
    const Stage& stage = assigner.stage(stage_name);
    for (const auto& [line_no, target] : assigner.includes(file)) {
      auto it = report.stage_of.find(target);
      if (it == report.stage_of.end()) {
        if (!fs::exists(root / target)) {
          report.bad_includes.push_back(
              absl::StrFormat("%s:%d: includes %s, which does not exist", file, line_no, target));
        }
        continue;  // otherwise reported as unowned
      }
      const std::string& target_stage = it->second;
      used[stage.name].insert(target_stage);
      if (target_stage == stage.name || stage.closure.contains(target_stage)) continue;
      report.bad_includes.push_back(absl::StrFormat(
          "%s:%d: stage %s includes %s of stage %s, which it does not link (it links: %s)", file,
          line_no, stage.name, target, target_stage,
          stage.closure.empty() ? "nothing" : absl::StrJoin(stage.closure, " ")));
    }
  }

  for (const Stage& s : manifest.stages) {
    for (const std::string& d : s.deps) {
      if (!used[s.name].contains(d)) {
        report.unused_deps.push_back(absl::StrFormat(
            "stage %s declares STAGES %s, but none of its files includes a header of %s (%s)",
            s.name, d, d, s.folder));
      }
    }
  }
  return report;
}

}  // namespace egret::layering
