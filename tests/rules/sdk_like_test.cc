// Rule files read with SDK-like headers (tests/rules/testdata/sdk_like, written
// for egret): pass positions defined as numbers in the current and the
// deprecated numbering, FROM_DEFAULT_PACKAGE as a C++ call, C++ declarations
// in headers, missing system headers, and diagnostics of rules written
// through a user macro.
#include <string>
#include <vector>

#include "egret/rules/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::rules {
namespace {

using ::testing::HasSubstr;

const std::string kDir = std::string(EGRET_SOURCE_DIR) + "/tests/rules/testdata/sdk_like";

struct Loaded {
  RuleSet set;
  DiagnosticList diags;
};

Loaded Load(const std::string& file, std::vector<std::string> include_dirs) {
  Loaded l;
  PreprocessOptions o;
  o.include_dirs = std::move(include_dirs);
  absl::StatusOr<RuleSet> set = LoadRuleFiles({kDir + "/" + file}, o, &l.diags);
  EXPECT_TRUE(set.ok()) << set.status();
  if (set.ok()) l.set = *std::move(set);
  return l;
}

std::vector<int64_t> Priorities(const RuleSet& set) {
  std::vector<int64_t> p;
  for (const Rule& r : set.rules) p.push_back(r.priority);
  return p;
}

// The warnings of pkg.cc whichever headers are in effect: the forms beyond the
// HTP rule grammar that it spells itself (docs/rule-language.md, "Beyond the
// grammar"); those inside the headers' and the prelude's macros are not
// reported.
std::vector<std::string> Warnings(const DiagnosticList& diags) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diags.all()) {
    if (d.severity == Severity::kWarning) out.push_back(d.ToString());
  }
  return out;
}
std::vector<std::string> BeyondGrammarWarnings() {
  const std::string f = kDir + "/pkg.cc:";
  const std::string cast =
      " is not in the HTP rule grammar (typecast ::= INT(...) | UINT(...) | FLOAT(...)); the "
      "HTP's parser may reject it";
  return {f + "20:45: warning: C++ cast 'size_t(...)'" + cast,
          f + "25:60: warning: C-style cast '(int)'" + cast,
          f + "28:34: warning: '*' after the pass offset is not in the HTP rule grammar "
              "(pass_spec ::= <name> | <name> '+' <integer_const>, the constant decimal with no "
              "sign or suffix); the HTP's parser may reject it",
          f + "30:42: warning: infix '*' is not in the HTP rule grammar (its arithmetic is ADD, "
              "SUB, MUL, DIV, REM, MOD); the HTP's parser may reject it"};
}

// 3050, 3051, 21060, 2056: EARLY, EARLY+1, LATE+10, QNN+2*3 in the current
// numbering.
const std::vector<int64_t> kCurrent = {3050, 3051, 21060, 2056};

TEST(SdkLikeHeadersTest, CurrentNumberingReadsWithOnlyBeyondGrammarWarnings) {
  Loaded l = Load("pkg.cc", {kDir + "/current"});
  EXPECT_EQ(Warnings(l.diags), BeyondGrammarWarnings()) << l.diags.ToString();
  EXPECT_EQ(l.diags.all().size(), BeyondGrammarWarnings().size()) << l.diags.ToString();
  ASSERT_EQ(l.set.rules.size(), 4u);
  EXPECT_EQ(Priorities(l.set), kCurrent);
  for (size_t i = 0; i < l.set.rules.size(); ++i) EXPECT_TRUE(l.set.valid[i]) << i;
  // FROM_DEFAULT_PACKAGE (a C++ call in the header) is the op name.
  EXPECT_EQ(l.set.rules[0].match.op, "Mul");
  EXPECT_EQ(l.set.rules[0].PassSpec(), "EARLY");
  EXPECT_EQ(l.set.rules[1].PassSpec(), "EARLY+1");
  // size_t(CHANNEL_SPLIT_SIZE) with the header's 128 is the size 128.
  const Expr& gt = *l.set.rules[1].constraint;
  ASSERT_EQ(gt.args.size(), 2u);
  EXPECT_EQ(gt.args[1]->kind, ExprKind::kSizeConst);
  EXPECT_EQ(gt.args[1]->int_value, 128);
  // MAKE_OP_FP16_AND_INSERT_CAST as the header writes it (no WITH_SIZE on
  // the outer cast) is accepted.
  EXPECT_EQ(l.set.rules[2].replacement->kind, ExprKind::kWithOutputType);
  // WITH_SAME_OUTPUT of a constructed constant.
  EXPECT_EQ(l.set.rules[3].replacement->args[1]->type, Type::kNode);
}

