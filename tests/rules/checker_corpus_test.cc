// The rule corpus (tests/rules/testdata/rules): every file is read through the
// whole front end (preprocessor with the prelude and -I include/, parser,
// checker) and its diagnostics are compared with the expectations written in
// the file's comments:
//   // expected-error@+N:COL {{message}}     (line = this line + N; also -N)
//   // expected-warning@LINE:COL {{message}} (absolute line)
//   // expected-rules: N   // expected-ops: M
// Every diagnostic located in the file must be expected and every expectation
// met, exactly (severity, line, column, text). Diagnostics in other files
// (headers, the prelude) are failures, notes are not compared here.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/rules/rule_set.h"
#include "gtest/gtest.h"

namespace egret::rules {
namespace {

namespace fs = std::filesystem;

const std::string kCorpus = std::string(EGRET_SOURCE_DIR) + "/tests/rules/testdata/rules";

struct Expectations {
  std::vector<std::string> diags;  // "line:col: severity: message"
  int rules = -1;
  int ops = -1;
};

Expectations ReadExpectations(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  Expectations e;
  static const std::regex kDiag(R"(expected-(error|warning)@([+-]?)(\d+):(\d+) \{\{(.*?)\}\})");
  static const std::regex kCount(R"(expected-(rules|ops): (\d+))");
  for (int n = 1; std::getline(in, line); ++n) {
    for (auto it = std::sregex_iterator(line.begin(), line.end(), kDiag);
         it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      int num = std::stoi(m[3]);
      int target = m[2] == "+" ? n + num : m[2] == "-" ? n - num : num;
      e.diags.push_back(absl::StrCat(target, ":", m[4].str(), ": ", m[1].str(), ": ", m[5].str()));
    }
    std::smatch m;
    if (std::regex_search(line, m, kCount)) {
      (m[1] == "rules" ? e.rules : e.ops) = std::stoi(m[2]);
    }
  }
  return e;
}

std::vector<std::string> CorpusFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(kCorpus + "/" + dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void CheckFile(const std::string& path, bool valid) {
  SCOPED_TRACE(path);
  Expectations want = ReadExpectations(path);
  PreprocessOptions options;
  options.include_dirs.push_back(kCorpus + "/include");
  DiagnosticList diags;
  absl::StatusOr<RuleSet> set = LoadRuleFiles({path}, options, &diags);
  ASSERT_TRUE(set.ok()) << set.status();
  std::vector<std::string> got;
  for (const Diagnostic& d : diags.all()) {
    if (d.loc.file != path) {
      ADD_FAILURE() << "diagnostic outside the file: " << d.ToString();
      continue;
    }
    got.push_back(absl::StrCat(d.loc.line, ":", d.loc.col, ": ",
                               d.severity == Severity::kError ? "error" : "warning", ": ",
                               d.message));
  }
  std::sort(got.begin(), got.end());
  std::sort(want.diags.begin(), want.diags.end());
  EXPECT_EQ(got, want.diags) << diags.ToString();
  if (valid) {
    EXPECT_FALSE(diags.has_errors());
    EXPECT_NE(want.rules, -1) << "valid corpus files state expected-rules";
    for (bool ok : set->valid) EXPECT_TRUE(ok);
  } else {
    EXPECT_TRUE(diags.has_errors()) << "invalid corpus files must have an error";
  }
  if (want.rules >= 0) {
    EXPECT_EQ(static_cast<int>(set->rules.size()), want.rules);
  }
  if (want.ops >= 0) {
    EXPECT_EQ(static_cast<int>(set->ops.size()), want.ops);
  }
}

TEST(RuleCorpusTest, ValidFilesHaveNoErrors) {
  std::vector<std::string> files = CorpusFiles("valid");
  ASSERT_GE(files.size(), 3u);
  for (const std::string& f : files) CheckFile(f, /*valid=*/true);
}

TEST(RuleCorpusTest, InvalidFilesGiveExactlyTheExpectedDiagnostics) {
  std::vector<std::string> files = CorpusFiles("invalid");
  ASSERT_GE(files.size(), 5u);
  for (const std::string& f : files) CheckFile(f, /*valid=*/false);
}

}  // namespace
}  // namespace egret::rules
