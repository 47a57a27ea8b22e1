#include "tests/layering/layering_check.h"

#include <algorithm>
#include <fstream>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

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

// Rule 2 of the header comment: the x.cc beside a header x.h or x_internal.h.
std::string SiblingSource(const std::string& header) {
  fs::path p(header);
  std::string stem = p.stem().string();
  constexpr std::string_view kInternal = "_internal";
  if (stem.ends_with(kInternal)) stem.resize(stem.size() - kInternal.size());
  return (p.parent_path() / (stem + ".cc")).string();
}

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

// Assigns files to stages (rules in layering_check.h).
class Assigner {
 public:
  Assigner(const Manifest& manifest, const fs::path& root, LayeringReport& report)
      : root_(root), report_(report) {
    for (const Stage& s : manifest.stages) {
      by_name_[s.name] = &s;
      for (const std::string& src : s.sources) listed_.emplace(src, s.name);
      folder_stages_[s.folder].push_back(&s);
    }
    // Lowest first: the smallest closure, then declaration order.
    for (auto& [folder, stages] : folder_stages_) {
      std::stable_sort(stages.begin(), stages.end(), [](const Stage* a, const Stage* b) {
        return a->closure.size() < b->closure.size();
      });
    }
  }

  const Stage& stage(const std::string& name) const { return *by_name_.at(name); }
  const std::vector<Include>& includes(const std::string& file) {
    auto [it, added] = includes_.try_emplace(file);
    if (added) it->second = EgretIncludes(root_ / file);
    return it->second;
  }

  // The stage of `file` (relative to the root), or nullptr outside every
  // stage folder (reported once) or for a missing file.
  const Stage* Assign(const std::string& file) {
    if (auto it = report_.stage_of.find(file); it != report_.stage_of.end()) {
      return by_name_.at(it->second);
    }
    if (!fs::is_regular_file(root_ / file)) return nullptr;
    const Stage* s = Rule12(file);
    if (s == nullptr) {
      const std::vector<const Stage*>* candidates = FolderStages(file);
      if (candidates == nullptr) {
        if (unowned_.insert(file).second) {
          report_.unowned.push_back(absl::StrCat(
              file, ": belongs to no stage (not under the folder of any egret_stage)"));
        }
        return nullptr;
      }
      s = candidates->front();
      if (visiting_.insert(file).second) s = Rule3(file, *candidates);
      visiting_.erase(file);
    }
    report_.stage_of[file] = s->name;
    return s;
  }

 private:
  // Rules 1 and 2: the stage listing the file, or its sibling .cc.
  const Stage* Rule12(const std::string& file) const {
    auto it = listed_.find(file);
    if (it == listed_.end() && file.ends_with(".h")) it = listed_.find(SiblingSource(file));
    return it == listed_.end() ? nullptr : by_name_.at(it->second);
  }

  // The stages of the deepest stage folder holding `file`, lowest first.
  const std::vector<const Stage*>* FolderStages(const std::string& file) const {
    const std::vector<const Stage*>* found = nullptr;
    size_t depth = 0;
    for (const auto& [folder, stages] : folder_stages_) {
      if (file.starts_with(folder + "/") && folder.size() >= depth) {
        found = &stages;
        depth = folder.size();
      }
    }
    return found;
  }

  // Rule 3: the lowest candidate that links every stage `file` includes, or
  // the lowest of all when none does (its includes are then reported).
  const Stage* Rule3(const std::string& file, const std::vector<const Stage*>& candidates) {
    std::set<std::string> needed;
    for (const Include& inc : includes(file)) {
      if (const Stage* t = Assign(inc.target)) needed.insert(t->name);
    }
    for (const Stage* c : candidates) {
      if (std::all_of(needed.begin(), needed.end(), [&](const std::string& n) {
            return n == c->name || c->closure.contains(n);
          })) {
        return c;
      }
    }
    return candidates.front();
  }

  fs::path root_;
  LayeringReport& report_;
  absl::flat_hash_map<std::string, const Stage*> by_name_;
  std::map<std::string, std::string> listed_;  // SOURCES entry -> stage
  std::map<std::string, std::vector<const Stage*>> folder_stages_;
  std::map<std::string, std::vector<Include>> includes_;
  std::set<std::string> visiting_;  // rule-3 files being assigned (include cycles)
  std::set<std::string> unowned_;
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
