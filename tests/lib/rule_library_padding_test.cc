// The shipped rule library on Pad: folded into a convolution's or a pool's
// padding where that computes the same, kept where it does not.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "egret/pipeline/optimize.h"
#include "tests/graph/graph_builder.h"
#include "tests/lib/rule_library_test_util.h"
#include "tests/lib/shipped_library.h"

namespace egret {
namespace {

// A Pad of an [1,6,6,cin] input: `pads` [b0,b1,h0,h1,w0,w1,c0,c1]; no
// mode/value inputs when `value` is null, else mode `mode` and `value`.
ValueRef PadOf(GraphBuilder& b, ValueRef x, const std::vector<int64_t>& pads, int mode,
               const double* value) {
  std::vector<ValueRef> ins = {x, b.Shape(Dims(pads.begin(), pads.end()))};
  if (value != nullptr) {
    ins.push_back(b.Ints({static_cast<double>(mode)}));
    ins.push_back(b.Scalar(*value));
  }
  return b.Op("Pad", ins);
}

// A zero Pad of the spatial dims before a convolution becomes the
// convolution's padding (MLSD's TF-style "same" padding), with the Pad's
// defaults or its value written out, with and without dilation.
TEST(RuleLibraryTest, ZeroPadFoldsIntoConvolution) {
  const double zero = 0;
  for (const char* op : {"Conv2d", "DepthWiseConv2d"}) {
    for (bool dilation : {false, true}) {
      for (const double* value : {static_cast<const double*>(nullptr), &zero}) {
        GraphBuilder b;
        ValueRef x = b.InputF32({1, 5, 5, 4});
        ValueRef c = Conv(b, PadOf(b, x, {0, 0, 0, 1, 1, 0, 0, 0}, 0, value), op, dilation);
        b.Output(b.Op("Sigmoid", {c}));
        Graph out = OptimizeAndVerify(b.graph());
        EXPECT_EQ(CountOp(out, "Pad"), 0) << op << dilation << (value != nullptr);
        EXPECT_EQ(CountOp(out, op), 1) << op;
      }
    }
  }
}

// The Pad stays where the convolution's zero padding would compute something
// else: a non-zero value, a reflect pad, channel padding, or a combined pad
// as large as the filter (an output reading padding only).
TEST(RuleLibraryTest, PadThatIsNotConvolutionPaddingStays) {
  const double half = 0.5, zero = 0;
  struct Case {
    const char* what;
    std::vector<int64_t> pads;
    int mode;
    const double* value;
    int cin;
  };
  const Case cases[] = {
      {"non-zero value", {0, 0, 1, 1, 1, 1, 0, 0}, 0, &half, 4},
      {"reflect", {0, 0, 1, 1, 1, 1, 0, 0}, 2, &zero, 4},
      {"channels", {0, 0, 0, 0, 0, 0, 1, 0}, 0, &zero, 3},
      {"as large as the filter", {0, 0, 2, 0, 0, 0, 0, 0}, 0, &zero, 4},
  };
  for (const Case& k : cases) {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 5, 5, k.cin});
    b.Output(b.Op("Sigmoid", {Conv(b, PadOf(b, x, k.pads, k.mode, k.value), "Conv2d", false)}));
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(CountOp(out, "Pad"), 1) << k.what;
  }
}

// A 3x3 pool with stride 2 and pads [0,0,0,0] of `in`.
ValueRef Pool(GraphBuilder& b, ValueRef in, const char* op, int count_pad) {
  std::vector<ValueRef> ins = {in, b.Shape({1, 3, 3, 1}), b.Shape({1, 2, 2, 1}),
                               b.Shape({0, 0, 0, 0})};
  if (count_pad >= 0) ins.push_back(b.Ints({static_cast<double>(count_pad)}));
  return b.Op(op, ins);
}

// A Pad before a pool becomes the pool's padding: -inf before a max pool; a
// value no larger than the Relu before it; zeros before an average pool,
// which then counts the padding (count_pad 1).
TEST(RuleLibraryTest, PadFoldsIntoPooling) {
  const double neg_inf = -INFINITY, zero = 0;
  const std::vector<int64_t> pads = {0, 0, 1, 1, 0, 2, 0, 0};
  struct Case {
    const char* what;
    const char* op;
    const double* value;
    bool relu;
    int count_pad;  // -1: not given
  };
  const Case cases[] = {
      {"max, -inf", "PoolMax2d", &neg_inf, false, -1},
      {"max after Relu, 0", "PoolMax2d", &zero, true, -1},
      {"avg, 0, count_pad 0", "PoolAvg2d", &zero, false, 0},
      {"avg, 0, no count_pad", "PoolAvg2d", &zero, false, -1},
      {"avg, 0, count_pad 1", "PoolAvg2d", &zero, false, 1},
  };
  for (const Case& k : cases) {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 7, 7, 4});
    if (k.relu) x = b.Op("Relu", {x});
    b.Output(b.Op("Sigmoid", {Pool(b, PadOf(b, x, pads, 0, k.value), k.op, k.count_pad)}));
    Graph out = OptimizeAndVerify(b.graph());
    EXPECT_EQ(CountOp(out, "Pad"), 0) << k.what;
    EXPECT_EQ(CountOp(out, k.op), 1) << k.what;
  }
}

// A zero Pad before a max pool of any input would let the padding win; an
// average pool that does not count its own padding cannot count the Pad's.
TEST(RuleLibraryTest, PadThatIsNotPoolPaddingStays) {
  const double zero = 0, neg_inf = -INFINITY;
  {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 7, 7, 4});
    b.Output(b.Op("Sigmoid",
                  {Pool(b, PadOf(b, x, {0, 0, 1, 1, 1, 1, 0, 0}, 0, &zero), "PoolMax2d", -1)}));
    EXPECT_EQ(CountOp(OptimizeAndVerify(b.graph()), "Pad"), 1) << "max, 0";
  }
  {
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 7, 7, 4});
    ValueRef p = PadOf(b, x, {0, 0, 1, 1, 1, 1, 0, 0}, 0, &zero);
    b.Output(b.Op("Sigmoid", {b.Op("PoolAvg2d", {p, b.Shape({1, 3, 3, 1}), b.Shape({1, 2, 2, 1}),
                                                 b.Shape({1, 1, 1, 1}), b.Ints({0})})}));
    EXPECT_EQ(CountOp(OptimizeAndVerify(b.graph()), "Pad"), 1) << "avg with own pads";
  }
  {
    // Channel padding with -inf.
    GraphBuilder b;
    ValueRef x = b.InputF32({1, 7, 7, 4});
    b.Output(b.Op("Sigmoid",
                  {Pool(b, PadOf(b, x, {0, 0, 0, 0, 0, 0, 0, 2}, 0, &neg_inf), "PoolMax2d", -1)}));
    EXPECT_EQ(CountOp(OptimizeAndVerify(b.graph()), "Pad"), 1) << "channels";
  }
}

}  // namespace
}  // namespace egret
