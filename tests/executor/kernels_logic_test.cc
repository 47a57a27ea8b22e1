// The reference executor's comparison, logic, selection, indexing and scan
// ops against hand-computed values: comparisons into bool, bool ops, Select,
// Tile, Gather, Argmax/Argmin, TopK and CumulativeSum.
#include "tests/executor/kernels_test_util.h"

namespace egret {
namespace {

// ---------------------------------------------------------------------------
// Comparison, logic and selection.

ValueRef Bools(GraphBuilder& b, Dims d, std::vector<double> v) {
  return b.Const(TensorType(DType::kBool, std::move(d)), std::move(v));
}

// An Int64 constant built from its bytes (values above 2^53 are exact).
ValueRef I64(GraphBuilder& b, Dims d, const std::vector<int64_t>& v) {
  std::vector<uint8_t> bytes(v.size() * 8);
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  auto t = Tensor::FromBytes(TensorType(DType::kInt64, std::move(d)), bytes);
  EXPECT_TRUE(t.ok()) << t.status();
  return {b.graph().AddConstant("", std::make_shared<Tensor>(*std::move(t))), 0};
}

std::vector<int64_t> Int64s(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  if (!v.empty()) std::memcpy(v.data(), t.bytes().data(), v.size() * 8);
  return v;
}

TEST(Logic, ComparisonsBroadcastIntoBool) {
  const std::vector<double> a = {1, 2, 3, 3, 2, 1};
  const std::vector<double> b = {2, 2, 2};
  Dims d;
  EXPECT_THAT(BinaryOp("ElementWiseEqual", {2, 3}, a, {3}, b, &d), ElementsAre(0, 1, 0, 0, 1, 0));
  EXPECT_EQ(d, (Dims{2, 3}));
  EXPECT_THAT(BinaryOp("ElementWiseNotEqual", {2, 3}, a, {3}, b), ElementsAre(1, 0, 1, 1, 0, 1));
  EXPECT_THAT(BinaryOp("ElementWiseLess", {2, 3}, a, {3}, b), ElementsAre(1, 0, 0, 0, 0, 1));
  EXPECT_THAT(BinaryOp("ElementWiseLessEqual", {2, 3}, a, {3}, b), ElementsAre(1, 1, 0, 0, 1, 1));
  EXPECT_THAT(BinaryOp("ElementWiseGreater", {2, 3}, a, {3}, b), ElementsAre(0, 0, 1, 1, 0, 0));
  EXPECT_THAT(BinaryOp("ElementWiseGreaterEqual", {2, 3}, a, {3}, b),
              ElementsAre(0, 1, 1, 1, 1, 0));
  GraphBuilder g;
  ValueRef eq = g.Op("ElementWiseLess", {g.F32({2, 1}, {1, 2}), g.F32({3}, {0, 1, 2})});
  EXPECT_EQ(g.graph().TypeOf(eq), TensorType(DType::kBool, {2, 3}));
}

TEST(Logic, NanComparesUnequalToEverything) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"ElementWiseEqual", "ElementWiseLess", "ElementWiseLessEqual",
                         "ElementWiseGreater", "ElementWiseGreaterEqual"}) {
    EXPECT_THAT(BinaryOp(op, {2}, {nan, 1}, {1}, {nan}), ElementsAre(0, 0)) << op;
  }
  EXPECT_THAT(BinaryOp("ElementWiseNotEqual", {2}, {nan, 1}, {1}, {nan}), ElementsAre(1, 1));
}

TEST(Logic, Int64ComparesExactlyAbove2To53) {
  GraphBuilder b;
  const int64_t big = (int64_t{1} << 53) + 1;
  ValueRef x = I64(b, {2}, {big, big - 1});
  ValueRef y = I64(b, {}, {big - 1});
  b.Output(b.Op("ElementWiseEqual", {x, y}));
  b.Output(b.Op("ElementWiseGreater", {x, y}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 0), ElementsAre(0, 1));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(1, 0));
}

