// Parser tests: top-level form detection, lexical forms, every grammar form's
// tree, macro expansions, op registration and error recovery. The parser is
// driven from Lex() directly so that these tests do not depend on the
// preprocessor's macro handling.
#include "egret/rules/parser.h"

#include <random>
#include <string>
#include <vector>

#include "egret/rules_pp/lexer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::rules {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Parsed {
  ParsedFile file;
  DiagnosticList diags;
};

Parsed Parse(std::string_view text) {
  Parsed p;
  std::vector<Token> toks = Lex(text, "t.rules", &p.diags);
  p.file = ParseRuleTokens(toks, &p.diags);
  return p;
}

// Parses one rule whose constraint is `cst` and returns the constraint text.
std::string Constraint(const std::string& cst, DiagnosticList* diags = nullptr) {
  Parsed p =
      Parse("DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"A\",\"x\"), " + cst + ", \"x\")\n");
  if (diags != nullptr) *diags = p.diags;
  if (p.file.rules.size() != 1) return "<no rule: " + p.diags.ToString() + ">";
  return ToString(*p.file.rules[0].constraint);
}

std::string Replacement(const std::string& repl) {
  Parsed p = Parse("DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"A\",\"x\"), OK, " + repl + ")\n");
  if (p.file.rules.size() != 1) return "<no rule: " + p.diags.ToString() + ">";
  return ToString(*p.file.rules[0].replacement);
}

std::string FirstError(const std::string& text) {
  Parsed p = Parse(text);
  for (const Diagnostic& d : p.diags.all()) {
    if (d.severity == Severity::kError) return FormatDiagnostic(d.loc, d.severity, d.message);
  }
  return "";
}

TEST(ParserTest, ParsesARuleWithPassMatchConstraintReplacement) {
  Parsed p = Parse(
      "// a comment\n"
      "DEF_PACKAGE_OPTIMIZATION(TILING+10,\n"
      "  Op(\"Relu\", LET(\"conv\", Op(\"Conv2d\", \"in\", \"w\")), ),\n"
      "  GT(DIM_OF(\"in\", 3), 16),\n"
      "  Op(\"ConvRelu\", \"in\", \"w\"))\n");
  // The stray ',' makes an empty operand: a syntax error, the rule is dropped.
  EXPECT_TRUE(p.diags.has_errors());
  EXPECT_TRUE(p.file.rules.empty());

  p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(TILING+10,\n"
      "  Op(\"Relu\", LET(\"conv\", Op(\"Conv2d\", \"in\", \"w\"))),\n"
      "  GT(DIM_OF(\"in\", 3), 16),\n"
      "  Op(\"ConvRelu\", \"in\", \"w\"))\n");
  ASSERT_FALSE(p.diags.has_errors()) << p.diags.ToString();
  ASSERT_EQ(p.file.rules.size(), 1u);
  const Rule& r = p.file.rules[0];
  EXPECT_EQ(r.pass_name, "TILING");
  EXPECT_TRUE(r.has_offset);
  EXPECT_EQ(r.pass_offset, 10);
  EXPECT_EQ(r.priority, 11010);
  EXPECT_EQ(r.PassSpec(), "TILING+10");
  EXPECT_EQ(r.loc().line, 1);
  EXPECT_EQ(r.loc().col, 1);
  EXPECT_EQ(r.form, "DEF_PACKAGE_OPTIMIZATION");
  EXPECT_EQ(ToString(r.match), "Op(\"Relu\",LET(\"conv\",Op(\"Conv2d\",\"in\",\"w\")))");
  EXPECT_EQ(r.match.kind, MatchKind::kOp);
  ASSERT_EQ(r.match.operands.size(), 1u);
  EXPECT_EQ(r.match.operands[0].kind, MatchKind::kLet);
  EXPECT_EQ(r.match.operands[0].tag, "conv");
  EXPECT_EQ(r.match.operands[0].loc().line, 2);
  EXPECT_EQ(r.match.operands[0].loc().col, 14);
  EXPECT_EQ(ToString(*r.constraint), "GT(DIM_OF(\"in\",3),16)");
  EXPECT_EQ(r.constraint->loc().line, 3);
  EXPECT_EQ(r.constraint->args[0]->args[0]->loc().col, 13);
  EXPECT_EQ(ToString(*r.replacement), "Op(\"ConvRelu\",\"in\",\"w\")");
}

