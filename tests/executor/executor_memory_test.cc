// The executor frees each value after its last use, as the memory plan
// assumes (backend/memory_plan.h): its peak of live computed values
// (ExecuteStats::peak_live_bytes) is the plan's peak for the order it runs
// in, Graph::TopologicalOrder() (MemoryPlan::naive_peak_bytes), less the graph
// inputs, which the executor borrows and does not count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "egret/backend/memory_plan.h"
#include "egret/executor/executor.h"
#include "egret/executor/test_data.h"
#include "egret/io/graph_io.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using ::egret::testing::GraphBuilder;

ExecuteStats RunStats(const Graph& g) {
  ExecuteStats stats;
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 1);
  EXPECT_TRUE(inputs.ok()) << inputs.status();
  if (!inputs.ok()) return stats;
  absl::StatusOr<std::vector<Tensor>> out = Execute(g, *inputs, {.stats = &stats});
  EXPECT_TRUE(out.ok()) << out.status();
  return stats;
}

MemoryPlan Plan(const Graph& g) {
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *std::move(plan) : MemoryPlan();
}

ValueRef Ramp(GraphBuilder& b, int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i % 7) - 3;
  return b.F32({1, n}, v);
}

// A chain from a constant (no graph input): its order is forced, so the
// executor's peak is the plan's, and the chain never holds more than two
// steps' values however long it is.
TEST(ExecutorMemory, ChainPeakEqualsThePlansPeak) {
  GraphBuilder b;
  ValueRef v = Ramp(b, 1000);
  for (int i = 0; i < 50; ++i) v = b.Op(i % 2 == 0 ? "Neg" : "Relu", {v});
  b.Output(v);
  const MemoryPlan plan = Plan(b.graph());
  const ExecuteStats stats = RunStats(b.graph());
  EXPECT_EQ(stats.nodes_run, 50);
  EXPECT_EQ(plan.peak_bytes, 8000);  // one step's input and output
  EXPECT_EQ(stats.peak_live_bytes, plan.peak_bytes);
  EXPECT_EQ(stats.peak_live_bytes, plan.naive_peak_bytes);
  EXPECT_EQ(plan.total_bytes, 50 * 4000);  // what keeping every value would take
}

// Values of mixed sizes and lifetimes (skips of 1 to 60 steps, sizes
// alternating 1000 and 3000 floats): the executor's peak is the plan's for
// the file order.
TEST(ExecutorMemory, SkipConnectionsPeakEqualsThePlansFileOrderPeak) {
  GraphBuilder b;
  std::vector<ValueRef> small{Ramp(b, 1000)}, large{Ramp(b, 3000)};
  for (int i = 1; i < 120; ++i) {
    std::vector<ValueRef>& values = i % 2 == 0 ? small : large;
    const ValueRef prev = values.back();
    const size_t skip = 1 + (i * 37) % 60;
    const ValueRef far = values[values.size() > skip ? values.size() - 1 - skip : 0];
    values.push_back(i % 3 == 0 ? b.Op("ElementWiseAdd", {prev, far}) : b.Op("Relu", {prev}));
  }
  b.Output(b.Op("ElementWiseAdd", {small.back(), small.front()}));
  b.Output(b.Op("ElementWiseAdd", {large.back(), large.front()}));
  const MemoryPlan plan = Plan(b.graph());
  const ExecuteStats stats = RunStats(b.graph());
  EXPECT_EQ(stats.peak_live_bytes, plan.naive_peak_bytes);
  EXPECT_LT(stats.peak_live_bytes, plan.total_bytes / 4);
}

// Two branches listed stage by stage: the executor runs the file order, whose
// peak the plan's schedule (branch by branch) beats.
TEST(ExecutorMemory, BranchesPeakIsTheFileOrdersNotTheSchedulesPeak) {
  GraphBuilder b;
  ValueRef x = Ramp(b, 1024);
  ValueRef ra = b.Op("Relu", {x});
  ValueRef rb = b.Op("Neg", {x});
  ValueRef sa = b.Op("ReduceSum", {ra, b.Ints({1})});
  ValueRef sb = b.Op("ReduceSum", {rb, b.Ints({1})});
  b.Output(b.Op("ElementWiseAdd", {sa, sb}));
  const MemoryPlan plan = Plan(b.graph());
  const ExecuteStats stats = RunStats(b.graph());
  EXPECT_EQ(stats.peak_live_bytes, plan.naive_peak_bytes);
  EXPECT_LT(plan.peak_bytes, plan.naive_peak_bytes);
}

// With graph inputs, which the plan counts and the executor does not, the
// executor's peak lies between the file order's peak less the inputs' bytes
// and that peak.
TEST(ExecutorMemory, InputsAreTheOnlyDifferenceOnTheExamples) {
  for (const char* name : {"residual_block", "inception_block"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<Graph> g =
        LoadGraph(std::string(EGRET_SOURCE_DIR "/examples/") + name + ".json");
    ASSERT_TRUE(g.ok()) << g.status();
    int64_t input_bytes = 0;
    for (NodeId id : g->inputs()) input_bytes += g->node(id).outputs[0].byte_size();
    const MemoryPlan plan = Plan(*g);
    const ExecuteStats stats = RunStats(*g);
    EXPECT_GT(stats.peak_live_bytes, 0);
    EXPECT_LE(stats.peak_live_bytes, plan.naive_peak_bytes);
    EXPECT_GE(stats.peak_live_bytes, plan.naive_peak_bytes - input_bytes);
  }
}

}  // namespace
}  // namespace egret
