// What the graph JSON tests (tests/graph/graph_json*_test.cc) share: a fresh
// folder per test, the sidecar beside a written graph, constant tensors, a
// graph using every field of the format and structural graph equality.
#ifndef EGRET_TESTS_GRAPH_GRAPH_JSON_TEST_UTIL_H_
#define EGRET_TESTS_GRAPH_GRAPH_JSON_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/graph/graph_json.h"

namespace egret {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// The sidecar WriteGraphJson wrote beside `json_path` ("<name>.<16 hex>.bin"),
// or "" when there is none.
inline std::string SidecarPath(const std::string& json_path) {
  const fs::path p(json_path);
  const std::string prefix = p.filename().string() + ".";
  for (const auto& e : fs::directory_iterator(p.parent_path())) {
    const std::string name = e.path().filename().string();
    if (name.size() == prefix.size() + 16 + 4 && name.rfind(prefix, 0) == 0 &&
        name.substr(name.size() - 4) == ".bin") {
      return e.path().string();
    }
  }
  return "";
}

// A fresh, empty directory per test.
inline std::string TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(::testing::TempDir()) /
                 absl::StrCat("egret_graph_json_", info->test_suite_name(), "_", info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

inline void WriteText(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

inline ConstTensorPtr MakeConst(TensorType type, std::vector<double> values) {
  return std::make_shared<const Tensor>(Tensor::FromValues(std::move(type), values));
}

inline ConstTensorPtr Ramp(TensorType type) {
  Tensor t(std::move(type));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetValue(i, static_cast<double>(i % 251) - 100);
  return std::make_shared<const Tensor>(std::move(t));
}

// A graph using every field of the format.
inline Graph FullGraph() {
  Graph g;
  g.set_name("every \"field\"");
  g.mutable_options()["enable_autothread"] = int64_t{1};
  g.mutable_options()["quant_is_updateable"] = false;
  g.mutable_options()["scale"] = 0.1;
  g.mutable_options()["integral_float"] = 2.0;
  g.mutable_options()["too_big"] = std::numeric_limits<double>::infinity();
  g.mutable_options()["target"] = std::string("v73");

  // Inputs added in the opposite order from the graph-input order.
  Node y_node;
  y_node.op = std::string(kInputOp);
  y_node.name = "y";
  y_node.outputs = {TensorType(DType::kFloat32, {1, 8})};
  NodeId y = g.AddNode(y_node);
  NodeId x = g.AddInput("x", TensorType(DType::kQUInt8, {1, 8, 8, 16}, 128, 0.05f));
  g.mutable_inputs() = {x, y};

  // Small constants of every dtype, with extreme values.
  g.AddConstant("c_qu8", MakeConst(TensorType(DType::kQUInt8, {3}, 7, 0.25f), {0, 128, 255}));
  g.AddConstant("c_qi8", MakeConst(TensorType(DType::kQInt8, {2}, -3, 0.5f), {-128, 127}));
  g.AddConstant("c_qu16", MakeConst(TensorType(DType::kQUInt16, {2}), {0, 65535}));
  g.AddConstant("c_qi16", MakeConst(TensorType(DType::kQInt16, {2}), {-32768, 32767}));
  g.AddConstant("c_i32", MakeConst(TensorType(DType::kInt32, {2}), {-2147483648.0, 2147483647}));
  g.AddConstant("c_qi32", MakeConst(TensorType(DType::kQInt32, {1}, 0, 1e-4f), {-5}));
  g.AddConstant("c_f16", MakeConst(TensorType(DType::kFloat16, {3}), {0.1, -65504, 6e-8}));
  g.AddConstant("c_bool", MakeConst(TensorType(DType::kBool, {2}), {1, 0}));
  TensorType scalar;
  scalar.dtype = DType::kFloat32;
  g.AddConstant("c_scalar", MakeConst(scalar, {3.25}));
  {
    std::vector<uint8_t> bytes(16);
    int64_t values[2] = {std::numeric_limits<int64_t>::min(), (int64_t{1} << 62) + 1};
    std::memcpy(bytes.data(), values, 16);
    g.AddConstant("c_i64", std::make_shared<const Tensor>(
                               *Tensor::FromBytes(TensorType(DType::kInt64, {2}), bytes)));
  }
  g.AddConstant("c_f32", MakeConst(TensorType(DType::kFloat32, {4}),
                                   {0.1, std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(), 1e-38}));
  // A large constant (goes to the sidecar) used by two nodes, and one more.
  ConstTensorPtr w = Ramp(TensorType(DType::kQUInt8, {3, 3, 16, 32}, 120, 0.01f));
  NodeId w1 = g.AddConstant("w1", w);
  NodeId w2 = g.AddConstant("w2", w);
  NodeId b = g.AddConstant("b", Ramp(TensorType(DType::kQInt32, {5000})));

  Node shape;
  shape.op = std::string(kShapeOp);
  shape.name = "stride";
  shape.outputs = {TensorType(DType::kInt32, {1, 1, 1, 1})};
  NodeId stride = g.AddNode(shape);

  // Ops egret does not know (kept opaque, as an imported op it has no row
  // for), so that their operands and types serve the format's coverage alone;
  // declared_types_test.cc checks known ops against their shape functions.
  Node conv;
  conv.op = "vendor.Conv";
  conv.name = "conv";
  conv.inputs = {{x, 0}, {w1, 0}, {b, 0}, {stride, 0}};
  conv.outputs = {TensorType(DType::kQUInt8, {1, 8, 8, 32}, 128, 0.05f)};
  conv.attrs["i"] = int64_t{-7};
  conv.attrs["d"] = 0.5;
  conv.attrs["d_int"] = 3.0;
  conv.attrs["d_inf"] = -std::numeric_limits<double>::infinity();
  conv.attrs["s"] = std::string("SAME");
  conv.attrs["ints"] = std::vector<int64_t>{1, -2, 3};
  conv.attrs["ints_empty"] = std::vector<int64_t>{};
  conv.attrs["floats"] = std::vector<double>{1.0, 2.5};
  conv.attrs["floats_empty"] = std::vector<double>{};
  conv.attrs["floats_inf"] = std::vector<double>{1.0, std::numeric_limits<double>::infinity()};
  NodeId c = g.AddNode(conv);

  Node conv2 = conv;
  conv2.name = "conv2";
  conv2.attrs.clear();
  conv2.inputs[1] = {w2, 0};
  NodeId c2 = g.AddNode(conv2);

  Node split;
  split.op = "vendor.Split";
  split.name = "split";
  split.inputs = {{c, 0}};
  split.outputs = {TensorType(DType::kQUInt8, {1, 8, 8, 8}, 128, 0.05f),
                   TensorType(DType::kQUInt8, {1, 8, 8, 8}, 128, 0.05f)};
  NodeId s = g.AddNode(split);

  Node relu;  // no name: the writer generates one
  relu.op = "Relu";
  relu.inputs = {{s, 1}};
  relu.outputs = {split.outputs[1]};
  NodeId r = g.AddNode(relu);

  g.AddOutput({r, 0}, "out");
  g.AddOutput({s, 0});
  g.AddOutput({c2, 0}, "second");
  return g;
}

// Structural equality; `generated_names` lets nodes without a name in `a`
// have any name in `b`.
inline void ExpectSameGraph(const Graph& a, const Graph& b, bool generated_names = true) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.options(), b.options());
  ASSERT_EQ(a.num_nodes(), b.num_nodes());
  for (NodeId id = 0; id < a.num_nodes(); ++id) {
    SCOPED_TRACE(absl::StrCat("node #", id));
    const Node& na = a.node(id);
    const Node& nb = b.node(id);
    EXPECT_EQ(na.op, nb.op);
    if (!na.name.empty() || !generated_names) {
      EXPECT_EQ(na.name, nb.name);
    } else {
      EXPECT_FALSE(nb.name.empty());
    }
    EXPECT_TRUE(std::equal(na.inputs.begin(), na.inputs.end(), nb.inputs.begin(), nb.inputs.end()));
    EXPECT_TRUE(
        std::equal(na.outputs.begin(), na.outputs.end(), nb.outputs.begin(), nb.outputs.end()));
    EXPECT_EQ(na.attrs, nb.attrs);
    ASSERT_EQ(na.constant == nullptr, nb.constant == nullptr);
    if (na.constant) {
      EXPECT_TRUE(*na.constant == *nb.constant);
    }
  }
  EXPECT_EQ(a.inputs(), b.inputs());
  ASSERT_EQ(a.outputs().size(), b.outputs().size());
  for (size_t k = 0; k < a.outputs().size(); ++k) {
    EXPECT_EQ(a.outputs()[k].value, b.outputs()[k].value);
    EXPECT_EQ(a.outputs()[k].name, b.outputs()[k].name);
  }
}

}  // namespace egret

#endif  // EGRET_TESTS_GRAPH_GRAPH_JSON_TEST_UTIL_H_
