// Layering: each stage lives in its own folder egret/<stage>/, no stage
// includes a stage it does not link, and no stage declares a dependency it
// never includes (rules in layering_check.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/layering/layering_check.h"

namespace egret::layering {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(Layering, EveryStageIncludesOnlyWhatItLinks) {
  absl::StatusOr<Manifest> manifest = ReadManifest(EGRET_BINARY_DIR "/egret_stages.txt");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  ASSERT_FALSE(manifest->stages.empty());

  LayeringReport r = CheckLayering(*manifest, EGRET_SOURCE_DIR);
  EXPECT_THAT(r.misplaced_stages, IsEmpty()) << absl::StrJoin(r.misplaced_stages, "\n");
  EXPECT_THAT(r.unowned, IsEmpty()) << absl::StrJoin(r.unowned, "\n");
  EXPECT_THAT(r.bad_includes, IsEmpty()) << absl::StrJoin(r.bad_includes, "\n");
  EXPECT_THAT(r.unused_deps, IsEmpty()) << absl::StrJoin(r.unused_deps, "\n");
  // The manifest matches the tree: each stage owns files, each listed source exists.
  for (const Stage& s : manifest->stages) {
    size_t owned = 0;
    for (const auto& [file, stage] : r.stage_of) owned += stage == s.name;
    EXPECT_GT(owned, 0u) << "stage " << s.name << " owns no file under " << s.folder;
    for (const std::string& src : s.sources) {
      EXPECT_TRUE(r.stage_of.contains(src)) << "stage " << s.name << ": " << src;
    }
  }
}

// A small tree with one breach of each kind: the check names each by file and line.
class LayeringCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / "egret_layering_check";
    fs::remove_all(root_);
  }
  void Write(const std::string& file, const std::string& text) {
    fs::create_directories((root_ / file).parent_path());
    std::ofstream(root_ / file) << text;
  }
  fs::path root_;
};

TEST_F(LayeringCheck, NamesEveryBreach) {
  // base <- mid <- top; stage odd is declared outside its own folder.
  absl::StatusOr<Manifest> m = ParseManifest(
      "stage base egret/base\ndeps base\nclosure base\nsource base egret/base/b.cc\n"
      "stage mid egret/mid\ndeps mid base\nclosure mid base\nsource mid egret/mid/m.cc\n"
      "stage top egret/top\ndeps top mid base\nclosure top mid base\n"
      "source top egret/top/t.cc\n"
      "stage odd egret/top\ndeps odd\nclosure odd\n",
      "manifest.txt");
  ASSERT_TRUE(m.ok()) << m.status();
  Write("egret/base/b.h", "#pragma once\n");
  Write("egret/base/b.cc", "#include \"egret/base/b.h\"\n#include \"egret/mid/m.h\"\n");
  Write("egret/mid/m.h", "#include \"egret/base/b.h\"\n");
  Write("egret/mid/m.cc", "#include \"egret/mid/m.h\"\n#include \"egret/mid/gone.h\"\n");
  // A file of top's moved into mid's folder is mid's: its include of top is reported.
  Write("egret/mid/moved.h", "// comment\n  #  include \"egret/top/t.h\"\n");
  Write("egret/top/t.h", "#include \"egret/mid/m.h\"\n");
  Write("egret/top/t.cc", "#include \"egret/top/t.h\"\n");
  Write("egret/top/sub/deep.h", "#pragma once\n");
  Write("egret/loose/x.h", "\n");
  Write("egret/flat.h", "\n");

  LayeringReport r = CheckLayering(*m, root_);
  EXPECT_EQ(r.stage_of.at("egret/mid/moved.h"), "mid");
  EXPECT_EQ(r.stage_of.at("egret/top/sub/deep.h"), "top");
  EXPECT_EQ(r.stage_of.at("egret/base/b.h"), "base");
  EXPECT_THAT(r.misplaced_stages,
              ElementsAre("stage odd is declared in egret/top; its folder must be egret/odd"));
  EXPECT_THAT(r.unowned,
              ElementsAre("egret/flat.h: belongs to no stage (not in a folder under egret/)",
                          "egret/loose/x.h: belongs to no stage (egret/loose is not a stage's "
                          "folder)"));
  EXPECT_THAT(r.bad_includes,
              ElementsAre("egret/base/b.cc:2: stage base includes egret/mid/m.h of stage mid, "
                          "which it does not link (it links: nothing)",
                          "egret/mid/m.cc:2: includes egret/mid/gone.h, which does not exist",
                          "egret/mid/moved.h:2: stage mid includes egret/top/t.h of stage top, "
                          "which it does not link (it links: base)"));
  // top includes mid (t.h) but nothing of base directly.
  EXPECT_THAT(r.unused_deps,
              ElementsAre("stage top declares STAGES base, but none of its files includes a "
                          "header of base (egret/top)"));
}

TEST(LayeringManifest, ErrorsNameFileAndLine) {
  absl::StatusOr<Manifest> m = ParseManifest("stage a egret/a\ndeps b\n", "m.txt");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "m.txt:2: error: 'deps' of undeclared stage 'b'");
  m = ParseManifest("stage a egret/a\nclosure a zz\n", "m.txt");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "m.txt: error: stage 'a' builds on undeclared stage 'zz'");
  m = ParseManifest("stage a egret/a\nbogus a\n", "m.txt");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "m.txt:2: error: unknown record 'bogus'");
}

}  // namespace
}  // namespace egret::layering
