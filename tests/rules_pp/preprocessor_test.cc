// Tests of the rule-file preprocessor: macros (object, function, variadic,
// # and ##, blue paint), #if arithmetic, includes, locations through
// expansion, limits, and every diagnostic with its exact text and place.
#include "egret/rules_pp/preprocessor.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "egret/rules_pp/prelude.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::rules {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

const std::string kData = std::string(EGRET_SOURCE_DIR) + "/tests/rules_pp/testdata";

PreprocessOptions NoPrelude() {
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

Pp RunPp(std::string_view src, const PreprocessOptions& options = NoPrelude(),
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
std::string Clean(std::string_view src, const PreprocessOptions& options = NoPrelude()) {
  Pp r = RunPp(src, options);
  EXPECT_EQ(r.diags, "") << "for input:\n" << src;
  return r.joined;
}

std::string Diags(std::string_view src, const PreprocessOptions& options = NoPrelude()) {
  return RunPp(src, options).diags;
}

std::string NoSpace(std::string s) {
  std::erase_if(s, [](char c) { return c == ' ' || c == '\n'; });
  return s;
}

std::string ReadExpected(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const Token& Find(const PreprocessedFile& f, std::string_view text, int nth = 0) {
  for (const Token& t : f.tokens) {
    if (t.text == text && nth-- == 0) return t;
  }
  static const Token kNone;
  ADD_FAILURE() << "no token " << text;
  return kNone;
}

// ---- Macros ----

TEST(PreprocessorTest, PlainTextPassesThrough) {
  Pp r = RunPp("int x = 1;\n  y\n");
  EXPECT_EQ(r.joined, "int x = 1 ; y");
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.file.tokens.back().loc.ToString(), "t.cc:3:1");
  EXPECT_TRUE(Find(r.file, "y").at_line_start);
  EXPECT_EQ(Find(r.file, "y").loc.ToString(), "t.cc:2:3");
}

TEST(PreprocessorTest, ObjectLikeMacro) {
  EXPECT_EQ(Clean("#define A 1 + 2\nx A y\n#undef A\nA"), "x 1 + 2 y A");
  EXPECT_EQ(Clean("#define E\na E b"), "a b");
}

TEST(PreprocessorTest, FunctionLikeMacro) {
  EXPECT_EQ(Clean("#define F(a, b) (a * b)\nF(1, 2) F (x,y) F + F(,)"),
            "( 1 * 2 ) ( x * y ) F + ( * )");
  // Only parentheses protect commas.
  EXPECT_EQ(Clean("#define F(a, b) (a * b)\nF((1,2), [3])"), "( ( 1 , 2 ) * [ 3 ] )");
  EXPECT_EQ(Clean("#define Z() zero\nZ() Z( )"), "zero zero");
  EXPECT_EQ(Clean("#define ONE(a) <a>\nONE() ONE( )"), "< > < >");
  // Object-like when '(' is not right after the name.
  EXPECT_EQ(Clean("#define O (x) x\nO"), "( x ) x");
}

TEST(PreprocessorTest, ArgumentsAreExpandedBeforeSubstitution) {
  EXPECT_EQ(Clean("#define N 5\n#define ID(x) x\n#define TWICE(x) ID(x) ID(x)\nTWICE(N)"), "5 5");
}

TEST(PreprocessorTest, VariadicMacros) {
  EXPECT_EQ(Clean("#define V(f, ...) f(__VA_ARGS__)\nV(g, 1, (2, 3), 4) V(g) V(g,)"),
            "g ( 1 , ( 2 , 3 ) , 4 ) g ( ) g ( )");
  EXPECT_EQ(Clean("#define ALL(...) [__VA_ARGS__]\nALL() ALL(a,b)"), "[ ] [ a , b ]");
  EXPECT_EQ(Clean("#define N(a, rest...) h(a, rest)\nN(1,2,3)"), "h ( 1 , 2 , 3 )");
}

TEST(PreprocessorTest, GnuCommaPasteDropsCommaWithoutVariableArguments) {
  EXPECT_EQ(Clean("#define E(fmt, ...) g(fmt, ##__VA_ARGS__)\nE(1) E(1,) E(1, 2, 3)"),
            "g ( 1 ) g ( 1 ) g ( 1 , 2 , 3 )");
  EXPECT_EQ(Clean("#define E(fmt, ...) g(fmt , ## __VA_ARGS__)\nE(a)"), "g ( a )");
}

TEST(PreprocessorTest, VaOpt) {
  EXPECT_EQ(Clean("#define O(a, ...) k(a __VA_OPT__(,) __VA_ARGS__)\nO(1) O(1, 2)"),
            "k ( 1 ) k ( 1 , 2 )");
}

TEST(PreprocessorTest, Stringizing) {
  Pp r = RunPp("#define S(x) #x\nS(a  +  \"q\\n\" 'c') S() S( lead\n trail )");
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, R"("a + \"q\\n\" 'c'" "" "lead trail")");
  EXPECT_EQ(Find(r.file, "\"\"").kind, TokenKind::kString);
}

TEST(PreprocessorTest, Pasting) {
  EXPECT_EQ(Clean("#define P(a,b) a##b\nP(x,y) P(1,2) P(,y) P(x,) P(,) P(-,>) P(x y, z w)"),
            "xy 12 y x -> x yz w");
  Pp r = RunPp("#define P(a,b) a##b\n#define xy 42\nP(x,y)");
  EXPECT_EQ(r.joined, "42");
  EXPECT_EQ(Find(r.file, "42").kind, TokenKind::kNumber);
  EXPECT_EQ(Clean("#define CAT(a,b) a ## _ ## b\nCAT(IS, QUINT8)"), "IS_QUINT8");
}

TEST(PreprocessorTest, PastedOperandsAreNotExpandedFirst) {
  EXPECT_EQ(Clean("#define A 1\n#define P(a) a ## 2 a\nP(A)"), "A2 1");
}

TEST(PreprocessorTest, NestedMacrosAndBluePaint) {
  EXPECT_EQ(Clean("#define A B\n#define B C\n#define C 42\nA"), "42");
  EXPECT_EQ(Clean("#define foo foo\nfoo"), "foo");
  EXPECT_EQ(Clean("#define a b\n#define b a\na b"), "a b");
  EXPECT_EQ(Clean("#define f(x) x + f(x)\nf(1)"), "1 + f ( 1 )");
  // A painted token stays painted when passed on as an argument.
  EXPECT_EQ(Clean("#define foo foo bar\n#define id(x) x\nid(foo)"), "foo bar");
  // The result is rescanned together with the rest of the source.
  EXPECT_EQ(Clean("#define f(x) [x]\n#define g f\ng(1)"), "[ 1 ]");
}

// The example of C11 6.10.3.5 (EXAMPLE 3 and 4).
TEST(PreprocessorTest, StandardRescanExample) {
  const char* src = R"(#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
)";
  Pp r = RunPp(src);
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(NoSpace(r.text), NoSpace("f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);"
                                     "f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);"
                                     "int i[] = { 1, 23, 4, 5, };"
                                     "char c[2][6] = { \"hello\", \"\" };"));
}

