// The preprocessor's limits: exponential expansion, nesting depth, and
// linear time on macros with many parameters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "egret/rules_pp/preprocessor.h"
#include "egret/support/diagnostic.h"
#include "tests/rules_pp/preprocessor_test_util.h"

namespace egret::rules {
namespace {

// ---- Limits ----

TEST(PreprocessorTest, ExponentialExpansionHitsTheLimit) {
  std::string src = "#define A0 x x\n";
  for (int i = 1; i <= 40; ++i) {
    src += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" +
           std::to_string(i - 1) + "\n";
  }
  src += "A40\n";
  PreprocessOptions o = NoPrelude();
  o.max_tokens = 1000;
  Pp r = RunPp(src, o);
  EXPECT_EQ(r.diags, "t.cc:42:1: error: preprocessed output exceeds the limit of 1000 tokens\n");
  EXPECT_EQ(r.file.tokens.size(), 1001u);
}

TEST(PreprocessorTest, ExpansionInsideArgumentsIsBounded) {
  PreprocessOptions o = NoPrelude();
  o.max_tokens = 1000;
  // Each level multiplies by 8: stopped inside the argument pre-expansion.
  Pp r = RunPp("#define D(x) x x x x x x x x\nD(D(D(D(D(D(D(D(1))))))))", o);
  EXPECT_EQ(r.diags, "t.cc:2:9: error: macro expansion exceeds the limit of 1000 tokens\n");
  std::string src = "#define A0 x x\n";
  for (int i = 1; i <= 40; ++i) {
    src += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" +
           std::to_string(i - 1) + "\n";
  }
  src += "#define F(x) x\nF(A40)\n";
  Pp f = RunPp(src, o);
  EXPECT_EQ(f.diags, "t.cc:43:3: error: macro expansion exceeds the limit of 1000 tokens\n");
  // Long but linear input within the work limit is fine.
  std::string many;
  for (int i = 0; i < 900; ++i) many += "x ";
  EXPECT_EQ(RunPp(many, o).errors, 0);
}

// A function-like macro with hundreds of thousands of parameters (a hostile
// input, docs/reliability.md). The checks that scanned every parameter per
// parameter (duplicates) or per body token (which parameter a name is) were
// quadratic: 29 s of CPU for 200,000 parameters (docs/reliability.md). The
// child running the preprocessor gets 30 s of CPU time (SIGXCPU stops it
// beyond), which the linear code needs well under 1 s of and the quadratic
// code minutes of at 300,000 to 400,000 parameters (the first test below
// was stopped at the limit before the fix); bench/preprocessor_bench.cc
// measures the time.
std::string ManyParams(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += ',';
    s += 'p' + std::to_string(i);
  }
  return s;
}

void LimitCpuSeconds(int seconds) {
  // SIGXCPU at the soft limit (SIGKILL 5 s later).
  rlimit limit{static_cast<rlim_t>(seconds), static_cast<rlim_t>(seconds + 5)};
  setrlimit(RLIMIT_CPU, &limit);
}

// Exits 0 when `src` preprocesses to `want_errors` errors and `want_diags`
// (when not null), within the CPU limit; else 1.
[[noreturn]] void PreprocessUnderCpuLimit(const std::string& src, int want_errors,
                                          size_t want_tokens, const char* want_diags) {
  LimitCpuSeconds(30);
  DiagnosticList diags;
  absl::StatusOr<PreprocessedFile> f = PreprocessText(src, "t.cc", NoPrelude(), &diags);
  const bool ok = f.ok() && diags.error_count() == want_errors &&
                  (want_tokens == 0 || f->tokens.size() == want_tokens) &&
                  (want_diags == nullptr || diags.ToString() == want_diags);
  if (!ok) fprintf(stderr, "%s", diags.ToString().c_str());
  std::_Exit(ok ? 0 : 1);
}

TEST(PreprocessorDeathTest, ManyMacroParametersAreCheckedInLinearTime) {
  constexpr int kParams = 400000;
  const std::string params = ManyParams(kParams);
  // A duplicate at the very end is still found, at its place.
  const std::string dup = "#define M(" + params + ",p0) p0\n";
  const std::string want = "t.cc:1:" + std::to_string(dup.find(",p0)") + 2) +
                           ": error: duplicate macro parameter \"p0\"\n";
  EXPECT_EXIT(PreprocessUnderCpuLimit(dup, 1, 0, want.c_str()), ::testing::ExitedWithCode(0), "");
  // No duplicate: a clean definition.
  EXPECT_EXIT(PreprocessUnderCpuLimit("#define M(" + params + ") p0\n", 0, 1, ""),
              ::testing::ExitedWithCode(0), "");
}

TEST(PreprocessorDeathTest, BodyNamingManyParametersExpandsInLinearTime) {
  // 300,000: about 0.7 GB at peak here; the quadratic body scan needs over
  // two minutes of CPU (8 s at 65,536 in bench/preprocessor_bench).
  constexpr int kParams = 300000;
  std::string src = "#define M(" + ManyParams(kParams) + ")";
  for (int i = 0; i < kParams; ++i) src += " p" + std::to_string(i);
  src += "\nM(";
  for (int i = 0; i < kParams; ++i) src += i > 0 ? ",1" : "1";
  src += ")\n";
  // kParams tokens "1" and the end token.
  EXPECT_EXIT(PreprocessUnderCpuLimit(src, 0, kParams + 1, ""), ::testing::ExitedWithCode(0), "");
}

TEST(PreprocessorDeathTest, ManyVaOptGroupsAreCheckedInLinearTime) {
  // Nested __VA_OPT__ is an error at the first inner one; 200,000 of them
  // nested used to be scanned once each, to the end of the body.
  constexpr int kGroups = 200000;
  std::string src = "#define V(...)";
  for (int i = 0; i < kGroups; ++i) src += " __VA_OPT__(";
  for (int i = 0; i < kGroups; ++i) src += ")";
  src += "\n";
  EXPECT_EXIT(PreprocessUnderCpuLimit(
                  src, 1, 0, "t.cc:1:28: error: __VA_OPT__ may not appear in a __VA_OPT__\n"),
              ::testing::ExitedWithCode(0), "");
}

TEST(PreprocessorTest, DeepNestingIsAnError) {
  std::string src = "#define F(x) x\n";
  for (int i = 0; i < 300; ++i) src += "F(";
  src += "1";
  for (int i = 0; i < 300; ++i) src += ")";
  Pp r = RunPp(src);
  EXPECT_EQ(r.diags,
            "t.cc:2:513: error: macro arguments nested too deeply (more than 256 levels)\n");
  std::string ifs = "#if ";
  for (int i = 0; i < 5000; ++i) ifs += "(";
  ifs += "1";
  for (int i = 0; i < 5000; ++i) ifs += ")";
  ifs += "\n#endif\n";
  EXPECT_EQ(Diags(ifs), "t.cc:1:261: error: #if expression nested too deeply\n");
  std::string unary = "#if ";
  for (int i = 0; i < 5000; ++i) unary += "- ";
  unary += "1\n#endif\n";
  EXPECT_EQ(Diags(unary), "t.cc:1:517: error: #if expression nested too deeply\n");
}

TEST(PreprocessorTest, EndTokenAndEmptyInput) {
  Pp r = RunPp("");
  ASSERT_EQ(r.file.tokens.size(), 1u);
  EXPECT_EQ(r.file.tokens[0].kind, TokenKind::kEnd);
  EXPECT_EQ(r.file.tokens[0].loc.ToString(), "t.cc:1:1");
  EXPECT_EQ(r.diags, "");
}

}  // namespace
}  // namespace egret::rules
