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

// 3050, 3051, 21060, 2056: EARLY, EARLY+1, LATE+10, QNN+2*3 in the current
// numbering.
const std::vector<int64_t> kCurrent = {3050, 3051, 21060, 2056};

TEST(SdkLikeHeadersTest, CurrentNumberingReadsWithoutDiagnostics) {
  Loaded l = Load("pkg.cc", {kDir + "/current"});
  EXPECT_EQ(l.diags.all().size(), 0u) << l.diags.ToString();
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
  ASSERT_EQ(l.diags.all().size(), 1u) << l.diags.ToString();
  EXPECT_THAT(l.diags.all()[0].ToString(),
              HasSubstr("pkg.cc:4:10: warning: cannot find include file \"core/passes.h\""));
  EXPECT_EQ(Priorities(l.set), kCurrent);
  EXPECT_EQ(l.set.rules[0].match.op, "Mul");
}

TEST(SdkLikeHeadersTest, DeprecatedNumberingIsMappedWithOneNote) {
  Loaded l = Load("pkg.cc", {kDir + "/old"});
  EXPECT_EQ(l.diags.error_count(), 0) << l.diags.ToString();
  EXPECT_EQ(l.diags.warning_count(), 0) << l.diags.ToString();
  ASSERT_EQ(l.diags.all().size(), 1u) << l.diags.ToString();
  EXPECT_EQ(l.diags.all()[0].severity, Severity::kNote);
  EXPECT_THAT(l.diags.all()[0].message, HasSubstr("deprecated scheme (EARLY is 2000)"));
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

}  // namespace
}  // namespace egret::rules
