// Random add/union sequences checked against a naive congruence closure.
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/invariants.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

// Terms with a union-find, closed under congruence by brute force.
class NaiveOracle {
 public:
  struct Term {
    std::string op;
    std::vector<int> children;
  };
  int Add(Term t) {
    terms_.push_back(std::move(t));
    parent_.push_back(static_cast<int>(parent_.size()));
    return static_cast<int>(terms_.size()) - 1;
  }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x];
    return x;
  }
  void Union(int a, int b) { parent_[Find(a)] = Find(b); }
  void Close() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 0; i < terms_.size(); ++i) {
        for (size_t j = i + 1; j < terms_.size(); ++j) {
          const Term& a = terms_[i];
          const Term& b = terms_[j];
          if (a.op != b.op || a.children.size() != b.children.size() || a.op[0] == '*') continue;
          if (Find(i) == Find(j)) continue;
          bool congruent = true;
          for (size_t k = 0; k < a.children.size() && congruent; ++k) {
            congruent = Find(a.children[k]) == Find(b.children[k]);
          }
          if (congruent) {
            Union(i, j);
            changed = true;
          }
        }
      }
    }
  }
  size_t NumClasses() {
    absl::flat_hash_set<int> roots;
    for (size_t i = 0; i < terms_.size(); ++i) roots.insert(Find(i));
    return roots.size();
  }
  size_t size() const { return terms_.size(); }

 private:
  std::vector<Term> terms_;
  std::vector<int> parent_;
};

// (seed, derivations recorded): without derivations the records of nodes
// killed by a rebuild are reused by later adds.
class OracleTest : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(OracleTest, RandomAddUnionMatchesNaiveClosure) {
  std::mt19937 rng(std::get<0>(GetParam()));
  EGraph g;
  g.set_record_derivations(std::get<1>(GetParam()));
  NaiveOracle oracle;
  std::vector<Id> ids;  // e-graph id of each oracle term
  const char* ops[] = {"f", "g", "h", "*v"};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  for (int i = 0; i < 6; ++i) {
    std::string op = "leaf" + std::to_string(i);
    ids.push_back(testing::Leaf(g, op));
    oracle.Add({op, {}});
  }
  for (int step = 0; step < 220; ++step) {
    size_t kind = pick(10);
    if (kind < 6) {
      std::string op = ops[pick(4)];
      size_t arity = op == "f" ? 1 : op == "g" ? 2 : op == "h" ? 3 : pick(2);
      std::vector<int> ch;
      std::vector<Id> ch_ids;
      for (size_t k = 0; k < arity; ++k) {
        ch.push_back(static_cast<int>(pick(oracle.size())));
        ch_ids.push_back(ids[ch.back()]);
      }
      ids.push_back(testing::AddOp(g, op, ch_ids));
      oracle.Add({op, ch});
    } else if (kind < 9) {
      int a = static_cast<int>(pick(oracle.size()));
      int b = static_cast<int>(pick(oracle.size()));
      ASSERT_TRUE(g.Union(ids[a], ids[b]).ok());
      oracle.Union(a, b);
    } else {
      g.Rebuild();
      absl::Status inv = CheckInvariants(g);
      ASSERT_TRUE(inv.ok()) << inv << " at step " << step;
    }
  }
  g.Rebuild();
  absl::Status inv = CheckInvariants(g);
  ASSERT_TRUE(inv.ok()) << inv;
  oracle.Close();
  EXPECT_EQ(g.num_classes(), oracle.NumClasses());
  for (size_t i = 0; i < oracle.size(); ++i) {
    for (size_t j = i + 1; j < oracle.size(); ++j) {
      bool same_oracle = oracle.Find(i) == oracle.Find(j);
      bool same_egraph = g.Find(ids[i]) == g.Find(ids[j]);
      ASSERT_EQ(same_oracle, same_egraph) << "terms " << i << " and " << j;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, OracleTest,
                         ::testing::Combine(::testing::Range(1, 41), ::testing::Bool()));

}  // namespace
}  // namespace egret
