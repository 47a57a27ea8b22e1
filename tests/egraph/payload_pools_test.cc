// The constant pool: equal content gives one payload, different content
// different ones, also when their hashes collide.
#include "egret/egraph/payload_pools.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace egret {
namespace {

ConstTensorPtr Floats(std::vector<double> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return std::make_shared<const Tensor>(
      Tensor::FromValues(TensorType(DType::kFloat32, {n}), std::move(v)));
}

void ExpectInterning(ConstantPool& pool) {
  // 300 distinct constants, each interned twice (the second time as a
  // separate tensor of equal content), in two interleaved orders.
  std::vector<Payload> first;
  for (int i = 0; i < 300; ++i) first.push_back(pool.Intern(Floats({1.0 * i, 2.0})));
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(pool.Intern(Floats({1.0 * i, 2.0})), first[i]) << i;
    EXPECT_EQ(pool.Get(first[i])->bytes().size(), 8u);
  }
  for (int i = 0; i < 300; ++i) {
    for (int j = i + 1; j < 300; j += 37) EXPECT_NE(first[i], first[j]) << i << " " << j;
  }
  EXPECT_EQ(pool.size(), 300u);
  // The same data under another type is another constant.
  const Payload ints = pool.Intern(std::make_shared<const Tensor>(
      Tensor::FromValues(TensorType(DType::kInt32, {2}), {0.0, 2.0})));
  EXPECT_NE(ints, first[0]);
  EXPECT_EQ(pool.size(), 301u);
}

TEST(ConstantPoolTest, EqualContentOnePayload) {
  ConstantPool pool;
  ExpectInterning(pool);
}

TEST(ConstantPoolTest, CollidingHashesStayApart) {
  // Three hashes for every constant: chains of about a hundred.
  ConstantPool pool([](const Tensor& t) { return ConstantPool::ContentHash(t) % 3; });
  ExpectInterning(pool);
}

}  // namespace
}  // namespace egret
