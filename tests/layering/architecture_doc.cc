#include "tests/layering/architecture_doc.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace egret::layering {
namespace {

// Where the markers are: the offsets just past kStagesBegin and at kStagesEnd.
struct BlockSpan {
  size_t begin;
  size_t end;
};

absl::StatusOr<BlockSpan> FindBlock(std::string_view doc) {
  const size_t begin = doc.find(kStagesBegin);
  const size_t end = doc.find(kStagesEnd);
  if (begin == std::string_view::npos || end == std::string_view::npos) {
    return absl::NotFoundError(
        absl::StrCat("missing the marker ",
                     std::string(begin == std::string_view::npos ? kStagesBegin : kStagesEnd)));
  }
  if (doc.find(kStagesBegin, begin + 1) != std::string_view::npos ||
      doc.find(kStagesEnd, end + 1) != std::string_view::npos) {
    return absl::InvalidArgumentError("a stages marker appears twice");
  }
  if (end < begin) return absl::InvalidArgumentError("the stages markers are out of order");
  return BlockSpan{begin + kStagesBegin.size(), end};
}

// The lines of `text` (split at '\n').
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0;;) {
    const size_t eol = text.find('\n', pos);
    lines.push_back(text.substr(pos, eol == std::string_view::npos ? eol : eol - pos));
    if (eol == std::string_view::npos) return lines;
    pos = eol + 1;
  }
}

// The Mermaid node id of a stage: prefixed, since words such as `graph` and
// `end` are Mermaid keywords.
std::string NodeId(std::string_view stage) { return absl::StrCat("s_", std::string(stage)); }

}  // namespace

std::string RenderStagesBlock(const Manifest& manifest) {
  std::map<std::string, const Stage*> by_name;
  for (const Stage& s : manifest.stages) by_name[s.name] = &s;

  // Layers: a stage's is one more than its highest dependency's. One pass per
  // stage reaches the fixed point whatever the declaration order (and stops on
  // a cycle, which CMake would reject anyway).
  std::map<std::string, int> layer;
  for (size_t pass = 0; pass < manifest.stages.size(); ++pass) {
    for (const Stage& s : manifest.stages) {
      int l = 0;
      for (const std::string& d : s.deps) {
        if (d != s.name && layer.contains(d)) l = std::max(l, layer[d] + 1);
      }
      layer[s.name] = l;
    }
  }

  // A declared edge s -> d is implied when another declared dependency of s
  // builds on d.
  auto implied = [&](const Stage& s, const std::string& d) {
    for (const std::string& other : s.deps) {
      if (other == d || other == s.name || !by_name.contains(other)) continue;
      if (by_name.at(other)->closure.contains(d)) return true;
    }
    return false;
  };

  std::string out =
      "\n<!-- Generated from build/egret_stages.txt by tests/layering/architecture_doc; "
      "do not edit. Regenerate: cmake --build build --target "
      "architecture_doc_update -->\n\n```mermaid\nflowchart TD\n";
  for (const Stage& s : manifest.stages) {
    absl::StrAppend(&out, "  ", NodeId(s.name), "[\"", s.name, "\"]\n");
  }
  for (const Stage& s : manifest.stages) {
    for (const std::string& d : s.deps) {
      if (d == s.name || implied(s, d)) continue;
      absl::StrAppend(&out, "  ", NodeId(s.name), " --> ", NodeId(d), "\n");
    }
  }
  absl::StrAppend(&out, "```\n\n");
  absl::StrAppend(&out,
                  "An arrow points from a stage to one it builds on; an arrow implied by a longer "
                  "path is left out. By layer, from the bottom:\n\n"
                  "| layer | stage | folder | declares `STAGES` | may include |\n"
                  "|---|---|---|---|---|\n");
  std::vector<const Stage*> ordered;
  for (const Stage& s : manifest.stages) ordered.push_back(&s);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const Stage* a, const Stage* b) { return layer[a->name] < layer[b->name]; });
  auto list = [](const auto& names, std::string_view self) {
    std::vector<std::string> kept;
    for (const std::string& n : names) {
      if (n != self) kept.push_back(n);
    }
    return kept.empty() ? std::string("-") : absl::StrJoin(kept, ", ");
  };
  for (const Stage* s : ordered) {
    // The closure, in the order of the stages' declaration.
    std::vector<std::string> closure;
    for (const Stage& t : manifest.stages) {
      if (s->closure.contains(t.name)) closure.push_back(t.name);
    }
    absl::StrAppend(&out, "| ", layer[s->name], " | ", s->name, " | `", s->folder, "/` | ",
                    list(s->deps, s->name), " | ", list(closure, s->name), " |\n");
  }
  absl::StrAppend(&out, "\n");
  return out;
}

absl::StatusOr<std::string> ReplaceStagesBlock(std::string_view doc, std::string_view block) {
  absl::StatusOr<BlockSpan> span = FindBlock(doc);
  if (!span.ok()) return span.status();
  return absl::StrCat(std::string(doc.substr(0, span->begin)), std::string(block),
                      std::string(doc.substr(span->end)));
}

absl::Status CheckArchitectureDoc(std::string_view doc, std::string_view doc_path,
                                  const Manifest& manifest) {
  const std::string how =
      "regenerate it with `cmake --build build --target architecture_doc_update` (or "
      "`build/tests/layering/architecture_doc --write docs/architecture.md`) and commit it";
  absl::StatusOr<BlockSpan> span = FindBlock(doc);
  if (!span.ok()) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: %s; put the lines %s and %s around the stages block, then %s",
                        doc_path, span.status().message(), kStagesBegin, kStagesEnd, how));
  }
  const std::string want = RenderStagesBlock(manifest);
  const std::string_view have = doc.substr(span->begin, span->end - span->begin);
  if (have == want) return absl::OkStatus();
  // The first line that differs, for the message.
  const std::vector<std::string_view> have_lines = Lines(have);
  const std::vector<std::string_view> want_lines = Lines(want);
  size_t i = 0;
  while (i < have_lines.size() && i < want_lines.size() && have_lines[i] == want_lines[i]) ++i;
  auto line = [](const std::vector<std::string_view>& lines, size_t i) {
    return i < lines.size() ? absl::StrCat("\"", std::string(lines[i]), "\"")
                            : std::string("(end of block)");
  };
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s is stale: its stages block differs from the stage manifest at block line %d (doc: "
      "%s, manifest: %s); %s",
      doc_path, i + 1, line(have_lines, i), line(want_lines, i), how));
}

}  // namespace egret::layering
