// What the preprocessor tests (tests/rules_pp/preprocessor*_test.cc,
// prelude_test.cc) share: running the preprocessor on a text and reading its
// tokens, diagnostics and text back.
#ifndef EGRET_TESTS_RULES_PP_PREPROCESSOR_TEST_UTIL_H_
#define EGRET_TESTS_RULES_PP_PREPROCESSOR_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "egret/rules_pp/preprocessor.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

inline const std::string kData = std::string(EGRET_SOURCE_DIR) + "/tests/rules_pp/testdata";

inline PreprocessOptions NoPrelude() {
  PreprocessOptions o;
  o.use_prelude = false;
  return o;
}

struct Pp {
  PreprocessedFile file;
  std::string diags;
  int errors = 0;
  // Token texts joined by single spaces.
  std::string joined;
  // TokensToText of the output.
  std::string text;
};

inline Pp RunPp(std::string_view src, const PreprocessOptions& options = NoPrelude(),
                const std::string& name = "t.cc") {
  DiagnosticList diags;
  absl::StatusOr<PreprocessedFile> f = PreprocessText(src, name, options, &diags);
  EXPECT_TRUE(f.ok()) << f.status();
  Pp r;
  r.file = std::move(*f);
  r.diags = diags.ToString();
  r.errors = diags.error_count();
  std::vector<std::string> texts;
  EXPECT_FALSE(r.file.tokens.empty());
  EXPECT_EQ(r.file.tokens.back().kind, TokenKind::kEnd);
  for (const Token& t : r.file.tokens) {
    if (t.kind != TokenKind::kEnd) texts.push_back(t.text);
  }
  r.joined = absl::StrJoin(texts, " ");
  r.text = TokensToText(r.file.tokens);
  return r;
}

// Output of a run that must be free of diagnostics.
inline std::string Clean(std::string_view src, const PreprocessOptions& options = NoPrelude()) {
  Pp r = RunPp(src, options);
  EXPECT_EQ(r.diags, "") << "for input:\n" << src;
  return r.joined;
}

inline std::string Diags(std::string_view src, const PreprocessOptions& options = NoPrelude()) {
  return RunPp(src, options).diags;
}

inline std::string NoSpace(std::string s) {
  std::erase_if(s, [](char c) { return c == ' ' || c == '\n'; });
  return s;
}

inline std::string ReadExpected(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline const Token& Find(const PreprocessedFile& f, std::string_view text, int nth = 0) {
  for (const Token& t : f.tokens) {
    if (t.text == text && nth-- == 0) return t;
  }
  static const Token kNone;
  ADD_FAILURE() << "no token " << text;
  return kNone;
}

}  // namespace egret::rules

#endif  // EGRET_TESTS_RULES_PP_PREPROCESSOR_TEST_UTIL_H_