TEST(ParserTest, PassGroupsAndFlags) {
  Parsed p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(AUX_CLEANUP, Op(\"A\"), OK, \"*\")\n"
      "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY+0, relaxed_precision_flag | cse_after_if,\n"
      "  OpVarIn(\"A\"), OK, Op(\"B\"))\n"
      "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(LATE, 0, Op(\"A\"), OK, Op(\"B\"))\n");
  ASSERT_EQ(p.file.rules.size(), 3u) << p.diags.ToString();
  EXPECT_EQ(p.file.rules[0].priority, 25000);
  EXPECT_EQ(p.file.rules[1].priority, 3050);
  EXPECT_EQ(p.file.rules[1].PassSpec(), "EARLY+0");
  EXPECT_EQ(p.file.rules[1].flags,
            (std::vector<std::string>{"relaxed_precision_flag", "cse_after_if"}));
  EXPECT_EQ(p.file.rules[1].flag_bits, kRelaxedPrecision | kCseAfterIf);
  EXPECT_EQ(p.file.rules[1].match.kind, MatchKind::kOpVarIn);
  EXPECT_EQ(p.file.rules[2].priority, 21050);
  EXPECT_TRUE(p.file.rules[2].flags.empty());
  EXPECT_FALSE(p.diags.has_errors());
}

TEST(ParserTest, PassSpecErrors) {
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(NOT_A_PASS, Op(\"A\"), OK, Op(\"B\"))\n"),
            "t.rules:1:26: error: unknown pass group 'NOT_A_PASS'");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY+1.5, Op(\"A\"), OK, Op(\"B\"))\n"),
            "t.rules:1:32: error: the pass position must be an integer, not '1.5'");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY/0, Op(\"A\"), OK, Op(\"B\"))\n"),
            "t.rules:1:31: error: division by zero in the pass position");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY+, Op(\"A\"), OK, Op(\"B\"))\n"),
            "t.rules:1:32: error: expected a number or a pass-group name");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(BEGIN-1, Op(\"A\"), OK, Op(\"B\"))\n"),
            "t.rules:1:26: error: the pass position may not be negative (-1)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY 1, Op(\"A\"), OK, Op(\"B\"))\n"),
            "t.rules:1:32: error: unexpected '1' in the pass position");
}

// With the SDK headers the pass names arrive as numbers: any integer constant
// expression is a pass position, spelled as the group it falls into.
TEST(ParserTest, PassPositionsAreIntegerConstantExpressions) {
  struct Case {
    const char* spec;
    int64_t priority;
    const char* shown;
  };
  const Case cases[] = {
      {"3050", 3050, "EARLY"},
      {"3050 + 1", 3051, "EARLY+1"},
      {"EARLY + 010", 3058, "EARLY+8"},
      {"EARLY+5u", 3055, "EARLY+5"},
      {"EARLY - 5", 3045, "ANALYSIS+45"},
      {"(int)11000 + 2ULL", 11002, "TILING+2"},
      {"size_t(TILING) + static_cast<int32_t>(4)", 11004, "TILING+4"},
      {"2 * (1000 + 500) - 0x10", 2984, "QNN+934"},
      {"CLEANUP_GRAPH+130", 230, "CLEANUP_GRAPH+130"},
      {"21100", 21100, "LAYOUT_AND_PLACEMENT"},
  };
  for (const Case& c : cases) {
    Parsed p = Parse(std::string("DEF_PACKAGE_OPTIMIZATION(") + c.spec +
                     ", Op(\"A\", \"x\"), OK, \"x\")\n");
    ASSERT_EQ(p.file.rules.size(), 1u) << c.spec << ": " << p.diags.ToString();
    EXPECT_EQ(p.file.rules[0].priority, c.priority) << c.spec;
    EXPECT_EQ(p.file.rules[0].PassSpec(), c.shown) << c.spec;
  }
}

// Casts, literal suffixes and constant arithmetic in operands evaluate as C++
// computes them.
TEST(ParserTest, CastsAndConstantArithmeticInOperands) {
  EXPECT_EQ(Constraint("GT(DIM_DEPTH(\"x\"), size_t(256))"),
            Constraint("GT(DIM_DEPTH(\"x\"), 256u)"));
  EXPECT_EQ(Constraint("EQ((int)3, 3)"), Constraint("EQ(3, 3)"));
  EXPECT_EQ(Constraint("EQ(uint32_t(2), 2ULL)"), Constraint("EQ(2u, 2u)"));
  EXPECT_EQ(Constraint("EQ(static_cast<int32_t>(7.9), 7)"), Constraint("EQ(7, 7)"));
  EXPECT_EQ(Constraint("EQ((uint8_t)300, 44u)"), Constraint("EQ(44u, 44u)"));
  EXPECT_EQ(Constraint("EQ((int8_t)200, -56)"), Constraint("EQ(-56, -56)"));
  EXPECT_EQ(Constraint("GT(STEPSIZE_OF(\"x\"), (float)1)"),
            Constraint("GT(STEPSIZE_OF(\"x\"), 1.0)"));
  EXPECT_EQ(Constraint("EQ(MUL(2, 3), 2 * 1024 + 1)"), Constraint("EQ(MUL(2, 3), 2049)"));
  EXPECT_EQ(Constraint("EQ(7, (14 / 2))"), Constraint("EQ(7, 7)"));
  EXPECT_EQ(Constraint("LT(1.5f * 2, 4.0)"), Constraint("LT(3.0, 4.0)"));
  // Casts of values become UINT / INT / FLOAT.
  EXPECT_EQ(Constraint("GT(int(DIM_DEPTH(\"x\")), 1)"), Constraint("GT(INT(DIM_DEPTH(\"x\")), 1)"));
  EXPECT_EQ(Constraint("GT(double(DIM_DEPTH(\"x\")), 1.0)"),
            Constraint("GT(FLOAT(DIM_DEPTH(\"x\")), 1.0)"));
  DiagnosticList d;
  Constraint("GT(DIM_DEPTH(\"x\") * 2, 1)", &d);
  EXPECT_THAT(d.ToString(), HasSubstr("'*' may only join numeric constants"));
}

