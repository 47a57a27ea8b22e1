#include "egret/extract/egraph_serialize.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "egret/extract/class_error.h"
#include "egret/extract/tree_extractor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::extract {
namespace {

using ::testing::HasSubstr;

TEST(EgraphSerializeTest, ReadsNodesClassesCostsAndRoots) {
  absl::StatusOr<ExtractionProblem> p = ParseEgraphSerialize(R"({
    "nodes": {
      "f1": {"op": "f", "children": ["x1", "x1", "y1"], "eclass": "top", "cost": 2.5},
      "x1": {"op": "x", "children": [], "eclass": "cx", "cost": 0},
      "y1": {"op": "y", "eclass": "cy", "subsumed": false},
      "x2": {"op": "x\u00e9\n", "children": [], "eclass": "cx", "cost": -1e1}
    },
    "root_eclasses": ["top"],
    "class_data": {"top": {"type": "T"}},
    "comment": ["anything", {"goes": null}, true]
  })",
                                                             "g.json");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->num_classes(), 3u);
  ASSERT_EQ(p->num_nodes(), 4u);
  ClassId top = static_cast<ClassId>(p->FindClass("top"));
  ClassId cx = static_cast<ClassId>(p->FindClass("cx"));
  ClassId cy = static_cast<ClassId>(p->FindClass("cy"));
  ASSERT_EQ(p->roots(), std::vector<ClassId>{top});
  ENodeId f = p->class_begin(top);
  EXPECT_EQ(p->node_name(f), "f1");
  EXPECT_EQ(p->op(f), "f");
  EXPECT_DOUBLE_EQ(p->cost(f), 2.5);
  EXPECT_EQ(std::vector<ClassId>(p->children(f).begin(), p->children(f).end()),
            (std::vector<ClassId>{cx, cx, cy}));
  EXPECT_DOUBLE_EQ(p->cost(p->class_begin(cy)), 1.0);  // default cost
  ASSERT_EQ(p->class_size(cx), 2u);
  EXPECT_EQ(p->node_name(p->class_begin(cx)), "x1");  // file order within a class
  EXPECT_EQ(p->op(p->class_begin(cx) + 1), "x\xc3\xa9\n");
  EXPECT_DOUBLE_EQ(p->cost(p->class_begin(cx) + 1), -10.0);
  EXPECT_TRUE(p->has_negative_costs());
  EXPECT_EQ(p->parents(cx).size(), 2u);
}

struct BadCase {
  const char* text;
  const char* expected;  // substring of the one-line error
};

TEST(EgraphSerializeTest, BadInputGivesOneLineErrorWithPlaceAndPath) {
  const BadCase cases[] = {
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\", \"cost\": \"1\"}}, "
       "\"root_eclasses\": [\"c\"]}",
       "g.json:1:52: error: $.nodes.a.cost: expected a number"},
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\", \"children\": [\"zz\"]}},\n"
       "\"root_eclasses\": [\"c\"]}",
       "g.json:1:57: error: $.nodes.a.children[0]: child \"zz\" names no node"},
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\"}},\n \"root_eclasses\": [\"c\", "
       "\"q\"]}",
       "g.json:2:25: error: $.root_eclasses[1]: root class \"q\" has no nodes"},
      {"{\"nodes\": {\"a\": {\"eclass\": \"c\"}}, \"root_eclasses\": [\"c\"]}",
       "$.nodes.a: node has no \"op\""},
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\"}, \"a\": {\"op\": \"y\", \"eclass\": "
       "\"c\"}}, "
       "\"root_eclasses\": [\"c\"]}",
       "duplicate node id \"a\""},
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\"}}, \"root_eclasses\": [\"c\"]} x",
       "trailing characters"},
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\"}}", "unexpected end of input"},
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\"}}}", "no \"root_eclasses\" array"},
      {"{\"nodes\": {}, \"root_eclasses\": []}", "no root classes"},
      {"[1, 2]", "g.json:1:1: error: $: expected a JSON object"},
      {"{\"nodes\": {\"a\": {\"op\": \"x\\q\", \"eclass\": \"c\"}}, \"root_eclasses\": [\"c\"]}",
       "bad escape"},
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\", \"cost\": 1e999}}, "
       "\"root_eclasses\": [\"c\"]}",
       "number out of range"},
      {"", "expected a JSON object"},
      // Finite costs whose sum overflows: every total would be inf.
      {"{\"nodes\": {\"a\": {\"op\": \"x\", \"eclass\": \"c\", \"cost\": 1e308},\n"
       "\"b\": {\"op\": \"y\", \"eclass\": \"c\", \"cost\": 1e308}}, \"root_eclasses\": [\"c\"]}",
       "g.json:2:41: error: $.nodes.b.cost: the costs add up to more than the largest double; "
       "every "
       "total would overflow"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<ExtractionProblem> p = ParseEgraphSerialize(c.text, "g.json");
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
    std::string msg(p.status().message());
    EXPECT_THAT(msg, HasSubstr(c.expected)) << c.text;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(EgraphSerializeTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "{\"class_data\": " + std::string(100000, '[') + "}";
  absl::StatusOr<ExtractionProblem> p = ParseEgraphSerialize(deep, "g.json");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("nesting too deep"));
}

