// Tests of the preprocessing-token lexer: kinds, exact locations, line
// starts, continuations, literals and their errors.
#include <string>
#include <vector>

#include "egret/rules_pp/lexer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::rules {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "kind:text@line:col" for every token but kEnd; '^' marks at_line_start and
// '_' space_before.
std::vector<std::string> Describe(const std::vector<Token>& toks) {
  std::vector<std::string> out;
  for (const Token& t : toks) {
    if (t.kind == TokenKind::kEnd) break;
    const char* k = t.kind == TokenKind::kIdentifier ? "id"
                    : t.kind == TokenKind::kNumber   ? "num"
                    : t.kind == TokenKind::kString   ? "str"
                    : t.kind == TokenKind::kChar     ? "chr"
                                                     : "p";
    std::string s = std::string(t.at_line_start ? "^" : "") + (t.space_before ? "_" : "") + k +
                    ":" + t.text + "@" + std::to_string(t.loc.line) + ":" +
                    std::to_string(t.loc.col);
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> LexOk(std::string_view text) {
  DiagnosticList diags;
  std::vector<Token> toks = Lex(text, "f.cc", &diags);
  EXPECT_EQ(diags.ToString(), "");
  EXPECT_FALSE(toks.empty());
  EXPECT_EQ(toks.back().kind, TokenKind::kEnd);
  return Describe(toks);
}

TEST(LexerTest, KindsAndLocations) {
  EXPECT_THAT(
      LexOk("DEF_PACKAGE_OPTIMIZATION(EARLY+1,\n  Op(\"Relu\", \"X\"))"),
      ElementsAre("^id:DEF_PACKAGE_OPTIMIZATION@1:1", "p:(@1:25", "id:EARLY@1:26", "p:+@1:31",
                  "num:1@1:32", "p:,@1:33", "^id:Op@2:3", "p:(@2:5", "str:\"Relu\"@2:6", "p:,@2:12",
                  "_str:\"X\"@2:14", "p:)@2:17", "p:)@2:18"));
}

TEST(LexerTest, EndTokenIsAfterLastCharacter) {
  DiagnosticList diags;
  std::vector<Token> toks = Lex("a\nbc\n", "f.cc", &diags);
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[2].kind, TokenKind::kEnd);
  EXPECT_EQ(toks[2].loc.ToString(), "f.cc:3:1");
  toks = Lex("", "f.cc", &diags);
  ASSERT_EQ(toks.size(), 1u);
  EXPECT_EQ(toks[0].loc.ToString(), "f.cc:1:1");
}

TEST(LexerTest, PunctuatorsLongestMatch) {
  EXPECT_THAT(LexOk("a::b->c ## d ... <<= >>= <=> ->* .* %:%: <::x"),
              ElementsAre("^id:a@1:1", "p:::@1:2", "id:b@1:4", "p:->@1:5", "id:c@1:7", "_p:##@1:9",
                          "_id:d@1:12", "_p:...@1:14", "_p:<<=@1:18", "_p:>>=@1:22", "_p:<=>@1:26",
                          "_p:->*@1:30", "_p:.*@1:34", "_p:%:%:@1:37", "_p:<@1:42", "p:::@1:43",
                          "id:x@1:45"));
}

TEST(LexerTest, PpNumbers) {
  EXPECT_THAT(LexOk("1230u -1.331e-2 0x1Fp+3 .5f 1'000 010 12ULL 1e+x"),
              ElementsAre("^num:1230u@1:1", "_p:-@1:7", "num:1.331e-2@1:8", "_num:0x1Fp+3@1:17",
                          "_num:.5f@1:25", "_num:1'000@1:29", "_num:010@1:35", "_num:12ULL@1:39",
                          "_num:1e+x@1:45"));
}

TEST(LexerTest, StringAndCharLiterals) {
  EXPECT_THAT(LexOk(R"TXT(u8"a" L'x' "q\"\\" 'a\'' U"z"_sfx R"d(a)" b)d" uR"(x)")TXT"),
              ElementsAre("^str:u8\"a\"@1:1", "_chr:L'x'@1:7", "_str:\"q\\\"\\\\\"@1:12",
                          "_chr:'a\\''@1:20", "_str:U\"z\"_sfx@1:26", "_str:R\"d(a)\" b)d\"@1:35",
                          "_str:uR\"(x)\"@1:48"));
}

TEST(LexerTest, RawStringKeepsSplices) {
  DiagnosticList diags;
  std::vector<Token> toks = Lex("R\"(a\\\nb)\" x", "f.cc", &diags);
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[0].text, "R\"(a\\\nb)\"");
  EXPECT_EQ(toks[1].loc.ToString(), "f.cc:2:5");
}

TEST(LexerTest, CommentsAndContinuations) {
  EXPECT_THAT(LexOk("a /* x\n y */ b // c \\\n d\ne\\\nf g\n  \\\n h"),
              ElementsAre("^id:a@1:1", "_id:b@2:7", "^id:ef@4:1", "_id:g@5:3", "^id:h@7:2"));
}

