// NodeList (egraph/node_list.h): the list operations against std::vector, and
// WithOp's answer from the op summary and run table against a scan of the
// list, on random sorted lists of random op sets (op ids chosen so that
// several share a mask bit).
#include "egret/egraph/node_list.h"

#include <algorithm>
#include <bit>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace egret {
namespace {

void ExpectSame(const NodeList& l, const std::vector<uint32_t>& v) {
  ASSERT_EQ(l.size(), v.size());
  EXPECT_EQ(l.empty(), v.empty());
  EXPECT_GE(l.capacity(), l.size());
  // The block (capacity word and entries) is a power of two bytes.
  if (l.capacity() != 0) {
    EXPECT_TRUE(std::has_single_bit(l.capacity() + 1)) << l.capacity();
  }
  EXPECT_TRUE(std::equal(l.begin(), l.end(), v.begin(), v.end()));
  EXPECT_EQ(l.span(), absl::Span<const uint32_t>(v));
}

TEST(NodeListTest, RandomOperationsMatchAVector) {
  std::mt19937 rng(11);
  NodeList l;
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

TEST(NodeListTest, BlocksFollowPowerOfTwoSizes) {
  NodeList l;
  std::vector<size_t> caps;
  for (uint32_t i = 0; i < 20; ++i) {
    l.push_back(i);
    if (caps.empty() || caps.back() != l.capacity()) caps.push_back(l.capacity());
  }
  // One node in 8 bytes, then 16, 32, 64: each block a size class.
  EXPECT_EQ(caps, (std::vector<size_t>{1, 3, 7, 15, 31}));
  NodeList big;
  std::vector<uint32_t> many(40, 9);
  big.Append(many);
  EXPECT_EQ(big.capacity(), 63u);
}

// Node index n has op id op_of[n]; the list holds node indices sorted by op.
TEST(NodeListTest, WithOpFindsEachOpsRangeWithoutReadingNodes) {
  std::mt19937 rng(5);
  // Ops 3, 34 and 65 share a mask bit (3 mod 31), as do 0 and 31.
  const std::vector<uint32_t> op_pool = {0, 3, 7, 31, 34, 65, 100, 1000, (1u << 28) - 1};
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = 1 + rng() % 40;
    std::vector<uint32_t> op_of(n);
    const size_t distinct = 1 + rng() % 4;
    std::vector<uint32_t> ops;
    for (size_t i = 0; i < distinct; ++i) ops.push_back(op_pool[rng() % op_pool.size()]);
    for (uint32_t& o : op_of) o = ops[rng() % ops.size()];
    std::vector<uint32_t> nodes(n);
    for (uint32_t i = 0; i < n; ++i) nodes[i] = i;
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](uint32_t a, uint32_t b) { return op_of[a] < op_of[b]; });
    NodeList l;
    // Built in pieces, as a rebuild does, then indexed.
    const size_t half = rng() % (n + 1);
    for (size_t i = 0; i < half; ++i) l.push_back(nodes[i]);
    l.Append(absl::Span<const uint32_t>(nodes).subspan(half));
    l.Index([&](uint32_t node) { return op_of[node]; });
    ExpectSame(l, nodes);
    const bool single = op_of[nodes.front()] == op_of[nodes.back()];
    EXPECT_EQ((l.ops() & NodeList::kMixed) == 0, single);
    for (uint32_t op : op_pool) {
      auto lo = std::lower_bound(nodes.begin(), nodes.end(), op,
                                 [&](uint32_t node, uint32_t o) { return op_of[node] < o; });
      auto hi = std::upper_bound(nodes.begin(), nodes.end(), op,
                                 [&](uint32_t o, uint32_t node) { return o < op_of[node]; });
      const absl::Span<const uint32_t> want(nodes.data() + (lo - nodes.begin()), hi - lo);
      const absl::Span<const uint32_t> got = l.WithOp(op);
      ASSERT_EQ(got.size(), want.size()) << "trial " << trial << " op " << op;
      if (!want.empty()) {
        EXPECT_EQ(got.data(), l.data() + (lo - nodes.begin()));
      }
    }
  }
}

TEST(NodeListTest, SummaryOfEmptyAndSingleOpLists) {
  NodeList l;
  EXPECT_TRUE(l.WithOp(0).empty());
  l.push_back(9);
  l.SetSingleOp(4);
  EXPECT_EQ(l.ops(), 4u);
  EXPECT_EQ(l.WithOp(4).size(), 1u);
  EXPECT_TRUE(l.WithOp(35).empty());  // same mask bit as 4, another op
  l.Index([](uint32_t) { return 35u; });
  EXPECT_EQ(l.ops(), 35u);
  EXPECT_TRUE(l.WithOp(4).empty());
  l.Truncate(l.begin());
  l.Index([](uint32_t) { return 0u; });
  EXPECT_EQ(l.ops(), NodeList::kMixed);
  EXPECT_TRUE(l.WithOp(0).empty());
  l.push_back(1);
  l.Release();
  EXPECT_EQ(l.ops(), NodeList::kMixed);
  EXPECT_TRUE(l.WithOp(35).empty());
}

TEST(NodeListTest, MoveCarriesTheRunTable) {
  NodeList a;
  for (uint32_t i = 0; i < 100; ++i) a.push_back(i);
  a.Index([](uint32_t node) { return node / 10; });  // ten ops of ten nodes
  NodeList b(std::move(a));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(a.capacity(), 0u);
  EXPECT_TRUE(a.WithOp(3).empty());
  NodeList c;
  c.push_back(7);
  c = std::move(b);
  ASSERT_EQ(c.size(), 100u);
  const absl::Span<const uint32_t> r = c.WithOp(3);
  ASSERT_EQ(r.size(), 10u);
  EXPECT_EQ(r.front(), 30u);
  EXPECT_TRUE(c.WithOp(10).empty());
  // A vector of lists relocates them on growth without copying the ids.
  std::vector<NodeList> lists;
  for (uint32_t i = 0; i < 50; ++i) {
    lists.emplace_back();
    for (uint32_t k = 0; k <= i; ++k) lists.back().push_back(i * 1000 + k);
    lists.back().Index([](uint32_t node) { return node % 1000 < 2 ? 1u : 2u; });
  }
  for (uint32_t i = 0; i < 50; ++i) {
    ASSERT_EQ(lists[i].size(), i + 1);
    EXPECT_EQ(lists[i].back(), i * 1000 + i);
    EXPECT_EQ(lists[i].WithOp(1).size(), std::min<size_t>(2, i + 1));
    EXPECT_EQ(lists[i].WithOp(2).size(), i + 1 - std::min<size_t>(2, i + 1));
  }
}

}  // namespace
}  // namespace egret