TEST(SdkLikeHeadersTest, WithoutHeadersThePreludeGivesTheSameRules) {
  Loaded l = Load("pkg.cc", {});
  // Only the quoted header is reported; <cmath> is skipped silently.
  std::vector<std::string> want = BeyondGrammarWarnings();
  want.insert(want.begin(),
              kDir + "/pkg.cc:4:10: warning: cannot find include file \"core/passes.h\"; skipped");
  EXPECT_EQ(Warnings(l.diags), want);
  EXPECT_EQ(l.diags.all().size(), want.size()) << l.diags.ToString();
  EXPECT_EQ(Priorities(l.set), kCurrent);
  EXPECT_EQ(l.set.rules[0].match.op, "Mul");
}

TEST(SdkLikeHeadersTest, DeprecatedNumberingIsMappedWithOneNote) {
  Loaded l = Load("pkg.cc", {kDir + "/old"});
  EXPECT_EQ(l.diags.error_count(), 0) << l.diags.ToString();
  EXPECT_EQ(Warnings(l.diags), BeyondGrammarWarnings());
  int notes = 0;
  for (const Diagnostic& d : l.diags.all()) {
    if (d.severity != Severity::kNote) continue;
    ++notes;
    EXPECT_THAT(d.message, HasSubstr("deprecated scheme (EARLY is 2000)"));
  }
  EXPECT_EQ(notes, 1) << l.diags.ToString();
  // EARLY 2000 -> 3050, 2001 -> 3051, LATE+10 = 4010 -> 21060, QNN+6 = 1006 -> 2056.
  EXPECT_EQ(Priorities(l.set), kCurrent);
}

TEST(SdkLikeHeadersTest, ErrorInAUserMacroIsReportedAtItsUse) {
  Loaded l = Load("bad_macro.cc", {});
  ASSERT_EQ(l.diags.error_count(), 1) << l.diags.ToString();
  const Diagnostic& d = l.diags.all()[0];
  EXPECT_EQ(d.ToString(), kDir +
                              "/bad_macro.cc:9:1: error: dtype values can only be compared with "
                              "EQ and NE, not LT\n" +
                              kDir + "/bad_macro.cc:6:7: note: expanded from macro 'FP_RULE'");
  // One prefix only.
  EXPECT_EQ(d.message.find("error:"), std::string::npos);
}

// Forms beyond the grammar are reported where this file spells them (its own
// macros, at their use, with a note), not inside an included header's macros.
TEST(SdkLikeHeadersTest, BeyondGrammarFormsInHeaderMacrosAreNotReported) {
  const std::string dir = std::string(EGRET_SOURCE_DIR) + "/tests/rules/testdata/beyond_grammar";
  DiagnosticList diags;
  absl::StatusOr<RuleSet> set = LoadRuleFiles({dir + "/rules.cc"}, {}, &diags);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->rules.size(), 2u) << diags.ToString();
  EXPECT_EQ(diags.error_count(), 0) << diags.ToString();
  const std::string f = dir + "/rules.cc:";
  EXPECT_EQ(Warnings(diags),
            (std::vector<std::string>{
                f +
                    "7:34: warning: a pass offset given by macro 'OFF' is not a plain decimal "
                    "constant in the HTP rule grammar (pass_spec ::= <name> | <name> '+' "
                    "<integer_const>, the constant decimal with no sign or suffix); the HTP's "
                    "parser may reject it\n" +
                    f + "4:13: note: expanded from macro 'OFF'",
                f +
                    "8:65: warning: C-style cast '(int)' is not in the HTP rule grammar (typecast "
                    "::= INT(...) | UINT(...) | FLOAT(...)); the HTP's parser may reject it\n" +
                    f + "5:19: note: expanded from macro 'AS_INT'",
                f +
                    "8:65: warning: parentheses around an expression are not in the HTP rule "
                    "grammar (a '(' only follows the name of a form); the HTP's parser may reject "
                    "it\n" +
                    f + "5:24: note: expanded from macro 'AS_INT'"}))
      << diags.ToString();
}

