// The checked shape arithmetic and the one element cap (graph/checked_math.h),
// and that shape inference and TensorType use them.
#include "egret/graph/checked_math.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "egret/graph/shape_inference.h"
#include "egret/graph/tensor.h"
#include "egret/graph/tensor_type.h"

namespace egret {
namespace {

using ::testing::HasSubstr;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k2p32 = int64_t{1} << 32;

TEST(CheckedMath, SaturatesInsteadOfWrapping) {
  EXPECT_EQ(SaturatingMul(k2p32, k2p32), kMax);
  EXPECT_EQ(SaturatingMul(-k2p32, k2p32), kMin);
  EXPECT_EQ(SaturatingMul(6, 7), 42);
  EXPECT_EQ(SaturatingAdd(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, -1), kMin);
  EXPECT_EQ(SaturatingSub(kMin, 1), kMin);
  EXPECT_EQ(SaturatingSub(0, kMin), kMax);
  int64_t r = 0;
  EXPECT_FALSE(CheckedMul(k2p32, k2p32, &r));
  EXPECT_TRUE(CheckedAdd(40, 2, &r));
  EXPECT_EQ(r, 42);
}

TEST(CheckedMath, ZeroElementsIsNeverTooLarge) {
  EXPECT_EQ(ElementCount({k2p32, k2p32, 0}), 0);
  EXPECT_TRUE(CheckShape({k2p32, k2p32, 0}).ok());
  EXPECT_EQ(TensorType(DType::kFloat32, {k2p32, k2p32, 0}).num_elements(), 0);
}

TEST(CheckedMath, CapsElementsAndDims) {
  EXPECT_EQ(ElementCount({kMaxElements}), kMaxElements);
  EXPECT_EQ(ElementCount({kMaxElements, 2}), std::nullopt);
  EXPECT_EQ(ElementCount({k2p32, k2p32, 4}), std::nullopt);  // wraps to 0 unchecked
  EXPECT_EQ(ElementCount({kMaxElements + 1, 0}), std::nullopt);
  EXPECT_EQ(ElementCount({-1}), std::nullopt);
  EXPECT_EQ(CheckShape({k2p32, k2p32, 4}).message(),
            "shape [4294967296,4294967296,4] has more than 2^56 elements");
  EXPECT_EQ(CheckShape({3, -1}).message(), "shape [3,-1] has a negative dim");
  EXPECT_THAT(std::string(CheckShape({kMax, 0}).message()), HasSubstr("has a dim above 2^56"));
}

TEST(CheckedMath, NumElementsAndByteSizeSaturate) {
  TensorType t(DType::kFloat32, {3037000500, 3037000500, 4});  // never validated
  EXPECT_EQ(t.num_elements(), kMax);
  EXPECT_EQ(t.byte_size(), kMax);
  EXPECT_EQ(TensorType(DType::kFloat32, {2, 3}).byte_size(), 24);
}

TEST(CheckedMath, DoubleToInt64RejectsOutOfRange) {
  EXPECT_EQ(DoubleToInt64(3.7), 3);
  EXPECT_EQ(DoubleToInt64(1e300), std::nullopt);
  EXPECT_EQ(DoubleToInt64(std::numeric_limits<double>::quiet_NaN()), std::nullopt);
  EXPECT_EQ(DoubleToInt64(-1, 0, 10), std::nullopt);
}

// A Tile whose multiples overflow int64 is an error of the node, not a
// wrapped (small or negative) shape.
TEST(CheckedMath, ShapeInferenceRejectsOverflowingOutputs) {
  TensorType x(DType::kFloat32, {k2p32, 1});
  Tensor multiples =
      Tensor::FromValues(TensorType(DType::kInt32, {2}), std::vector<double>{1, 1 << 30});
  TensorType mt = multiples.type();
  OperandInfo ops[2];
  ops[0].type = &x;
  ops[1].type = &mt;
  ops[1].value = &multiples;
  absl::StatusOr<std::vector<TensorType>> out = InferOutputTypes("Tile", ops, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "Tile: output 0: shape [4294967296,1073741824] has more than 2^56 elements");
  // Just below the cap it is fine.
  TensorType small(DType::kFloat32, {int64_t{1} << 26, 1});
  ops[0].type = &small;
  out = InferOutputTypes("Tile", ops, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].num_elements(), int64_t{1} << 56);
}

}  // namespace
}  // namespace egret