// FROM_DEFAULT_PACKAGE("X") is the op name "X" wherever an op name is read.
TEST(ParserTest, FromDefaultPackageIsTheOpName) {
  Parsed p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(FROM_DEFAULT_PACKAGE(\"Mul\"), \"x\", "
      "LET(\"c\", Op(FROM_DEFAULT_PACKAGE(\"Cast\"), \"y\"))), OK, "
      "Op(FROM_DEFAULT_PACKAGE(\"Relu\"), \"x\"))\n"
      "DEF_PACKAGE_OP((impl<A>), FROM_DEFAULT_PACKAGE(\"MyOp\"))\n");
  ASSERT_EQ(p.file.rules.size(), 1u) << p.diags.ToString();
  EXPECT_EQ(p.file.rules[0].match.op, "Mul");
  EXPECT_EQ(p.file.rules[0].match.operands[1].operands[0].op, "Cast");
  EXPECT_EQ(p.file.rules[0].replacement->name, "Relu");
  ASSERT_EQ(p.file.ops.size(), 1u);
  EXPECT_EQ(p.file.ops[0].op_name, "MyOp");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, "
                       "Op(FROM_DEFAULT_PACKAGE(x), \"x\"))\n"),
            "t.rules:1:75: error: FROM_DEFAULT_PACKAGE expects an op name (a string constant)");
}

// DEF_OPTIM / DEF_OPT, the SDK's internal spellings, are rules too.
TEST(ParserTest, DefOptimAndDefOpt) {
  Parsed p = Parse(
      "DEF_OPTIM(LATE + 2, relaxed_precision_flag, Op(\"A\", \"x\"), OK, \"x\")\n"
      "DEF_OPT(TILING, Op(\"B\", \"x\"), OK, \"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 2u) << p.diags.ToString();
  EXPECT_EQ(p.file.rules[0].priority, 21052);
  EXPECT_EQ(p.file.rules[0].flag_bits, kRelaxedPrecision);
  EXPECT_EQ(p.file.rules[1].priority, 11000);
}

TEST(ParserTest, TopLevelLineRules) {
  // Mid-line mentions are ordinary C++: skipped (a warning when it looks like a rule).
  Parsed p = Parse(
      "int DEF_PACKAGE_OPTIMIZATION = 3;\n"
      "x = 1; DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\"))\n"
      "DEF_PACKAGE_OPTIMIZATION\n"
      "  (EARLY, Op(\"A\"), OK, Op(\"B\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\")) (1)\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\"))\n"
      "  , 2\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\")) ; // fine\n");
  std::vector<std::string> got;
  for (const Diagnostic& d : p.diags.all()) {
    got.push_back(FormatDiagnostic(d.loc, d.severity, d.message));
  }
  EXPECT_THAT(got,
              ElementsAre("t.rules:2:8: warning: DEF_PACKAGE_OPTIMIZATION is not at the start of a "
                          "line and is ignored (a rule must start its line)",
                          "t.rules:4:3: error: the '(' of DEF_PACKAGE_OPTIMIZATION must be on the "
                          "same line as the name",
                          "t.rules:5:55: error: '(' may not follow the closing ')' of "
                          "DEF_PACKAGE_OPTIMIZATION",
                          "t.rules:7:3: error: ',' may not follow the closing ')' of "
                          "DEF_PACKAGE_OPTIMIZATION"));
  // The rules themselves still parse (the errors are about their surroundings).
  EXPECT_EQ(p.file.rules.size(), 4u);
}

TEST(ParserTest, UnterminatedRuleRecoversAtNextRule) {
  Parsed p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\")\n"
      "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"A\"), OK, Op(\"C\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"A\"), OK, Op(\"D\"\n");
  std::vector<std::string> got;
  for (const Diagnostic& d : p.diags.all()) {
    got.push_back(FormatDiagnostic(d.loc, d.severity, d.message));
  }
  EXPECT_THAT(
      got, ElementsAre("t.rules:1:1: error: missing ')' at the end of DEF_PACKAGE_OPTIMIZATION",
                       "t.rules:3:1: error: missing ')' at the end of DEF_PACKAGE_OPTIMIZATION"));
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_EQ(p.file.rules[0].pass_name, "LATE");
}