TEST(LexerTest, CommentStartingLineKeepsLineStart) {
  // A block comment spanning lines does not end the logical line; one that
  // starts a line leaves the next token first on it.
  EXPECT_THAT(LexOk("/* c */ # define X\n/* a\n */ Y"),
              ElementsAre("^p:#@1:9", "_id:define@1:11", "_id:X@1:18", "^id:Y@3:5"));
}

TEST(LexerTest, CrLfLineEnds) {
  EXPECT_THAT(LexOk("a\r\nb \\\r\n c\r\n"), ElementsAre("^id:a@1:1", "^id:b@2:1", "_id:c@3:2"));
}

TEST(LexerTest, HeaderNamesOnlyAfterInclude) {
  EXPECT_THAT(LexOk("#include <a/b.h>\nx <y> z\n# include_next <c>"),
              ElementsAre("^p:#@1:1", "id:include@1:2", "_str:<a/b.h>@1:10", "^id:x@2:1",
                          "_p:<@2:3", "id:y@2:4", "p:>@2:5", "_id:z@2:7", "^p:#@3:1",
                          "_id:include_next@3:3", "_str:<c>@3:16"));
}

TEST(LexerTest, StrayCharactersAreOneBytePunct) {
  EXPECT_THAT(LexOk("a @ `"), ElementsAre("^id:a@1:1", "_p:@@1:3", "_p:`@1:5"));
}

TEST(LexerTest, UnterminatedLiteralsAndComments) {
  DiagnosticList diags;
  std::vector<Token> toks = Lex("x \"abc\ny 'q\nz /* never", "f.cc", &diags);
  EXPECT_EQ(diags.ToString(),
            "f.cc:3:3: error: unterminated comment\n"
            "f.cc:1:3: error: missing terminating \" character\n"
            "f.cc:2:3: error: missing terminating ' character\n");
  EXPECT_THAT(Describe(toks),
              ElementsAre("^id:x@1:1", "_str:\"abc@1:3", "^id:y@2:1", "_chr:'q@2:3", "^id:z@3:1"));
}

TEST(LexerTest, UnterminatedRawString) {
  DiagnosticList diags;
  Lex("R\"x(abc)y\"\nR\"(((", "f.cc", &diags);
  EXPECT_EQ(diags.ToString(), "f.cc:1:1: error: unterminated raw string\n");
  DiagnosticList d2;
  Lex("R\"a b(x)a b\"", "f.cc", &d2);
  EXPECT_EQ(d2.ToString(), "f.cc:1:1: error: invalid raw string delimiter\n");
}

TEST(LexerTest, BackslashSpaceNewlineWarns) {
  DiagnosticList diags;
  std::vector<Token> toks = Lex("a \\  \nb", "f.cc", &diags);
  EXPECT_EQ(diags.ToString(), "f.cc:1:3: warning: backslash and newline separated by space\n");
  EXPECT_THAT(Describe(toks), ElementsAre("^id:a@1:1", "_id:b@2:1"));
}

TEST(LexerTest, DetailedKeepsCommentsAndDefersTokenProblems) {
  DiagnosticList diags;
  LexedText lx = LexDetailed("a // one\n'b\n/* two */ c", "f.cc", &diags);
  EXPECT_EQ(diags.ToString(), "");
  ASSERT_EQ(lx.comments.size(), 2u);
  EXPECT_EQ(lx.comments[0].text, "// one");
  EXPECT_EQ(lx.comments[0].loc.ToString(), "f.cc:1:3");
  EXPECT_EQ(lx.comments[0].next_token, 1u);
  EXPECT_EQ(lx.comments[1].text, "/* two */");
  EXPECT_EQ(lx.comments[1].next_token, 2u);
  ASSERT_EQ(lx.token_problems.size(), 1u);
  EXPECT_EQ(lx.token_problems[0].first, 1u);
  EXPECT_EQ(lx.token_problems[0].second.message, "missing terminating ' character");
}

TEST(LexerTest, SinglePpToken) {
  TokenKind kind;
  EXPECT_TRUE(IsSinglePpToken("ab", &kind));
  EXPECT_EQ(kind, TokenKind::kIdentifier);
  EXPECT_TRUE(IsSinglePpToken("->", &kind));
  EXPECT_EQ(kind, TokenKind::kPunct);
  EXPECT_TRUE(IsSinglePpToken("1e", &kind));
  EXPECT_EQ(kind, TokenKind::kNumber);
  EXPECT_FALSE(IsSinglePpToken("a+", &kind));
  EXPECT_FALSE(IsSinglePpToken("//", &kind));
  EXPECT_FALSE(IsSinglePpToken("", &kind));
  EXPECT_FALSE(IsSinglePpToken("a b", &kind));
  EXPECT_FALSE(IsSinglePpToken("\"x", &kind));
}

TEST(LexerTest, EmptyAndWhitespaceOnly) {
  EXPECT_THAT(LexOk(""), IsEmpty());
  EXPECT_THAT(LexOk(" \n\t\n"), IsEmpty());
}

}  // namespace
}  // namespace egret::rules
