// `egret compare`: every strategy on every graph, the result graphs, and
// failed or incomplete verification.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "egret/support/file_io.h"
#include "tests/cli/cli_test_util.h"

namespace egret {
namespace {

// Every strategy on the example, twice over: one CSV row per graph and
// strategy, every result verifies, and the SVG plot and Markdown are written.
TEST_F(CliTest, CompareRunsEveryStrategyOnEveryGraph) {
  Result r = Run({"compare", kExample, kExample, "--rules", kExampleRules, "--csv", Path("c.csv"),
                  "--markdown", Path("c.md"), "--plot", Path("c.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> lines =
      absl::StrSplit(*ReadFile(Path("c.csv")), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u + 2 * 5);
  EXPECT_EQ(lines[0],
            "graph,strategy,hvx_cost,nodes,ops_added,ops_removed,time_ms,peak_rss_bytes,"
            "egraph_nodes,verify");
  const std::vector<std::string> strategies = {"greedy", "cse", "eqsat-tree", "eqsat-dag",
                                               "eqsat-ilp"};
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cells = absl::StrSplit(lines[i], ',');
    ASSERT_EQ(cells.size(), 10u) << lines[i];
    EXPECT_EQ(cells[0], kExample);
    EXPECT_EQ(cells[1], strategies[(i - 1) % 5]);
    EXPECT_EQ(cells[9], "ok");
    EXPECT_EQ(cells[8].empty(), (i - 1) % 5 < 2) << lines[i];  // e-graph size for eqsat only
  }
  EXPECT_THAT(r.out, HasSubstr("geomean cost vs greedy: eqsat-dag"));
  EXPECT_THAT(*ReadFile(Path("c.svg")), HasSubstr("</svg>"));
  EXPECT_THAT(*ReadFile(Path("c.md")), HasSubstr("| greedy |"));

  r = Run({"compare", kExample, "--rules", kExampleRules, "--strategies", "cse,greedy"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LT(r.out.find(" cse "), r.out.find(" greedy "));
}

// --graphs-dir writes every strategy's result graph, which is a valid graph
// with the cost compare printed; a folder that does not exist is bad input.
TEST_F(CliTest, CompareWritesTheResultGraphs) {
  std::filesystem::create_directories(Path("graphs"));
  Result r = Run({"compare", kExample, "--rules", kExampleRules, "--strategies", "greedy,eqsat-dag",
                  "--graphs-dir", Path("graphs"), "--csv", Path("c.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"greedy", "eqsat-dag"}) {
    const std::string out = Path(absl::StrCat("graphs/residual_block.", s, ".json"));
    Result info = Run({"info", out});
    EXPECT_EQ(info.code, 0) << s << ": " << info.err;
  }
  Result bad = Run({"compare", kExample, "--graphs-dir", Path("absent")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.FirstErrLine(),
            "egret compare: error: --graphs-dir: '" + Path("absent") + "' is not a directory");
}

TEST_F(CliTest, CompareBadInputAndFailedVerify) {
  Result r = Run({"compare", kExample, "--strategies", "greedy,magic"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown strategy 'magic'"));
  EXPECT_EQ(Run({"compare", Path("absent.json")}).code, 2);
  // A wrong rule: greedy and eqsat both apply it, and verify catches it.
  Write("sub.json", kSubGraph);
  Write("wrong.rules", kWrongRule);
  r = Run({"compare", Path("sub.json"), "--rules", Path("wrong.rules"), "--strategies",
           "cse,greedy", "--csv", Path("c.csv")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("greedy: the result computes different outputs"));
  EXPECT_THAT(*ReadFile(Path("c.csv")), HasSubstr(",cse,"));
  EXPECT_THAT(*ReadFile(Path("c.csv")), HasSubstr(",FAIL\n"));
}

// A result with an output the reference executor cannot compute is
// "incomplete", never "ok": exit 3 when nothing else failed.
TEST_F(CliTest, CompareMarksAnUnverifiedResultIncomplete) {
  Write("opaque.json", R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "r1", "op": "Relu", "inputs": ["x"], "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "m", "op": "MyOp", "inputs": ["r1"], "outputs": [{"dtype": "Float32", "shape": [4]}]}],
  "inputs": ["x"], "outputs": [{"value": "r1", "name": "relu"}, {"value": "m", "name": "mine"}]})");
  Result r =
      Run({"compare", Path("opaque.json"), "--strategies", "cse,greedy", "--csv", Path("c.csv")});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("greedy: the result could not be verified: 1 of 2 outputs not "
                               "verified: mine: "));
  EXPECT_THAT(*ReadFile(Path("c.csv")), HasSubstr(",incomplete\n"));
  EXPECT_THAT(*ReadFile(Path("c.csv")), ::testing::Not(HasSubstr(",ok\n")));
}

}  // namespace
}  // namespace egret