TEST(ParserTest, ReportsSeveralErrorsPerRun) {
  Parsed p = Parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), FOO(1), Op(\"B\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\", DIM_OF(\"x\")))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), AND(OK, pkg::bogus), Op(\"B\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\"))\n");
  std::vector<std::string> got;
  for (const Diagnostic& d : p.diags.all()) {
    got.push_back(FormatDiagnostic(d.loc, d.severity, d.message));
  }
  EXPECT_THAT(
      got,
      ElementsAre("t.rules:1:42: error: unknown function 'FOO'",
                  "t.rules:2:54: error: DIM_OF expects 2 operands, got 1",
                  "t.rules:3:50: error: unknown name 'pkg::bogus' (only DType::<tag> is allowed)"));
  EXPECT_EQ(p.file.rules.size(), 1u);
}

TEST(ParserTest, StringConstants) {
  EXPECT_EQ(Replacement("Op(\"Conv\" \"2d\", \"x\")"), "Op(\"Conv2d\",\"x\")");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"a b\"))\n"),
            "t.rules:1:49: error: string constant \"a b\" may not contain spaces, escapes or "
            "unprintable characters");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"a\\n\"))\n"),
            "t.rules:1:49: error: string constant \"a\\n\" may not contain spaces, escapes or "
            "unprintable characters");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"\"), OK, Op(\"B\"))\n"),
            "t.rules:1:36: error: empty string constant");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(L\"B\"))\n"),
            "t.rules:1:49: error: string constant L\"B\" is not allowed here: string prefixes "
            "and raw strings cannot be used in rules");
}

TEST(ParserTest, NumericAndOtherConstants) {
  DiagnosticList d;
  EXPECT_EQ(Constraint("EQ(1230u, 17)"), "EQ(1230u,17)");
  EXPECT_EQ(Constraint("EQ(-5, +7L)"), "EQ(-5,7)");
  EXPECT_EQ(Constraint("EQ(0x1f, 0)"), "EQ(31,0)");
  EXPECT_EQ(Constraint("EQ(7ul, 07)", &d), "EQ(7u,7)");
  EXPECT_FALSE(d.has_errors());
  EXPECT_EQ(d.warning_count(), 0);
  EXPECT_EQ(Constraint("EQ(010, 1)", &d), "EQ(8,1)");
  ASSERT_EQ(d.all().size(), 1u);
  EXPECT_EQ(d.all()[0].ToString(), "t.rules:1:57: warning: octal constant '010' has the value 8");
  Constraint("EQ(08, 1)", &d);
  EXPECT_EQ(d.all()[0].ToString(), "t.rules:1:57: error: invalid digit '8' in octal constant '08'");
  Constraint("EQ(99999999999999999999, 1)", &d);
  EXPECT_THAT(d.all()[0].message, HasSubstr("too large"));
  Constraint("EQ(1uu, 1)", &d);
  EXPECT_EQ(d.all()[0].message, "invalid integer constant '1uu'");
  EXPECT_EQ(Constraint("LT(-1.331e-2, 1.5f)"), "LT(-0.01331,1.5)");
  EXPECT_EQ(Constraint("LT(NEG_INF, INF)"), "LT(NEG_INF,INF)");
  EXPECT_EQ(Constraint("AND(OK, true, false)"), "AND(true,true,false)");
  EXPECT_EQ(Constraint("EQ(DTYPE_OF(\"x\"), DType::QUInt8)"), "EQ(DTYPE_OF(\"x\"),DType::QUInt8)");
  Constraint("EQ(DTYPE_OF(\"x\"), DType::Bogus)", &d);
  EXPECT_EQ(d.all()[0].ToString(), "t.rules:1:79: error: 'Bogus' is not a tag of the DType enum");
  Constraint("EQ(DTYPE_OF(\"x\"), Foo::Bar)", &d);
  EXPECT_EQ(d.all()[0].message, "unknown name 'Foo::Bar' (only DType::<tag> is allowed)");
  EXPECT_EQ(Constraint("LE(DIM_OF(\"x\",3), LAYOUT_CHUNKSIZE(QUint8CroutonTensor, 3))"),
            "LE(DIM_OF(\"x\",3),LAYOUT_CHUNKSIZE(QUint8CroutonTensor,3))");
  // Typed values.
  Parsed p = Parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"), EQ(12u, -3), \"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_EQ(p.file.rules[0].constraint->args[0]->kind, ExprKind::kSizeConst);
  EXPECT_EQ(p.file.rules[0].constraint->args[0]->int_value, 12);
  EXPECT_EQ(p.file.rules[0].constraint->args[1]->kind, ExprKind::kIntConst);
  EXPECT_EQ(p.file.rules[0].constraint->args[1]->int_value, -3);
  EXPECT_EQ(p.file.rules[0].constraint->args[1]->loc().col, 54);
}

