// The memory plan: schedule, offsets, peaks, and the validator that checks a
// plan never lets two live buffers share a byte.
#include "egret/backend/memory_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "egret/io/graph_io.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using ::egret::testing::GraphBuilder;
using ::testing::HasSubstr;

// x -> Relu -> Relu -> output, 4000 bytes each.
Graph Chain() {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 1000});
  ValueRef r1 = b.Op("Relu", {x});
  b.Output(b.Op("Relu", {r1}));
  return std::move(b.graph());
}

// x feeds two Relu -> ReduceSum branches joined by an Add. In file order both
// Relus (4096 bytes each) are live with x; run branch by branch, only one is.
Graph Diamond() {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 1024});
  ValueRef ra = b.Op("Relu", {x});
  ValueRef rb = b.Op("Relu", {x});
  ValueRef sa = b.Op("ReduceSum", {ra, b.Ints({1})});
  ValueRef sb = b.Op("ReduceSum", {rb, b.Ints({1})});
  b.Output(b.Op("ElementWiseAdd", {sa, sb}));
  return std::move(b.graph());
}

void ExpectValid(const Graph& g, const MemoryPlan& plan) {
  absl::Status s = ValidateMemoryPlan(g, plan);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_GE(plan.peak_bytes, plan.lower_bound_bytes);
  EXPECT_LE(plan.peak_bytes, plan.naive_peak_bytes);
  EXPECT_GE(plan.arena_bytes, plan.peak_bytes);
}

TEST(MemoryPlanTest, ChainReusesTheInputsBytes) {
  Graph g = Chain();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectValid(g, *plan);
  EXPECT_EQ(plan->schedule, (std::vector<NodeId>{1, 2}));
  ASSERT_EQ(plan->buffers.size(), 3u);
  EXPECT_EQ(plan->total_bytes, 12000);
  // x and r1 are live at step 0, r1 and r2 at step 1.
  EXPECT_EQ(plan->peak_bytes, 8000);
  EXPECT_EQ(plan->naive_peak_bytes, 8000);
  EXPECT_EQ(plan->lower_bound_bytes, 8000);
  EXPECT_EQ(plan->buffers[0].first_step, 0);
  EXPECT_EQ(plan->buffers[0].last_step, 0);
  EXPECT_EQ(plan->buffers[2].first_step, 1);
  EXPECT_EQ(plan->buffers[2].last_step, 1);
  // x's bytes go to r2; each buffer takes 4096 bytes (128-byte aligned).
  EXPECT_EQ(plan->buffers[0].offset, plan->buffers[2].offset);
  EXPECT_NE(plan->buffers[0].offset, plan->buffers[1].offset);
  EXPECT_EQ(plan->arena_bytes, 8192);
}

// 33 inputs of 2^56 Float32 elements (2^58 bytes each, the largest legal
// shape) and a Relu of the first: each buffer fits int64, together they pass
// 2^63 - 1. Every sum of them saturates at INT64_MAX instead of wrapping
// negative; the Relu's own reads and writes (2^59) do not saturate.
TEST(MemoryPlanTest, SumsPast2To63SaturateInsteadOfWrapping) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  GraphBuilder b;
  std::vector<ValueRef> inputs;
  for (int i = 0; i < 33; ++i) inputs.push_back(b.InputF32({int64_t{1} << 56}));
  b.Output(b.Op("Relu", {inputs[0]}));
  Graph g = std::move(b.graph());
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->buffers.size(), 34u);
  EXPECT_EQ(plan->buffers[0].bytes, int64_t{1} << 58);
  EXPECT_EQ(plan->total_bytes, kMax);
  EXPECT_EQ(plan->peak_bytes, kMax);
  EXPECT_EQ(plan->naive_peak_bytes, kMax);
  EXPECT_EQ(plan->arena_bytes, kMax);
  EXPECT_EQ(plan->lower_bound_bytes, int64_t{1} << 59);
  for (const PlannedBuffer& buf : plan->buffers) EXPECT_GE(buf.offset, 0);
  absl::StatusOr<int64_t> peak = PeakLiveBytes(g, plan->schedule);
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_EQ(*peak, kMax);
  // No arena holds it: the validator says so instead of accepting wrapped
  // offsets.
  absl::Status valid = ValidateMemoryPlan(g, *plan);
  EXPECT_FALSE(valid.ok());
  EXPECT_THAT(valid.message(), HasSubstr("9223372036854775807")) << valid;
}