TEST(PreprocessorTest, StringizeAndPasteExample) {
  // C11 6.10.3.5 EXAMPLE 4 (reduced).
  const char* src = R"(#define str(s) # s
#define xstr(s) str(s)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
xstr(INCFILE(2).h) glue(HIGH, LOW); xglue(HIGH, LOW)
)";
  Pp r = RunPp(src);
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, R"("vers2.h" "hello" ; "hello" ", world")");
}

TEST(PreprocessorTest, MultiLineInvocationKeepsLocations) {
  Pp r = RunPp("#define F(a,b) [a|b]\nF(1,\n  2)\nnext");
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, "[ 1 | 2 ] next");
  const Token& one = Find(r.file, "1");
  EXPECT_EQ(one.loc.ToString(), "t.cc:2:3");
  EXPECT_EQ(one.expanded_from, "F");
  EXPECT_EQ(one.expansion_loc.ToString(), "t.cc:2:1");
  EXPECT_EQ(Find(r.file, "2").loc.ToString(), "t.cc:3:3");
  const Token& open = Find(r.file, "[");
  EXPECT_EQ(open.loc.ToString(), "t.cc:1:16");
  EXPECT_TRUE(open.at_line_start);
  EXPECT_FALSE(Find(r.file, "|").at_line_start);
  EXPECT_TRUE(Find(r.file, "next").at_line_start);
  EXPECT_TRUE(Find(r.file, "next").expanded_from.empty());
}