TEST(ParserTest, EveryConstraintForm) {
  const char* forms[] = {
      "OPTION_BOOL(\"o\")",
      "EQ(OPTION_INT(\"o\"),OPTION_UINT(\"p\"))",
      "LT(OPTION_FLOAT(\"o\"),1.0)",
      "NOT(EQ(UINT(1),INT(FLOAT(2))))",
      "EQ(DTYPE(4),DType::Float32)",
      "LT(NEG(1),ABS(-2))",
      "IS_POW2(8)",
      "SELECT(true,true,false)",
      "EQ(ROUNDUP(5,4),CEILDIV(9,LCM(2,3)))",
      "EQ(BIT_AND(1,BIT_OR(2,3)),0)",
      "XOR(OR(true,false),AND(true))",
      "EQ(ADD(1,2,3),MUL(MIN(1,2),MAX(3,4,5)))",
      "EQ(SUB(1,DIV(4,2)),REM(MOD(7,3),2))",
      "AND(NE(1,2),LT(1,2),GT(1,2),LE(1,2),GE(1,2))",
      "EQ(RANK_OF(INPUT_OF(\"x\",0)),DIM_OF(OUTPUT_OF(\"*\",0),1))",
      "LT(STEPSIZE_OF(\"x\"),ZERO_OFFSET_OF(\"x\"))",
      "EQ(ELEMENTSIZE_OF(\"x\"),ADD(INPUTS_OF(\"x\"),OUTPUTS_OF(\"x\")))",
      "AND(SAME_ENCODING(\"x\",\"*\"),SAME_OP(\"x\",\"x\"),IS_OP(\"x\",\"Relu\"))",
      "AND(IS_EMPTY(\"x\"),IS_EMPTY_DIM(\"x\",2),PRODUCER_FOR(\"x\",\"Conv\"))",
      "EQ(CONSTVAL_INT(\"x\",0),CONSTVAL_INT(\"x\",0,1))",
      // One literal in two pieces (parenthesized: not a missing comma).
      ("AND(CONSTVAL_INT_VALID(\"x\",0),CONSTVAL_INT_VALID(\"x\",1,2),CONSTVAL_FLOAT_VALID(\"x\",0)"
       ")"),
      "LT(CONSTVAL_FLOAT(\"x\",0),INF)",
      "EXTERNAL_CONSTRAINT(my_check,\"x\",RANK_OF(\"x\"),1.5)",
      "EQ(SELECT(true,\"x\",\"*\"),\"x\")",
  };
  for (const char* f : forms) {
    EXPECT_EQ(Constraint(f), f);
  }
}