TEST(MemoryPlanTest, ConstantsAndShapesTakeNoArenaBytes) {
  Graph g = Diamond();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const PlannedBuffer& b : plan->buffers) {
    EXPECT_NE(g.node(b.value.node).op, kConstOp);
  }
  // x, two Relus (4096 bytes each), two sums and the Add (4 bytes each).
  EXPECT_EQ(plan->buffers.size(), 6u);
  EXPECT_EQ(plan->total_bytes, 3 * 4096 + 3 * 4);
  EXPECT_EQ(plan->schedule.size(), 5u);
}

TEST(MemoryPlanTest, DiamondScheduleBeatsTheFileOrder) {
  Graph g = Diamond();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectValid(g, *plan);
  // File order: Relu, Relu, ... has x and both Relus live at once.
  EXPECT_EQ(plan->naive_peak_bytes, 3 * 4096);
  // Branch by branch: x, one Relu and a 4-byte sum at most.
  EXPECT_EQ(plan->peak_bytes, 2 * 4096 + 4);
  // A Relu alone reads and writes 2 * 4096 bytes.
  EXPECT_EQ(plan->lower_bound_bytes, 2 * 4096);
  EXPECT_LT(plan->peak_bytes, plan->naive_peak_bytes);
  absl::StatusOr<int64_t> peak = PeakLiveBytes(g, plan->schedule);
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_EQ(*peak, plan->peak_bytes);
  EXPECT_LE(plan->arena_bytes, 2 * 4096 + 128);
  EXPECT_GE(plan->arena_bytes, plan->peak_bytes);
}

TEST(MemoryPlanTest, ValidatorCatchesOverlappingBuffers) {
  Graph g = Chain();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  MemoryPlan bad = *plan;
  // r1 and r2 are both live at step 1: put them on the same bytes.
  bad.buffers[2].offset = bad.buffers[1].offset;
  absl::Status s = ValidateMemoryPlan(g, bad);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("overlap"));
  EXPECT_THAT(s.message(), HasSubstr("buffers '#1':0 (steps 0..1, bytes [4096, 8096)) and '#2':0"));
  // Partly overlapping bytes are caught too.
  bad.buffers[2].offset = bad.buffers[1].offset + 128;
  bad.arena_bytes = 3 * 4096;
  EXPECT_THAT(ValidateMemoryPlan(g, bad).message(), HasSubstr("overlap"));
}

TEST(MemoryPlanTest, ValidatorCatchesBadSchedulesAndPlacements) {
  Graph g = Chain();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();

  MemoryPlan reversed = *plan;
  std::swap(reversed.schedule[0], reversed.schedule[1]);
  EXPECT_THAT(ValidateMemoryPlan(g, reversed).message(), HasSubstr("scheduled later"));

  MemoryPlan missing = *plan;
  missing.schedule.pop_back();
  EXPECT_THAT(ValidateMemoryPlan(g, missing).message(), HasSubstr("is not scheduled"));

  MemoryPlan outside = *plan;
  outside.arena_bytes = 4096;
  EXPECT_THAT(ValidateMemoryPlan(g, outside).message(), HasSubstr("does not fit the arena"));

  MemoryPlan unaligned = *plan;
  unaligned.buffers[1].offset += 64;
  EXPECT_THAT(ValidateMemoryPlan(g, unaligned).message(), HasSubstr("not a non-negative multiple"));

  MemoryPlan short_life = *plan;
  short_life.buffers[1].last_step = 0;
  EXPECT_THAT(ValidateMemoryPlan(g, short_life).message(),
              HasSubstr("live at steps 0..0, but the schedule needs 0..1"));

  EXPECT_FALSE(PeakLiveBytes(g, reversed.schedule).ok());
}