TEST(PreprocessorTest, ExpansionRecordsOutermostMacro) {
  Pp r = RunPp("#define IN 7\n#define OUT (IN)\nx OUT");
  const Token& seven = Find(r.file, "7");
  EXPECT_EQ(seven.loc.ToString(), "t.cc:1:12");
  EXPECT_EQ(seven.expanded_from, "OUT");
  EXPECT_EQ(seven.expansion_loc.ToString(), "t.cc:3:3");
  EXPECT_TRUE(Find(r.file, "x").expanded_from.empty());
  EXPECT_TRUE(Find(r.file, "(").space_before);
}

TEST(PreprocessorTest, DiagnosticAtPointsIntoUserFile) {
  Pp r = RunPp("#define IN 7\n#define OUT (IN)\n#define F(a) a\nOUT\n  F(zz)\nplain");
  EXPECT_EQ(DiagnosticAt(Find(r.file, "7"), Severity::kError, "bad").ToString(),
            "t.cc:4:1: error: bad\nt.cc:1:12: note: expanded from macro 'OUT'");
  EXPECT_EQ(DiagnosticAt(Find(r.file, "zz"), Severity::kError, "bad").ToString(),
            "t.cc:5:5: error: bad\nt.cc:5:3: note: in expansion of macro 'F'");
  EXPECT_EQ(DiagnosticAt(Find(r.file, "plain"), Severity::kWarning, "w").ToString(),
            "t.cc:6:1: warning: w");
}

TEST(PreprocessorTest, RuleFormNamesAreNeverExpanded) {
  const char* src =
      "#define DEF_PACKAGE_OPTIMIZATION(...) junk\n"
      "#define DEF_PACKAGE_OP(a, b) junk\n"
      "#define DEF_TENSOR_PROPERTIES junk\n"
      "#define X 3\n"
      "DEF_PACKAGE_OPTIMIZATION(X) DEF_PACKAGE_OP(a, \"b\") DEF_TENSOR_PROPERTIES\n"
      "#ifdef DEF_PACKAGE_OP\nyes\n#endif\n";
  EXPECT_EQ(Clean(src),
            "DEF_PACKAGE_OPTIMIZATION ( 3 ) DEF_PACKAGE_OP ( a , \"b\" ) "
            "DEF_TENSOR_PROPERTIES yes");
}

TEST(PreprocessorTest, MacroProducingRuleFormKeepsLineStart) {
  Pp r = RunPp("#define RULE(p) DEF_PACKAGE_OPTIMIZATION(p, x)\nRULE(EARLY)\n  RULE(LATE)");
  EXPECT_EQ(r.diags, "");
  const Token& first = Find(r.file, "DEF_PACKAGE_OPTIMIZATION", 0);
  EXPECT_TRUE(first.at_line_start);
  EXPECT_TRUE(Find(r.file, "DEF_PACKAGE_OPTIMIZATION", 1).at_line_start);
  EXPECT_FALSE(Find(r.file, "(", 0).at_line_start);
}

TEST(PreprocessorTest, Builtins) {
  Pp r = RunPp(
      "a __LINE__\n#define L __LINE__\n\nL __FILE__ __COUNTER__ __COUNTER__\n"
      "#if __cplusplus >= 201703L && __EGRET__\nyes\n#endif");
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, "a 1 4 \"t.cc\" 0 1 yes");
}

TEST(PreprocessorTest, RedefinitionWarnsUnlessIdentical) {
  EXPECT_EQ(Diags("#define A 1\n#define A 1\n#define F(x) x+1\n#define F(x) x+1"), "");
  EXPECT_EQ(Diags("#define A 1\n#define A 2"),
            "t.cc:2:9: warning: \"A\" redefined\nt.cc:1:9: note: previous definition is here\n");
  EXPECT_EQ(Diags("#define A 1+2\n#define A 1 + 2"),
            "t.cc:2:9: warning: \"A\" redefined\nt.cc:1:9: note: previous definition is here\n");
  EXPECT_EQ(Diags("#define __cplusplus 1\n"), "");
}