TEST(ParserTest, ConstraintMacrosExpand) {
  EXPECT_EQ(Constraint("IS_QUINT8(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QUInt8)");
  EXPECT_EQ(Constraint("IS_QINT8(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QInt8)");
  EXPECT_EQ(Constraint("IS_QUINT16(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QUInt16)");
  EXPECT_EQ(Constraint("IS_QINT16(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QInt16)");
  EXPECT_EQ(Constraint("IS_QINT32(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QInt32)");
  EXPECT_EQ(Constraint("IS_INT32(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Int32)");
  EXPECT_EQ(Constraint("IS_INT64(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Int64)");
  EXPECT_EQ(Constraint("IS_FLOAT16(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Float16)");
  EXPECT_EQ(Constraint("IS_FLOAT32(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Float32)");
  EXPECT_EQ(Constraint("IS_FLOAT(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Float32)");
  EXPECT_EQ(Constraint("IS_FLOAT16_BOTH(\"x\",\"*\")"),
            "AND(EQ(DTYPE_OF(\"x\"),DType::Float16),EQ(DTYPE_OF(\"*\"),DType::Float16))");
  const char* dims[][2] = {{"DIM_BATCHES", "0"},   {"DIM_HEIGHT", "1"},     {"DIM_WIDTH", "2"},
                           {"DIM_DEPTH", "3"},     {"DIM_FILTHEIGHT", "0"}, {"DIM_FILTWIDTH", "1"},
                           {"DIM_FILTDEPTH", "2"}, {"DIM_NFILTS", "3"},     {"DIM_CHANNEL", "4"}};
  for (const auto& [name, d] : dims) {
    EXPECT_EQ(Constraint(std::string("GT(") + name + "(\"x\"),1)"),
              std::string("GT(DIM_OF(\"x\",") + d + "),1)");
  }
  EXPECT_EQ(Constraint("SAME_SHAPE(\"x\",\"*\")"),
            "AND(EQ(DIM_OF(\"x\",3),DIM_OF(\"*\",3)),EQ(DIM_OF(\"x\",2),DIM_OF(\"*\",2)),"
            "EQ(DIM_OF(\"x\",1),DIM_OF(\"*\",1)),EQ(DIM_OF(\"x\",0),DIM_OF(\"*\",0)))");
  Parsed p = Parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"), IS_QUINT8(\"x\"), \"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_EQ(p.file.rules[0].constraint->macro, "IS_QUINT8");
  EXPECT_EQ(p.file.rules[0].constraint->loc().col, 46);
  EXPECT_EQ(p.file.rules[0].constraint->args[0]->args[0]->loc().col, 56);
}

TEST(ParserTest, EveryReplacementForm) {
  const char* forms[] = {
      "\"x\"",
      "INPUT_OF(\"x\",1)",
      "Op(\"B\",\"x\",Op(\"C\"))",
      "WrapOp(\"Cast\",\"x\")",
      "WrapOpAlways(\"Cast\",Op(\"B\",\"x\"))",
      "Op(\"B\",gen_Shape(1,2,3,DIM_OF(\"x\",3)),gen_ShapeOf(\"x\"))",
      "Op(\"B\",gen_ConstScalar_f32(1.5),gen_ConstScalar_i32(3))",
      "Op(\"B\",gen_ConstArr_f32(0.5,4),gen_ConstArr_i32(7,4),gen_ConstArr_vals_i32(1,2,3))",
      "AUTOSPLIT(1,\"I\",32,Op(\"B\",AUTOSPLIT_SHAPEFN_APPLY(simple_split_start,\"I\",\"x\")))",
      "OP_ITER(Op(\"Concat\"),\"J\",0,4,Op(\"B\",ITER_INPUT_OF(\"x\",\"J\"),SPLIT_START(\"J\")))",
      "SELECT(GT(SPLIT_SIZE(\"I\"),SPLIT_DIM(\"I\")),\"x\",Op(\"B\"))",
      "WITH_SIZE(gen_Shape(1,1,1,4),Op(\"B\"))",
      "WITH_TYPE(\"x\",WITH_SAME_OUTPUT(\"x\",Op(\"B\")))",
      "WITH_OUTPUT_TYPE(DType::QUInt8,0,1.0,Op(\"B\"))",
      "WITH_MULTI_OUT(2,Op(\"B\"))",
      "ResizeDim(3,64,Op(\"B\"))",
      "WITH_SAME_ID(\"x\",WITH_SPLIT_HISTORY(\"x\",WITH_SPLIT_HISTORY(\"x\",1,Op(\"B\"))))",
      "EXTERNAL_REPLACE(my_replace)",
      "SHAPEFN_APPLY(my_shape,\"x\",3,1.5)",
  };
  for (const char* f : forms) {
    EXPECT_EQ(Replacement(f), f);
  }
  EXPECT_EQ(Replacement("Operand(\"x\")"), "\"x\"");
  EXPECT_EQ(Replacement("SPLIT_START(\"I\")"), "SPLIT_START(\"I\")");
  EXPECT_EQ(Replacement("Op(\"B\", ITER_VAR(\"I\"))"), "Op(\"B\",SPLIT_START(\"I\"))");
}

TEST(ParserTest, ReplacementMacrosExpand) {
  EXPECT_EQ(Replacement("AUTOSPLIT_SLICE(\"x\", gen_Shape(0,0,0,0), gen_ShapeOf(\"x\"))"),
            "WITH_SIZE(gen_ShapeOf(\"x\"),WITH_TYPE(\"x\",Op(\"Slice_shape\",\"x\","
            "gen_Shape(0,0,0,0),gen_ShapeOf(\"x\"))))");
  EXPECT_EQ(Replacement("TYPICAL_SLICE(\"x\", \"I\")"),
            "WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(simple_split_size,\"I\",\"x\"),WITH_TYPE(\"x\","
            "Op(\"Slice_shape\",\"x\",AUTOSPLIT_SHAPEFN_APPLY(simple_split_start,\"I\",\"x\"),"
            "AUTOSPLIT_SHAPEFN_APPLY(simple_split_size,\"I\",\"x\"))))");
  EXPECT_EQ(Replacement("CHANGEDIM_SLICE(\"x\", \"I\", 2)"),
            "WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size,\"I\",\"x\",2),WITH_TYPE("
            "\"x\",Op(\"Slice_shape\",\"x\",AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_start,\"I\","
            "\"x\",2),AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size,\"I\",\"x\",2))))");
  EXPECT_EQ(Replacement("OpMultiOut(2, 1, \"Split\", \"x\", \"*\")"),
            "Op(\"$Out\",WITH_MULTI_OUT(2,Op(\"Split\",\"x\",\"*\")),gen_Shape(0,0,2,1))");
  Parsed p =
      Parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"), OK, TYPICAL_SLICE(\"x\",\"I\"))\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_EQ(p.file.rules[0].replacement->macro, "TYPICAL_SLICE");
}

TEST(ParserTest, FormErrors) {
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK)\n"),
            "t.rules:1:1: error: DEF_PACKAGE_OPTIMIZATION expects 4 arguments (pass, match, "
            "constraint, replacement), got 3");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, \"x\", OK, Op(\"B\"))\n"),
            "t.rules:1:33: error: the root of a match must be Op(...) or OpVarIn(...), not an "
            "operand tag");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, LET(\"a\", Op(\"A\")), OK, Op(\"B\"))\n"),
            "t.rules:1:33: error: LET cannot be the root of a match");
  EXPECT_EQ(
      FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", LET(\"a\", \"b\")), OK, Op(\"B\"))\n"),
      "t.rules:1:50: error: the second operand of LET must be Op(...) or OpVarIn(...)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", 3), OK, Op(\"B\"))\n"),
            "t.rules:1:41: error: expected an operand tag, Op, OpVarIn or LET in a match, found "
            "'3'");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(A), OK, Op(\"B\"))\n"),
            "t.rules:1:36: error: the first operand of Op must be an op name (a string constant)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\" \"x\"(\n"),
            "t.rules:1:1: error: missing ')' at the end of DEF_PACKAGE_OPTIMIZATION");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\" 3))\n"),
            "t.rules:1:53: error: expected ',' or ')' in the operands of Op, found '3'");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, OpVarIn(\"B\"))\n"),
            "t.rules:1:46: error: OpVarIn may only be used in a match");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), NOT, Op(\"B\"))\n"),
            "t.rules:1:42: error: 'NOT' needs operands in parentheses");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, AUTOSPLIT(1, I, 2, "
                       "\"x\"))\n"),
            "t.rules:1:59: error: expected a split tag (a string constant), found 'I'");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, SHAPEFN_APPLY(\"f\"))\n"),
            "t.rules:1:60: error: expected a name (a C identifier), found '\"f\"'");
  EXPECT_EQ(
      FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, WITH_SPLIT_HISTORY(\"x\"))\n"),
      "t.rules:1:46: error: WITH_SPLIT_HISTORY expects 2 or 3 operands, got 1");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), AND(), Op(\"B\"))\n"),
            "t.rules:1:42: error: AND expects at least 1 operand, got 0");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\") Op(\"C\"))\n"),
            "t.rules:1:54: error: unexpected 'Op' after a replacement expression");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, - )\n"),
            "t.rules:1:46: error: expected an expression, found '-'");
}

