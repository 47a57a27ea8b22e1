// The identities of the shipped library's algebra.rules that recognition
// composes (tests/lib/spellings_test.cc has the compositions), and uniform
// constant tensors.
#include <gtest/gtest.h>

#include <vector>

#include "egret/pipeline/optimize.h"
#include "tests/graph/graph_builder.h"
#include "tests/lib/rule_library_test_util.h"
#include "tests/lib/shipped_library.h"

namespace egret {
namespace {

// --- The identities of algebra.rules that recognition composes
// (tests/lib/spellings_test.cc has the compositions).

// a / b is a * (1 / b): the reciprocal is computed on b, here the [1,64,1]
// row sums, and the quotient of the [1,64,256] tensor becomes a multiply.
TEST(RuleLibraryTest, QuotientIsAProductWithTheReciprocal) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 64, 256});
  ValueRef s = b.Op("ReduceSum", {b.Op("Abs", {x}), b.Shape({2}), b.Ints({1})});
  b.Output(b.Op("ElementWiseDivide", {x, b.Op("ElementWiseAdd", {s, b.Scalar(1.0)})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 1);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 1);
  // The remaining division is the reciprocal of the [1,64,1] sums.
  for (const Node& n : out.nodes()) {
    if (n.op == "ElementWiseDivide") {
      EXPECT_EQ(n.outputs[0].num_elements(), 64);
    }
  }
}

// 1 / sqrt(y) is ElementWiseRsqrt(y).
TEST(RuleLibraryTest, ReciprocalOfTheRootIsRsqrt) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(b.Op("ElementWiseDivide", {b.Scalar(1.0), b.Op("Sqrt", {b.Op("Abs", {x})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseRsqrt"), 1);
  EXPECT_EQ(CountOp(out, "Sqrt"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 0);
}

// x * -1 and 0 - x are Neg(x); x * -2 is not.
TEST(RuleLibraryTest, NegationsAreNeg) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(b.Op("ElementWiseMultiply", {x, b.Scalar(-1.0)}));
  b.Output(b.Op("ElementWiseSubtract", {b.Scalar(0.0), b.Op("Abs", {x})}));
  b.Output(b.Op("ElementWiseMultiply", {x, b.Scalar(-2.0)}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Neg"), 2);
  EXPECT_EQ(CountOp(out, "ElementWiseSubtract"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 1);
}

// log(exp(x)) is x.
TEST(RuleLibraryTest, LogOfExpIsTheArgument) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(b.Op("Relu", {b.Op("Log", {b.Op("Exp", {x})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Log"), 0);
  EXPECT_EQ(CountOp(out, "Exp"), 0);
}

// exp(log(s)) is s only where s is a sum of exponentials (positive): not for
// an arbitrary s, where the logarithm of a negative value is NaN.
TEST(RuleLibraryTest, ExpOfLogCancelsOnlyForASumOfExponentials) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  ValueRef s = b.Op("ReduceSum", {b.Op("Exp", {x}), b.Shape({2}), b.Ints({1})});
  b.Output(b.Op("Exp", {b.Op("Log", {s})}));
  b.Output(b.Op("Exp", {b.Op("Log", {b.Op("Neg", {x})})}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Log"), 1);
  EXPECT_EQ(CountOp(out, "Exp"), 2);  // the summed exponentials and exp(log(-x))
}

// 1 / (1 + exp(-x)) is Sigmoid(x).
TEST(RuleLibraryTest, LogisticIsSigmoid) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  ValueRef d = b.Op("ElementWiseAdd", {b.Scalar(1.0), b.Op("Exp", {b.Op("Neg", {x})})});
  b.Output(b.Op("ElementWiseDivide", {b.Scalar(1.0), d}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "Sigmoid"), 1);
  EXPECT_EQ(CountOp(out, "Exp"), 0);
}

// exp(a - b) = exp(a) / exp(b), x - (a + b) = (x - a) - b and a*c + c =
// (a + 1)*c change nothing alone (the extractor keeps the cheaper form);
// tests/lib/spellings_test.cc shows what each enables (SoftmaxThroughLog-
// SumExp, SoftmaxThroughStableLogSumExp, GeluTanh*, GeluPhiAsHalfPlusHalfErf).

// A constant tensor of one repeated value is its scalar (pipeline/
// uniform_constant.h): x * [1, 1, ..., 1] is x, the division by a full
// tensor of 4s a multiply by 0.25, and [0, ..., 0] - x (the constant first)
// is -x; a tensor of different values stays.
TEST(RuleLibraryTest, UniformConstantTensorIsItsScalar) {
  GraphBuilder b;
  ValueRef x = b.InputF32({1, 4, 8});
  b.Output(
      b.Op("Relu", {b.Op("ElementWiseMultiply", {x, b.F32({8}, std::vector<double>(8, 1.0))})}));
  b.Output(b.Op("ElementWiseDivide", {x, b.F32({8}, std::vector<double>(8, 4.0))}));
  b.Output(b.Op("ElementWiseMultiply", {x, b.F32({8}, Ramp(8, 1.0, 1.0))}));
  b.Output(b.Op("ElementWiseSubtract", {b.F32({8}, std::vector<double>(8, 0.0)), x}));
  Graph out = OptimizeAndVerify(b.graph());
  EXPECT_EQ(CountOp(out, "ElementWiseDivide"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseSubtract"), 0);
  EXPECT_EQ(CountOp(out, "ElementWiseMultiply"), 2);
}

}  // namespace
}  // namespace egret
