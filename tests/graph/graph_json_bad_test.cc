// Bad graph JSON: every documented error with its one line and place,
// truncated, invalid and deeply nested text, and huge garbage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/graph/graph_json.h"
#include "egret/support/diagnostic.h"
#include "tests/graph/graph_json_test_util.h"

namespace egret {
namespace {

// ---------------------------------------------------------------------------
// Bad input: each case is a JSON text, the text at which the error must point
// (its first occurrence; "" for line 1 col 1) and the message after
// "file:line:col: error: ".

struct BadCase {
  std::string name;
  std::string text;
  std::string at;
  std::string message;
};

constexpr char kHeader[] = R"({"format": "egret-graph", "version": 1, )";

std::string WithNodes(const std::string& nodes, const std::string& rest = "") {
  return absl::StrCat(kHeader, "\"nodes\": [\n", nodes, "\n]", rest, "}");
}

constexpr char kX[] =
    R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2]}]})";

std::vector<BadCase> BadCases() {
  std::vector<BadCase> cases = {
      {"NotAnObject", "[1, 2]", "[1", "at /: expected an object, got an array"},
      {"WrongFormat", R"({"format": "onnx", "version": 1, "nodes": []})", "\"onnx\"",
       "at /format: not an egret graph: expected \"format\": \"egret-graph\""},
      {"MissingFormat", R"( {"version": 1})", "{",
       "at /: not an egret graph: expected \"format\": \"egret-graph\""},
      {"FutureVersion", R"({"format": "egret-graph", "version": 2, "nodes": []})", "2,",
       "at /version: unsupported version 2 (this egret reads version 1)"},
      {"NodesNotArray", absl::StrCat(kHeader, R"("nodes": {}})"), "{}",
       "at /nodes: expected an array of nodes, got an object"},
      {"UnknownTopLevelMember", absl::StrCat(kHeader, R"("nodes": [], "nodez": 1})"), "1}",
       "at /nodez: unknown member 'nodez'"},
      {"UnknownNodeMember", WithNodes(R"({"name": "x", "op": "*Input", "input": []})"), "[]",
       "at /nodes/0/input: unknown member 'input'"},
      // A line break in a member name (the JSON escape \n) is printed
      // escaped in the pointer too: the error stays one line.
      {"UnknownNodeMemberWithALineBreak", WithNodes(R"({"name": "x", "op": "*Input", "\name": 1})"),
       "1}", "at /nodes/0/\\x0aame: unknown member '\\x0aame'"},
      {"MissingOp", WithNodes(R"({"name": "x", "outputs": []})"), "{\"name\"",
       "at /nodes/0: missing member 'op'"},
      {"OpNotString", WithNodes(R"({"op": 5})"), "5}",
       "at /nodes/0/op: expected a string, got an integer"},
      {"NoOutputs", WithNodes(R"({"name": "x", "op": "*Input", "outputs": []})"), "[]}",
       "at /nodes/0/outputs: a node needs at least one output"},
      {"UnknownDType",
       WithNodes(R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Float8"}]})"),
       "\"Float8\"",
       "at /nodes/0/outputs/0/dtype: unknown dtype 'Float8' (expected QUInt8, QUInt16, QInt16, "
       "Float32, Int32, QInt32, QInt8, Float16, Int64, Bool, Float64, UInt32, UInt64, BFloat16, "
       "None or Multi)"},
      {"ShapeNotArray",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": "2x2"}]})"),
       "\"2x2\"", "at /nodes/0/outputs/0/shape: expected an array of dims, got a string"},
      {"DimNotInteger",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [2, 1.5]}]})"),
       "1.5", "at /nodes/0/outputs/0/shape/1: expected an integer, got a number"},
      {"RankOver8",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [1,1,1,1,1,1,1,1,1]}]})"),
       "[1,1", "at /nodes/0/outputs/0/shape: rank 9 exceeds the maximum of 8"},
      {"NegativeDim",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [4, -3]}]})"),
       "-3", "at /nodes/0/outputs/0/shape/1: negative dim -3"},
      {"HugeShape",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [4294967296, 4294967296]}]})"),
       "[4294967296", "at /nodes/0/outputs/0/shape: shape has more than 2^56 elements"},
      {"DimAboveCap",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [0, 72057594037927937]}]})"),
       "72057594037927937", "at /nodes/0/outputs/0/shape/1: dim 72057594037927937 is above 2^56"},
      // Huge numbers: a float-spelled dim, an integer beyond uint64 (which
      // the JSON parser holds as a double) and literals beyond a double.
      {"DimIsHugeFloat",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [2, 1e30]}]})"),
       "1e30", "at /nodes/0/outputs/0/shape/1: integer out of range"},
      {"DimBeyondUint64",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [99999999999999999999]}]})"),
       "99999999999999999999", "at /nodes/0/outputs/0/shape/0: integer out of range"},
      {"NegativeDimBeyondInt64",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [-99999999999999999999]}]})"),
       "-99999999999999999999", "at /nodes/0/outputs/0/shape/0: integer out of range"},
      {"DimBeyondDouble",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [1e400]}]})"),
       "1e400", "number 1e400 is out of range"},
      {"DataBeyondDouble",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [2]}], "data": [1, -2E+999]})"),
       "-2E+999", "number -2E+999 is out of range"},
      {"HugeIntegerBeyondDoubleInAString",
       WithNodes(
           R"({"name": "1e400", "op": "*Input", "outputs": [{"dtype": "Int32", "shape": [1e999]}]})"),
       "1e999", "number 1e999 is out of range"},
      {"DuplicateKey",
       WithNodes(R"({"name": "x", "op": "*Input", "name": "y", "outputs": [{"dtype": "Int32"}]})"),
       "\"name\": \"y\"", "duplicate key 'name'"},
      {"ZeroOffsetNotInt32",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "QUInt8", "zero_offset": 3000000000}]})"),
       "3000000000", "at /nodes/0/outputs/0/zero_offset: zero_offset 3000000000 is not an int32"},
      {"DanglingInput", WithNodes(absl::StrCat(kX, R"(,
         {"name": "r", "op": "Relu", "inputs": ["x", "foo"], "outputs": [{"dtype": "Float32"}]})")),
       "\"foo\"", "at /nodes/1/inputs/1: no node named 'foo'"},
      {"InputNotString", WithNodes(absl::StrCat(kX, R"(,
         {"name": "r", "op": "Relu", "inputs": [0], "outputs": [{"dtype": "Float32"}]})")),
       "0]",
       "at /nodes/1/inputs/0: expected a value reference (\"node\" or \"node:k\"), got an integer"},
      {"MissingOutputIndex", WithNodes(absl::StrCat(kX, R"(,
         {"name": "r", "op": "Relu", "inputs": ["x:3"], "outputs": [{"dtype": "Float32"}]})")),
       "\"x:3\"", "at /nodes/1/inputs/0: node 'x' has 1 output(s); there is no output 3"},
      {"DuplicateName", WithNodes(absl::StrCat(kX, ",\n", kX)),
       "\"x\", \"op\": \"*Input\", \"outputs\": [{\"dtype\": \"Float32\", \"shape\": [2]}]}\n",
       "at /nodes/1/name: duplicate node name 'x' (first used by /nodes/0)"},
      {"Cycle", WithNodes(absl::StrCat(kX, R"(,
         {"name": "d", "op": "Relu", "inputs": ["b"], "outputs": [{"dtype": "Float32"}]},
         {"name": "a", "op": "ElementWiseAdd", "inputs": ["x", "b"], "outputs": [{"dtype": "Float32"}]},
         {"name": "b", "op": "Relu", "inputs": ["a"], "outputs": [{"dtype": "Float32"}]})")),
       "{\"name\": \"a\"",
       "at /nodes/2: node 'a' (#2): is on a cycle: 'a' (#2) -> 'b' (#3) -> 'a' (#2)"},
      {"InputNodeWithInputs",
       WithNodes(
           R"({"name": "x", "op": "*Input", "inputs": ["x"], "outputs": [{"dtype": "Float32"}]})"),
       "[\"x\"]", "at /nodes/0/inputs: an *Input node has no inputs"},
      {"ConstWithoutData",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [2]}]})"),
       "{\"name\"", "at /nodes/0: missing member 'data' of a $Const"},
      {"DataLengthMismatch",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [2, 3]}], "data": [1, 2, 3, 4, 5]})"),
       "[1, 2, 3, 4, 5]", "at /nodes/0/data: data has 5 values, type Float32[2,3] needs 6"},
      {"DataValueOutOfRange",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "QUInt8", "shape": [2]}], "data": [1, 300]})"),
       "300", "at /nodes/0/data/1: value 300 is out of the range of QUInt8 [0, 255]"},
      {"Float32OutOfRange",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [2]}], "data": [1, -3.4028236e+38]})"),
       "-3.4028236e+38", "at /nodes/0/data/1: value -3.4028236e+38 is out of the range of Float32"},
      {"Float16OutOfRange",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float16", "shape": [1]}], "data": [65520]})"),
       "65520", "at /nodes/0/data/0: value 65520 is out of the range of Float16"},
      {"DataValueNotInteger",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Int32", "shape": [2]}], "data": [1, 2.5]})"),
       "2.5", "at /nodes/0/data/1: expected an integer storage value of Int32, got a number"},
      {"DataBadString",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [1]}], "data": ["one"]})"),
       "\"one\"", "at /nodes/0/data/0: expected a number, \"nan\", \"inf\" or \"-inf\", got 'one'"},
      {"DataOnNonConst",
       WithNodes(
           R"({"name": "s", "op": "$Shape", "outputs": [{"dtype": "Int32", "shape": [1]}], "data": [1]})"),
       "[1]}\n", "at /nodes/0/data: only $Const nodes carry data, not '$Shape'"},
      {"SidecarDataWithoutSidecar",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "QUInt8", "shape": [4]}], "data": {"offset": 0, "length": 4}})"),
       "{\"offset\"",
       "at /nodes/0/data: data refers to the sidecar, but the graph has no 'sidecar' member"},
      {"AttrBadValue",
       WithNodes(
           R"({"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32"}], "attrs": {"k": [1, "a"]}})"),
       "\"a\"", "at /nodes/0/attrs/k/1: expected a number, got a string"},
      {"OptionBadValue", absl::StrCat(kHeader, R"("options": {"a/b": null}, "nodes": []})"), "null",
       "at /options/a~1b: expected an option value (true/false, integer, number, string or "
       "{\"float\": ...}), got null"},
      {"GraphOutputDangling", WithNodes(kX, R"(, "outputs": [{"value": "y", "name": "out"}])"),
       "\"y\"", "at /outputs/0/value: no node named 'y'"},
      {"GraphInputNotInputNode",
       WithNodes(R"({"name": "c", "op": "$Shape", "outputs": [{"dtype": "Int32", "shape": [1]}]})",
                 R"(, "inputs": ["c"])"),
       "\"c\"]", "at /inputs/0: graph input 'c' is not an *Input node"},
      {"IntegerTooLarge",
       WithNodes(
           R"({"name": "c", "op": "$Const", "outputs": [{"dtype": "Int64", "shape": [1]}], "data": [18446744073709551615]})"),
       "18446744073709551615", "at /nodes/0/data/0: integer out of range"},
  };
  return cases;
}