TEST(ParserTest, OpRegistrations) {
  Parsed p = Parse(
      "DEF_PACKAGE_OP((reluImpl<PlainFloatTensor, Tensor>), \"Relu\")\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<QUint8CroutonTensor>), \"Relu\", SNAIL/128,\n"
      "    Flags::RESOURCE_HVX, Flags::IS_CONST, MY_FLAG)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(convImpl, \"Conv\" \"2d\", COST_OF(conv_cost, FAST*2))\n"
      "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(addImpl<float>, \"Add\", add_cost_fn, RESOURCE_HMX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(x, \"Free\", FREE, 0)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(x, \"Num\", 1.5e3 + DISABLE - GLACIAL, IS_DMA | "
      "NULL_EXEC)\n");
  ASSERT_FALSE(p.diags.has_errors()) << p.diags.ToString();
  ASSERT_EQ(p.file.ops.size(), 6u);
  const OpImplementation& a = p.file.ops[0];
  EXPECT_EQ(a.op_name, "Relu");
  EXPECT_EQ(a.impl, "(reluImpl<PlainFloatTensor, Tensor>)");
  EXPECT_EQ(a.cost.ToString(), "GLACIAL");  // cost/cost_expr_test.cc evaluates the costs
  EXPECT_EQ(a.flag_bits, kResourceHvx);
  EXPECT_EQ(a.form, "DEF_PACKAGE_OP");
  const OpImplementation& b = p.file.ops[1];
  EXPECT_EQ(b.cost.ToString(), "SNAIL/128");
  EXPECT_EQ(b.flags, (std::vector<std::string>{"RESOURCE_HVX", "IS_CONST", "MY_FLAG"}));
  EXPECT_EQ(b.flag_bits, kResourceHvx | kIsConst);
  EXPECT_EQ(b.loc.line, 2);
  const OpImplementation& c = p.file.ops[2];
  EXPECT_EQ(c.op_name, "Conv2d");
  EXPECT_EQ(c.cost.kind, CostExpr::Kind::kCostOf);
  EXPECT_EQ(c.cost.ToString(), "COST_OF(conv_cost,FAST*2)");
  EXPECT_TRUE(c.flags.empty());
  const OpImplementation& d = p.file.ops[3];
  EXPECT_EQ(d.cost.kind, CostExpr::Kind::kFunction);
  EXPECT_EQ(d.cost.name, "add_cost_fn");
  EXPECT_EQ(d.flag_bits, kResourceHmx);
  EXPECT_EQ(p.file.ops[4].cost.ToString(), "FREE");
  EXPECT_TRUE(p.file.ops[4].flags.empty());
  EXPECT_EQ(p.file.ops[5].cost.ToString(), "(1500+DISABLE)-GLACIAL");
  EXPECT_EQ(p.file.ops[5].flag_bits, kIsDma | kNullExec);

  EXPECT_EQ(FirstError("DEF_PACKAGE_OP_AND_COST_AND_FLAGS(x, \"A\", SLOW)\n"),
            "t.rules:1:43: error: unknown cost 'SLOW' (expected GLACIAL, SNAIL, FAST, FREE, "
            "DISABLE, a number, COST_OF or COST_OF_F)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OP(x, Relu)\n"),
            "t.rules:1:19: error: expected a string constant (op name)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OP(x, \"Relu\", 3)\n"),
            "t.rules:1:1: error: DEF_PACKAGE_OP expects 2 arguments (implementation, op name), "
            "got 3");
}

