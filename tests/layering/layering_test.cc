// Layering: no stage includes a stage it does not link, and no stage declares
// a dependency it never includes (rules in layering_check.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/support/file_io.h"
#include "tests/layering/layering_check.h"

namespace egret::layering {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(Layering, EveryStageIncludesOnlyWhatItLinks) {
  const std::string path = EGRET_BINARY_DIR "/egret_stages.txt";
  absl::StatusOr<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<Manifest> manifest = ParseManifest(*text, path);
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  ASSERT_FALSE(manifest->stages.empty());

  LayeringReport r = CheckLayering(*manifest, EGRET_SOURCE_DIR);
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
  // base <- mid; folder egret/multi holds low (on base) and high (on low, mid).
  absl::StatusOr<Manifest> m = ParseManifest(
      "stage base egret/base\ndeps base\nclosure base\nsource base egret/base/b.cc\n"
      "stage mid egret/mid\ndeps mid base\nclosure mid base\nsource mid egret/mid/m.cc\n"
      "stage low egret/multi\ndeps low base\nclosure low base\nsource low egret/multi/l.cc\n"
      "stage high egret/multi\ndeps high low mid\nclosure high low mid base\n"
      "source high egret/multi/h.cc\n",
      "manifest.txt");
  ASSERT_TRUE(m.ok()) << m.status();
  Write("egret/base/b.h", "#pragma once\n");
  Write("egret/base/b.cc", "#include \"egret/base/b.h\"\n#include \"egret/mid/m.h\"\n");
  Write("egret/mid/m.h", "#include \"egret/base/b.h\"\n");
  Write("egret/mid/m.cc", "#include \"egret/mid/m.h\"\n");
  Write("egret/multi/l.cc", "#include \"egret/multi/token.h\"\n");
  // No sibling .cc: the lowest stage of egret/multi linking what it includes (high: mid), so
  // low's l.cc may not include it; plain.h includes nothing and belongs to low.
  Write("egret/multi/token.h", "// comment\n  #  include \"egret/mid/m.h\"\n");
  Write("egret/multi/plain.h", "#pragma once\n");
  Write("egret/multi/h_internal.h", "#include \"egret/mid/m.h\"\n");  // high, via h.cc
  Write("egret/multi/h.cc",
        "#include \"egret/multi/h_internal.h\"\n#include \"egret/multi/gone.h\"\n");
  Write("egret/loose/x.h", "\n");

  LayeringReport r = CheckLayering(*m, root_);
  EXPECT_EQ(r.stage_of.at("egret/multi/token.h"), "high");
  EXPECT_EQ(r.stage_of.at("egret/multi/plain.h"), "low");
  EXPECT_EQ(r.stage_of.at("egret/multi/h_internal.h"), "high");
  EXPECT_EQ(r.stage_of.at("egret/base/b.h"), "base");
  EXPECT_THAT(r.unowned, ElementsAre("egret/loose/x.h: belongs to no stage (not under the folder "
                                     "of any egret_stage)"));
  EXPECT_THAT(r.bad_includes,
              ElementsAre("egret/base/b.cc:2: stage base includes egret/mid/m.h of stage mid, "
                          "which it does not link (it links: nothing)",
                          "egret/multi/h.cc:2: includes egret/multi/gone.h, which does not exist",
                          "egret/multi/l.cc:1: stage low includes egret/multi/token.h of stage "
                          "high, which it does not link (it links: base)"));
  // high includes mid (h_internal.h) but nothing of low; low includes nothing of base.
  EXPECT_THAT(r.unused_deps,
              ElementsAre("stage low declares STAGES base, but none of its files includes a "
                          "header of base (egret/multi)",
                          "stage high declares STAGES low, but none of its files includes a "
                          "header of low (egret/multi)"));
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