TEST(Logic, BoolOps) {
  GraphBuilder b;
  ValueRef x = Bools(b, {2, 2}, {0, 0, 1, 1});
  ValueRef y = Bools(b, {2}, {0, 1});
  b.Output(b.Op("ElementWiseAnd", {x, y}));
  b.Output(b.Op("ElementWiseOr", {x, y}));
  b.Output(b.Op("ElementWiseXor", {x, y}));
  b.Output(b.Op("ElementWiseNot", {x}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 0), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(0, 1, 1, 1));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 2), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 3), ElementsAre(1, 1, 0, 0));
}

TEST(Logic, BoolOpsRejectOtherTypes) {
  TensorType f(DType::kFloat32, {2}), t(DType::kBool, {2});
  std::vector<OperandInfo> ops(2);
  ops[0].type = &f;
  ops[1].type = &t;
  auto r = InferOutputTypes("ElementWiseAnd", ops);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("a must be Bool"));
  EXPECT_FALSE(InferOutputTypes("ElementWiseNot", {&ops[0], 1}).ok());
  // A declared output of a comparison must be Bool.
  std::vector<TensorType> declared = {TensorType(DType::kFloat32, {})};
  InferOptions io;
  io.declared = declared;
  ops[1].type = &f;
  EXPECT_FALSE(InferOutputTypes("ElementWiseEqual", ops, io).ok());
}

TEST(Logic, SelectBroadcastsAllThree) {
  GraphBuilder b;
  ValueRef y = b.Op("ElementWiseSelect",
                    {Bools(b, {2, 1}, {1, 0}), b.F32({1, 3}, {1, 2, 3}), b.F32({}, {-1})});
  Dims d;
  EXPECT_THAT(RunOp(b, y, &d), ElementsAre(1, 2, 3, -1, -1, -1));
  EXPECT_EQ(d, (Dims{2, 3}));
}

TEST(Logic, SelectCopiesInt64Exactly) {
  GraphBuilder b;
  const int64_t big = (int64_t{1} << 60) + 7;
  ValueRef y = b.Op("ElementWiseSelect",
                    {Bools(b, {3}, {1, 0, 1}), I64(b, {3}, {big, 1, -big}), I64(b, {}, {42})});
  b.Output(y);
  auto out = Execute(b.graph(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Int64s(out->at(0)), ElementsAre(big, 42, -big));
}

// ---------------------------------------------------------------------------
// Indexing and scans.

TEST(Index, TileRepeatsEachDim) {
  GraphBuilder b;
  Dims d;
  EXPECT_THAT(RunOp(b, b.Op("Tile", {b.F32({2, 2}, {1, 2, 3, 4}), b.Shape({2, 3})}), &d),
              ElementsAre(1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,  //
                          1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4));
  EXPECT_EQ(d, (Dims{4, 6}));
}

TEST(Index, GatherAlongAxisWithNegativeAndNdIndices) {
  GraphBuilder b;
  ValueRef data = b.F32({2, 3}, {1, 2, 3, 4, 5, 6});
  ValueRef idx = b.Const(TensorType(DType::kInt64, {2, 2}), {0, -1, 1, 1});
  Dims d;
  EXPECT_THAT(RunOp(b, b.Op("Gather", {data, idx, b.Int(1)}), &d),
              ElementsAre(1, 3, 2, 2, 4, 6, 5, 5));
  EXPECT_EQ(d, (Dims{2, 2, 2}));
  GraphBuilder r;  // rows (axis 0, the default): an embedding lookup
  EXPECT_THAT(RunOp(r, r.Op("Gather", {r.F32({3, 2}, Iota(6)), r.Ints({2, 0})}), &d),
              ElementsAre(5, 6, 1, 2));
  EXPECT_EQ(d, (Dims{2, 2}));
}

TEST(Index, GatherOutOfRangeIsAnError) {
  GraphBuilder b;
  b.Output(b.Op("Gather", {b.F32({3}, {1, 2, 3}), b.Ints({3})}));
  auto out = Execute(b.graph(), {});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("index 3 is outside"));
}