TEST(ParserTest, RecordsTensorPropertiesAndParamOrder) {
  Parsed p = Parse(
      "DEF_TENSOR_PROPERTIES(Op(\"Conv\", \"in\", \"w\"), Flat(\"*\"), MainMemory(\"w\"))\n"
      "DEF_PACKAGE_PARAM_ORDER(\"Conv\", \"in\", true, nullptr, \"w\", false, nullptr)\n");
  ASSERT_FALSE(p.diags.has_errors()) << p.diags.ToString();
  ASSERT_EQ(p.file.tensor_properties.size(), 1u);
  EXPECT_EQ(p.file.tensor_properties[0].args,
            (std::vector<std::string>{"Op(\"Conv\", \"in\", \"w\")", "Flat(\"*\")",
                                      "MainMemory(\"w\")"}));
  ASSERT_EQ(p.file.param_orders.size(), 1u);
  EXPECT_EQ(p.file.param_orders[0].op_name, "Conv");
  EXPECT_EQ(p.file.param_orders[0].args.size(), 6u);
  EXPECT_EQ(p.file.param_orders[0].loc.line, 2);
}

TEST(ParserTest, SkipsOrdinaryCpp) {
  Parsed p = Parse(
      "#include <vector>\n"
      "template <typename T> int f(T x) { return g(x, (1, 2)); }\n"
      "static const char* s = \"DEF_PACKAGE_OPTIMIZATION(\";\n"
      "void h() { foo(DEF_PACKAGE_OP); }\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\"))\n"
      "int main() { return 0; }\n");
  EXPECT_FALSE(p.diags.has_errors()) << p.diags.ToString();
  EXPECT_EQ(p.diags.warning_count(), 0);
  EXPECT_EQ(p.file.rules.size(), 1u);
  EXPECT_TRUE(p.file.ops.empty());
}

TEST(ParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), ";
  for (int i = 0; i < 20000; ++i) deep += "NOT(";
  deep += "OK";
  for (int i = 0; i < 20000; ++i) deep += ")";
  deep += ", Op(\"B\"))\n";
  Parsed p = Parse(deep);
  ASSERT_TRUE(p.diags.has_errors());
  EXPECT_EQ(p.diags.all()[0].message, "expression nested too deeply");
}

// Every prefix and many random mutations of a realistic text parse without
// crashing or hanging (a miniature of the fuzz target).
TEST(ParserTest, NeverCrashesOnMangledInput) {
  const std::string text =
      "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(TILING+5, cse_after_if,\n"
      "  Op(\"Relu\", LET(\"c\", OpVarIn(\"Conv\", \"in\", \"w\"))),\n"
      "  AND(IS_QUINT8(\"in\"), GT(DIM_OF(\"in\", 3), 16u), LT(STEPSIZE_OF(\"w\"), -1.5e-3f)),\n"
      "  AUTOSPLIT(1, \"I\", 8, TYPICAL_SLICE(\"c\", \"I\")))\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((f<A,B>), \"Relu\", SNAIL/128, Flags::IS_CONST)\n";
  DiagnosticList d0;
  const std::vector<Token> toks = Lex(text, "t.rules", &d0);
  for (size_t n = 0; n + 1 < toks.size(); ++n) {
    std::vector<Token> prefix(toks.begin(), toks.begin() + n);
    prefix.push_back(toks.back());
    DiagnosticList d;
    ParseRuleTokens(prefix, &d);
  }
  std::mt19937 rng(12345);
  for (int round = 0; round < 2000; ++round) {
    std::vector<Token> t = toks;
    t.pop_back();
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      size_t a = rng() % t.size();
      size_t b = rng() % t.size();
      switch (rng() % 3) {
        case 0:
          t.erase(t.begin() + a);
          break;
        case 1:
          t.insert(t.begin() + a, t[b]);
          break;
        default:
          std::swap(t[a], t[b]);
          break;
      }
    }
    t.push_back(toks.back());
    DiagnosticList d;
    ParseRuleTokens(t, &d);
  }
  DiagnosticList d;
  ParseRuleTokens({}, &d);  // no kEnd at all
  SUCCEED();
}

// ---- Forms beyond the HTP rule grammar: accepted, with a warning at the place
// (docs/rule-language.md, "Beyond the grammar").

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
