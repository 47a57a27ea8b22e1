// The reference executor's data-movement ops against hand-computed values:
// reshape, transpose, concat, slices, split and pad; pooling and resizing;
// quantization, casts and float16.
#include "tests/executor/kernels_test_util.h"

namespace egret {
namespace {

// ---------------------------------------------------------------------------
// Data movement.

TEST(ShapeOps, ReshapeAndTranspose) {
  Dims d;
  GraphBuilder r;
  EXPECT_THAT(RunOp(r, r.Op("Reshape", {r.F32({2, 3}, Iota(6)), r.Shape({3, 2})}), &d),
              ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_EQ(d, (Dims{3, 2}));
  GraphBuilder t;
  EXPECT_THAT(RunOp(t, t.Op("Transpose", {t.F32({2, 3}, Iota(6)), t.Shape({1, 0})})),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // [2,1,3] -> perm [2,0,1] -> [3,2,1]: out[k][i][0] = in[i][0][k].
  GraphBuilder u;
  EXPECT_THAT(RunOp(u, u.Op("Transpose", {u.F32({2, 1, 3}, Iota(6)), u.Ints({2, 0, 1})}), &d),
              ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_EQ(d, (Dims{3, 2, 1}));
}

TEST(ShapeOps, Concat) {
  GraphBuilder b;
  EXPECT_THAT(
      RunOp(b, b.Op("Concat", {b.Int(1), b.F32({2, 1}, {1, 2}), b.F32({2, 2}, {3, 4, 5, 6})})),
      ElementsAre(1, 3, 4, 2, 5, 6));
  GraphBuilder c;
  EXPECT_THAT(RunOp(c, c.Op("Concat", {c.Shape({0}), c.F32({1, 2}, {1, 2}), c.F32({1, 2}, {3, 4}),
                                       c.F32({1, 2}, {5, 6})})),
              ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(ShapeOps, Slices) {
  GraphBuilder s;
  EXPECT_THAT(
      RunOp(s, s.Op("Slice_shape", {s.F32({3, 3}, Iota(9)), s.Shape({1, 1}), s.Shape({2, 2})})),
      ElementsAre(5, 6, 8, 9));
  GraphBuilder t;  // rows 0, 2; columns 3, 1
  EXPECT_THAT(RunOp(t, t.Op("StridedSlice", {t.F32({3, 4}, Iota(12, 0)), t.Ints({0, 3}),
                                             t.Ints({3, -100}), t.Ints({2, -2})})),
              ElementsAre(3, 1, 11, 9));
  GraphBuilder u;  // x[-2:, :2]
  EXPECT_THAT(RunOp(u, u.Op("StridedSlice", {u.F32({3, 4}, Iota(12, 0)), u.Ints({-2, 0}),
                                             u.Ints({2147483647, 2}), u.Ints({1, 1})})),
              ElementsAre(4, 5, 8, 9));
}

TEST(ShapeOps, SplitIntoSeveralOutputs) {
  GraphBuilder b;
  NodeId s = b.OpNode("Split", {b.F32({2, 3}, Iota(6)), b.Int(1), b.Shape({1, 2})});
  ASSERT_EQ(b.graph().node(s).outputs.size(), 2u);
  b.Output({s, 0});
  b.Output({s, 1});
  Dims d;
  EXPECT_THAT(RunGraph(b, {}, &d, 0), ElementsAre(1, 4));
  EXPECT_EQ(d, (Dims{2, 1}));
  EXPECT_THAT(RunGraph(b, {}, &d, 1), ElementsAre(2, 3, 5, 6));
}

TEST(ShapeOps, SplitAsMultiWithOut) {
  GraphBuilder b;
  ValueRef multi = b.Op("Split", {b.F32({4}, Iota(4)), b.Int(0), b.Ints({1, 3})},
                        {TensorType(DType::kMulti, {})});
  ValueRef second = b.Op("$Out", {multi, b.Shape({0, 0, 2, 1})});
  ValueRef first = b.Op("$Out", {multi, b.Shape({0, 0, 2, 0})});
  b.Output(b.Op("Relu", {second}));
  b.Output(first);
  EXPECT_THAT(RunGraph(b, {}, nullptr, 0), ElementsAre(2, 3, 4));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(1));
}

TEST(ShapeOps, PadModes) {
  auto pad = [](int64_t mode, double value) {
    GraphBuilder b;
    return RunOp(b, b.Op("Pad", {b.F32({2, 3}, Iota(6)), b.Shape({0, 0, 2, 1}), b.Int(mode),
                                 b.Scalar(value)}));
  };
  EXPECT_THAT(pad(0, 9), ElementsAre(9, 9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9));
  EXPECT_THAT(pad(1, 0), ElementsAre(2, 1, 1, 2, 3, 3, 5, 4, 4, 5, 6, 6));
  EXPECT_THAT(pad(2, 0), ElementsAre(3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5));
  EXPECT_THAT(pad(3, 0), ElementsAre(1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6));
  GraphBuilder b;  // defaults: constant 0; pads on both dims
  Dims d;
  EXPECT_THAT(RunOp(b, b.Op("Pad", {b.F32({1, 2}, {1, 2}), b.Ints({1, 0, 0, 1})}), &d),
              ElementsAre(0, 0, 0, 1, 2, 0));
  EXPECT_EQ(d, (Dims{2, 3}));
}

// ---------------------------------------------------------------------------
// Pooling and resizing.

std::vector<double> Pool(const std::string& op, Dims window, Dims stride, Dims pads,
                         int count_pad = -1) {
  GraphBuilder b;
  std::vector<ValueRef> in = {b.F32({1, 3, 3, 1}, Iota(9)), b.Shape(window), b.Shape(stride),
                              b.Shape(pads)};
  if (count_pad >= 0) in.push_back(b.Int(count_pad));
  return RunOp(b, b.Op(op, in));
}

TEST(Pool, Max) {
  EXPECT_THAT(Pool("PoolMax2d", {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}), ElementsAre(5, 6, 8, 9));
  EXPECT_THAT(Pool("PoolMax2d", {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}), ElementsAre(5, 6, 8, 9));
}

TEST(Pool, AverageExcludesOrCountsPadding) {
  EXPECT_THAT(Pool("PoolAvg2d", {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}), ElementsAre(3, 4, 6, 7));
  EXPECT_THAT(Pool("PoolAvg2d", {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}), ElementsAre(3, 4, 6, 7));
  EXPECT_THAT(Pool("PoolAvg2d", {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, 1),
              Near({12.0 / 9, 16.0 / 9, 24.0 / 9, 28.0 / 9}));
  EXPECT_THAT(Pool("PoolAvg2d", {1, 3, 3, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}), ElementsAre(5));
}

std::vector<double> Resize(Dims in_dims, std::vector<double> x, Dims size, int mode,
                           std::vector<int> extra = {}) {
  GraphBuilder b;
  std::vector<ValueRef> in = {b.F32(std::move(in_dims), std::move(x)), b.Shape(std::move(size)),
                              b.Int(mode)};
  for (int e : extra) in.push_back(b.Int(e));
  return RunOp(b, b.Op("Resize", in));
}

TEST(Resize, Nearest) {
  EXPECT_THAT(Resize({1, 2, 2, 1}, {1, 2, 3, 4}, {1, 4, 4, 1}, 0),
              ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
  // Downsampling 4 -> 2: half_pixel sources are 0.5 and 2.5.
  EXPECT_THAT(Resize({1, 1, 4, 1}, {1, 2, 3, 4}, {1, 1, 2, 1}, 0), ElementsAre(1, 3));
  EXPECT_THAT(Resize({1, 1, 4, 1}, {1, 2, 3, 4}, {1, 1, 2, 1}, 0, {0, 1}), ElementsAre(2, 4));
  // Asymmetric + floor (ONNX Upsample): 2 -> 3 sources 0, 0.67, 1.33.
  EXPECT_THAT(Resize({1, 1, 2, 1}, {1, 2}, {1, 1, 3, 1}, 0, {2, 2}), ElementsAre(1, 1, 2));
}

TEST(Resize, Bilinear) {
  EXPECT_THAT(Resize({1, 1, 2, 1}, {0, 10}, {1, 1, 4, 1}, 1), Near({0, 2.5, 7.5, 10}));
  EXPECT_THAT(Resize({1, 1, 2, 1}, {0, 10}, {1, 1, 4, 1}, 1, {1}),
              Near({0, 10.0 / 3, 20.0 / 3, 10}));
  EXPECT_THAT(Resize({1, 2, 2, 1}, {0, 10, 20, 30}, {1, 3, 3, 1}, 1, {1}),
              Near({0, 5, 10, 10, 15, 20, 20, 25, 30}));
  GraphBuilder b;  // the QNN-named variant, two channels
  EXPECT_THAT(RunOp(b, b.Op("ResizeBilinear",
                            {b.F32({1, 1, 2, 2}, {0, 1, 10, 2}), b.Shape({1, 1, 3, 2}), b.Int(1)})),
              Near({0, 1, 5, 1.5, 10, 2}));
}

// ---------------------------------------------------------------------------
// Types and quantization.

TEST(Quantization, QuantizeDequantizeRoundTrip) {
  const TensorType q8(DType::kQUInt8, {5}, 128, 1.0f / 128);
  GraphBuilder b;
  ValueRef x = b.F32({5}, {-1, 0, 0.5, 1.0, 2.0});
  ValueRef q = b.Op("Quantize", {x}, {q8});
  b.Output(q);
  b.Output(b.Op("Dequantize", {q}));
  auto out = Execute(b.graph(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> stored;
  for (int i = 0; i < 5; ++i) stored.push_back((*out)[0].GetValue(i));
  EXPECT_THAT(stored, ElementsAre(0, 128, 192, 255, 255));
  EXPECT_EQ((*out)[1].type(), TensorType(DType::kFloat32, {5}));
  std::vector<double> back;
  for (int i = 0; i < 5; ++i) back.push_back((*out)[1].GetReal(i));
  EXPECT_THAT(back, ElementsAre(-1, 0, 0.5, 0.9921875, 0.9921875));
}

TEST(Quantization, QuantizedAddRequantizes) {
  GraphBuilder b;
  ValueRef a = b.Const(TensorType(DType::kQUInt8, {2}, 0, 0.5f), {2, 4});      // 1, 2
  ValueRef c = b.Const(TensorType(DType::kQUInt8, {2}, 10, 0.25f), {14, 18});  // 1, 2
  ValueRef y = b.Op("ElementWiseAdd", {a, c}, {TensorType(DType::kQUInt8, {}, 5, 0.1f)});
  b.Output(y);
  auto out = Execute(b.graph(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].type(), TensorType(DType::kQUInt8, {2}, 5, 0.1f));
  EXPECT_EQ((*out)[0].GetValue(0), 25);  // 2.0 / 0.1 + 5
  EXPECT_EQ((*out)[0].GetValue(1), 45);  // 4.0 / 0.1 + 5
}

TEST(Quantization, QuantizedConvUsesRealValues) {
  // QUInt8 input (z=10, s=0.5) storage [12, 14] = reals [1, 2]; QInt32 bias.
  GraphBuilder b;
  auto y = b.Op("Conv2d",
                {b.Const(TensorType(DType::kQUInt8, {1, 1, 2, 1}, 10, 0.5f), {12, 14}),
                 b.Const(TensorType(DType::kQUInt8, {1, 1, 1, 1}, 0, 0.25f), {8}),  // 2
                 b.Const(TensorType(DType::kQInt32, {1}, 0, 0.125f), {8}),          // 1
                 b.Shape({1, 1, 1, 1}), b.Shape({0, 0, 0, 0})},
                {TensorType(DType::kQUInt8, {}, 0, 0.5f)});
  b.Output(y);
  auto out = Execute(b.graph(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].GetValue(0), 6);   // (1*2 + 1) / 0.5
  EXPECT_EQ((*out)[0].GetValue(1), 10);  // (2*2 + 1) / 0.5
}

TEST(Cast, TruncatesToIntegersAndTestsBool) {
  GraphBuilder b;
  ValueRef x = b.F32({3}, {1.7, -1.7, 0});
  b.Output(b.Op("Cast", {x}, {TensorType(DType::kInt32, {})}));
  b.Output(b.Op("Cast", {x}, {TensorType(DType::kBool, {})}));
  b.Output(b.Op("Cast", {b.Ints({3, -2})}, {TensorType(DType::kFloat16, {})}));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 0), ElementsAre(1, -1, 0));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 1), ElementsAre(1, 1, 0));
  EXPECT_THAT(RunGraph(b, {}, nullptr, 2), ElementsAre(3, -2));
}

TEST(Float16, ComputedThroughFloat) {
  GraphBuilder b;
  ValueRef x = b.Input(TensorType(DType::kFloat16, {3}));
  b.Output(b.Op("ElementWiseMultiply", {x, x}));
  Dims d;
  EXPECT_THAT(RunGraph(b, {{-1.5, 0.25, 3}}, &d), ElementsAre(2.25, 0.0625, 9));
}

}  // namespace
}  // namespace egret
