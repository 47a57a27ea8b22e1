// OpIndex (egraph/op_index.h) against std::set per op: random appends, and
// notes of removed and added classes in the order the e-graph takes them
// (ascending) and out of it.
#include "egret/egraph/op_index.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace egret {
namespace {

TEST(OpIndexTest, MatchesASetPerOpUnderRandomNotes) {
  std::mt19937 rng(5);
  const Symbol ops[] = {Symbol::Intern("OpIndexTest.a"), Symbol::Intern("OpIndexTest.b"),
                        Symbol::Intern("OpIndexTest.c")};
  OpIndex index;
  std::map<Symbol, std::set<Id>> expected;
  Id next = 0;
  for (int update = 0; update < 300; ++update) {
    // New classes are appended above every listed one.
    for (int k = static_cast<int>(rng() % 20); k > 0; --k, ++next) {
      for (Symbol op : ops) {
        if (rng() % 2) {
          index.Append(op, next);
          expected[op].insert(next);
        }
      }
    }
    if (next == 0) continue;
    // Removals (classes merged away) and additions (lists that grew), never
    // the same class in both; ascending in most updates, as the e-graph
    // notes them, shuffled in the others.
    std::set<Id> removed;
    std::vector<std::pair<Symbol, Id>> added;
    for (int k = static_cast<int>(rng() % 30); k > 0; --k) {
      const Id c = static_cast<Id>(rng() % next);
      const Symbol op = ops[rng() % 3];
      if (rng() % 3 == 0) {
        removed.insert(c);
        index.NoteRemoved(op, c);
        for (Symbol o : ops) expected[o].erase(c);  // the class is gone
      } else {
        added.emplace_back(op, c);
      }
    }
    std::erase_if(added, [&](const auto& a) { return removed.count(a.second) > 0; });
    if (update % 4 == 0) {
      std::shuffle(added.begin(), added.end(), rng);
    } else {
      std::sort(added.begin(), added.end(),
                [](const auto& x, const auto& y) { return x.second < y.second; });
    }
    for (auto [op, c] : added) {
      index.NoteAdded(op, c);
      index.NoteAdded(op, c);  // repeats are allowed
      expected[op].insert(c);
    }
    // Removals must drop a class from every list it is on: note the rest.
    for (Id c : removed) {
      for (Symbol op : ops) index.NoteRemoved(op, c);
    }
    index.Update();
    for (Symbol op : ops) {
      const absl::Span<const Id> got = index.Get(op);
      ASSERT_EQ(std::vector<Id>(got.begin(), got.end()),
                std::vector<Id>(expected[op].begin(), expected[op].end()))
          << "op " << op.str() << " after update " << update;
    }
  }
  EXPECT_TRUE(index.Get(Symbol::Intern("OpIndexTest.none")).empty());
}

}  // namespace
}  // namespace egret
