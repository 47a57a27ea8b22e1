// FirstRepeatedName against a plain map of the names, on lists small and large
// enough to be partitioned, and with hashes weak enough to collide.
#include "egret/graph/repeated_names.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace egret {
namespace {

std::optional<NameRepeat> Naive(const std::vector<std::string>& names) {
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) continue;
    auto [it, inserted] = seen.emplace(names[i], i);
    if (!inserted) return NameRepeat{i, it->second};
  }
  return std::nullopt;
}

std::optional<NameRepeat> Find(const std::vector<std::string>& names) {
  return FirstRepeatedName(names.size(), [&](size_t i) { return std::string_view(names[i]); });
}

std::optional<NameRepeat> FindWith(const std::vector<std::string>& names, NameHash hash) {
  return FirstRepeatedName(
      names.size(), [&](size_t i) { return std::string_view(names[i]); }, hash);
}

TEST(RepeatedNames, SmallLists) {
  EXPECT_EQ(Find({}), std::nullopt);
  EXPECT_EQ(Find({"", "", ""}), std::nullopt);
  EXPECT_EQ(Find({"a", "b", "c"}), std::nullopt);
  // The smallest repeating index, with the name's first occurrence.
  EXPECT_EQ(Find({"a", "b", "", "b", "a", "b"}), (NameRepeat{3, 1}));
  EXPECT_EQ(Find({"a", "a", "a"}), (NameRepeat{1, 0}));
}

TEST(RepeatedNames, LargeListsAreSplitAndAnswerTheSame) {
  // 200k names: a dozen partitions. Repeats planted at random places; the
  // first in list order is not the first in any one partition's order.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<std::string> names(200000);
    for (size_t i = 0; i < names.size(); ++i) names[i] = absl::StrCat("block", i, "/conv");
    std::uniform_int_distribution<size_t> pick(0, names.size() - 1);
    for (int r = 0; r < trial; ++r) {
      size_t a = pick(rng), b = pick(rng);
      if (a != b) names[std::max(a, b)] = names[std::min(a, b)];
    }
    if (trial % 2 == 1) names[pick(rng)].clear();
    EXPECT_EQ(Find(names), Naive(names)) << "trial " << trial;
  }
}

TEST(RepeatedNames, CollidingHashesStillCompareNames) {
  // Every name hashes alike, or by its length only: the answer must not
  // depend on the hash.
  auto zero = [](std::string_view) -> uint64_t { return 0; };
  auto length = [](std::string_view s) -> uint64_t { return s.size() * 0x9E3779B97F4A7C15ull; };
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::string> names(1 + rng() % 40);
    for (std::string& n : names) {
      const int len = static_cast<int>(rng() % 3);
      for (int k = 0; k < len; ++k) n.push_back(static_cast<char>('a' + rng() % 3));
    }
    EXPECT_EQ(FindWith(names, zero), Naive(names)) << "trial " << trial;
    EXPECT_EQ(FindWith(names, length), Naive(names)) << "trial " << trial;
    EXPECT_EQ(Find(names), Naive(names)) << "trial " << trial;
  }
  // A large list under the weak hash: the collision path on a split list.
  std::vector<std::string> many(50000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = absl::StrCat("n", i);
  EXPECT_EQ(FindWith(many, length), std::nullopt);
  many[40000] = "n123";
  EXPECT_EQ(FindWith(many, length), (NameRepeat{40000, 123}));
}

}  // namespace
}  // namespace egret
