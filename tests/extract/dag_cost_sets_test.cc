// The DAG extractor's cost-set pass (extract/dag_extractor_cost_sets.h): its
// persistent sets give the same choices as flat sets, and hold memory linear
// in a chain's length.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "egret/extract/dag_extractor_cost_sets.h"
#include "egret/extract/dag_extractor_work_bound.h"

namespace egret::extract {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The pass with flat sets (one list of nodes a class, copied whole into every
// new set), as the extractor had it before the sets became persistent: the
// reference the persistent pass must match choice for choice. `work`, when
// given, receives the work the pass counts (the sizes of the sets read for
// every pricing and of every set made), and `sizes` each class's last set's
// size.
Choice FlatCostSets(const ExtractionProblem& p, int64_t* work = nullptr,
                    std::vector<size_t>* sizes = nullptr) {
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  std::vector<std::vector<ENodeId>> set(nc);
  std::vector<ENodeId> merged;
  std::vector<double> total(nc, kInf);
  Choice choice(nc);
  std::vector<uint32_t> stamp(nc, 0);
  uint32_t now = 0;
  using Keyed = std::pair<double, ENodeId>;
  std::priority_queue<Keyed, std::vector<Keyed>, std::greater<Keyed>> queue;
  std::vector<double> queued_key(nn, kInf);
  for (ENodeId n = 0; n < nn; ++n) {
    if (p.children(n).empty()) {
      queued_key[n] = p.cost(n);
      queue.push({p.cost(n), n});
    }
  }
  while (!queue.empty()) {
    auto [key, n] = queue.top();
    queue.pop();
    if (key != queued_key[n]) continue;
    queued_key[n] = kInf;
    const ClassId c = p.node_class(n);
    bool ok = true;
    for (ClassId ch : p.children(n)) ok = ok && ch != c && total[ch] != kInf;
    if (!ok) continue;
    const uint32_t s = ++now;
    stamp[c] = s;
    double value = p.cost(n);
    for (ClassId ch : p.children(n)) {
      if (work != nullptr) *work += static_cast<int64_t>(set[ch].size());
    }
    for (ClassId ch : p.children(n)) {
      for (const ENodeId e : set[ch]) {
        const ClassId d = p.node_class(e);
        if (stamp[d] == s) {
          if (d == c) ok = false;
          continue;
        }
        stamp[d] = s;
        value += p.cost(e);
      }
      if (!ok) break;
    }
    if (!ok || !(value < total[c])) continue;
    const uint32_t s2 = ++now;
    merged.assign(1, n);
    stamp[c] = s2;
    for (ClassId ch : p.children(n)) {
      for (const ENodeId e : set[ch]) {
        const ClassId d = p.node_class(e);
        if (stamp[d] != s2) {
          stamp[d] = s2;
          merged.push_back(e);
        }
      }
    }
    set[c] = merged;
    if (work != nullptr) *work += static_cast<int64_t>(merged.size());
    total[c] = value;
    choice.node[c] = n;
    for (ENodeId parent : p.parents(c)) {
      if (value < queued_key[parent]) {
        queued_key[parent] = value;
        queue.push({value, parent});
      }
    }
  }
  if (sizes != nullptr) {
    sizes->clear();
    for (const std::vector<ENodeId>& x : set) sizes->push_back(x.size());
  }
  return choice;
}

// Random problems: `classes` classes of 1-3 nodes with 0-3 children each,
// mostly among lower classes (a DAG of shared sub-terms), some among any
// class (cycles), small integer costs (many ties) or fractional ones (sums
// that round differently by order).
ExtractionProblem RandomProblem(uint32_t seed, int classes, bool fractional) {
  std::mt19937 rng(seed);
  ExtractionProblemBuilder b;
  for (int c = 0; c < classes; ++c) b.AddClass("c" + std::to_string(c));
  for (int c = 0; c < classes; ++c) {
    const int nodes = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < nodes; ++k) {
      std::vector<ClassId> children;
      const int arity = c == 0 ? 0 : static_cast<int>(rng() % 4);
      for (int a = 0; a < arity; ++a) {
        const bool back = rng() % 10 == 0;
        children.push_back(back ? rng() % classes : rng() % c);
      }
      const double cost = fractional ? 0.1 * (1 + rng() % 97) + 1e-7 * (rng() % 1000)
                                     : static_cast<double>(1 + rng() % 4);
      b.AddNode(c, "op", cost, children);
    }
  }
  b.AddRoot(static_cast<ClassId>(classes - 1));
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

TEST(DagCostSetsTest, PersistentSetsChooseWhatFlatSetsChoose) {
  int compared = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    const int classes = 2 + static_cast<int>(seed % 120);
    ExtractionProblem p = RandomProblem(seed, classes, seed % 2 == 0);
    std::optional<Choice> got = GreedyCostSets(p);
    ASSERT_TRUE(got.has_value()) << "seed " << seed;
    const Choice want = FlatCostSets(p);
    ASSERT_EQ(got->node, want.node) << "seed " << seed;
    for (ENodeId n : want.node) compared += n != kNoENode;
  }
  EXPECT_GT(compared, 3000);  // the problems are not trivially uncomputable
}

// R_i = add(R_{i-1}, conv(R_{i-1})): R_i's set holds 2i + 1 entries. With
// `weights`, each conv also reads a leaf of its own (W_i = const), and R_i's
// set holds 3i + 1.
ExtractionProblem ResidualChain(int blocks, bool weights = false) {
  ExtractionProblemBuilder b;
  ClassId prev = b.AddClass("R0");
  b.AddNode(prev, "in", 1, {});
  for (int i = 1; i <= blocks; ++i) {
    const ClassId c = b.AddClass("C" + std::to_string(i));
    const ClassId r = b.AddClass("R" + std::to_string(i));
    std::vector<ClassId> conv_children = {prev};
    if (weights) {
      const ClassId w = b.AddClass("W" + std::to_string(i));
      b.AddNode(w, "const", 1, {});
      conv_children.push_back(w);
    }
    b.AddNode(c, "conv", 3, conv_children);
    const ClassId add_children[] = {prev, c};
    b.AddNode(r, "add", 1, add_children);
    prev = r;
  }
  b.AddRoot(prev);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

TEST(DagCostSetsTest, AChainsSetsHoldMemoryLinearInItsLength) {
  // 2000 blocks: flat sets would hold ~2 * 2000^2 entries (32 MB); the
  // persistent ones share each first child's set and hold a few records a
  // class, well under 1 MiB.
  ExtractionProblem p = ResidualChain(2000);
  CostSetLimits limits;
  limits.max_bytes = 1 << 20;
  DagOptions::Report report;
  std::optional<Choice> c = GreedyCostSets(p, limits, &report);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(report.memory_limit_hit);
  EXPECT_EQ(c->node, FlatCostSets(p).node);
  // ... and the budget still binds: a set takes more than 16 bytes.
  limits.max_bytes = 16;
  EXPECT_FALSE(GreedyCostSets(p, limits, &report).has_value());
  EXPECT_TRUE(report.memory_limit_hit);
}

// The work bound is a lower bound on the work of the whole run, and the pass
// gives up exactly when its bound is below that work: at the run's own work
// it finishes with the same choice, one below it gives up.
TEST(DagCostSetsTest, GivesUpExactlyWhenTheRunPassesTheWorkBound) {
  int finished = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    const int classes = 2 + static_cast<int>(seed % 120);
    ExtractionProblem p = RandomProblem(seed, classes, seed % 2 == 0);
    int64_t work = 0;
    const Choice want = FlatCostSets(p, &work);
    const CostSetWorkBound bound = ComputeCostSetWorkBound(p);
    ASSERT_LE(bound.total, work) << "seed " << seed;
    CostSetLimits limits;
    limits.max_work = work;
    DagOptions::Report report;
    std::optional<Choice> got = GreedyCostSets(p, limits, &report);
    ASSERT_TRUE(got.has_value()) << "seed " << seed;
    EXPECT_EQ(got->node, want.node) << "seed " << seed;
    EXPECT_FALSE(report.cost_sets_gave_up);
    limits.max_work = work - 1;
    EXPECT_FALSE(GreedyCostSets(p, limits, &report).has_value()) << "seed " << seed;
    EXPECT_TRUE(report.cost_sets_gave_up);
    finished += work > 0;
  }
  EXPECT_EQ(finished, 300);
}

// On a chain whose convs read private weights, the bound counts the weights
// (every class a conv owns is in no other child's set): it is each set's
// exact size, where the minimal height counted 2 a block.
TEST(DagCostSetsTest, WorkBoundCountsPrivateLeaves) {
  ExtractionProblem p = ResidualChain(50, /*weights=*/true);
  int64_t work = 0;
  std::vector<size_t> sizes;
  FlatCostSets(p, &work, &sizes);
  const CostSetWorkBound bound = ComputeCostSetWorkBound(p);
  ASSERT_EQ(bound.set_size.size(), sizes.size());
  for (ClassId c = 0; c < p.num_classes(); ++c) {
    EXPECT_EQ(bound.set_size[c], sizes[c]) << p.class_name(c);
  }
  EXPECT_EQ(sizes[p.roots()[0]], 3u * 50 + 1);
  // Every node is priced once and every set made once: the bound is the work.
  EXPECT_EQ(bound.total, work);
}

// R_i = add(R_{i-1}, C_i), C_i = conv(R_{i-1}, W_i) | relu(U_i), U_i =
// conv(R_{i-1}, W_i) (a fused and an unfused form sharing the weight, as
// bench/scaling's ResNet has after saturation): W_i is not owned by C_i
// (U_i reads it too) but C_i dominates it.
ExtractionProblem FusedChain(int blocks) {
  ExtractionProblemBuilder b;
  ClassId prev = b.AddClass("R0");
  b.AddNode(prev, "in", 1, {});
  for (int i = 1; i <= blocks; ++i) {
    const std::string k = std::to_string(i);
    const ClassId w = b.AddClass("W" + k), u = b.AddClass("U" + k);
    const ClassId c = b.AddClass("C" + k), r = b.AddClass("R" + k);
    b.AddNode(w, "const", 1, {});
    const ClassId conv_children[] = {prev, w};
    b.AddNode(u, "conv", 3, conv_children);
    b.AddNode(c, "conv_relu", 3, conv_children);
    const ClassId relu_children[] = {u};
    b.AddNode(c, "relu", 1, relu_children);
    const ClassId add_children[] = {prev, c};
    b.AddNode(r, "add", 1, add_children);
    prev = r;
  }
  b.AddRoot(prev);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

// The shared weight counts through dominance: the bound is again each set's
// exact size (counting by ownership alone would miss one class a block).
TEST(DagCostSetsTest, WorkBoundCountsDominatedLeaves) {
  ExtractionProblem p = FusedChain(50);
  std::vector<size_t> sizes;
  FlatCostSets(p, nullptr, &sizes);
  const CostSetWorkBound bound = ComputeCostSetWorkBound(p);
  for (ClassId c = 0; c < p.num_classes(); ++c) {
    if (p.class_name(c)[0] == 'U') continue;  // never chosen: no set
    EXPECT_EQ(bound.set_size[c], sizes[c]) << p.class_name(c);
  }
  EXPECT_EQ(sizes[p.roots()[0]], 3u * 50 + 1);
}

// X = f(A, B) and Y = g(A, B) share the leaves A and B, which neither owns
// nor dominates: X's set holds both, one of them outside the other's set
// (or holding it); the bound counts that one, and is each set's exact size.
TEST(DagCostSetsTest, WorkBoundCountsAChildAsLargeAsTheLargest) {
  ExtractionProblemBuilder b;
  const ClassId a = b.AddClass("A"), bb = b.AddClass("B");
  const ClassId x = b.AddClass("X"), y = b.AddClass("Y"), r = b.AddClass("R");
  b.AddNode(a, "a", 1, {});
  b.AddNode(bb, "b", 1, {});
  const ClassId leaves[] = {a, bb};
  b.AddNode(x, "f", 1, leaves);
  b.AddNode(y, "g", 1, leaves);
  const ClassId both[] = {x, y};
  b.AddNode(r, "h", 1, both);
  b.AddRoot(r);
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<size_t> sizes;
  FlatCostSets(*p, nullptr, &sizes);
  const CostSetWorkBound bound = ComputeCostSetWorkBound(*p);
  for (ClassId c = 0; c < p->num_classes(); ++c) {
    EXPECT_EQ(bound.set_size[c], sizes[c]) << p->class_name(c);
  }
  EXPECT_EQ(bound.set_size[x], 3u);
  EXPECT_EQ(bound.set_size[r], 5u);
}

// A deep chain whose bound alone passes the limit gives up before making a
// set (the memory budget would stop any set made).
TEST(DagCostSetsTest, ADeepChainGivesUpBeforeMakingASet) {
  ExtractionProblem p = ResidualChain(2000, /*weights=*/true);
  const CostSetWorkBound bound = ComputeCostSetWorkBound(p);
  CostSetLimits limits;
  limits.max_work = bound.total - 1;
  limits.max_bytes = 1;  // any set made would pass it
  DagOptions::Report report;
  EXPECT_FALSE(GreedyCostSets(p, limits, &report).has_value());
  EXPECT_TRUE(report.cost_sets_gave_up);
  EXPECT_FALSE(report.memory_limit_hit);
}

}  // namespace
}  // namespace egret::extract