// ---- #define and macro call errors ----

TEST(PreprocessorTest, DefineErrors) {
  EXPECT_EQ(Diags("#define"), "t.cc:1:2: error: no macro name given in #define directive\n");
  EXPECT_EQ(Diags("#define 3 x"), "t.cc:1:9: error: macro names must be identifiers\n");
  EXPECT_EQ(Diags("#define defined"),
            "t.cc:1:9: error: \"defined\" cannot be used as a macro name\n");
  EXPECT_EQ(Diags("#define F(a, a) a"), "t.cc:1:14: error: duplicate macro parameter \"a\"\n");
  EXPECT_EQ(Diags("#define F(a b) a"), "t.cc:1:13: error: expected ',' or ')', found \"b\"\n");
  EXPECT_EQ(Diags("#define F(a,"), "t.cc:1:9: error: missing ')' in macro parameter list\n");
  EXPECT_EQ(Diags("#define F(1) x"), "t.cc:1:11: error: expected parameter name, found \"1\"\n");
  EXPECT_EQ(Diags("#define F(... x"), "t.cc:1:11: error: missing ')' after \"...\"\n");
  EXPECT_EQ(Diags("#define F(x) #y"),
            "t.cc:1:14: error: '#' is not followed by a macro parameter\n");
  EXPECT_EQ(Diags("#define F(x) ## x"),
            "t.cc:1:14: error: '##' cannot appear at either end of a macro expansion\n");
  EXPECT_EQ(Diags("#define G x ##"),
            "t.cc:1:13: error: '##' cannot appear at either end of a macro expansion\n");
  EXPECT_EQ(Diags("#define F(__VA_ARGS__) x"),
            "t.cc:1:11: error: __VA_ARGS__ can not be used as a parameter name\n");
  EXPECT_EQ(Diags("#define G __VA_ARGS__"),
            "t.cc:1:11: warning: __VA_ARGS__ can only appear in the expansion of a variadic "
            "macro\n");
  EXPECT_EQ(Diags("#define V(...) __VA_OPT__(a"), "t.cc:1:16: error: unterminated __VA_OPT__\n");
  // Object-like macros may use '#' freely.
  EXPECT_EQ(Diags("#define H # x"), "");
  // A failed #define defines nothing.
  EXPECT_EQ(RunPp("#define F(a, a) a\nF(1)").joined, "F ( 1 )");
}

TEST(PreprocessorTest, MacroCallErrors) {
  EXPECT_EQ(Diags("#define F(a,b) a\nF(1)"),
            "t.cc:2:1: error: macro \"F\" requires 2 arguments, but only 1 given\n");
  EXPECT_EQ(Diags("#define F(a,b) a\n  F(1,2,3)"),
            "t.cc:2:3: error: macro \"F\" passed 3 arguments, but takes just 2\n");
  EXPECT_EQ(Diags("#define Z() z\nZ(1)"),
            "t.cc:2:1: error: macro \"Z\" passed 1 arguments, but takes just 0\n");
  EXPECT_EQ(Diags("#define V(a,b,...) a\nV(1)"),
            "t.cc:2:1: error: macro \"V\" requires at least 2 arguments, but only 1 given\n");
  EXPECT_EQ(Diags("#define F(a) a\nx F(1,\n2"),
            "t.cc:2:3: error: unterminated argument list invoking macro \"F\"\n");
  EXPECT_EQ(Diags("#define P(a,b) a##b\nP(+,-)"),
            "t.cc:2:1: error: pasting \"+\" and \"-\" does not give a valid preprocessing "
            "token\n");
  EXPECT_EQ(RunPp("#define P(a,b) a##b\nP(+,-)").joined, "+ -");
  // Through another macro: the error is at the use in the user's file.
  EXPECT_EQ(Diags("#define F(a,b) a\n#define G F(1)\nG"),
            "t.cc:3:1: error: macro \"F\" requires 2 arguments, but only 1 given\n"
            "t.cc:2:11: note: expanded from macro 'G'\n");
}

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

// ---- -D and the prelude ----

