// The synthetic networks of the scaling study (bench/synthetic_graphs.h): they
// are valid, grow linearly with the number of blocks, and the shipped rule
// library recognizes their blocks (fused ops appear, outputs unchanged on the
// reference executor).
#include "bench/synthetic_graphs.h"

#include <cstdlib>
#include <string>

#include "../lib/shipped_library.h"
#include "egret/pipeline/optimize.h"
#include "egret/pipeline/strategies.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

int64_t CountOp(const Graph& g, const std::string& op) {
  int64_t n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

Graph Make(SyntheticFamily f, int blocks, uint64_t seed = 0) {
  absl::StatusOr<Graph> g = MakeSyntheticGraph(f, {.blocks = blocks, .seed = seed});
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph();
}

TEST(SyntheticGraphsTest, FamilyNamesRoundTrip) {
  for (SyntheticFamily f : AllSyntheticFamilies()) {
    EXPECT_EQ(ParseSyntheticFamily(SyntheticFamilyName(f)), f);
  }
  EXPECT_EQ(ParseSyntheticFamily("vgg"), std::nullopt);
}

TEST(SyntheticGraphsTest, ZeroBlocksIsAnError) {
  absl::StatusOr<Graph> g = MakeSyntheticGraph(SyntheticFamily::kResNet, {.blocks = 0});
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SyntheticGraphsTest, ValidWithOneInputAndOneOutput) {
  for (SyntheticFamily f : AllSyntheticFamilies()) {
    for (int blocks : {1, 3}) {
      Graph g = Make(f, blocks);
      EXPECT_TRUE(g.Validate().ok()) << SyntheticFamilyName(f) << ": " << g.Validate();
      EXPECT_EQ(g.inputs().size(), 1u);
      ASSERT_EQ(g.outputs().size(), 1u);
      EXPECT_EQ(g.outputs()[0].name, "y");
      EXPECT_EQ(g.TypeOf(g.outputs()[0].value), g.node(g.inputs()[0]).outputs[0])
          << "a block keeps its input's type";
    }
  }
}

TEST(SyntheticGraphsTest, NodeCountIsLinearInBlocks) {
  for (SyntheticFamily f : AllSyntheticFamilies()) {
    const int64_t n1 = Make(f, 1).num_nodes(), n2 = Make(f, 2).num_nodes();
    const int64_t per_block = n2 - n1;
    EXPECT_GT(per_block, 10) << SyntheticFamilyName(f);
    EXPECT_EQ(static_cast<int64_t>(Make(f, 7).num_nodes()), n1 + 6 * per_block);
  }
}

TEST(SyntheticGraphsTest, ChainsSplitTheBlocks) {
  for (SyntheticFamily f : AllSyntheticFamilies()) {
    absl::StatusOr<Graph> g = MakeSyntheticGraph(f, {.blocks = 7, .chain_blocks = 3});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(g->Validate().ok()) << g->Validate();
    ASSERT_EQ(g->outputs().size(), 3u);  // 3 + 3 + 1 blocks
    EXPECT_EQ(g->outputs()[2].name, "y2");
    EXPECT_EQ(static_cast<int64_t>(g->num_nodes()), SyntheticNodeCount(f, 7));
    EXPECT_EQ(static_cast<int64_t>(Make(f, 7).num_nodes()), SyntheticNodeCount(f, 7));
  }
  EXPECT_FALSE(
      MakeSyntheticGraph(SyntheticFamily::kResNet, {.blocks = 2, .chain_blocks = -1}).ok());
}

TEST(SyntheticGraphsTest, BlocksForNodesHitsTheTarget) {
  for (SyntheticFamily f : AllSyntheticFamilies()) {
    const int64_t per_block = Make(f, 2).num_nodes() - Make(f, 1).num_nodes();
    for (int64_t target : {1000, 5000}) {
      const int blocks = BlocksForNodes(f, target);
      const int64_t n = Make(f, blocks).num_nodes();
      EXPECT_LE(std::llabs(n - target), per_block / 2 + 1)
          << SyntheticFamilyName(f) << " target " << target << " got " << n;
    }
    EXPECT_EQ(BlocksForNodes(f, 1), 1);
  }
}

TEST(SyntheticGraphsTest, SeedChoosesTheWeights) {
  auto first_weight = [](const Graph& g) {
    for (const Node& n : g.nodes()) {
      if (n.constant && n.constant->num_elements() > 1) return n.constant->GetValue(0);
    }
    return 0.0;
  };
  const SyntheticFamily f = SyntheticFamily::kTransformer;
  EXPECT_EQ(first_weight(Make(f, 1, 3)), first_weight(Make(f, 1, 3)));
  EXPECT_NE(first_weight(Make(f, 1, 3)), first_weight(Make(f, 1, 4)));
}

// Optimizes a 2-block instance with the shipped library and checks the
// outputs on the reference executor.
Graph OptimizeAndVerify(const Graph& g) {
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(g, testing::ShippedLibrary(), {}, &diags);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return Graph();
  EXPECT_EQ(r->saturation.stop_reason, StopReason::kSaturated);
  EXPECT_LT(r->output_cost, r->input_cost);
  testing::ExpectSameOutputs(g, r->graph, 1, {.rtol = 1e-3, .atol = 1e-4});
  return std::move(r->graph);
}

TEST(SyntheticGraphsTest, ResNetBlocksFoldBatchnormAndRelu) {
  const int blocks = 2;
  Graph in = Make(SyntheticFamily::kResNet, blocks);
  ASSERT_EQ(CountOp(in, "Batchnorm"), 3 * blocks);
  Graph out = OptimizeAndVerify(in);
  EXPECT_EQ(CountOp(out, "Conv2d"), 3 * blocks);
  EXPECT_EQ(CountOp(out, "Batchnorm"), 0);
  // The two inner Relus fold into their convolutions; the one after the
  // residual add has no convolution to fold into.
  EXPECT_EQ(CountOp(out, "Relu") + CountOp(out, "ReluMinMax"), blocks);
}

TEST(SyntheticGraphsTest, TransformerBlocksBecomeLayerNormGeluSoftmax) {
  const int blocks = 2;
  Graph in = Make(SyntheticFamily::kTransformer, blocks);
  ASSERT_EQ(CountOp(in, "LayerNorm") + CountOp(in, "Gelu") + CountOp(in, "Softmax"), 0);
  Graph out = OptimizeAndVerify(in);
  EXPECT_EQ(CountOp(out, "LayerNorm"), 2 * blocks);
  EXPECT_EQ(CountOp(out, "Gelu"), blocks);
  EXPECT_EQ(CountOp(out, "Softmax"), blocks);
  for (const char* op : {"ReduceMean", "Sqrt", "Erf", "Exp", "ReduceSum", "ReduceMax"}) {
    EXPECT_EQ(CountOp(out, op), 0) << op;
  }
  // Every projection's bias joins its FullyConnected.
  EXPECT_EQ(CountOp(out, "FullyConnected"), 6 * blocks);
}

TEST(SyntheticGraphsTest, GreedyResultsVerify) {
  for (SyntheticFamily f : AllSyntheticFamilies()) {
    Graph in = Make(f, 2);
    DiagnosticList diags;
    StrategyOptions options;
    options.verify = {.rtol = 1e-3, .atol = 1e-4};
    absl::StatusOr<StrategyResult> r =
        RunStrategy(Strategy::kGreedy, in, testing::ShippedLibrary(), options, &diags);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->verified) << SyntheticFamilyName(f) << ": " << r->verify_message;
    EXPECT_LT(r->nodes, in.num_nodes()) << SyntheticFamilyName(f);
  }
}

}  // namespace
}  // namespace egret
