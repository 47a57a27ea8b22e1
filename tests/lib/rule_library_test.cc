// The shipped rule library (rules/lib/*.rules): each rule fires where it
// should and not where it should not, the optimized graph is cheaper, and the
// reference executor computes the same outputs before and after. Here: the
// op vocabulary, folds into convolutions and fully connected layers, and
// transpose and reshape chains (activations, algebra, attention and padding
// in rule_library_*_test.cc).
#include <gtest/gtest.h>

#include <vector>

#include "egret/pipeline/optimize.h"
#include "tests/graph/graph_builder.h"
#include "tests/lib/rule_library_test_util.h"
#include "tests/lib/shipped_library.h"

namespace egret {
namespace {

TEST(RuleLibraryTest, ImplementationsCoverTheOpVocabulary) {
  const rules::OpRegistry& reg = Library().ops;
  for (const char* op : {"Conv2d", "DepthWiseConv2d", "FullyConnected", "MatMul", "ElementWiseAdd",
                         "Relu", "ReluMinMax", "Softmax", "Batchnorm", "Reshape", "Transpose",
                         "Concat", "PoolMax2d", "PoolAvg2d", "Gelu", "HardSwish", "Cast"}) {
    EXPECT_TRUE(reg.Contains(op)) << op;
  }
}

// Neg is an involution in the op table (graph/ops_elementwise.cc), so the e-graph's
// built-in rewrites cancel a double negation.
TEST(RuleLibraryTest, DoubleNegationCancels) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  b.Output(b.Op("Relu", {b.Op("Neg", {b.Op("Neg", {x})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Neg"), 0);
  EXPECT_EQ(CountOp(out, "Relu"), 1);
}

TEST(RuleLibraryTest, ConvBatchnormReluFoldsIntoOneConv) {
  for (const char* op : {"Conv2d", "DepthWiseConv2d"}) {
    for (bool dilation : {false, true}) {
      GraphBuilder b;
      ValueRef x = b.InputF32({1, 6, 6, 4});
      ValueRef c = Conv(b, x, op, dilation);
      ValueRef bn =
          b.Op("Batchnorm", {c, b.F32({8}, Ramp(8, 0.5, 0.1)), b.F32({8}, Ramp(8, -1, 0.3))});
      b.Output(b.Op("Relu", {bn}));
      Graph out = OptimizeAndVerify(b.graph());
      EXPECT_EQ(CountOp(out, "Batchnorm"), 0) << op;
      EXPECT_EQ(CountOp(out, "Relu") + CountOp(out, "ReluMinMax"), 0) << op;
      EXPECT_EQ(CountOp(out, op), 1) << op;
    }
  }
}

TEST(RuleLibraryTest, BatchnormIsNotFoldedIntoANonConstantFilter) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 6, 4});
  ValueRef f = b.InputF32({3, 3, 4, 8});  // a runtime filter: nothing to fold into
  ValueRef c = b.Op(
      "Conv2d", {x, f, b.F32({8}, Ramp(8, 0, 0.1)), b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})});
  b.Output(b.Op("Batchnorm", {c, b.F32({8}, Ramp(8, 0.5, 0.1)), b.F32({8}, Ramp(8, 0, 0.1))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Batchnorm"), 1);
}

// ShuffleNet's channel shuffle as the importer writes it for an NCHW model:
// NHWC -> NCHW, [b,g,k,h,w], swap g and k, [b,c,h,w], back to NHWC.
Graph ChannelShuffle(std::vector<double> p2) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 5, 6});
  ValueRef y = b.Op("ElementWiseAdd", {x, x});  // so that the shuffle reads a computed tensor
  ValueRef t1 = b.Op("Transpose", {y, b.Shape({0, 3, 1, 2})});
  ValueRef r1 = b.Op("Reshape", {t1, b.Shape({1, 2, 3, 4, 5})});
  Dims p2d(p2.begin(), p2.end());
  ValueRef t2 = b.Op("Transpose", {r1, b.Shape(p2d)});
  ValueRef r2 = b.Op("Reshape", {t2, b.Shape({1, 6, 4, 5})});
  b.Output(b.Op("Transpose", {r2, b.Shape({0, 2, 3, 1})}));
  return b.graph();
}

TEST(RuleLibraryTest, ChannelShuffleBecomesOneTranspose) {
  Graph out = OptimizeAndVerify(ChannelShuffle({0, 2, 1, 3, 4}));
  EXPECT_EQ(CountOp(out, "Transpose"), 1);
  for (const Node& n : out.nodes()) {
    if (n.op == "Transpose") {
      EXPECT_EQ(n.outputs[0].dims, (Dims{1, 4, 5, 3, 2}));
    }
  }
}

TEST(RuleLibraryTest, OtherTransposeReshapeChainsAreKept) {
  // Swapping h and w instead of the groups is not a channel shuffle.
  Graph out = OptimizeAndVerify(ChannelShuffle({0, 1, 2, 4, 3}));
  EXPECT_EQ(CountOp(out, "Transpose"), 3);
}

TEST(RuleLibraryTest, ScaleAfterBatchnormFoldsIntoIt) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  ValueRef bn = b.Op("Batchnorm", {x, b.F32({8}, Ramp(8, 0.5, 0.1)), b.F32({8}, Ramp(8, 0, 0.1))});
  ValueRef m = b.Op("ElementWiseMultiply", {bn, b.F32({1, 1, 1, 8}, Ramp(8, 2, -0.25))});
  b.Output(b.Op("ElementWiseAdd", {m, b.F32({1, 1, 1, 8}, Ramp(8, -1, 0.25))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Batchnorm"), 1);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseAdd"), 0);
}

TEST(RuleLibraryTest, FullPlaneMultiplyAfterBatchnormIsKept) {
  // The constant varies over h and w: not a per-channel scale.
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  ValueRef bn = b.Op("Batchnorm", {x, b.F32({8}, Ramp(8, 0.5, 0.1)), b.F32({8}, Ramp(8, 0, 0.1))});
  b.Output(b.Op("ElementWiseMultiply", {bn, b.F32({1, 2, 2, 8}, Ramp(32, 1, 0.1))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 1);
}

TEST(RuleLibraryTest, ActivationFusesIntoFullyConnected) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2, 16});
  ValueRef fc = b.Op("FullyConnected",
                     {x, b.F32({4, 16}, Ramp(64, -0.3, 0.01)), b.F32({4}, Ramp(4, 0, 0.1))});
  b.Output(b.Op("Relu6", {fc}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Relu6") + CountOp(out, "ReluMinMax"), 0);
  ASSERT_EQ(CountOp(out, "FullyConnected"), 1);
}

TEST(RuleLibraryTest, SharedConvKeepsItsRelu) {
  // The conv's raw output is also a graph output: fusing would compute the
  // conv twice, which costs more than the Relu.
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 6, 4});
  ValueRef c = Conv(b, x, "Conv2d", true);
  b.Output(c);
  b.Output(b.Op("Relu", {c}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Conv2d"), 1);
  EXPECT_EQ(CountOp(out, "Relu") + CountOp(out, "ReluMinMax"), 1);
}

TEST(RuleLibraryTest, ReshapeAndTransposeCleanup) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 4, 8});
  ValueRef r1 = b.Op("Reshape", {x, b.Shape({16, 8})});
  ValueRef r2 = b.Op("Reshape", {r1, b.Shape({1, 128})});
  b.Output(b.Op("Softmax", {r2}));
  ValueRef t1 = b.Op("Transpose", {x, b.Shape({0, 3, 1, 2})});
  ValueRef t2 = b.Op("Transpose", {t1, b.Shape({0, 2, 3, 1})});
  b.Output(b.Op("Relu", {t2}));
  // Not inverse permutations: both stay.
  ValueRef u1 = b.Op("Transpose", {x, b.Shape({0, 2, 1, 3})});
  b.Output(b.Op("Transpose", {u1, b.Shape({0, 3, 1, 2})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Reshape"), 1);
  EXPECT_EQ(CountOp(out, "Transpose"), 2);
}

TEST(RuleLibraryTest, AlgebraIdentitiesAndReciprocal) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 2, 2, 8});
  ValueRef m = b.Op("ElementWiseMultiply", {x, b.F32({1, 1, 1, 1}, {1.0})});
  ValueRef a = b.Op("ElementWiseAdd", {m, b.F32({1, 1, 1, 1}, {0.0})});
  b.Output(b.Op("ElementWiseDivide", {a, b.F32({1, 1, 1, 1}, {4.0})}));
  // x * 2 is not an identity.
  b.Output(b.Op("ElementWiseMultiply", {x, b.F32({1, 1, 1, 1}, {2.0})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseAdd"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);  // x * 0.25 and x * 2
}

TEST(RuleLibraryTest, BiasAfterFullyConnectedJoinsIt) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 6, 16});
  ValueRef fc = b.Op("FullyConnected", {x, b.F32({4, 16}, Ramp(64, -0.3, 0.01))});
  b.Output(b.Op("ElementWiseAdd", {fc, b.F32({4}, Ramp(4, 1, 0.5))}));
  // A full-shape addend is not a bias.
  ValueRef fc2 = b.Op("FullyConnected", {x, b.F32({4, 16}, Ramp(64, 0.2, -0.01))});
  b.Output(b.Op("ElementWiseAdd", {fc2, b.F32({1, 6, 4}, Ramp(24, 0, 0.1))}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "FullyConnected"), 2);
  EXPECT_EQ(CountOp(out, "ElementWiseAdd"), 1);
}

}  // namespace
}  // namespace egret
