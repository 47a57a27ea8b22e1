// `egret extract` on egraph-serialize JSON: costs, the chosen terms, and the
// errors of overflowing costs and cycles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_test_util.h"

namespace egret {
namespace {

// Costs whose totals overflow: the tree extractor printed "inf" with exit 0
// and the DAG extractor "produced an invalid choice"; now both exit 2.
TEST_F(CliTest, ExtractRejectsOverflowingCosts) {
  Write("sum.json", R"({"nodes": {
  "a": {"op": "x", "eclass": "A", "cost": 1e308, "children": []},
  "b": {"op": "y", "eclass": "B", "cost": 1e308, "children": ["a"]}}, "root_eclasses": ["B"]})");
  for (const char* x : {"tree", "dag"}) {
    Result r = Run({"extract", Path("sum.json"), "--extractor", x});
    EXPECT_EQ(r.code, 2) << x;
    EXPECT_EQ(r.err, absl::StrCat(Path("sum.json"),
                                  ":3:43: error: $.nodes.b.cost: the costs add up to more than "
                                  "the largest double; every total would overflow\n"));
  }
  // Each class uses the one below twice: the tree cost doubles per level and
  // overflows (2^40 * 1e300) while the DAG cost (40 * 1e300) does not.
  std::string text = "{\"nodes\": {\"n0\": {\"op\": \"leaf\", \"eclass\": \"c0\", \"cost\": 1e300}";
  for (int i = 1; i <= 40; ++i) {
    absl::StrAppend(&text, ",\n\"n", i, "\": {\"op\": \"f\", \"eclass\": \"c", i,
                    "\", \"cost\": 1e300, \"children\": [\"n", i - 1, "\", \"n", i - 1, "\"]}");
  }
  absl::StrAppend(&text, "}, \"root_eclasses\": [\"c40\"]}");
  Write("shared.json", text);
  Result r = Run({"extract", Path("shared.json"), "--extractor", "tree"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, absl::StrCat(Path("shared.json"),
                                ": error: the extracted term's tree cost overflows (inf)\n"));
}

// An e-graph with no extraction (a root whose every term is cyclic, a cycle
// of negative cost) names the file, line and column of the class on the cycle
// (its first node: "b" for class B).
TEST_F(CliTest, ExtractCycleErrorsPointAtTheClass) {
  Write("cycle.json", R"({"nodes": {
"a": {"op": "f", "eclass": "A", "children": ["b"]},
"b": {"op": "g", "eclass": "B", "children": ["a"]}},
"root_eclasses": ["B"]})");
  Write("negative.json", R"({"nodes": {
"a": {"op": "f", "eclass": "A", "cost": -1, "children": ["b"]},
"b": {"op": "x", "eclass": "B", "cost": 1},
"c": {"op": "g", "eclass": "B", "cost": -5, "children": ["a"]}},
"root_eclasses": ["A"]})");
  for (const char* x : {"tree", "dag", "ilp"}) {
    Result r = Run({"extract", Path("cycle.json"), "--extractor", x});
    EXPECT_EQ(r.code, 2) << x;
    EXPECT_EQ(r.err, absl::StrCat(Path("cycle.json"),
                                  ":3:1: error: root class 'B' cannot be extracted: no node of it "
                                  "has an acyclic term (every path is cyclic through class "
                                  "'B')\n"))
        << x;
    r = Run({"extract", Path("negative.json"), "--extractor", x});
    EXPECT_EQ(r.code, 2) << x;
    EXPECT_EQ(r.err, absl::StrCat(Path("negative.json"),
                                  ":3:1: error: class 'B' is on a cycle of negative cost; no tree "
                                  "cost exists\n"))
        << x;
  }
}

// An e-graph where the tree- and DAG-optimal choices differ: the root is
// either h (8) or g(s, s) (1 + 5 once, 1 + 5 + 5 as a tree).
constexpr char kSharedEgraph[] = R"({"nodes": {
  "h": {"op": "h", "children": [], "eclass": "r", "cost": 8},
  "g": {"op": "g", "children": ["s1", "s1"], "eclass": "r", "cost": 1},
  "s1": {"op": "s", "children": [], "eclass": "s", "cost": 5}},
  "root_eclasses": ["r"]})";

TEST_F(CliTest, ExtractPrintsCostsAndJson) {
  Write("e.json", kSharedEgraph);
  Result r = Run({"extract", Path("e.json"), "--extractor", "tree"});
  EXPECT_EQ(r.code, 0) << r.err;
  // The critical-path bound: r costs at least min(h, g + s) = 6, which the
  // DAG choice meets (proven optimal) and the tree choice does not.
  EXPECT_THAT(r.out,
              StartsWith("tree cost: 8\ndag cost: 8\nlower bound: 6 (critical path)\ntime: "));
  r = Run({"extract", Path("e.json")});  // dag by default
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              StartsWith("tree cost: 11\ndag cost: 6\nlower bound: 6 (critical path)\ntime: "));

  for (const char* kind : {"tree", "dag", "ilp"}) {
    SCOPED_TRACE(kind);
    r = Run({"extract", Path("e.json"), "--extractor", kind, "--json", "--time-limit", "5"});
    ASSERT_EQ(r.code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.out;
    const bool tree = std::string(kind) == "tree";
    EXPECT_EQ(j["extractor"], kind);
    EXPECT_EQ(j["tree_cost"], tree ? 8.0 : 11.0);
    EXPECT_EQ(j["dag_cost"], tree ? 8.0 : 6.0);
    EXPECT_EQ(j["choices"],
              tree ? nlohmann::json({{"r", "h"}}) : nlohmann::json({{"r", "g"}, {"s", "s1"}}));
    EXPECT_TRUE(j["time_ms"].is_number());
    EXPECT_GE(j["time_ms"].get<double>(), 0.0);
    EXPECT_EQ(j.contains("optimal"), std::string(kind) == "ilp");
    EXPECT_EQ(j.contains("bound"), std::string(kind) == "ilp");
    EXPECT_EQ(j.contains("lower_bound"), std::string(kind) != "ilp");
    if (j.contains("lower_bound")) {
      EXPECT_EQ(j["lower_bound"], 6.0);
    }
    if (j.contains("optimal")) {
      EXPECT_EQ(j["optimal"], true);
      EXPECT_EQ(j["bound"], 6.0);
    }
  }
  r = Run({"extract", Path("e.json"), "--extractor", "ilp"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("tree cost: 11\ndag cost: 6\noptimal: yes\nbound: 6\ntime: "));

  std::string text = kSharedEgraph;
  Write("truncated.json", text.substr(0, text.size() / 2));
  ExpectBadInput(Run({"extract", Path("truncated.json")}), Path("truncated.json"));
  Write("bad.json", R"({"nodes": {"a": {"op": "a", "children": 3, "eclass": "r"}}})");
  ExpectBadInput(Run({"extract", Path("bad.json"), "--json"}), Path("bad.json"));
}

}  // namespace
}  // namespace egret
