// PairTable (egraph/pair_table.h) against std::map under random inserts and
// erases, including runs that wrap around the end of the table, in both slot
// forms (narrow 21-bit ids, and wide after a large id), in one array and
// split into shards; Prefetch, a hint, interleaved with them all.
#include "egret/egraph/pair_table.h"

#include <map>
#include <random>
#include <utility>

#include "gtest/gtest.h"

namespace egret {
namespace {

// Random operations on keys below `keys` (plus `key_base`), so that inserts
// hit, erases find and runs collide; values from step `large_from` on are
// beyond the narrow form. Inserts are `insert_weight` times as frequent as
// erases and finds.
void RunAgainstAMap(Id key_base, int large_from, Id keys = 64, int insert_weight = 1) {
  std::mt19937 rng(7);
  PairTable t;
  std::map<std::pair<Id, Id>, Id> m;
  for (int step = 0; step < 200000; ++step) {
    const Id a = key_base + rng() % keys, b = key_base + rng() % keys;
    const int r = static_cast<int>(rng() % (insert_weight + 2));
    const int op = r < insert_weight ? 0 : r - insert_weight + 1;
    // A hint, in every slot form and shard layout: it must change nothing.
    t.Prefetch(a, b);
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
  EXPECT_EQ(t.wide(), key_base + keys > PairTable::kNarrowLimit || large_from < 200000);
  EXPECT_EQ(t.sharded(), keys > 64);  // 64 x 64 keys stay below kSplitSlots
}

TEST(PairTableTest, PrefetchChangesNothing) {
  PairTable t;
  t.Prefetch(1, 2);  // no slots yet
  t.Prefetch(PairTable::kNarrowLimit + 5, 3);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.capacity(), 0u);
  EXPECT_EQ(t.Insert(1, 2, 7), kNoId);
  t.Prefetch(1, 2);
  t.Prefetch(PairTable::kNarrowLimit + 5, 3);  // past the narrow form
  EXPECT_FALSE(t.wide());
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.Find(1, 2), 7u);
  EXPECT_EQ(t.Find(2, 1), kNoId);
}

TEST(PairTableTest, FindInsertEraseMatchAMap) { RunAgainstAMap(0, 200000); }
TEST(PairTableTest, WideFromTheStartMatchesAMap) {
  RunAgainstAMap(PairTable::kNarrowLimit - 32, 200000);
}
TEST(PairTableTest, WidenedHalfwayMatchesAMap) { RunAgainstAMap(0, 100000); }

// Past kSplitSlots slots the table is split into shards (about 100k entries
// of 1024 x 1024 keys, mostly inserts).
TEST(PairTableTest, ShardedMatchesAMap) { RunAgainstAMap(0, 200000, 1024, 4); }
TEST(PairTableTest, ShardedWideFromTheStartMatchesAMap) {
  RunAgainstAMap(PairTable::kNarrowLimit - 512, 200000, 1024, 4);
}
TEST(PairTableTest, ShardedThenWidenedMatchesAMap) { RunAgainstAMap(0, 150000, 1024, 4); }

// A sharded table grows one shard at a time: each step adds a sixteenth or
// less of its capacity, and it stays at most 3/4 full.
TEST(PairTableTest, ShardsGrowInSmallSteps) {
  PairTable t;
  size_t cap = 0, steps = 0;
  for (Id i = 0; i < 200000; ++i) {
    ASSERT_EQ(t.Insert(i, i * 3 + 1, i), kNoId);
    if (t.capacity() != cap) {
      if (t.sharded() && cap > PairTable::kSplitSlots) {
        EXPECT_LE((t.capacity() - cap) * PairTable::kShards, cap * 2) << "at " << i;
        ++steps;
      }
      cap = t.capacity();
    }
    ASSERT_LE(t.size() * 4, t.capacity() * 3);
  }
  EXPECT_TRUE(t.sharded());
  EXPECT_GE(steps, PairTable::kShards);
  EXPECT_GE(t.ApproxBytes(), t.capacity() * 8);
  for (Id i = 0; i < 200000; i += 7) EXPECT_EQ(t.Find(i, i * 3 + 1), i);
  for (Id i = 0; i < 200000; i += 2) EXPECT_TRUE(t.Erase(i, i * 3 + 1));
  for (Id i = 0; i < 200000; i += 7) EXPECT_EQ(t.Find(i, i * 3 + 1), i % 2 ? i : kNoId);
  EXPECT_EQ(t.size(), 100000u);
}

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