class BadJson : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadJson, GivesTheDocumentedOneLineError) {
  const BadCase& c = GetParam();
  size_t offset = c.at.empty() ? 0 : c.text.find(c.at);
  ASSERT_NE(offset, std::string::npos) << "test bug: marker not in text";
  SourceLocation loc = LocationOf("g.json", c.text, offset);
  absl::StatusOr<Graph> g = ParseGraphJson(c.text, "g.json", "");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(g.status().message()),
            absl::StrCat(loc.ToString(), ": error: ", c.message));
  EXPECT_EQ(g.status().message().find('\n'), std::string_view::npos);
}

INSTANTIATE_TEST_SUITE_P(GraphJson, BadJson, ::testing::ValuesIn(BadCases()),
                         [](const auto& info) { return info.param.name; });

TEST(GraphJsonBad, TruncatedFileIsASyntaxErrorAtTheEnd) {
  std::string text = *GraphToJsonString(FullGraph());
  for (size_t cut : {size_t{0}, size_t{1}, text.size() / 3, text.size() / 2, text.size() - 2}) {
    std::string part = text.substr(0, cut);
    absl::StatusOr<Graph> g = ParseGraphJson(part, "t.json", "");
    ASSERT_FALSE(g.ok()) << cut;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
    SourceLocation end = LocationOf("t.json", part, part.size());
    EXPECT_THAT(std::string(g.status().message()),
                StartsWith(absl::StrCat(end.ToString(), ": error: invalid JSON: ")))
        << cut;
  }
}