TEST(MemoryPlanTest, PeaksAloneAreThePlansPeaks) {
  // The greedy schedule wins on the diamond and the Inception-style example;
  // the file order is kept on the chain.
  std::vector<Graph> graphs;
  graphs.push_back(Chain());
  graphs.push_back(Diamond());
  for (const char* file : {"/examples/residual_block.json", "/examples/inception_block.json"}) {
    absl::StatusOr<Graph> g = LoadGraph(std::string(EGRET_SOURCE_DIR) + file);
    ASSERT_TRUE(g.ok()) << g.status();
    graphs.push_back(*std::move(g));
  }
  for (const Graph& g : graphs) {
    absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
    ASSERT_TRUE(plan.ok()) << plan.status();
    absl::StatusOr<MemoryPeaks> peaks = PlanMemoryPeaks(g);
    ASSERT_TRUE(peaks.ok()) << peaks.status();
    EXPECT_EQ(peaks->peak_bytes, plan->peak_bytes) << g.name();
    EXPECT_EQ(peaks->naive_peak_bytes, plan->naive_peak_bytes) << g.name();
  }
  EXPECT_EQ(PlanMemoryPeaks(Diamond())->peak_bytes, 2 * 4096 + 4);
  // A graph that does not validate fails as PlanMemory does.
  Graph bad = Chain();
  bad.mutable_node(1).inputs.push_back(ValueRef{7, 0});
  EXPECT_FALSE(PlanMemoryPeaks(bad).ok());
  EXPECT_FALSE(PlanMemory(bad).ok());
}