TEST(EgraphSerializeTest, MissingFileIsNotFound) {
  absl::StatusOr<ExtractionProblem> p = ReadEgraphSerializeFile("/nonexistent/x.json");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("/nonexistent/x.json"));
}

// The source map places every class at the key of its first node, and an
// extraction error naming a class (a cycle, a negative-cost cycle) at it.
TEST(EgraphSerializeTest, SourceMapPlacesClassesAndTheirErrors) {
  EgraphSourceMap where;
  absl::StatusOr<ExtractionProblem> p = ParseEgraphSerialize(
      "{\"nodes\": {\n"
      "  \"a\": {\"op\": \"f\", \"eclass\": \"A\", \"children\": [\"b\"]},\n"
      "  \"b\": {\"op\": \"g\", \"eclass\": \"B\", \"children\": [\"a\"]},\n"
      "  \"c\": {\"op\": \"h\", \"eclass\": \"A\"}},\n"
      " \"root_eclasses\": [\"A\"]}",
      "g.json", &where);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(where.class_location.size(), 2u);
  ClassId a = static_cast<ClassId>(p->FindClass("A"));
  ClassId b = static_cast<ClassId>(p->FindClass("B"));
  EXPECT_EQ(where.class_location[a].ToString(), "g.json:2:3");
  EXPECT_EQ(where.class_location[b].ToString(), "g.json:3:3");

  absl::Status located =
      where.Locate(WithErrorClass(absl::FailedPreconditionError("on a cycle"), b), "g.json");
  EXPECT_EQ(located.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(located.message(), "g.json:3:3: error: on a cycle");
  // No class, or one the map does not know: the file only.
  EXPECT_EQ(where.Locate(absl::InvalidArgumentError("bad"), "g.json").message(),
            "g.json: error: bad");
  EXPECT_EQ(where.Locate(WithErrorClass(absl::InvalidArgumentError("bad"), 7), "g.json").message(),
            "g.json: error: bad");
  EXPECT_EQ(ErrorClass(absl::InvalidArgumentError("bad")), std::nullopt);
  EXPECT_TRUE(WithErrorClass(absl::OkStatus(), a).ok());
}

TEST(EgraphSerializeTest, TreeExtractionErrorsCarryTheirClass) {
  // B's only node needs A, and A's only node needs B.
  absl::StatusOr<ExtractionProblem> cyclic = ParseEgraphSerialize(
      R"({"nodes": {"a": {"op": "f", "eclass": "A", "children": ["b"]},
                    "b": {"op": "g", "eclass": "B", "children": ["a"]}},
          "root_eclasses": ["B"]})");
  ASSERT_TRUE(cyclic.ok()) << cyclic.status();
  absl::StatusOr<Choice> c = ExtractTree(*cyclic);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("every path is cyclic"));
  EXPECT_EQ(ErrorClass(c.status()), static_cast<ClassId>(cyclic->FindClass("B")));
  // A cycle of negative cost: A -> B -> A, each turn cheaper.
  absl::StatusOr<ExtractionProblem> negative = ParseEgraphSerialize(
      R"({"nodes": {"a": {"op": "f", "eclass": "A", "cost": -1, "children": ["b"]},
                    "b": {"op": "x", "eclass": "B", "cost": 1},
                    "c": {"op": "g", "eclass": "B", "cost": -5, "children": ["a"]}},
          "root_eclasses": ["A"]})");
  ASSERT_TRUE(negative.ok()) << negative.status();
  absl::StatusOr<TreeCosts> t = ComputeTreeCosts(*negative);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("cycle of negative cost"));
  std::optional<ClassId> on = ErrorClass(t.status());
  ASSERT_TRUE(on.has_value());
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr(absl::StrCat("class '", negative->class_name(*on), "'")));
}

}  // namespace
}  // namespace egret::extract
