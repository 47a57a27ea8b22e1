// Parser tests: top-level form detection (rules, passes and their positions,
// DEF_OPTIM, line rules), error recovery, lexical forms (string, numeric and
// other constants), and robustness against deep nesting and mangled input.
// Grammar forms and op registration: parser_forms_test.cc; forms beyond the
// grammar: parser_beyond_grammar_test.cc.
#include <random>

#include "tests/rules/parser_test_util.h"

namespace egret::rules {
namespace {

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

}  // namespace
}  // namespace egret::rules