TEST(MemoryPlanTest, BundledExampleIsValidAndNoWorseThanNaive) {
  absl::StatusOr<Graph> g = LoadGraph(EGRET_SOURCE_DIR "/examples/residual_block.json");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(*g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectValid(*g, *plan);
  EXPECT_GT(plan->peak_bytes, 0);
  EXPECT_LE(plan->peak_bytes, plan->naive_peak_bytes);
  EXPECT_GE(plan->arena_bytes, plan->peak_bytes);
  EXPECT_LE(plan->arena_bytes, plan->total_bytes);
}

TEST(MemoryPlanTest, BranchyExampleBeatsTheFileOrder) {
  // The Inception-style example lists each stage of its four branches
  // together; run branch by branch, the wide 1x1 reductions die sooner.
  absl::StatusOr<Graph> g = LoadGraph(EGRET_SOURCE_DIR "/examples/inception_block.json");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(*g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectValid(*g, *plan);
  EXPECT_LT(plan->peak_bytes, plan->naive_peak_bytes);
  EXPECT_LE(plan->peak_bytes * 5, plan->naive_peak_bytes * 4);  // at least 20% lower
}

TEST(MemoryPlanTest, LongGraphWithSkipConnectionsIsValid) {
  // 600 steps with buffers of mixed sizes and lifetimes (skips of 1 to 300
  // steps): exercises the offset search's index of short- and long-lived
  // buffers, which the validator checks byte by byte.
  GraphBuilder b;
  std::vector<ValueRef> values{b.InputF32({1, 256})};
  for (int i = 1; i < 600; ++i) {
    const ValueRef prev = values.back();
    const int skip = 1 + (i * 37) % 300;
    const ValueRef far =
        values[values.size() > static_cast<size_t>(skip) ? values.size() - 1 - skip : 0];
    values.push_back(i % 3 == 0 ? b.Op("ElementWiseAdd", {prev, far}) : b.Op("Relu", {prev}));
  }
  b.Output(values.back());
  Graph g = std::move(b.graph());
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectValid(g, *plan);
}

// The offsets PlanMemory's best fit must give, from the buffers' sizes and
// lifetimes alone, by the definition: largest buffer first (then earliest
// first step, then index), each at the start of the smallest gap, lowest
// first, that the placed buffers live at one of its steps leave, or after
// them all. Quadratic: for tests.
std::vector<int64_t> ReferenceOffsets(const std::vector<PlannedBuffer>& buffers) {
  auto aligned = [](int64_t bytes) {
    return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  };
  std::vector<size_t> order(buffers.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return std::tuple(-buffers[x].bytes, buffers[x].first_step, x) <
           std::tuple(-buffers[y].bytes, buffers[y].first_step, y);
  });
  std::vector<int64_t> offset(buffers.size(), -1);
  std::vector<size_t> placed;
  for (size_t k : order) {
    const PlannedBuffer& b = buffers[k];
    std::vector<std::pair<int64_t, int64_t>> spans;
    for (size_t o : placed) {
      if (buffers[o].first_step <= b.last_step && b.first_step <= buffers[o].last_step) {
        spans.emplace_back(offset[o], offset[o] + aligned(buffers[o].bytes));
      }
    }
    std::sort(spans.begin(), spans.end());
    int64_t at = 0, best = -1, best_gap = std::numeric_limits<int64_t>::max();
    for (const auto& [first, end] : spans) {
      if (first - at >= aligned(b.bytes) && first - at < best_gap) {
        best = at;
        best_gap = first - at;
      }
      at = std::max(at, end);
    }
    offset[k] = best >= 0 ? best : at;
    placed.push_back(k);
  }
  return offset;
}

TEST(MemoryPlanTest, ManyLongLivedBuffersGetTheBestFitOffsets) {
  // 60 parallel chains from one input, each with its own output (live to the
  // last step), some outputs within the chains and skip connections longer
  // than the short-lived window: over a hundred long-lived buffers, most of
  // them piled up contiguously, which the offset search handles a block at a
  // time.
  GraphBuilder b;
  const ValueRef x = b.InputF32({1, 256});
  for (int c = 0; c < 60; ++c) {
    std::vector<ValueRef> values{x};
    for (int i = 1; i < 90; ++i) {
      const ValueRef prev = values.back();
      if (i % 30 == 0) {
        values.push_back(b.Op("ElementWiseAdd", {prev, values[values.size() - 29]}));
      } else {
        values.push_back(b.Op("Relu", {prev}));
      }
      if (i < 89 && (c + i) % 41 == 0) b.Output(values.back());
    }
    b.Output(values.back());
  }
  Graph g = std::move(b.graph());
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectValid(g, *plan);
  const std::vector<int64_t> want = ReferenceOffsets(plan->buffers);
  int long_lived = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(plan->buffers[k].offset, want[k]) << "buffer " << k;
    long_lived += plan->buffers[k].last_step - plan->buffers[k].first_step > 64;
  }
  EXPECT_GT(long_lived, 100);
}

TEST(MemoryPlanTest, OutputsLiveAcrossThousandsOfStepsGetTheBestFitOffsets) {
  // 64 chains of 110 nodes from four inputs of four sizes, each chain's
  // output live to the last of about 7,000 steps: the outputs' offsets are
  // searched among the unions of whole blocks and groups of blocks of
  // short-lived buffers (StepSpanUnions), which must give what every span
  // would; the larger chains' short-lived buffers are placed before the
  // smaller chains' outputs.
  GraphBuilder b;
  std::vector<ValueRef> inputs;
  for (int64_t w : {64, 192, 128, 256}) inputs.push_back(b.InputF32({1, w}));
  for (int c = 0; c < 64; ++c) {
    ValueRef prev = inputs[c % 4];
    for (int i = 1; i < 110; ++i) {
      prev = b.Op("Relu", {prev});
      if (i % 50 == 0 && c % 5 == 0) b.Output(prev);
    }
    b.Output(prev);
  }
  Graph g = std::move(b.graph());
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectValid(g, *plan);
  const std::vector<int64_t> want = ReferenceOffsets(plan->buffers);
  int spanning = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(plan->buffers[k].offset, want[k]) << "buffer " << k;
    spanning += plan->buffers[k].last_step - plan->buffers[k].first_step > 64 * 64;
  }
  EXPECT_GT(spanning, 20);
}

}  // namespace
}  // namespace egret