TEST(PreprocessorTest, CommandLineDefines) {
  PreprocessOptions o = NoPrelude();
  o.defines = {"A", "B=2", "C=x y", "F(x)=x+1", "E="};
  EXPECT_EQ(Clean("A B C F(2) [E]", o), "1 2 x y 2 + 1 [ ]");
  o.defines = {"OK=1", "3=4"};
  EXPECT_EQ(Diags("", o), "<command line>:2:9: error: macro names must be identifiers\n");
}

TEST(PreprocessorTest, PreludeIsUsedAndReplaceable) {
  PreprocessOptions o;  // prelude on
  Pp r = RunPp("CHANNEL_SPLIT_SIZE", o);
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, "256");
  EXPECT_TRUE(IsPreludeLocation(Find(r.file, "256").loc));
  EXPECT_EQ(Find(r.file, "256").expansion_loc.ToString(), "t.cc:1:1");
  // A user's definition replaces the prelude's without a warning.
  EXPECT_EQ(Clean("#define CHANNEL_SPLIT_SIZE 128\nCHANNEL_SPLIT_SIZE", o), "128");
  EXPECT_EQ(Clean("CHANNEL_SPLIT_SIZE"), "CHANNEL_SPLIT_SIZE");
  o.defines = {"CHANNEL_SPLIT_SIZE=64"};
  EXPECT_EQ(Clean("CHANNEL_SPLIT_SIZE", o), "64");
}

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

