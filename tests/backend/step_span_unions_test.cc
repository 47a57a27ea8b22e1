// StepSpanUnions: the union it answers for a range of blocks is the union of
// the spans filed at those blocks' steps, at every level of its groups.
#include "egret/backend/step_span_unions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace egret {
namespace {

using Span = StepSpanUnions::Span;

// The union of `spans` as sorted, disjoint, non-touching intervals.
std::vector<Span> Normalized(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<Span> out;
  for (const Span& s : spans) {
    if (!out.empty() && s.first <= out.back().second) {
      out.back().second = std::max(out.back().second, s.second);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

TEST(StepSpanUnionsTest, MergesOverlappingAndTouchingSpansOfABlock) {
  StepSpanUnions u(/*num_steps=*/8, /*block_steps=*/4);
  u.Add(0, {0, 128});
  u.Add(1, {256, 384});
  u.Add(2, {128, 256});  // joins the two above into [0, 384)
  u.Add(3, {512, 640});
  u.Add(5, {1024, 1152});  // the second block
  std::vector<Span> out;
  u.AppendUnion(0, 1, out);
  EXPECT_EQ(out, (std::vector<Span>{{0, 384}, {512, 640}}));
  out.clear();
  u.AppendUnion(1, 2, out);
  EXPECT_EQ(out, (std::vector<Span>{{1024, 1152}}));
  out.clear();
  u.AppendUnion(0, 2, out);
  EXPECT_EQ(Normalized(out), (std::vector<Span>{{0, 384}, {512, 640}, {1024, 1152}}));
  out.clear();
  u.AppendUnion(1, 1, out);
  EXPECT_TRUE(out.empty());
}

TEST(StepSpanUnionsTest, AnyRangeOfBlocksIsTheUnionOfItsSpans) {
  // 300,000 steps in blocks of 8: 37,500 blocks, four levels of groups of 64,
  // so ranges take units of every level.
  constexpr int64_t kSteps = 300'000, kBlock = 8;
  std::mt19937_64 rng(7);
  StepSpanUnions u(kSteps, kBlock);
  std::vector<std::pair<int64_t, Span>> filed;
  for (int i = 0; i < 40'000; ++i) {
    const int64_t step = static_cast<int64_t>(rng() % kSteps);
    // Sparse in a wide arena, so that the unions of large groups keep gaps.
    const int64_t offset = static_cast<int64_t>(rng() % 4096) * 128;
    const Span span{offset, offset + 128 * static_cast<int64_t>(1 + rng() % 4)};
    u.Add(step, span);
    filed.emplace_back(step, span);
  }
  const int64_t blocks = (kSteps + kBlock - 1) / kBlock;
  for (int q = 0; q < 300; ++q) {
    int64_t lo = static_cast<int64_t>(rng() % (blocks + 1));
    int64_t hi = static_cast<int64_t>(rng() % (blocks + 1));
    if (q % 3 == 0) hi = std::min(blocks, lo + static_cast<int64_t>(rng() % 200));
    if (lo > hi) std::swap(lo, hi);
    std::vector<Span> want;
    for (const auto& [step, span] : filed) {
      if (step >= lo * kBlock && step < hi * kBlock) want.push_back(span);
    }
    std::vector<Span> got;
    u.AppendUnion(lo, hi, got);
    EXPECT_EQ(Normalized(got), Normalized(want)) << "blocks [" << lo << ", " << hi << ")";
  }
}

}  // namespace
}  // namespace egret
