// The layering check: every file of a stage includes only its own stage and
// the stages it links (its declared STAGES and what they build on), and every
// declared STAGES entry is included by some file of the stage.
//
// The stages come from the manifest the top-level CMakeLists.txt writes at
// configure time (egret_write_stage_manifest in cmake/EgretTargets.cmake), so
// a stage added to the build is checked without touching this test.
//
// Which stage a file under egret/ belongs to: the one of its folder. Stage
// `s` lives in egret/<s>/ (subfolders included: egret/executor/kernels/ is
// executor's), and every stage's folder is its own; a stage declared
// elsewhere, and a .h/.cc file whose folder under egret/ is no stage's, are
// reported.
#ifndef EGRET_TESTS_LAYERING_LAYERING_CHECK_H_
#define EGRET_TESTS_LAYERING_LAYERING_CHECK_H_

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace egret::layering {

struct Stage {
  std::string name;
  std::string folder;                // relative to the source root, e.g. "egret/rules"
  std::vector<std::string> deps;     // STAGES as declared
  std::set<std::string> closure;     // deps and what they build on, without `name`
  std::vector<std::string> sources;  // SOURCES, relative to the source root
};

// The stages of a manifest, in declaration order.
struct Manifest {
  std::vector<Stage> stages;
};

// Parses the manifest text (format in cmake/EgretTargets.cmake). Errors name
// `file` and the line: an unknown record, a record for an undeclared stage,
// a dependency on an undeclared stage.
absl::StatusOr<Manifest> ParseManifest(std::string_view text, std::string_view file);

// Reads and parses the manifest file at `path` (the build's is
// EGRET_BINARY_DIR "/egret_stages.txt").
absl::StatusOr<Manifest> ReadManifest(const std::string& path);

struct LayeringReport {
  // Every .h/.cc file under egret/ and the stage it belongs to, by path
  // relative to the source root.
  std::map<std::string, std::string> stage_of;
  // "egret/x/y.h: belongs to no stage (...)".
  std::vector<std::string> unowned;
  // "stage s is declared in egret/t; its folder must be egret/s".
  std::vector<std::string> misplaced_stages;
  // "egret/extract/a.cc:12: stage extract includes egret/pipeline/b.h of stage
  // pipeline, which it does not link (it links: support)"; also includes of
  // egret/ files that do not exist.
  std::vector<std::string> bad_includes;
  // "stage backend declares STAGES extract, but none of its files includes a
  // header of extract".
  std::vector<std::string> unused_deps;
};

// Checks the .h/.cc files under `root`/egret against `manifest`.
LayeringReport CheckLayering(const Manifest& manifest, const std::filesystem::path& root);

}  // namespace egret::layering

#endif  // EGRET_TESTS_LAYERING_LAYERING_CHECK_H_