// Every helper macro of the SDK's rule header, as the prelude defines it,
// reads and type-checks.
TEST(PreludeHelpersTest, EveryHelperChecks) {
  const std::vector<std::string> bools = {"IS_SHAPE_1x1x1x1xc(\"act\")",
                                          "IS_1HD_H1D(\"act\", \"w\")",
                                          "ELEMWISE_TOOBIG(\"act\", \"w\", \"*\")",
                                          "GOOD_WEIGHTS(\"w\", \"act\", 32)",
                                          "GOOD_WEIGHTS_QUANT(\"w\", \"act\", 32)",
                                          "DWC_GOOD_WEIGHTS(\"w\", \"act\", 32)",
                                          "CAN_FINE_SPLIT",
                                          "DO_BIG_WIDTH_SPLIT",
                                          "SHOULD_AUTOTHREAD",
                                          "SHOULD_AUTOTHREAD1(\"act\")",
                                          "SHOULD_AUTOTHREAD2(\"act\", \"w\")",
                                          "SHOULD_AUTOTHREAD3(\"act\", \"w\", \"s\")",
                                          "SHOULD_AUTOTHREAD_UNARY",
                                          "SHOULD_AUTOTHREAD_UNARY1(\"act\")",
                                          "GOOD_WIDTH_DEPTHTOSPACE_CHECK(\"act\", \"*\", 128)",
                                          "WIDTH_TO_HEIGHTX_CONSTRAINT(\"act\")",
                                          "HEIGHT_TO_WIDTH_CONSTRAINT(\"act\")",
                                          "IS_NOT_SCALAR(\"act\")",
                                          "SHOULD_TILE(GT(DIM_WIDTH(\"act\"), 8))"};
  const std::vector<std::string> sizes = {
      "TCM_MAXTENSOR_HALF_SIZE",
      "BIG_WIDTH_SIZE",
      "ELEMWISE_TILE_SIZE(\"act\")",
      "WEIGHT_STORAGE(\"w\", 32)",
      "ACT_STORAGE_EST(\"w\", \"act\", 32)",
      "DWC_ACT_STORAGE_EST(\"w\", \"act\", 32)",
      "SMART_CHANNEL_SIZE(\"w\", \"act\")",
      "SMART_CHANNEL_SIZE_QUANT(\"w\", \"act\")",
      "DWC_SMART_CHANNEL_SIZE(\"w\", \"act\")",
      "MAX_CHANNEL_SIZE(\"act\")",
      "MIN_WIDTH_OF(\"act\")",
      "MIN_WIDTH",
      "ESTIMATE_TENSOR_SIZE(\"act\")",
      "ESTIMATE_SIZE(\"act\", \"w\", \"*\")",
      "ESTIMATE_SIZE_QUANT(\"act\", \"w\", \"*\")",
      "GET_IN_SIZE(8, 3, 1, 1)",
      "ESTIMATE_MIN_SIZE(\"act\", \"w\", \"s\", 1, 1)",
      "ESTIMATE_SIZE_ALIGNED_SLICE(\"act\", \"s\", \"*\")",
      "MAX_GOOD_WIDTH_CONV(\"act\", \"w\", \"*\", 1, 1, TCM_MAXTENSOR_SIZE)",
      "MAX_GOOD_WIDTH_CONV_QUANT(\"act\", \"w\", \"*\", 2, 1, TCM_MAXTENSOR_SIZE)",
      "MAX_GOOD_WIDTH(\"act\", \"w\", \"*\", TCM_MAXTENSOR_SIZE)",
      "EVEN_TILE_UNDER_CUSTOM(DIM_WIDTH(\"*\"), 64, 8)",
      "EVEN_TILE_UNDER_CUTOFF2_CUSTOM(DIM_WIDTH(\"*\"), 64, 8)",
      "SMART_EARLY_WIDTH_S2(\"act\", \"w\", \"*\", TCM_MAXTENSOR_SIZE, 16)",
      "SMART_EARLY_WIDTH_ADAPTIVE_ROUNDING_S2(\"act\", \"w\", \"*\", TCM_MAXTENSOR_SIZE)",
      "MAX_GOOD_WIDTH_CHANSHUF(\"act\", \"*\", TCM_MAXTENSOR_SIZE)",
      "MAX_GOOD_WIDTH_QUANTIZE(\"act\", \"*\", TCM_MAXTENSOR_SIZE)",
      "MAX_GOOD_WIDTH_ELEMWISE(\"act\", \"w\", \"*\", TCM_MAXTENSOR_SIZE)",
      "ESTIMATE_H1_MATMUL_SIZE(\"act\", \"w\")",
      "SMART_BATCHNORM_WIDTH(\"act\", \"w\", \"*\", 256)",
      "SMART_WIDTH_DEPTHTOSPACE(\"act\", \"*\", 128)",
      "CHUNK_NOT_USED",
      "FLAT_TENSOR_SIZE(\"act\")",
      "DATA_SIZE(\"act\")"};
  const std::vector<std::string> replacements = {"REARRANGE_FROM_W1_OP(\"act\")",
                                                 "REARRANGE_TO_W1(Op(\"X\", \"act\"))",
                                                 "REARRANGE_FROM_H1(\"act\")",
                                                 "REARRANGE_TO_H1(Op(\"X\", \"act\"))",
                                                 "Op(\"X\", HEIGHTX_SHAPE(\"act\"))",
                                                 "Op(\"X\", HEIGHT84_SHAPE(\"act\"))",
                                                 "Op(\"X\", HEIGHT_TO_WIDTH_SHAPE(\"act\"))",
                                                 "Op(\"X\", SHAPE_FROM_W1(\"act\"))",
                                                 "MAKE_OP_FP16_AND_INSERT_CAST(Op(\"X\", \"act\"))",
                                                 "CAST_TO_FP32(Op(\"X\", \"act\"))",
                                                 "CAST_TO_FP16(\"act\")",
                                                 "Op(\"X\", CONST_ZERO_OFF(\"act\"))"};
  const std::vector<std::string> matches = {
      "Op(\"Conv\", OPCONST_DDR(\"c\"))",
      "Op(\"Conv\", OPCONST_FLAT_DDR(\"c\"))",
      "Op(\"Conv\", OPCONST_TCM(\"c\"))",
      "Op(\"Conv\", OPCONST_FLAT_TCM(\"c\"))",
      "Op(\"Conv\", FP16_CONST_CAST(\"c\", \"y\"))",
      "Op(\"Conv\", FP16_CONST_CASTSLICE(\"c\", \"y\", \"z\"))"};
  std::string text;
  auto rule = [&](const std::string& match, const std::string& cst, const std::string& repl) {
    text += "DEF_PACKAGE_OPTIMIZATION(EARLY, " + match + ", " + cst + ", " + repl + ")\n";
  };
  const std::string conv = "Op(\"Conv\", \"act\", \"w\", \"s\")";
  for (const std::string& b : bools) rule(conv, b, "\"act\"");
  for (const std::string& v : sizes) rule(conv, "GE(" + v + ", 0)", "\"act\"");
  for (const std::string& r : replacements) rule(conv, "OK", r);
  for (const std::string& m : matches) rule(m, "OK", "\"c\"");
  text += "CONVERT_BINARY_OP_TO_FP16(\"Add\", \"a\", \"b\")\n";
  DiagnosticList diags;
  RuleSet set = LoadRuleText(text, "helpers.cc", {}, &diags);
  EXPECT_EQ(diags.error_count(), 0) << diags.ToString();
  // The helpers' casts and arithmetic are the prelude's, not the file's: no
  // beyond-grammar warning.
  EXPECT_EQ(diags.warning_count(), 0) << diags.ToString();
  EXPECT_EQ(set.rules.size(),
            bools.size() + sizes.size() + replacements.size() + matches.size() + 1);
  EXPECT_EQ(set.rules.back().priority, 230);  // CLEANUP_GRAPH + 130
}

}  // namespace
}  // namespace egret::rules
