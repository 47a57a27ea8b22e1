// The constant pool: equal content gives one payload, different content
// different ones, also when their hashes collide; InternAll gives what
// Intern gives one value at a time.
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

// InternAll against Intern one value at a time, on two pools with the same
// history: batches with repeats inside a batch, across batches and of
// constants interned one by one before, and an empty batch.
void ExpectInternAllAsIntern(ConstantPool::HashFn hash) {
  ConstantPool batched(hash), single(hash);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(batched.Intern(Floats({1.0 * i})), single.Intern(Floats({1.0 * i})));
  }
  for (int batch = 0; batch < 4; ++batch) {
    std::vector<ConstTensorPtr> values;
    // Values 0-19 exist already; 17 * i % 64 repeats within the batch;
    // each batch reaches 16 values further.
    for (int i = 0; i < 150; ++i) values.push_back(Floats({1.0 * ((17 * i) % (64 + 16 * batch))}));
    std::vector<Payload> got = batched.InternAll(values);
    ASSERT_EQ(got.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(got[i], single.Intern(std::make_shared<const Tensor>(*values[i])))
          << batch << " " << i;
    }
    EXPECT_EQ(batched.size(), single.size()) << batch;
  }
  EXPECT_TRUE(batched.InternAll({}).empty());
}

TEST(ConstantPoolTest, InternAllGivesInternsPayloads) {
  ExpectInternAllAsIntern(&ConstantPool::ContentHash);
}

TEST(ConstantPoolTest, InternAllGivesInternsPayloadsWhenHashesCollide) {
  ExpectInternAllAsIntern([](const Tensor& t) { return ConstantPool::ContentHash(t) % 3; });
}

}  // namespace
}  // namespace egret
