// PairTable (egraph/pair_table.h) against std::map under random inserts and
// erases, including runs that wrap around the end of the table.
#include "egret/egraph/pair_table.h"

#include <map>
#include <random>
#include <utility>

#include "gtest/gtest.h"

namespace egret {
namespace {

TEST(PairTableTest, FindInsertEraseMatchAMap) {
  std::mt19937 rng(7);
  PairTable t;
  std::map<std::pair<Id, Id>, Id> m;
  for (int step = 0; step < 200000; ++step) {
    // Few distinct keys, so that inserts hit, erases find and runs collide.
    const Id a = rng() % 64, b = rng() % 64;
    const int op = static_cast<int>(rng() % 3);
    auto it = m.find({a, b});
    if (op == 0) {
      const Id v = static_cast<Id>(step);
      const Id got = t.Insert(a, b, v);
      if (it == m.end()) {
        EXPECT_EQ(got, kNoId);
        m[{a, b}] = v;
      } else {
        EXPECT_EQ(got, it->second);
      }
    } else if (op == 1) {
      EXPECT_EQ(t.Erase(a, b), it != m.end());
      if (it != m.end()) m.erase(it);
    } else {
      EXPECT_EQ(t.Find(a, b), it == m.end() ? kNoId : it->second);
    }
    ASSERT_EQ(t.size(), m.size());
  }
  for (const auto& [k, v] : m) EXPECT_EQ(t.Find(k.first, k.second), v);
}

TEST(PairTableTest, GrowsAndKeepsEverything) {
  PairTable t;
  EXPECT_EQ(t.Find(1, 2), kNoId);
  EXPECT_FALSE(t.Erase(1, 2));
  for (Id i = 0; i < 10000; ++i) EXPECT_EQ(t.Insert(i, i * 7, i + 1), kNoId);
  EXPECT_EQ(t.size(), 10000u);
  EXPECT_LE(t.size() * 4, t.capacity() * 3);
  for (Id i = 0; i < 10000; ++i) EXPECT_EQ(t.Find(i, i * 7), i + 1);
  for (Id i = 0; i < 10000; i += 2) EXPECT_TRUE(t.Erase(i, i * 7));
  for (Id i = 0; i < 10000; ++i) EXPECT_EQ(t.Find(i, i * 7), i % 2 ? i + 1 : kNoId);
}

}  // namespace
}  // namespace egret
