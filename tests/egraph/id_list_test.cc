// IdList (egraph/id_list.h) against std::vector under random appends,
// truncations and releases, and its move semantics.
#include "egret/egraph/id_list.h"

#include <algorithm>
#include <bit>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace egret {
namespace {

void ExpectSame(const IdList& l, const std::vector<uint32_t>& v) {
  ASSERT_EQ(l.size(), v.size());
  EXPECT_EQ(l.empty(), v.empty());
  EXPECT_GE(l.capacity(), l.size());
  // A power of two entries, at least 2, whenever there is a block.
  if (l.capacity() != 0) {
    EXPECT_TRUE(std::has_single_bit(l.capacity())) << l.capacity();
    EXPECT_GE(l.capacity(), 2u);
  }
  EXPECT_TRUE(std::equal(l.begin(), l.end(), v.begin(), v.end()));
  EXPECT_EQ(l.span(), absl::Span<const uint32_t>(v));
}

TEST(IdListTest, RandomOperationsMatchAVector) {
  std::mt19937 rng(11);
  IdList l;
  std::vector<uint32_t> v;
  for (int step = 0; step < 20000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      const uint32_t x = rng();
      l.push_back(x);
      v.push_back(x);
    } else if (op < 8) {
      std::vector<uint32_t> more(rng() % 40);
      for (uint32_t& x : more) x = rng();
      l.Append(more);
      v.insert(v.end(), more.begin(), more.end());
    } else if (op == 8 && !v.empty()) {
      const size_t keep = rng() % (v.size() + 1);
      l.Truncate(l.begin() + keep);
      v.resize(keep);
    } else if (rng() % 50 == 0) {
      l.Release();
      v.clear();
      EXPECT_EQ(l.capacity(), 0u);
    }
    ExpectSame(l, v);
  }
}

TEST(IdListTest, OneIdTakesEightBytes) {
  IdList l;
  l.push_back(3);
  EXPECT_EQ(l.capacity(), 2u);
  l.push_back(4);
  l.push_back(5);
  EXPECT_EQ(l.capacity(), 4u);
  std::vector<uint32_t> many(37, 1);
  l.Append(many);
  EXPECT_EQ(l.capacity(), 64u);
}

TEST(IdListTest, SortAndUniqueThroughPointers) {
  IdList l;
  for (uint32_t x : {5u, 3u, 5u, 1u, 3u}) l.push_back(x);
  std::sort(l.begin(), l.end());
  l.Truncate(std::unique(l.begin(), l.end()));
  ExpectSame(l, {1, 3, 5});
  EXPECT_EQ(l.front(), 1u);
  EXPECT_EQ(l.back(), 5u);
  l[1] = 4;
  EXPECT_EQ(l[1], 4u);
}

TEST(IdListTest, MoveLeavesTheSourceEmpty) {
  IdList a;
  for (uint32_t i = 0; i < 100; ++i) a.push_back(i);
  IdList b(std::move(a));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(a.capacity(), 0u);
  EXPECT_EQ(b.size(), 100u);
  IdList c;
  c.push_back(7);
  c = std::move(b);
  EXPECT_EQ(c.size(), 100u);
  EXPECT_EQ(c[99], 99u);
  // A vector of lists relocates them on growth without copying the ids.
  std::vector<IdList> lists;
  for (uint32_t i = 0; i < 50; ++i) {
    lists.emplace_back();
    for (uint32_t k = 0; k <= i; ++k) lists.back().push_back(i * 1000 + k);
  }
  for (uint32_t i = 0; i < 50; ++i) {
    ASSERT_EQ(lists[i].size(), i + 1);
    EXPECT_EQ(lists[i].back(), i * 1000 + i);
  }
}

}  // namespace
}  // namespace egret
