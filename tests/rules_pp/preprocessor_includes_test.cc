// The preprocessor's include search: the includer's folder, then -I
// folders; a real op-package source; missing and recursive includes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "egret/rules_pp/preprocessor.h"
#include "egret/support/diagnostic.h"
#include "tests/rules_pp/preprocessor_test_util.h"

namespace egret::rules {
namespace {

// ---- Includes ----

TEST(PreprocessorTest, IncludesSearchIncluderThenIncludeDirs) {
  PreprocessOptions o = NoPrelude();
  o.include_dirs = {kData + "/sdk"};
  DiagnosticList diags;
  absl::StatusOr<PreprocessedFile> f = PreprocessFile(kData + "/include_main.cc", o, &diags);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(diags.ToString(), kData +
                                  "/include_main.cc:6:10: warning: cannot find include file "
                                  "\"not_there.h\"; skipped\n");
  std::vector<std::string> texts;
  for (const Token& t : f->tokens) texts.push_back(t.text);
  EXPECT_EQ(absl::StrJoin(texts, " "), "local_a from_c from_sub sdk_b start A_VALUE B_VALUE end ");
  const Token& a = Find(*f, "local_a");
  EXPECT_EQ(a.loc.ToString(), kData + "/inc/a.h:3:1");
  const Token& av = Find(*f, "A_VALUE");
  EXPECT_EQ(av.expanded_from, "A");
  EXPECT_EQ(av.expansion_loc.ToString(), kData + "/include_main.cc:8:7");
}

TEST(PreprocessorTest, RealOpPackageSource) {
  PreprocessOptions o;  // with the prelude, no SDK headers
  DiagnosticList diags;
  absl::StatusOr<PreprocessedFile> f = PreprocessFile(kData + "/op_package.cc", o, &diags);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(diags.ToString(), kData +
                                  "/op_package.cc:3:10: warning: cannot find include file "
                                  "\"HTP/core/constraints.h\"; skipped\n" +
                                  kData +
                                  "/op_package.cc:4:10: warning: cannot find include file "
                                  "\"HTP/core/op_package_feature_support.h\"; skipped\n");
  std::string expected = ReadExpected(kData + "/op_package.expected");
  EXPECT_EQ(TokensToText(f->tokens) + "\n", expected);
  ASSERT_EQ(f->external_fn_annotations.size(), 1u);
  EXPECT_EQ(f->external_fn_annotations[0].second,
            "OpRef split_weights(Replacement &, OpRef, int);");
  // Each rule form starts its line; its tokens point into the user's file.
  int rules = 0;
  for (const Token& t : f->tokens) {
    if (t.text.starts_with("DEF_PACKAGE_")) {
      EXPECT_TRUE(t.at_line_start) << t.loc.ToString();
      ++rules;
    }
  }
  EXPECT_EQ(rules, 6);
  const Token& tile = Find(*f, "\"tile_height\"");
  EXPECT_EQ(tile.expanded_from, "TILE_HEIGHT");
  EXPECT_EQ(DiagnosticAt(tile, Severity::kError, "x").loc.ToString(),
            kData + "/op_package.cc:39:23");
}

TEST(PreprocessorTest, MissingMainFileIsAStatus) {
  DiagnosticList diags;
  absl::StatusOr<PreprocessedFile> f = PreprocessFile(kData + "/nope.cc", NoPrelude(), &diags);
  EXPECT_FALSE(f.ok());
  EXPECT_EQ(diags.all().size(), 0u);
}

TEST(PreprocessorTest, IncludeErrors) {
  PreprocessOptions o = NoPrelude();
  EXPECT_EQ(Diags("#include\n#include foo\n#include \"\"", o),
            "t.cc:1:2: error: #include expects \"FILENAME\" or <FILENAME>\n"
            "t.cc:2:2: error: #include expects \"FILENAME\" or <FILENAME>\n"
            "t.cc:3:10: error: empty filename in #include\n");
  o.include_dirs = {kData};
  EXPECT_EQ(
      Clean("#define HDR \"inc/a.h\"\n#include HDR\n#define ANGLE <sdk/b.h>\n#include ANGLE\nA B",
            o),
      "local_a from_c from_sub sdk_b A_VALUE B_VALUE");
}

TEST(PreprocessorTest, RecursiveIncludeIsAnErrorNotACrash) {
  PreprocessOptions o = NoPrelude();
  o.include_dirs = {kData};
  o.max_include_depth = 20;
  Pp r = RunPp("#include \"recursive.h\"\nafter", o);
  EXPECT_EQ(r.diags,
            kData + "/recursive.h:2:10: error: #include nested too deeply (more than 20 levels)\n");
  EXPECT_EQ(r.errors, 1);
  // Twice per level: still one error, and the run stops there.
  Pp twice = RunPp("#include \"recursive_twice.h\"\nafter", o);
  EXPECT_EQ(twice.diags, kData +
                             "/recursive_twice.h:1:10: error: #include nested too deeply "
                             "(more than 20 levels)\n");
}

}  // namespace
}  // namespace egret::rules