TEST(GraphJsonBad, InvalidJsonPointsAtTheBadByte) {
  absl::StatusOr<Graph> g = ParseGraphJson("{\n  \"format\": x\n}", "s.json", "");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "s.json:2:13: error: invalid JSON: syntax error while parsing value - invalid literal");
}

TEST(GraphJsonBad, DeepNestingIsRejectedBeforeParsing) {
  std::string text(1 << 20, '[');
  absl::StatusOr<Graph> g = ParseGraphJson(text, "deep.json", "");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "deep.json:1:65: error: JSON nested deeper than 64 levels");
}

TEST(GraphJsonBad, MissingFileIsNotFound) {
  absl::StatusOr<Graph> g = ReadGraphJson(TestDir() + "/none.json");
  EXPECT_EQ(g.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("none.json: error: cannot open"));
}

TEST(GraphJsonBad, HundredMegabytesOfGarbageIsRejected) {
  std::string dir = TestDir();
  std::string path = dir + "/garbage.json";
  {
    std::mt19937_64 rng(42);
    std::string data(100u << 20, '\0');
    for (size_t i = 0; i + 8 <= data.size(); i += 8) {
      uint64_t v = rng();
      std::memcpy(&data[i], &v, 8);
    }
    data[0] = '\x9c';  // the seed's first byte is fine, but be sure it is not whitespace
    WriteText(path, data);
  }
  absl::StatusOr<Graph> g = ReadGraphJson(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith(absl::StrCat(path, ":1:1: error: invalid JSON: ")));
  EXPECT_EQ(g.status().message().find('\n'), std::string_view::npos);
  // The same file over a read limit is refused before it is parsed.
  absl::StatusOr<Graph> limited = ReadGraphJson(path, 1 << 20);
  EXPECT_EQ(limited.status().code(), absl::StatusCode::kResourceExhausted);
  fs::remove(path);
}

TEST(GraphJsonBad, HundredMegabytesOfOpenBracketsIsRejected) {
  std::string dir = TestDir();
  std::string path = dir + "/brackets.json";
  WriteText(path, std::string(100u << 20, '['));
  absl::StatusOr<Graph> g = ReadGraphJson(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            absl::StrCat(path, ":1:65: error: JSON nested deeper than 64 levels"));
  fs::remove(path);
}

}  // namespace
}  // namespace egret
