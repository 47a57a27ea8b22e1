// docs/architecture.md's generated block: the stage DAG of the manifest CMake
// writes at configure time (build/egret_stages.txt, read by ParseManifest),
// drawn as a Mermaid flowchart and listed layer by layer, between the marker
// comments kStagesBegin and kStagesEnd. The prose around the block is written
// by hand; the block is rendered from the build, so a stage or a STAGES entry
// added, removed or renamed makes the committed doc stale, and
// architecture_doc_test fails until it is regenerated:
//
//   cmake --build build --target architecture_doc_update
//   (or: build/tests/layering/architecture_doc --write docs/architecture.md)
#ifndef EGRET_TESTS_LAYERING_ARCHITECTURE_DOC_H_
#define EGRET_TESTS_LAYERING_ARCHITECTURE_DOC_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tests/layering/layering_check.h"

namespace egret::layering {

inline constexpr std::string_view kStagesBegin = "<!-- stages:begin -->";
inline constexpr std::string_view kStagesEnd = "<!-- stages:end -->";

// The generated text between the markers (starting and ending with a newline):
// a Mermaid flowchart of the stages with one edge per declared STAGES entry
// not implied by another (the transitive reduction), then a table of the
// stages by layer (a stage's layer is one more than its highest dependency's)
// with each one's folder, declared STAGES and everything it may include.
std::string RenderStagesBlock(const Manifest& manifest);

// `doc` with the text between its markers replaced by `block`. Fails when a
// marker is missing, repeated or out of order.
absl::StatusOr<std::string> ReplaceStagesBlock(std::string_view doc, std::string_view block);

// OK when the block of `doc` (read from `doc_path`) is what `manifest`
// renders; otherwise FailedPrecondition naming the first differing line and
// the command that regenerates it.
absl::Status CheckArchitectureDoc(std::string_view doc, std::string_view doc_path,
                                  const Manifest& manifest);

}  // namespace egret::layering

#endif  // EGRET_TESTS_LAYERING_ARCHITECTURE_DOC_H_
