// Tests of the rule-file preprocessor's macros (object, function, variadic,
// # and ##, blue paint), locations through expansion, and every #define and
// macro-call diagnostic with its exact text and place (conditionals, includes,
// limits and the prelude in the other preprocessor*_test.cc, prelude_test.cc).
#include "egret/rules_pp/preprocessor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "egret/support/diagnostic.h"
#include "tests/rules_pp/preprocessor_test_util.h"

namespace egret::rules {
namespace {

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

}  // namespace
}  // namespace egret::rules
