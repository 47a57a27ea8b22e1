// SortUniqueIds (egraph/id_sort.h) against std::set: random lists on both
// sides of the bitmap threshold.
#include "egret/egraph/id_sort.h"

#include <random>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace egret {
namespace {

TEST(SortUniqueIdsTest, MatchesASetOnBothSidesOfTheBitmapThreshold) {
  std::mt19937 rng(11);
  std::vector<uint64_t> bits;
  // (list length, universe): short lists (std::sort), lists long next to
  // their universe (the bitmap), and ids packed at either end of it.
  const std::pair<size_t, size_t> cases[] = {{0, 10},         {1, 10},      {63, 100},
                                             {200, 100},      {5000, 4096}, {3000, 1 << 20},
                                             {2000, 1 << 16}, {70, 64}};
  for (auto [length, universe] : cases) {
    for (int round = 0; round < 4; ++round) {
      std::vector<Id> ids;
      for (size_t i = 0; i < length; ++i) {
        Id c = static_cast<Id>(rng() % universe);
        if (round == 1) c = static_cast<Id>(universe - 1 - rng() % 70 % universe);
        if (round == 2) c = static_cast<Id>(rng() % 70 % universe);
        ids.push_back(c);
      }
      const std::set<Id> expected(ids.begin(), ids.end());
      SortUniqueIds(ids, universe, bits);
      EXPECT_EQ(ids, std::vector<Id>(expected.begin(), expected.end()))
          << "length " << length << ", universe " << universe << ", round " << round;
      for (uint64_t w : bits) ASSERT_EQ(w, 0u) << "the scratch bitmap was left dirty";
    }
  }
}

}  // namespace
}  // namespace egret
