// A graph file's declared output types are checked against the ops' shape
// functions when it is read (egret/graph/declared_types.h): a file that
// declares what its ops do not compute is bad input, named at the node;
// what egret cannot compute before running (an opaque op, a shape made at
// run time) is taken as declared.
#include "egret/graph/declared_types.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "egret/graph/graph_json.h"

namespace egret {
namespace {

using ::testing::HasSubstr;

// A graph file with input x: Float32[1,4,4] and `nodes` after it.
std::string File(const std::string& nodes) {
  return absl::StrCat(R"({"format": "egret-graph", "version": 1, "nodes": [
    {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [1, 4, 4]}]},
)",
                      nodes, "\n]}");
}

absl::Status Read(const std::string& nodes) {
  return ParseGraphJson(File(nodes), "g.json", "").status();
}

// Expects `nodes` to be read without error.
void ExpectRead(const std::string& nodes) {
  absl::Status s = Read(nodes);
  EXPECT_TRUE(s.ok()) << s;
}

// Prints a status's message on failure (not its bytes).
std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(DeclaredTypes, AGraphThatDeclaresWhatItsOpsComputeIsRead) {
  ExpectRead(R"(
    {"name": "axes", "op": "$Shape", "outputs": [{"dtype": "Int32", "shape": [1]}]},
    {"name": "k", "op": "$Const", "outputs": [{"dtype": "Int32", "shape": []}], "data": [1]},
    {"name": "m", "op": "ReduceMean", "inputs": ["x", "axes", "k"],
     "outputs": [{"dtype": "Float32", "shape": [1, 1, 4]}]},
    {"name": "r", "op": "Relu", "inputs": ["m"],
     "outputs": [{"dtype": "Float32", "shape": [1, 1, 4]}]})");
}

// The hostile file that motivated the check: ReduceMean's constant axes
// {-3} reduce the first dim, the file declares the second one reduced.
TEST(DeclaredTypes, DimsOtherThanTheOpComputesAreBadInputAtTheNode) {
  absl::Status s = Read(R"(
    {"name": "axes", "op": "$Const", "outputs": [{"dtype": "Int32", "shape": [1]}], "data": [-3]},
    {"name": "k", "op": "$Const", "outputs": [{"dtype": "Int32", "shape": []}], "data": [1]},
    {"name": "m", "op": "ReduceMean", "inputs": ["x", "axes", "k"],
     "outputs": [{"dtype": "Float32", "shape": [1, 4, 1]}]})");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(s),
            "g.json:7:17: error: at /nodes/3/outputs: ReduceMean: declares output 0 "
            "Float32[1,4,1], its inputs give Float32[1,4,4]");
}

TEST(DeclaredTypes, AnOpThatCannotApplyToItsInputsIsBadInput) {
  // Axes out of range for a rank-3 input.
  absl::Status axes = Read(R"(
    {"name": "axes", "op": "$Shape", "outputs": [{"dtype": "Int32", "shape": [7]}]},
    {"name": "k", "op": "$Const", "outputs": [{"dtype": "Int32", "shape": []}], "data": [1]},
    {"name": "m", "op": "ReduceMean", "inputs": ["x", "axes", "k"],
     "outputs": [{"dtype": "Float32", "shape": [1, 4, 4]}]})");
  EXPECT_EQ(axes.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(axes),
              HasSubstr("at /nodes/3/outputs: ReduceMean axes 7 is out of range for rank 3"));
  // Shapes that do not broadcast.
  absl::Status add = Read(R"(
    {"name": "c", "op": "$Const", "outputs": [{"dtype": "Float32", "shape": [3]}], "data": [1, 2, 3]},
    {"name": "a", "op": "ElementWiseAdd", "inputs": ["x", "c"],
     "outputs": [{"dtype": "Float32", "shape": [1, 4, 4]}]})");
  EXPECT_EQ(add.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(add), HasSubstr("at /nodes/2/outputs: "));
  EXPECT_THAT(Message(add), HasSubstr("[1,4,4]"));
  // The wrong number of operands.
  absl::Status arity = Read(R"(
    {"name": "r", "op": "Relu", "inputs": ["x", "x"],
     "outputs": [{"dtype": "Float32", "shape": [1, 4, 4]}]})");
  EXPECT_EQ(arity.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(arity), HasSubstr("at /nodes/1/outputs: Relu: expects 1 input"));
}

TEST(DeclaredTypes, ADtypeTheOpDoesNotGiveIsBadInput) {
  absl::Status s = Read(R"(
    {"name": "e", "op": "ElementWiseEqual", "inputs": ["x", "x"],
     "outputs": [{"dtype": "Float32", "shape": [1, 4, 4]}]})");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s), HasSubstr("at /nodes/1/outputs: ElementWiseEqual: declared output 0 "
                                    "dtype Float32 is not Bool"));
}

TEST(DeclaredTypes, WhatEgretCannotComputeBeforeRunningIsTakenAsDeclared) {
  // An op egret does not know: its types are the file's word.
  ExpectRead(R"(
    {"name": "v", "op": "vendor.Mystery", "inputs": ["x"],
     "outputs": [{"dtype": "QUInt8", "shape": [9]}]})");
  // A Reshape whose shape is computed at run time (here by the opaque op).
  ExpectRead(R"(
    {"name": "s", "op": "vendor.ShapeOf", "inputs": ["x"],
     "outputs": [{"dtype": "Int32", "shape": [2]}]},
    {"name": "r", "op": "Reshape", "inputs": ["x", "s"],
     "outputs": [{"dtype": "Float32", "shape": [4, 4]}]})");
}

TEST(DeclaredTypes, CheckAllNamesTheFirstNodeThatFails) {
  absl::StatusOr<Graph> g = ParseGraphJson(File(R"(
    {"name": "r", "op": "Relu", "inputs": ["x"],
     "outputs": [{"dtype": "Float32", "shape": [1, 4, 4]}]})"),
                                           "g.json", "");
  ASSERT_TRUE(g.ok()) << g.status();
  NodeId culprit = 0;
  EXPECT_TRUE(CheckAllDeclaredTypes(*g, &culprit).ok());
  EXPECT_EQ(culprit, kNoNode);
  Graph bad = *g;
  Node relu = bad.node(1);
  relu.outputs[0] = TensorType(DType::kFloat32, {4, 4});
  relu.name = "r2";
  const NodeId id = bad.AddNode(relu);
  absl::Status s = CheckAllDeclaredTypes(bad, &culprit);
  EXPECT_EQ(culprit, id);
  EXPECT_EQ(Message(s), "Relu: declares output 0 Float32[4,4], its inputs give Float32[1,4,4]");
}

}  // namespace
}  // namespace egret
