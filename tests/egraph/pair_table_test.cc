// PairTable (egraph/pair_table.h) against std::map under random inserts and
// erases, including runs that wrap around the end of the table, in both slot
// forms (narrow 21-bit ids, and wide after a large id).
#include "egret/egraph/pair_table.h"

#include <map>
#include <random>
#include <utility>

#include "gtest/gtest.h"

namespace egret {
namespace {

// Random operations on keys below 64 (plus `key_base`), so that inserts hit,
// erases find and runs collide; values from step `large_from` on are
// beyond the narrow form.
void RunAgainstAMap(Id key_base, int large_from) {
  std::mt19937 rng(7);
  PairTable t;
  std::map<std::pair<Id, Id>, Id> m;
  for (int step = 0; step < 200000; ++step) {
    const Id a = key_base + rng() % 64, b = key_base + rng() % 64;
    const int op = static_cast<int>(rng() % 3);
    auto it = m.find({a, b});
    if (op == 0) {
      const Id v = static_cast<Id>(step) + (step >= large_from ? PairTable::kNarrowLimit : 0);
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
  EXPECT_EQ(t.wide(), key_base + 64 > PairTable::kNarrowLimit || large_from < 200000);
}

TEST(PairTableTest, FindInsertEraseMatchAMap) { RunAgainstAMap(0, 200000); }
TEST(PairTableTest, WideFromTheStartMatchesAMap) {
  RunAgainstAMap(PairTable::kNarrowLimit - 32, 200000);
}
TEST(PairTableTest, WidenedHalfwayMatchesAMap) { RunAgainstAMap(0, 100000); }

TEST(PairTableTest, WideningKeepsEverything) {
  PairTable t;
  for (Id i = 0; i < 1000; ++i) EXPECT_EQ(t.Insert(i, i + 1, i + 2), kNoId);
  EXPECT_FALSE(t.wide());
  EXPECT_EQ(t.Find(PairTable::kNarrowLimit, 1), kNoId);
  EXPECT_FALSE(t.Erase(1, PairTable::kNarrowLimit));
  EXPECT_EQ(t.Insert(5, 5, PairTable::kNarrowLimit), kNoId);
  EXPECT_TRUE(t.wide());
  EXPECT_EQ(t.Insert(PairTable::kNarrowLimit, kNoId - 1, 3), kNoId);
  for (Id i = 0; i < 1000; ++i) EXPECT_EQ(t.Find(i, i + 1), i + 2);
  EXPECT_EQ(t.Find(5, 5), PairTable::kNarrowLimit);
  EXPECT_EQ(t.Find(PairTable::kNarrowLimit, kNoId - 1), 3u);
  EXPECT_EQ(t.size(), 1002u);
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
