// The preprocessor's conditional compilation: #if arithmetic, defined,
// #elif chains, disabled blocks, and the errors of #if expressions and of
// the conditional structure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "egret/rules_pp/preprocessor.h"
#include "tests/rules_pp/preprocessor_test_util.h"

namespace egret::rules {
namespace {

// ---- Conditionals ----

TEST(PreprocessorTest, IfArithmetic) {
  const char* src =
      "#if 1 + 2 * 3 == 7 && (8 >> 1) == 4 && -1 < 0 && !(-1 < 0u) && 0x10 == 16 && 010 == 8\n"
      "a\n#endif\n"
      "#if 'a' == 97 && (3 ? 4 : 5) == 4 && ~0 == -1 && 7 % 3 == 1 && -7 / 2 == -3\n"
      "b\n#endif\n"
      "#if 0b101 == 5 && 1'000 == 1000 && 10ULL == 10 && (1 << 62) > 0 && -1 >> 1 == -1\n"
      "c\n#endif\n"
      "#if (2 || 1/0) && !(0 && 1/0) && (1 ? 2 : 1/0) && '\\n' == 10 && '\\x41' == 65\n"
      "d\n#endif\n"
      "#if 18446744073709551615 == -1 && 0xffffffffffffffff > 0 && (0, 1) && 5 >= 5 && 4 <= 3 == "
      "0\n"
      "e\n#endif\n"
      "#if true && !false && (1 | 2) == 3 && (6 & 3) == 2 && (6 ^ 3) == 5 && 2 != 3 && 3 > 2\n"
      "f\n#endif\n"
      "#if 1 and not 0 && (4 bitor 1) == 5 && compl 0 == -1\n"
      "g\n#endif\n"
      "#if -9223372036854775807 - 1 < 0 && (-9223372036854775807 - 1) / -1 < 0 && 1 << 64 == 0\n"
      "h\n#endif\n";
  EXPECT_EQ(Clean(src), "a b c d e f g h");
}

TEST(PreprocessorTest, IfDefinedAndMacros) {
  EXPECT_EQ(
      Clean("#define X\n#if defined X && defined(X) && !defined(Y) && !defined ( Y )\nok\n#endif"),
      "ok");
  EXPECT_EQ(
      Clean(
          "#define N 3\n#define TWICE(a) ((a) * 2)\n#if TWICE(N) == 6 && UNKNOWN == 0\nm\n#endif"),
      "m");
  EXPECT_EQ(Clean("#define D defined(N)\n#if D\nno\n#else\nyes\n#endif"), "yes");
  EXPECT_EQ(Clean("#if __has_include(\"missing-header.h\") || __has_builtin(x) || "
                  "!defined(__has_include)\nno\n#else\nyes\n#endif"),
            "yes");
}

TEST(PreprocessorTest, ElifChains) {
  EXPECT_EQ(Clean("#if 0\na\n#elif 0\nb\n#elif 1\nc\n#elif 1\nd\n#else\ne\n#endif"), "c");
  EXPECT_EQ(Clean("#if 0\na\n#elif 0\nb\n#else\ne\n#endif"), "e");
  EXPECT_EQ(Clean("#if 1\na\n#elif 1/0\nb\n#else\ne\n#endif"), "a");
  EXPECT_EQ(
      Clean("#define X\n#ifdef Y\na\n#elifdef X\nb\n#endif\n#ifndef X\nc\n#elifndef Y\nd\n#endif"),
      "b d");
  EXPECT_EQ(Clean("#if 0\n#if 1\nx\n#else\ny\n#endif\n#elif 1\nz\n#endif"), "z");
  EXPECT_EQ(Clean("#ifdef A\n#error never\n#else\n#ifndef B\nok\n#endif\n#endif"), "ok");
  EXPECT_EQ(Clean("#if 0\n#bogus directive\n#define X 1\n#endif\nX"), "X");
}

TEST(PreprocessorTest, PrepareDisabledBlocks) {
  const char* src =
      "#ifndef PREPARE_DISABLED\n"
      "// :::EXTERNAL_SHAPEFN::: { OpRef my_split(Replacement &, OpRef); }\n"
      "OpRef my_split(Replacement &rpx, OpRef x) { return x; }\n"
      "#endif\n"
      "rule";
  Pp r = RunPp(src);
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(NoSpace(r.text), "OpRefmy_split(Replacement&rpx,OpRefx){returnx;}rule");
  ASSERT_EQ(r.file.external_fn_annotations.size(), 1u);
  EXPECT_EQ(r.file.external_fn_annotations[0].first.ToString(), "t.cc:2:1");
  EXPECT_EQ(r.file.external_fn_annotations[0].second, "OpRef my_split(Replacement &, OpRef);");
  PreprocessOptions o = NoPrelude();
  o.defines = {"PREPARE_DISABLED"};
  Pp d = RunPp(src, o);
  EXPECT_EQ(d.joined, "rule");
  EXPECT_THAT(d.file.external_fn_annotations, IsEmpty());
}

TEST(PreprocessorTest, ExternalShapeFnAnnotations) {
  Pp r = RunPp(
      "#if 0\n// :::EXTERNAL_SHAPEFN::: { int skipped(); }\n#endif\n"
      "x /* :::EXTERNAL_SHAPEFN::: {int g(int);} */\n"
      "// :::EXTERNAL_SHAPEFN::: no braces\n");
  EXPECT_EQ(r.diags,
            "t.cc:5:1: warning: malformed EXTERNAL_SHAPEFN annotation: expected '{ ... }'\n");
  EXPECT_THAT(r.file.external_fn_annotations, ElementsAre(Pair(::testing::_, "int g(int);")));
  EXPECT_EQ(r.file.external_fn_annotations[0].first.ToString(), "t.cc:4:3");
}

TEST(PreprocessorTest, SkippedGroupsAreNotLexicallyChecked) {
  EXPECT_EQ(Diags("#if 0\ndon't \"worry\n#endif\nok"), "");
  EXPECT_EQ(Diags("don't"), "t.cc:1:4: error: missing terminating ' character\n");
}

TEST(PreprocessorTest, IfExpressionErrors) {
  EXPECT_EQ(Diags("#if\n#endif"), "t.cc:1:2: error: #if with no expression\n");
  EXPECT_EQ(Diags("#if 0\n#elif\n#endif"), "t.cc:2:2: error: #elif with no expression\n");
  EXPECT_EQ(Diags("#if 1/0\n#endif"), "t.cc:1:6: error: division by zero in #if\n");
  EXPECT_EQ(Diags("#if 1%0\n#endif"), "t.cc:1:6: error: division by zero in #if\n");
  EXPECT_EQ(Diags("#if (1\n#endif"), "t.cc:1:5: error: missing ')' in expression\n");
  EXPECT_EQ(Diags("#if 1 2\n#endif"),
            "t.cc:1:7: error: missing binary operator before token \"2\"\n");
  EXPECT_EQ(Diags("#if f(1)\n#endif"),
            "t.cc:1:6: error: missing binary operator before token \"(\"\n");
  EXPECT_EQ(Diags("#if 1.0\n#endif"),
            "t.cc:1:5: error: floating constant in preprocessor expression\n");
  EXPECT_EQ(Diags("#if \"s\"\n#endif"),
            "t.cc:1:5: error: token \"\"s\"\" is not valid in preprocessor expressions\n");
  EXPECT_EQ(Diags("#if 1 +\n#endif"), "t.cc:1:7: error: missing value at end of #if expression\n");
  EXPECT_EQ(Diags("#if defined\n#endif"),
            "t.cc:1:5: error: operator \"defined\" requires an identifier\n");
  EXPECT_EQ(Diags("#if defined(X\n#endif"), "t.cc:1:13: error: missing ')' after \"defined\"\n");
  EXPECT_EQ(Diags("#if 08\n#endif"), "t.cc:1:5: error: invalid digit \"8\" in octal constant\n");
  EXPECT_EQ(Diags("#if 1 ? 2\n#endif"), "t.cc:1:7: error: '?' without following ':'\n");
  EXPECT_EQ(Diags("#if 12abc\n#endif"),
            "t.cc:1:5: error: invalid suffix \"abc\" on integer constant\n");
  EXPECT_EQ(Diags("#if 99999999999999999999\n#endif"),
            "t.cc:1:5: error: integer constant is too large for its type\n");
  EXPECT_EQ(Diags("#if 0x\n#endif"), "t.cc:1:5: error: invalid integer constant \"0x\"\n");
  EXPECT_EQ(Diags("#if ''\n#endif"), "t.cc:1:5: error: empty character constant\n");
  EXPECT_EQ(Diags("#if __has_include(x y)\n#endif"),
            "t.cc:1:5: error: \"__has_include\" requires a header name\n");
  EXPECT_EQ(Diags("#if __has_include\n#endif"),
            "t.cc:1:5: error: missing '(' after \"__has_include\"\n");
  // Through a macro: at the use of the macro.
  EXPECT_EQ(Diags("#define BAD 1/0\n#if BAD\n#endif"),
            "t.cc:2:5: error: division by zero in #if\n");
  // An erroneous #if is false.
  EXPECT_EQ(RunPp("#if 1/0\nx\n#else\ny\n#endif").joined, "y");
}

TEST(PreprocessorTest, ConditionalStructureErrors) {
  EXPECT_EQ(Diags("#else\n"), "t.cc:1:2: error: #else without #if\n");
  EXPECT_EQ(Diags("#endif"), "t.cc:1:2: error: #endif without #if\n");
  EXPECT_EQ(Diags("  #  elif 1"), "t.cc:1:6: error: #elif without #if\n");
  EXPECT_EQ(Diags("#if 1\n#else\n#else\n#endif"), "t.cc:3:2: error: #else after #else\n");
  EXPECT_EQ(Diags("#if 0\n#else\n#elif 1\n#endif"), "t.cc:3:2: error: #elif after #else\n");
  EXPECT_EQ(Diags("#if 1\nx\n"), "t.cc:1:2: error: unterminated #if\n");
  EXPECT_EQ(Diags("#ifdef X\n#if 0\n"), "t.cc:1:2: error: unterminated #ifdef\n");
  EXPECT_EQ(Diags("#if 1\n#ifndef Y\n"),
            "t.cc:1:2: error: unterminated #if\nt.cc:2:2: error: unterminated #ifndef\n");
  EXPECT_EQ(Diags("#ifdef\n#endif"), "t.cc:1:2: error: no macro name given in #ifdef directive\n");
  EXPECT_EQ(Diags("#ifdef 3\n#endif"), "t.cc:1:8: error: macro names must be identifiers\n");
  EXPECT_EQ(Diags("#ifdef X Y\n#endif"),
            "t.cc:1:10: warning: extra tokens at end of #ifdef directive\n");
  EXPECT_EQ(Diags("#if 1\n#endif X"),
            "t.cc:2:8: warning: extra tokens at end of #endif directive\n");
  EXPECT_EQ(Diags("#if 0\n#else X\n#endif"),
            "t.cc:2:7: warning: extra tokens at end of #else directive\n");
  EXPECT_EQ(Diags("#undef\n#undef 1\n#undef A B"),
            "t.cc:1:2: error: no macro name given in #undef directive\n"
            "t.cc:2:8: error: macro names must be identifiers\n"
            "t.cc:3:10: warning: extra tokens at end of #undef directive\n");
}

TEST(PreprocessorTest, ErrorWarningLineAndIgnoredDirectives) {
  EXPECT_EQ(Diags("#error bad  thing \"x\"\n#warning careful"),
            "t.cc:1:2: error: #error bad thing \"x\"\nt.cc:2:2: warning: #warning careful\n");
  EXPECT_EQ(Diags("#error"), "t.cc:1:2: error: #error\n");
  EXPECT_EQ(Diags("#pragma once\n#pragma GCC diagnostic push\n#ident \"x\"\n#foo\n#\n# 7"), "");
  Pp r = RunPp("#line 100 \"foo.rules\"\nx\n__LINE__ __FILE__\n#line 7\ny");
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, "x 101 \"foo.rules\" y");
  EXPECT_EQ(Find(r.file, "x").loc.ToString(), "foo.rules:100:1");
  EXPECT_EQ(Find(r.file, "y").loc.ToString(), "foo.rules:7:1");
  EXPECT_EQ(Diags("#line x"), "t.cc:1:7: error: \"x\" after #line is not a positive integer\n");
  EXPECT_EQ(Diags("#line"), "t.cc:1:2: error: #line directive requires a line number\n");
  EXPECT_EQ(Diags("#line 5 foo"), "t.cc:1:9: error: invalid filename \"foo\" in #line directive\n");
  // Found by the fuzzer: an empty name would leave later tokens without a file.
  EXPECT_EQ(Diags("#line 5 \"\"\nx"), "t.cc:1:9: error: empty filename in #line directive\n");
  EXPECT_EQ(Diags("# 5 \"\"\nx"), "t.cc:1:5: error: empty filename in #line directive\n");
}

}  // namespace
}  // namespace egret::rules
