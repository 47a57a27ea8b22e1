// Parser tests of the forms beyond the HTP rule grammar: accepted, with a
// warning at the place (docs/rule-language.md, "Beyond the grammar"):
// casts, infix arithmetic, number forms beyond C, names with $, and pass
// offsets.
#include "tests/rules/parser_test_util.h"

namespace egret::rules {
namespace {

// The diagnostics of parsing `text`, one string each.
std::vector<std::string> DiagStrings(const Parsed& p) {
  std::vector<std::string> out;
  for (const Diagnostic& d : p.diags.all()) out.push_back(d.ToString());
  return out;
}

constexpr char kTypecast[] =
    "is not in the HTP rule grammar (typecast ::= INT(...) | UINT(...) | FLOAT(...)); the HTP's "
    "parser may reject it";

TEST(ParserBeyondGrammarTest, CStyleCastInAConstraintWarnsAtTheCast) {
  Parsed p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"),\n"
      "  GT((int)DIM_OF(\"x\", 3), 16), \"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_EQ(ToString(*p.file.rules[0].constraint), "GT(INT(DIM_OF(\"x\",3)),16)");
  EXPECT_THAT(DiagStrings(p),
              ElementsAre(std::string("t.rules:2:6: warning: C-style cast '(int)' ") + kTypecast));
  // The type may have several words.
  p = Parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"), EQ((unsigned int)3, 3u), \"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_THAT(DiagStrings(p), ElementsAre(std::string("t.rules:1:49: warning: C-style cast "
                                                      "'(unsigned int)' ") +
                                          kTypecast));
}

TEST(ParserBeyondGrammarTest, FunctionalAndStaticCastsWarn) {
  Parsed p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"),\n"
      "  AND(GT(DIM_OF(\"x\", 3), size_t(256)), EQ(static_cast<int32_t>(7.9), 7)), \"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_THAT(DiagStrings(p),
              ElementsAre(std::string("t.rules:2:26: warning: C++ cast 'size_t(...)' ") + kTypecast,
                          "t.rules:2:43: warning: static_cast " + std::string(kTypecast)));
}

TEST(ParserBeyondGrammarTest, InfixArithmeticAndParenthesesWarn) {
  Parsed p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"),\n"
      "  EQ(DIM_OF(\"x\", 3), (2 * 1024)), \"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_EQ(ToString(*p.file.rules[0].constraint), "EQ(DIM_OF(\"x\",3),2048)");
  EXPECT_THAT(
      DiagStrings(p),
      ElementsAre("t.rules:2:22: warning: parentheses around an expression are not in the HTP "
                  "rule grammar (a '(' only follows the name of a form); the HTP's parser may "
                  "reject it",
                  "t.rules:2:25: warning: infix '*' is not in the HTP rule grammar (its arithmetic "
                  "is ADD, SUB, MUL, DIV, REM, MOD); the HTP's parser may reject it"));
}

TEST(ParserBeyondGrammarTest, NumberFormsBeyondCWarn) {
  DiagnosticList d;
  EXPECT_EQ(Constraint("EQ(0b101, 5)", &d), "EQ(5,5)");
  EXPECT_THAT(d.ToString(), HasSubstr("t.rules:1:57: warning: binary constant '0b101' is not in "
                                      "the HTP rule grammar"));
  EXPECT_EQ(Constraint("EQ(1'000, 1000)", &d), "EQ(1000,1000)");
  EXPECT_THAT(d.ToString(),
              HasSubstr("t.rules:1:57: warning: digit separator in '1'000' is not in the HTP"));
  EXPECT_EQ(Constraint("GT(FLOAT(1), 0.5l)", &d), "GT(FLOAT(1),0.5)");
  EXPECT_THAT(d.ToString(), HasSubstr("t.rules:1:67: warning: suffix 'l' of '0.5l' is not in the "
                                      "HTP rule grammar (float_const: as in C, with an optional "
                                      "'f' suffix)"));
  // The grammar's forms: no warning.
  EXPECT_EQ(Constraint("AND(EQ(0x1f, 31), EQ(-1230u, 1), GT(-1.331e-2f, 0.5), EQ(10L, 10))", &d),
            "AND(EQ(31,31),EQ(-1230u,1),GT(-0.01331,0.5),EQ(10,10))");
  EXPECT_EQ(d.warning_count(), 0) << d.ToString();
}

TEST(ParserBeyondGrammarTest, NamesWithDollarWarn) {
  Parsed p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"),\n"
      "  AND(EXTERNAL_CONSTRAINT(my$check, \"x\"), EXTERNAL_CONSTRAINT(ok_check, \"x\")), "
      "\"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 1u) << p.diags.ToString();
  EXPECT_THAT(DiagStrings(p),
              ElementsAre("t.rules:2:27: warning: name 'my$check' is not in the HTP rule grammar "
                          "(<name> ::= [A-Za-z_][A-Za-z_0-9]*); the HTP's parser may reject it"));
}

TEST(ParserBeyondGrammarTest, PassOffsetsBeyondTheGrammarWarn) {
  constexpr char kRule[] =
      " (pass_spec ::= <name> | <name> '+' <integer_const>, the constant decimal with no sign or "
      "suffix); the HTP's parser may reject it";
  struct Case {
    const char* pass;
    int64_t priority;
    const char* warning;  // "" for none
  };
  const Case cases[] = {
      {"EARLY", 3050, ""},
      {"LATE+10", 21060, ""},
      {"TILING + 0", 11000, ""},
      {"EARLY + 0x10", 3066,
       "t.rules:1:34: warning: pass offset '0x10' is not a plain decimal constant in the HTP rule "
       "grammar"},
      {"LATE + 5u", 21055,
       "t.rules:1:33: warning: pass offset '5u' is not a plain decimal constant in the HTP rule "
       "grammar"},
      {"EARLY + 010", 3058,
       "t.rules:1:34: warning: pass offset '010' is not a plain decimal constant in the HTP rule "
       "grammar"},
      {"EARLY - 1", 3049,
       "t.rules:1:32: warning: '-' after the pass-group name is not in the HTP rule grammar"},
      {"QNN + 2 * 3", 2056,
       "t.rules:1:34: warning: '*' after the pass offset is not in the HTP rule grammar"},
      {"EARLY + (int)4", 3054,
       "t.rules:1:34: warning: a pass offset starting with '(' is not a plain decimal constant in "
       "the HTP rule grammar"},
      {"3050", 3050,
       "t.rules:1:26: warning: a pass position that starts with '3050' is not in the HTP rule "
       "grammar"},
  };
  for (const Case& c : cases) {
    Parsed p = Parse(std::string("DEF_PACKAGE_OPTIMIZATION(") + c.pass +
                     ", Op(\"A\",\"x\"), OK, \"x\")\n");
    ASSERT_EQ(p.file.rules.size(), 1u) << c.pass << ": " << p.diags.ToString();
    EXPECT_EQ(p.file.rules[0].priority, c.priority) << c.pass;
    if (*c.warning == '\0') {
      EXPECT_EQ(p.diags.all().size(), 0u) << c.pass << ": " << p.diags.ToString();
    } else {
      EXPECT_THAT(DiagStrings(p), ElementsAre(std::string(c.warning) + kRule)) << c.pass;
    }
  }
}

}  // namespace
}  // namespace egret::rules