namespace egret::rules {
namespace {

// ---- The prelude ----

TEST(PreludeTest, DefinesEveryHelperQuietly) {
  PreprocessOptions o;
  std::string src;
  for (const char* name : {"IS_QUANT_TYPE",
                           "IS_QUANT_SIGNED",
                           "IS_SIGNED_SYMM",
                           "IS_QINT8_SYMM",
                           "IS_QINT16_SYMM",
                           "IS_QINT32_SYMM",
                           "SAME_QUANT",
                           "SAME_DTYPE_QUANT",
                           "MIN_QU8",
                           "MAX_QU8",
                           "OPCONST",
                           "FROM_DEFAULT_PACKAGE",
                           "IS_SCALAR",
                           "IS_NOT_SCALAR",
                           "IS_SHAPE_1x1x1xd",
                           "FLAT_TENSOR_SIZE",
                           "SUBS",
                           "CHANNEL_SPLIT_SIZE",
                           "MIN_CHANNEL_SPLIT_SIZE",
                           "MAX_DIMENSIONS",
                           "TILE_HEIGHT",
                           "TCM_MAXTENSOR_SIZE",
                           "AUTOTHREAD_ENABLED",
                           "CAST_TO_DTYPE",
                           "CAST_TO_FP16",
                           "CAST_TO_FP32",
                           "MAKE_OP_FP16_AND_INSERT_CAST",
                           "IS_BINARY_FP16",
                           "IS_BINARY_FP32",
                           "CONST_ZERO_OFF",
                           "TYPICAL_CONV_SLICE",
                           "SHOULD_TILE"}) {
    src += std::string("#ifndef ") + name + "\nmissing_" + name + "\n#endif\n";
  }
  // Grammar names are not prelude macros: the parser knows them.
  for (const char* name : {"GLACIAL", "FAST", "EARLY", "LATE", "IS_QUINT8", "DIM_BATCHES",
                           "SAME_SHAPE", "RESOURCE_HVX"}) {
    src += std::string("#ifdef ") + name + "\ndefined_" + name + "\n#endif\n";
  }
  Pp r = RunPp(src, o);
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, "");
}

TEST(PreludeTest, Expansions) {
  PreprocessOptions o;
  auto expand = [&](std::string_view src) { return RunPp(src, o).joined; };
  EXPECT_EQ(expand("IS_QUANT_SIGNED(\"x\")"),
            "OR ( IS_QINT8 ( \"x\" ) , IS_QINT16 ( \"x\" ) , IS_QINT32 ( \"x\" ) )");
  EXPECT_EQ(expand("IS_QINT8_SYMM(\"x\")"),
            "AND ( IS_QINT8 ( \"x\" ) , EQ ( ZERO_OFFSET_OF ( \"x\" ) , 0 ) )");
  EXPECT_EQ(expand("MAX_QU8(\"in\")"),
            "MUL ( STEPSIZE_OF ( \"in\" ) , FLOAT ( SUB ( 255 , ZERO_OFFSET_OF ( \"in\" ) ) ) )");
  EXPECT_EQ(expand("SUBS(DIM_DEPTH(\"a\"), 32)"),
            "SELECT ( GT ( DIM_DEPTH ( \"a\" ) , 32 ) , SUB ( DIM_DEPTH ( \"a\" ) , 32 ) , 0 )");
  EXPECT_EQ(expand("OPCONST(\"w\")"), "LET ( \"w\" , Op ( \"$Const\" ) )");
  // FROM_DEFAULT_PACKAGE is never expanded: the parser reads it.
  EXPECT_EQ(expand("Op(FROM_DEFAULT_PACKAGE(\"Relu\"), \"x\")"),
            "Op ( FROM_DEFAULT_PACKAGE ( \"Relu\" ) , \"x\" )");
  EXPECT_EQ(expand("TILE_HEIGHT AUTOTHREAD_ENABLED"),
            "OPTION_UINT ( \"tile_height\" ) OPTION_INT ( \"enable_autothread\" )");
  EXPECT_EQ(expand("CAST_TO_FP16(\"x\")"),
            "WITH_SIZE ( \"x\" , WITH_OUTPUT_TYPE ( DType :: Float16 , 0 , 1.0f , "
            "Op ( FROM_DEFAULT_PACKAGE ( \"QNN_Cast\" ) , \"x\" ) ) )");
  EXPECT_EQ(expand("MAKE_OP_FP16_AND_INSERT_CAST(Op(\"Add\", \"a\", \"b\"))"),
            "WITH_OUTPUT_TYPE ( DType :: Float32 , 0 , 1.0f , Op ( FROM_DEFAULT_PACKAGE ( "
            "\"QNN_Cast\" ) , WITH_SIZE ( "
            "\"*\" , WITH_OUTPUT_TYPE ( DType :: Float16 , 0 , 1.0f , Op ( \"Add\" , \"a\" , "
            "\"b\" ) ) ) ) )");
  EXPECT_EQ(expand("CONST_ZERO_OFF(\"x\")"), "gen_ConstScalar_i32 ( ZERO_OFFSET_OF ( \"x\" ) )");
  EXPECT_EQ(expand("TYPICAL_CONV_SLICE(\"in\", \"I\", 2, 3)"),
            "AUTOSPLIT_SLICE ( \"in\" , AUTOSPLIT_SHAPEFN_APPLY ( conv_valid_split_start , \"I\" , "
            "\"in\" , 2 , 3 , 1 ) , AUTOSPLIT_SHAPEFN_APPLY ( conv_valid_split_size , \"I\" , "
            "\"in\" , 2 , 3 , 1 ) )");
  EXPECT_EQ(expand("TYPICAL_CONV_SLICE(\"in\", \"I\", 1, 3, 2)"),
            "AUTOSPLIT_SLICE ( \"in\" , AUTOSPLIT_SHAPEFN_APPLY ( conv_valid_split_start , \"I\" , "
            "\"in\" , 1 , 3 , 2 ) , AUTOSPLIT_SHAPEFN_APPLY ( conv_valid_split_size , \"I\" , "
            "\"in\" , 1 , 3 , 2 ) )");
  EXPECT_EQ(expand("SHOULD_TILE()"), "OR ( OPTION_BOOL ( \"central_tiler\" ) )");
  EXPECT_EQ(expand("SHOULD_TILE(IS_FLOAT(\"x\"), GT(DIM_DEPTH(\"x\"), 64))"),
            "OR ( OPTION_BOOL ( \"central_tiler\" ) , AND ( IS_FLOAT ( \"x\" ) , GT ( DIM_DEPTH ( "
            "\"x\" ) , 64 ) ) )");
}

TEST(PreludeTest, PreludeTextHasOnlyDirectivesAndComments) {
  DiagnosticList diags;
  PreprocessOptions o = NoPrelude();
  absl::StatusOr<PreprocessedFile> f =
      PreprocessText(PreludeText(), std::string(kPreludeFileName), o, &diags);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(diags.ToString(), "");
  EXPECT_EQ(f->tokens.size(), 1u);
}

}  // namespace
}  // namespace egret::rules
