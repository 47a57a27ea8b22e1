// `egret rules` and function plugins (--plugin): checking, listing and
// dumping rules, warnings, and rules calling functions egret does not build in.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_test_util.h"

namespace egret {
namespace {

TEST_F(CliTest, RulesCheckListAndDump) {
  // A rule file that needs -I (for its pass name) and whose second rule is
  // only there with -D EXTRA.
  fs::create_directories(Path("inc"));
  Write("inc/passes.h", "#define MY_PASS GRAPH_CLEANUP\n");
  Write("main.cc", R"(#include "passes.h"
DEF_PACKAGE_OPTIMIZATION(MY_PASS, Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")
#ifdef EXTRA
DEF_PACKAGE_OPTIMIZATION(MY_PASS + 3, Op("Relu6", "x"), OK, Op("Relu", "x"))
#endif
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<QUint8CroutonTensor>), "Relu", 2, RESOURCE_HVX)
DEF_PACKAGE_OP(reluRefImpl, "Relu")
)");
  Result r = Run({"rules", "check", "-I", Path("inc"), "-D", "EXTRA", Path("main.cc")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "2 rules, 2 op implementations, 0 errors, 0 warnings\n");
  r = Run({"rules", "check", "-I", Path("inc"), Path("main.cc")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "1 rules, 2 op implementations, 0 errors, 0 warnings\n");
  // Without -I the header is skipped with a warning and MY_PASS is unknown.
  r = Run({"rules", "check", Path("main.cc")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, absl::StrCat(Path("main.cc"),
                                ":1:10: warning: cannot find include file \"passes.h\"; skipped\n",
                                Path("main.cc"), ":2:26: error: unknown pass group 'MY_PASS'\n"));
  EXPECT_EQ(r.out, "0 rules, 2 op implementations, 1 errors, 1 warnings\n");

  // One error: a tag the match does not bind.
  Write("bad.rules", "DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"Relu\", \"x\"), OK, \"y\")\n");
  r = Run({"rules", "check", Path("bad.rules")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, absl::StrCat(Path("bad.rules"),
                                ":1:62: error: operand tag \"y\" does not appear in the match\n"));
  EXPECT_EQ(r.out, "1 rules, 0 op implementations, 1 errors, 0 warnings\n");

  r = Run({"rules", "check", Path("absent.rules")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith(absl::StrCat(Path("absent.rules"), ": error: ")));
  EXPECT_EQ(r.out, "");

  r = Run({"rules", "list", "-I", Path("inc"), "-D", "EXTRA", Path("main.cc")});
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<std::string> rows = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_THAT(rows[0], ::testing::MatchesRegex("PASS +PRIORITY +ROOT_OP +LOCATION"));
  // GRAPH_CLEANUP is 50.
  EXPECT_THAT(rows[1], ::testing::MatchesRegex(
                           absl::StrCat("GRAPH_CLEANUP +50 +Relu +", Path("main.cc"), ":2")));
  EXPECT_THAT(rows[2], ::testing::MatchesRegex(
                           absl::StrCat("GRAPH_CLEANUP\\+3 +53 +Relu6 +", Path("main.cc"), ":4")));

  r = Run({"rules", "dump", "--json", "-I", Path("inc"), "-D", "EXTRA", Path("main.cc")});
  EXPECT_EQ(r.code, 0) << r.err;
  nlohmann::json dump = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(dump.is_discarded()) << r.out;
  ASSERT_EQ(dump["rules"].size(), 2u);
  EXPECT_EQ(dump["rules"][0]["valid"], true);
  EXPECT_EQ(dump["rules"][1]["valid"], true);
  ASSERT_EQ(dump["ops"].size(), 2u);
  EXPECT_EQ(dump["ops"][0]["op"], "Relu");
  EXPECT_EQ(dump["ops"][1]["form"], "DEF_PACKAGE_OP");
}

// Function plugins (--plugin, docs/plugins.md) with examples/plugin/: its rules
// call functions egret does not build in, so without the plugin they are
// reported and skipped; with it they run and the result verifies.
const std::string kPluginRules =
    std::string(EGRET_SOURCE_DIR) + "/examples/plugin/maxpool_rules.cc";
const std::string kPluginGraph =
    std::string(EGRET_SOURCE_DIR) + "/examples/plugin/padded_pool.json";
constexpr char kMissing[] =
    "no implementation of: has_spatial_padding, pad_total_for_qnn, reshape_hw_to_4d, "
    "pad_before_for_qnn";

// Forms beyond the HTP rule grammar (a non-decimal pass offset, a C-style
// cast) are read, with a warning at the place on stderr; warnings leave the
// exit code of `rules check` and of `optimize` at 0.
TEST_F(CliTest, BeyondGrammarFormsWarnWithoutChangingExitCodes) {
  Write("cast.rules",
        "DEF_PACKAGE_OPTIMIZATION(EARLY + 0x10, Op(\"Relu\", Op(\"Relu\", \"x\")),\n"
        "  GT((int)DIM_OF(\"x\", 3), 0), Op(\"Relu\", \"x\"))\n");
  const std::string want =
      absl::StrCat(Path("cast.rules"),
                   ":1:34: warning: pass offset '0x10' is not a plain decimal constant in the HTP "
                   "rule grammar (pass_spec ::= <name> | <name> '+' <integer_const>, the constant "
                   "decimal with no sign or suffix); the HTP's parser may reject it\n",
                   Path("cast.rules"),
                   ":2:6: warning: C-style cast '(int)' is not in the HTP rule grammar (typecast "
                   "::= INT(...) | UINT(...) | FLOAT(...)); the HTP's parser may reject it\n");
  Result r = Run({"rules", "check", Path("cast.rules")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, want);
  EXPECT_EQ(r.out, "1 rules, 0 op implementations, 0 errors, 2 warnings\n");
  r = Run({"optimize", kExample, "--rules", Path("cast.rules"), "-o", Path("out.json")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, StartsWith(want));
  EXPECT_TRUE(fs::exists(Path("out.json")));
}

TEST_F(CliTest, RulesCheckWarnsAboutFunctionsWithoutImplementation) {
  Result r = Run({"rules", "check", kPluginRules});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat("2 rules, 3 op implementations, 0 errors, 6 warnings, 2 rules not "
                                "run (",
                                kMissing, ")\n"));
  std::vector<std::string> lines = absl::StrSplit(r.err, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 6u) << r.err;
  EXPECT_EQ(lines[1], absl::StrCat(kPluginRules,
                                   ":26:18: warning: external function 'pad_total_for_qnn' has no "
                                   "SHAPEFN_APPLY implementation (not built in, registered or "
                                   "loaded from a --plugin): the rule EARLY+10@",
                                   kPluginRules, ":21 is kept but not run"));
  for (const std::string& l : lines) EXPECT_THAT(l, HasSubstr(": warning: external function '"));

  for (const char* cmd : {"check", "list", "dump"}) {
    std::vector<std::string> args = {"rules", cmd, kPluginRules, "--plugin", EGRET_EXAMPLE_PLUGIN};
    if (std::string(cmd) == "dump") args.push_back("--json");
    r = Run(args);
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
    EXPECT_EQ(r.err, "") << cmd;
  }
  EXPECT_EQ(Run({"rules", "check", "--plugin", EGRET_EXAMPLE_PLUGIN, kPluginRules}).out,
            "2 rules, 3 op implementations, 0 errors, 0 warnings\n");
}

TEST_F(CliTest, OptimizeSkipsRulesWithoutImplementationAndRunsThemWithAPlugin) {
  Result r = Run({"optimize", kPluginGraph, "--rules", kPluginRules, "--verify", "--report",
                  Path("skipped.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("rules: 0 compiled, 2 skipped (", kMissing, ")\n")));
  EXPECT_THAT(r.out, HasSubstr("ops: PoolMax2d 1 -> 1\n"));
  nlohmann::json rep = ReadJson("skipped.json");
  EXPECT_EQ(rep["rules_compiled"], 0);
  ASSERT_EQ(rep["rules_skipped"].size(), 2u) << rep.dump();
  EXPECT_EQ(rep["rules_skipped"][0]["rule"], absl::StrCat("EARLY+10@", kPluginRules, ":21"));
  EXPECT_EQ(rep["rules_skipped"][0]["missing_functions"][1],
            nlohmann::json({{"function", "pad_total_for_qnn"},
                            {"form", "SHAPEFN_APPLY"},
                            {"location", absl::StrCat(kPluginRules, ":26:18")}}));

  // With the plugin both rules run, and the result computes the same.
  r = Run({"optimize", kPluginGraph, "--rules", kPluginRules, "--plugin", EGRET_EXAMPLE_PLUGIN,
           "--verify", "--report", Path("report.json"), "-o", Path("out.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("rules: 2 compiled, 0 skipped\n"));
  EXPECT_THAT(r.out, HasSubstr("verify: ok"));
  rep = ReadJson("report.json");
  EXPECT_EQ(rep["rules_skipped"], nlohmann::json::array());
  EXPECT_EQ(rep["rule_issues"], nlohmann::json::array()) << rep["rule_issues"].dump();
  std::map<std::string, int64_t> applied;
  for (const auto& phase : rep["phases"]) {
    for (const auto& rule : phase["rules"])
      applied[rule["rule"]] += rule["applications"].get<int64_t>();
  }
  EXPECT_GT((applied[absl::StrCat("EARLY+10@", kPluginRules, ":21")]), 0) << rep["phases"].dump();
  EXPECT_GT((applied[absl::StrCat("EARLY+11@", kPluginRules, ":42")]), 0) << rep["phases"].dump();

  // Priced so that the rewritten forms win, the plugin's shapes decide the
  // result, and it still verifies.
  Write("costs.json", R"({"Pad": -100, "Slice_shape": -100})");
  r = Run({"optimize", kPluginGraph, "--rules", kPluginRules, "--plugin", EGRET_EXAMPLE_PLUGIN,
           "--verify", "--costs", Path("costs.json"), "-o", Path("forced.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify: ok"));
  EXPECT_THAT(r.out, HasSubstr("Pad 0 -> 1"));
  EXPECT_THAT(r.out, HasSubstr("Slice_shape 0 -> 1"));
}

// A C++ name in a constraint (SPECIAL_CONDITION) is not a function: the
// summaries list it apart from the functions with no implementation.
TEST_F(CliTest, SummariesListCppNamesApartFromMissingFunctions) {
  Write("cpp_names.rules", R"(
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("PoolMax2d", "In", "W", "S", "P"),
  AND(SPECIAL_CONDITION, MY_FLAG), Op("PoolMax2d", "In", "W", "S", "P"))
)");
  Write("both.rules", R"(
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("PoolMax2d", "In", "W", "S", "P"),
  SPECIAL_CONDITION, Op("PoolMax2d", "In", "W", "S", "P"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("PoolMax2d", "In", "W", "S", "P"),
  AND(SPECIAL_CONDITION, EXTERNAL_CONSTRAINT(my_check, "P")),
  Op("PoolMax2d", "In", SHAPEFN_APPLY(my_window, "W"), "S", "P"))
)");
  Result r = Run({"rules", "check", Path("cpp_names.rules")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "1 rules, 0 op implementations, 0 errors, 2 warnings, 1 rule not run (C++ names: "
            "SPECIAL_CONDITION, MY_FLAG)\n");
  constexpr char kBoth[] =
      "(no implementation of: my_check, my_window; C++ names: SPECIAL_CONDITION)";
  r = Run({"rules", "check", Path("both.rules")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat("2 rules, 0 op implementations, 0 errors, 4 warnings, 2 rules not "
                                "run ",
                                kBoth, "\n"));

  r = Run({"optimize", kPluginGraph, "--rules", Path("both.rules"), "--report", Path("both.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("rules: 0 compiled, 2 skipped ", kBoth, "\n")));
  nlohmann::json rep = ReadJson("both.json");
  ASSERT_EQ(rep["rules_skipped"].size(), 2u) << rep.dump();
  EXPECT_EQ(rep["rules_skipped"][0]["missing_functions"][0]["function"], "SPECIAL_CONDITION");
  EXPECT_EQ(rep["rules_skipped"][0]["missing_functions"][0]["form"], "cpp_name");
}

TEST_F(CliTest, BadPluginsExitTwoWithOneLine) {
  Write("libnot_a_plugin.so", "just text\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Path("absent.so"), "cannot open plugin: no such file"},
      {Path("libnot_a_plugin.so"), "cannot load plugin (not a loadable shared library?)"},
      {EGRET_BAD_PLUGIN_NO_ENTRY, "not an egret plugin"},
      {EGRET_BAD_PLUGIN_VERSION, "plugin ABI version 999, but this egret loads version 1"},
      {EGRET_BAD_PLUGIN_REGISTER, "egret_plugin_register failed: this plugin refuses to register"},
      {EGRET_BAD_PLUGIN_NAME, "bad name 'bad-name'"},
  };
  for (const auto& [plugin, what] : cases) {
    for (std::vector<std::string> args :
         {std::vector<std::string>{"rules", "check", kPluginRules},
          std::vector<std::string>{"optimize", kPluginGraph, "--rules", kPluginRules, "-o",
                                   Path("out.json")},
          std::vector<std::string>{"compare", kPluginGraph, "--rules", kPluginRules}}) {
      args.push_back("--plugin");
      args.push_back(plugin);
      Result r = Run(args);
      SCOPED_TRACE(absl::StrJoin(args, " "));
      EXPECT_EQ(r.code, 2);
      EXPECT_EQ(r.err, absl::StrCat(r.FirstErrLine(), "\n"));  // one line
      EXPECT_THAT(r.FirstErrLine(), StartsWith(absl::StrCat(plugin, ": error: ")));
      EXPECT_THAT(r.FirstErrLine(), HasSubstr(what));
      EXPECT_EQ(r.out, "");
      EXPECT_FALSE(fs::exists(Path("out.json")));
    }
  }
}

}  // namespace
}  // namespace egret
