// Float64, UInt32, UInt64 and BFloat16: names, sizes, tensor values and the
// graph JSON format (issue #34).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "egret/graph/dtype.h"
#include "egret/graph/graph_json.h"
#include "egret/graph/tensor.h"

namespace egret {
namespace {

TEST(DTypes, NamesValuesAndSizes) {
  struct Row {
    DType t;
    const char* name;
    int value, size;
  };
  for (const Row& r :
       {Row{DType::kFloat64, "Float64", 11, 8}, Row{DType::kUInt32, "UInt32", 12, 4},
        Row{DType::kUInt64, "UInt64", 13, 8}, Row{DType::kBFloat16, "BFloat16", 14, 2}}) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(DTypeName(r.t), r.name);
    EXPECT_EQ(ParseDType(r.name), r.t);
    EXPECT_EQ(DTypeFromValue(r.value), r.t);
    EXPECT_EQ(ElementSize(r.t), r.size);
    EXPECT_TRUE(IsConcrete(r.t));
    EXPECT_FALSE(IsQuantized(r.t));
  }
  EXPECT_TRUE(IsFloat(DType::kFloat64));
  EXPECT_TRUE(IsFloat(DType::kBFloat16));
  EXPECT_TRUE(IsPlainInteger(DType::kUInt32));
  EXPECT_TRUE(IsPlainInteger(DType::kUInt64));
  EXPECT_FALSE(IsPlainInteger(DType::kQInt32));
  EXPECT_EQ(StorageMax(DType::kUInt32), 4294967295);
  EXPECT_EQ(StorageMin(DType::kUInt64), 0);
}

TEST(DTypes, Float64KeepsEveryBit) {
  Tensor t(TensorType(DType::kFloat64, {3}));
  const double third = 1.0 / 3.0, tiny = 4.9406564584124654e-324;
  t.SetValue(0, third);
  t.SetValue(1, tiny);
  t.SetValue(2, 1e300);
  EXPECT_EQ(t.GetValue(0), third);
  EXPECT_EQ(t.GetValue(1), tiny);
  EXPECT_EQ(t.GetValue(2), 1e300);
  double stored;
  std::memcpy(&stored, t.bytes().data(), 8);
  EXPECT_EQ(stored, third);
}

TEST(DTypes, UnsignedIntegersRoundAndSaturate) {
  Tensor u32(TensorType(DType::kUInt32, {4}));
  u32.SetValue(0, 4294967295.0);
  u32.SetValue(1, 5e9);
  u32.SetValue(2, -3.0);
  u32.SetValue(3, 2.5);
  EXPECT_EQ(u32.GetValue(0), 4294967295.0);
  EXPECT_EQ(u32.GetValue(1), 4294967295.0);
  EXPECT_EQ(u32.GetValue(2), 0.0);
  EXPECT_EQ(u32.GetValue(3), 3.0);  // halves away from zero, as the other integers
  Tensor u64(TensorType(DType::kUInt64, {3}));
  u64.SetValue(0, 0x1p63);  // beyond int64's range
  u64.SetValue(1, 1e30);
  u64.SetValue(2, -1.0);
  uint64_t v[3];
  std::memcpy(v, u64.bytes().data(), sizeof(v));
  EXPECT_EQ(v[0], uint64_t{1} << 63);
  EXPECT_EQ(v[1], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(v[2], 0u);
}

TEST(DTypes, BFloat16RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between bfloat16's 1 and 1 + 2^-7: to even (1).
  EXPECT_EQ(FloatToBFloat16(1.0f + 0x1p-8f), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: to even (1 + 2^-6).
  EXPECT_EQ(FloatToBFloat16(1.0f + 3 * 0x1p-8f), 0x3f82);
  // Just above the half: up (truncation would give 0x3f80).
  EXPECT_EQ(FloatToBFloat16(std::nextafter(1.0f + 0x1p-8f, 2.0f)), 0x3f81);
  EXPECT_EQ(FloatToBFloat16(-2.0f), 0xc000);
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to inf
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
  EXPECT_EQ(BFloat16ToFloat(0x3f81), 1.0f + 0x1p-7f);
  Tensor t(TensorType(DType::kBFloat16, {1}));
  t.SetValue(0, 3.14159);
  EXPECT_EQ(t.GetValue(0), 3.140625);
}

TEST(DTypes, GraphJsonRoundTripsTheNewTypesExactly) {
  const std::string text = R"({"format": "egret-graph", "version": 1, "nodes": [
    {"name": "d", "op": "$Const", "outputs": [{"dtype": "Float64", "shape": [3]}],
     "data": [0.1, 1e-310, -123456789.123456789]},
    {"name": "u", "op": "$Const", "outputs": [{"dtype": "UInt64", "shape": [3]}],
     "data": [18446744073709551615, 9007199254740993, 0]},
    {"name": "w", "op": "$Const", "outputs": [{"dtype": "UInt32", "shape": [2]}],
     "data": [4294967295, 7]},
    {"name": "b", "op": "$Const", "outputs": [{"dtype": "BFloat16", "shape": [2]}],
     "data": [1.5, "-inf"]},
    {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float64", "shape": [3]}]},
    {"name": "y", "op": "ElementWiseAdd", "inputs": ["x", "d"],
     "outputs": [{"dtype": "Float64", "shape": [3]}]}
  ], "outputs": ["y", "u", "w", "b"]})";
  absl::StatusOr<Graph> g = ParseGraphJson(text, "t.json", "");
  ASSERT_TRUE(g.ok()) << g.status();
  auto constant = [](const Graph& gr, const std::string& name) -> const Tensor& {
    for (const Node& n : gr.nodes()) {
      if (n.name == name) return *n.constant;
    }
    ADD_FAILURE() << name;
    static const Tensor kNone(TensorType(DType::kInt32, {}));
    return kNone;
  };
  const Tensor& d = constant(*g, "d");
  EXPECT_EQ(d.GetValue(0), 0.1);
  EXPECT_EQ(d.GetValue(1), 1e-310);
  EXPECT_EQ(d.GetValue(2), -123456789.123456789);
  uint64_t u[3];
  std::memcpy(u, constant(*g, "u").bytes().data(), sizeof(u));
  EXPECT_EQ(u[0], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(u[1], 9007199254740993u);  // 2^53 + 1: not a double
  EXPECT_EQ(constant(*g, "w").GetValue(0), 4294967295.0);
  EXPECT_EQ(constant(*g, "b").GetValue(0), 1.5);
  EXPECT_EQ(constant(*g, "b").GetValue(1), -std::numeric_limits<double>::infinity());

  absl::StatusOr<std::string> json = GraphToJsonString(*g);
  ASSERT_TRUE(json.ok()) << json.status();
  absl::StatusOr<Graph> back = ParseGraphJson(*json, "back.json", "");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << *json;
  for (const char* name : {"d", "u", "w", "b"}) {
    EXPECT_EQ(constant(*g, name), constant(*back, name)) << name << "\n" << *json;
  }
  EXPECT_NE(json->find("18446744073709551615"), std::string::npos) << *json;
}

TEST(DTypes, GraphJsonChecksTheNewRanges) {
  auto parse = [](const std::string& dtype, const std::string& data) {
    return ParseGraphJson(
        R"({"format": "egret-graph", "version": 1, "nodes": [{"name": "c", "op": "$Const", "outputs": [{"dtype": ")" +
            dtype + R"(", "shape": [1]}], "data": [)" + data + R"(]}], "outputs": ["c"]})",
        "t.json", "");
  };
  EXPECT_TRUE(parse("UInt32", "4294967295").ok());
  EXPECT_FALSE(parse("UInt32", "4294967296").ok());
  EXPECT_FALSE(parse("UInt32", "-1").ok());
  EXPECT_FALSE(parse("UInt64", "-1").ok());
  EXPECT_FALSE(parse("UInt64", "1.5").ok());
  EXPECT_TRUE(parse("BFloat16", "3e38").ok());
  EXPECT_FALSE(parse("BFloat16", "3.4e38").ok());  // rounds to infinity
  EXPECT_TRUE(parse("Float64", "1e300").ok());
}

}  // namespace
}  // namespace egret
