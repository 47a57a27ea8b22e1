// UniqueNames: every name it gives is distinct, a wanted name is kept when no
// earlier name is the same, and fresh names count up as documented.
#include "egret/backend/unique_names.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"

namespace egret {
namespace {

std::vector<std::string> Names(const std::vector<std::string_view>& wanted) {
  return UniqueNames(wanted);
}

// What Assign documents, one name at a time over an ordered set.
std::vector<std::string> Model(const std::vector<std::string_view>& wanted) {
  std::set<std::string, std::less<>> taken;
  std::vector<std::string> out;
  int fresh = 0;
  for (std::string_view w : wanted) {
    std::string name(w);
    if (w.empty() || taken.count(w) > 0) {
      do {
        name = (w.empty() ? std::string("n") : std::string(w) + "_") + std::to_string(fresh++);
      } while (taken.count(name) > 0);
    }
    taken.insert(name);
    out.push_back(name);
  }
  return out;
}

TEST(UniqueNames, DistinctNamesAreKept) {
  EXPECT_EQ(Names({"conv", "relu", "add"}), (std::vector<std::string>{"conv", "relu", "add"}));
}

TEST(UniqueNames, TheFirstOfEqualNamesKeepsIt) {
  EXPECT_EQ(Names({"a", "b", "a", "a"}), (std::vector<std::string>{"a", "b", "a_0", "a_1"}));
}

TEST(UniqueNames, EmptyNamesGetFreshOnesFromTheSameCount) {
  EXPECT_EQ(Names({"", "a", "a", ""}), (std::vector<std::string>{"n0", "a", "a_1", "n2"}));
}

TEST(UniqueNames, AFreshNameSkipsWhatIsTakenAndALaterWantedOneGivesWay) {
  // "n0" is taken when the empty name asks; "a_0" was made fresh before
  // anyone wanted it.
  EXPECT_EQ(Names({"n0", "", "a", "a", "a_0"}),
            (std::vector<std::string>{"n0", "n1", "a", "a_2", "a_0"}));
  EXPECT_EQ(Names({"a", "a", "a_0"}), (std::vector<std::string>{"a", "a_0", "a_0_1"}));
}

TEST(UniqueNames, AWantedNameThatAnEarlierFreshNameTookGivesWay) {
  EXPECT_EQ(Names({"", "n0", "n0"}), (std::vector<std::string>{"n0", "n0_1", "n0_2"}));
  EXPECT_EQ(Names({"a", "a", "", "a_0", "n1"}),
            (std::vector<std::string>{"a", "a_0", "n1", "a_0_2", "n1_3"}));
}

TEST(UniqueNames, ManyNamesAsTheModelSays) {
  // Past the prefetch window and several rehashes, with repeats, empty names
  // and names of the fresh form.
  std::mt19937 rng(7);
  std::vector<std::string> pool;
  for (int i = 0; i < 20000; ++i) {
    switch (rng() % 5) {
      case 0:
        pool.push_back("");
        break;
      case 1:
        pool.push_back(absl::StrCat("n", rng() % 50));
        break;
      case 2:
        pool.push_back(absl::StrCat("layer", rng() % 300, "_", rng() % 20));
        break;
      default:
        pool.push_back(absl::StrCat("/block", i, "/MatMul"));
    }
  }
  const std::vector<std::string_view> wanted(pool.begin(), pool.end());
  const std::vector<std::string> got = Names(wanted);
  EXPECT_EQ(got, Model(wanted));
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), got.size());
}

}  // namespace
}  // namespace egret
