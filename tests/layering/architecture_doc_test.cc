// docs/architecture.md's stages block is what the build's stage manifest
// renders (architecture_doc.h), and the check catches a stale one.
#include "tests/layering/architecture_doc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "egret/support/file_io.h"
#include "tests/layering/layering_check.h"

namespace egret::layering {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// base <- mid <- top, and top also declares base (implied through mid).
constexpr std::string_view kManifest =
    "stage base egret/base\ndeps base\nclosure base\n"
    "stage mid egret/mid\ndeps mid base\nclosure mid base\n"
    "stage top egret/top\ndeps top mid base\nclosure top mid base\n";

Manifest Parse(std::string_view text) {
  absl::StatusOr<Manifest> m = ParseManifest(text, "manifest.txt");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : Manifest{};
}

std::string Doc(std::string_view block) {
  return absl::StrCat("# Title\n\nProse.\n\n", std::string(kStagesBegin), std::string(block),
                      std::string(kStagesEnd), "\n\nMore prose.\n");
}

TEST(ArchitectureDoc, CommittedDocMatchesTheBuildsManifest) {
  absl::StatusOr<Manifest> manifest = ReadManifest(EGRET_BINARY_DIR "/egret_stages.txt");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  const std::string doc_path = EGRET_SOURCE_DIR "/docs/architecture.md";
  absl::StatusOr<std::string> doc = ReadFile(doc_path);
  ASSERT_TRUE(doc.ok()) << doc.status();
  absl::Status status = CheckArchitectureDoc(*doc, doc_path, *manifest);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(ArchitectureDoc, DrawsTheTransitiveReductionAndTheLayers) {
  const std::string block = RenderStagesBlock(Parse(kManifest));
  EXPECT_THAT(block, HasSubstr("```mermaid\nflowchart TD\n"));
  EXPECT_THAT(block, HasSubstr("  s_mid --> s_base\n  s_top --> s_mid\n```\n"));
  EXPECT_THAT(block, HasSubstr("  s_mid --> s_base\n"));
  EXPECT_THAT(block, Not(HasSubstr("s_top --> s_base")));
  EXPECT_THAT(block, HasSubstr("| 0 | base | `egret/base/` | - | - |\n"
                               "| 1 | mid | `egret/mid/` | base | base |\n"
                               "| 2 | top | `egret/top/` | mid, base | base, mid |\n"));
}

TEST(ArchitectureDoc, ReplacesOnlyTheBlock) {
  absl::StatusOr<std::string> updated = ReplaceStagesBlock(Doc("\nold\n"), "\nnew\n");
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(*updated, Doc("\nnew\n"));
  EXPECT_FALSE(ReplaceStagesBlock("no markers", "x").ok());
  EXPECT_FALSE(
      ReplaceStagesBlock(absl::StrCat(std::string(kStagesEnd), std::string(kStagesBegin)), "x")
          .ok());
}

TEST(ArchitectureDoc, CheckFailsOnAStaleDocAndSaysHowToRegenerate) {
  const Manifest manifest = Parse(kManifest);
  const std::string fresh = Doc(RenderStagesBlock(manifest));
  EXPECT_TRUE(CheckArchitectureDoc(fresh, "arch.md", manifest).ok());

  // A stage added to the build: the committed doc no longer matches.
  const Manifest grown = Parse(absl::StrCat(
      std::string(kManifest), "stage api egret/api\ndeps api top\nclosure api top mid base\n"));
  absl::Status stale = CheckArchitectureDoc(fresh, "arch.md", grown);
  ASSERT_FALSE(stale.ok());
  EXPECT_THAT(stale.message(), HasSubstr("arch.md is stale"));
  EXPECT_THAT(stale.message(), HasSubstr("s_api"));
  EXPECT_THAT(stale.message(), HasSubstr("cmake --build build --target architecture_doc_update"));
  EXPECT_THAT(stale.message(), HasSubstr("architecture_doc --write docs/architecture.md"));

  // A dependency dropped changes an edge.
  const Manifest thinner = Parse(
      "stage base egret/base\ndeps base\nclosure base\n"
      "stage mid egret/mid\ndeps mid\nclosure mid\n"
      "stage top egret/top\ndeps top mid base\nclosure top mid base\n");
  EXPECT_FALSE(CheckArchitectureDoc(fresh, "arch.md", thinner).ok());

  // A hand edit inside the block is caught too.
  std::string edited = fresh;
  edited.replace(edited.find("s_mid --> s_base"), 16, "s_mid --> s_top");
  EXPECT_FALSE(CheckArchitectureDoc(edited, "arch.md", manifest).ok());

  // Missing markers name them.
  absl::Status unmarked = CheckArchitectureDoc("# Title\n", "arch.md", manifest);
  ASSERT_FALSE(unmarked.ok());
  EXPECT_THAT(unmarked.message(), HasSubstr(std::string(kStagesBegin)));
}

}  // namespace
}  // namespace egret::layering