TEST(Index, ArgmaxArgminFirstOrLastOfEquals) {
  auto arg = [](const char* op, int64_t axis, int64_t keep, int64_t last, Dims* d) {
    GraphBuilder b;
    ValueRef x = b.F32({2, 3}, {1, 5, 5, 7, 0, 7});
    return RunOp(b, b.Op(op, {x, b.Int(axis), b.Int(keep), b.Int(last)}), d);
  };
  Dims d;
  EXPECT_THAT(arg("Argmax", 1, 1, 0, &d), ElementsAre(1, 0));
  EXPECT_EQ(d, (Dims{2, 1}));
  EXPECT_THAT(arg("Argmax", -1, 0, 1, &d), ElementsAre(2, 2));
  EXPECT_EQ(d, (Dims{2}));
  EXPECT_THAT(arg("Argmin", 0, 0, 0, &d), ElementsAre(0, 1, 0));
  EXPECT_THAT(arg("Argmin", 1, 0, 1, &d), ElementsAre(0, 1));
  // Int32 by default; Int64 when declared.
  GraphBuilder b;
  ValueRef x = b.F32({3}, {1, 3, 2});
  ValueRef i32 = b.Op("Argmax", {x, b.Int(0)});
  ValueRef i64 = b.Op("Argmax", {x, b.Int(0)}, {TensorType(DType::kInt64, {})});
  EXPECT_EQ(b.graph().TypeOf(i32), TensorType(DType::kInt32, {1}));
  EXPECT_EQ(b.graph().TypeOf(i64), TensorType(DType::kInt64, {1}));
  EXPECT_THAT(RunOp(b, i64), ElementsAre(1));
}

TEST(Index, TopKLargestAndSmallestWithIndices) {
  GraphBuilder b;
  ValueRef x = b.F32({2, 4}, {3, 1, 4, 1, 5, 9, 2, 6});
  NodeId top = b.OpNode("TopK", {x, b.Int(2)}, {TensorType(), TensorType(DType::kInt64, {})});
  NodeId low = b.OpNode("TopK", {x, b.Int(3), b.Int(1), b.Int(0)});
  b.Output({top, 0});
  b.Output({top, 1});
  b.Output({low, 0});
  b.Output({low, 1});
  Dims d;
  EXPECT_THAT(RunGraph(b, {}, &d, 0), ElementsAre(4, 3, 9, 6));
  EXPECT_EQ(d, (Dims{2, 2}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(2, 0, 1, 3));
  EXPECT_EQ(b.graph().node(top).outputs[1].dtype, DType::kInt64);
  // Smallest first; the two 1s keep their index order.
  EXPECT_THAT(RunGraph(b, {}, nullptr, 2), ElementsAre(1, 1, 3, 2, 5, 6));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 3), ElementsAre(1, 3, 0, 2, 0, 3));
  EXPECT_EQ(b.graph().node(low).outputs[1].dtype, DType::kInt32);
}

TEST(Index, TopKAlongAxis0) {
  GraphBuilder b;
  NodeId top = b.OpNode("TopK", {b.F32({3, 2}, {1, 6, 5, 2, 3, 4}), b.Int(1), b.Int(0)});
  b.Output({top, 0});
  b.Output({top, 1});
  Dims d;
  EXPECT_THAT(RunGraph(b, {}, &d, 0), ElementsAre(5, 6));
  EXPECT_EQ(d, (Dims{1, 2}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(1, 0));
}

TEST(Index, CumulativeSumExclusiveAndReverse) {
  auto cum = [](int64_t axis, int64_t exclusive, int64_t reverse) {
    GraphBuilder b;
    ValueRef x = b.F32({2, 3}, {1, 2, 3, 4, 5, 6});
    return RunOp(b, b.Op("CumulativeSum", {x, b.Int(axis), b.Int(exclusive), b.Int(reverse)}));
  };
  EXPECT_THAT(cum(1, 0, 0), ElementsAre(1, 3, 6, 4, 9, 15));
  EXPECT_THAT(cum(1, 1, 0), ElementsAre(0, 1, 3, 0, 4, 9));
  EXPECT_THAT(cum(1, 0, 1), ElementsAre(6, 5, 3, 15, 11, 6));
  EXPECT_THAT(cum(-1, 1, 1), ElementsAre(5, 3, 0, 11, 6, 0));
  EXPECT_THAT(cum(0, 0, 0), ElementsAre(1, 2, 3, 5, 7, 9));
}

}  // namespace
}  // namespace egret
