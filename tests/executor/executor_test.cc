// The executor's framework: input checks, error messages, dead code, memory
// release, limits, random inputs and output comparison.
// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "egret/executor/executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "egret/executor/test_data.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;
using ::testing::HasSubstr;

std::string ErrorOf(const absl::StatusOr<std::vector<Tensor>>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(Executor, ChecksInputs) {
  GraphBuilder b;
  b.Output(b.Op("Relu", {b.InputF32({2})}));
  EXPECT_THAT(ErrorOf(Execute(b.graph(), {})), HasSubstr("graph has 1 inputs, 0 given"));
  std::vector<Tensor> wrong = {Tensor(TensorType(DType::kFloat32, {3}))};
  EXPECT_THAT(ErrorOf(Execute(b.graph(), wrong)),
              HasSubstr("input 0 ('in0' (#0)) must be Float32[2], got Float32[3]"));
}

TEST(Executor, UnknownOpNamesNodeAndOp) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2});
  Node n;
  n.op = "MyOnnxOp";
  n.name = "weird";
  n.inputs = {x};
  n.outputs.push_back(TensorType(DType::kFloat32, {2}));
  NodeId id = b.graph().AddNode(n);
  b.Output({id, 0});
  auto r = Execute(b.graph(), {Tensor(TensorType(DType::kFloat32, {2}))});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(ErrorOf(r), HasSubstr("node 'weird' (#1): unknown op 'MyOnnxOp'"));
  EXPECT_FALSE(HasKernel("MyOnnxOp"));
  EXPECT_TRUE(HasKernel("Conv2d.opt"));
  EXPECT_TRUE(HasKernel("$Out"));
}

// An op egret does not know runs when the executor has an ONNX-semantics
// kernel for its full name ("onnx.Cos", not the base "onnx"), with the
// node's declared output type.
TEST(Executor, OpaqueOnnxOpRunsItsOnnxKernel) {
  GraphBuilder b;
  ValueRef x = b.InputF32({3});
  Node n;
  n.op = "onnx.Cos";
  n.name = "cos";
  n.inputs = {x};
  n.outputs.push_back(TensorType(DType::kFloat32, {3}));
  NodeId id = b.graph().AddNode(n);
  b.Output({id, 0});
  EXPECT_TRUE(HasKernel("onnx.Cos"));
  EXPECT_FALSE(HasKernel("onnx.NoSuchOp"));
  auto r = Execute(b.graph(), {Tensor::FromValues(TensorType(DType::kFloat32, {3}), {0, 1, -2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FLOAT_EQ((*r)[0].GetReal(0), 1.0f);
  EXPECT_FLOAT_EQ((*r)[0].GetReal(1), static_cast<float>(std::cos(1.0)));
  EXPECT_FLOAT_EQ((*r)[0].GetReal(2), static_cast<float>(std::cos(-2.0)));
}

TEST(Executor, DeadNodesAreNotRun) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2});
  Node n;
  n.op = "MyOnnxOp";
  n.inputs = {x};
  n.outputs.push_back(TensorType(DType::kFloat32, {2}));
  b.graph().AddNode(n);  // not an output and not used
  b.Output(b.Op("Neg", {x}));
  ExecuteStats stats;
  auto r = Execute(b.graph(), {Tensor::FromValues(TensorType(DType::kFloat32, {2}), {1, 2})},
                   {.stats = &stats});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].GetValue(1), -2);
  EXPECT_EQ(stats.nodes_run, 1);
}

TEST(Executor, DeclaredDimsMustMatchTheShapeFunction) {
  GraphBuilder b;
  ValueRef y = b.Op("Relu", {b.F32({2}, {1, 2})});
  b.graph().mutable_node(y.node).outputs[0].dims = {3};
  b.Output(y);
  EXPECT_THAT(ErrorOf(Execute(b.graph(), {})),
              HasSubstr("Relu output 0 is declared Float32[3] but its inputs give Float32[2]"));
}

TEST(Executor, ShapeErrorsNameTheNode) {
  GraphBuilder b;
  ValueRef a = b.F32({2}, {1, 2});
  ValueRef c = b.F32({3}, {1, 2, 3});
  Node n;
  n.op = "ElementWiseAdd";
  n.name = "add";
  n.inputs = {a, c};
  n.outputs.push_back(TensorType(DType::kFloat32, {3}));
  b.Output({b.graph().AddNode(n), 0});
  EXPECT_THAT(ErrorOf(Execute(b.graph(), {})),
              HasSubstr("node 'add' (#2): ElementWiseAdd: shapes [2] and [3] do not broadcast"));
}

TEST(Executor, ShapeAsDataInputIsRejected) {
  GraphBuilder b;
  ValueRef s = b.Shape({2});
  Node n;
  n.op = "Relu";
  n.inputs = {s};
  n.outputs.push_back(TensorType(DType::kInt32, {2}));
  b.Output({b.graph().AddNode(n), 0});
  EXPECT_THAT(ErrorOf(Execute(b.graph(), {})), HasSubstr("is a $Shape, which holds no data"));
}

TEST(Executor, FreesValuesAfterLastUse) {
  // A chain of four unary ops on 1000 floats: at most an input and an output
  // of one step are alive at once (the graph input is not counted).
  GraphBuilder b;
  ValueRef v = b.InputF32({1000});
  for (int i = 0; i < 4; ++i) v = b.Op("Neg", {v});
  b.Output(v);
  ExecuteStats stats;
  std::vector<Tensor> in = {Tensor(TensorType(DType::kFloat32, {1000}))};
  auto r = Execute(b.graph(), in, {.stats = &stats});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(stats.nodes_run, 4);
  EXPECT_EQ(stats.peak_live_bytes, 8000);
  // A limit below that peak stops the run with a clear error.
  auto limited = Execute(b.graph(), in, {.max_live_bytes = 6000});
  EXPECT_EQ(limited.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(ErrorOf(limited), HasSubstr("over the limit of 6000"));
}

TEST(Executor, ValueUsedTwiceStaysAliveUntilItsLastUse) {
  GraphBuilder b;
  ValueRef x = b.InputF32({2});
  ValueRef n = b.Op("Neg", {x});
  ValueRef a = b.Op("Abs", {n});
  b.Output(b.Op("ElementWiseAdd", {a, n}));  // -|x|... = |−x| + (−x)
  auto r = Execute(b.graph(), {Tensor::FromValues(TensorType(DType::kFloat32, {2}), {3, -4})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].GetValue(0), 0);
  EXPECT_EQ((*r)[0].GetValue(1), 8);
}

// Execute moves a computed output it alone holds out instead of copying it;
// a value given as two outputs, a graph input given as an output and a
// constant given as an output are each returned whole, and the caller's
// input and the graph's constant keep their data.
TEST(Executor, OutputsNamedTwiceAndBorrowedOutputsAreWhole) {
  GraphBuilder b;
  ValueRef x = b.InputF32({3});
  ValueRef c = b.F32({3}, {7, 8, 9});
  ValueRef n = b.Op("Neg", {x});
  b.Output(n);
  b.Output(x);
  b.Output(n);
  b.Output(c);
  const Tensor in = Tensor::FromValues(TensorType(DType::kFloat32, {3}), {1, -2, 3});
  auto r = Execute(b.graph(), {in});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 4u);
  for (int k : {0, 2}) {
    ASSERT_EQ((*r)[k].num_elements(), 3) << k;
    EXPECT_EQ((*r)[k].GetValue(1), 2) << k;
  }
  EXPECT_TRUE((*r)[1] == in);
  EXPECT_EQ((*r)[3].GetValue(2), 9);
  EXPECT_EQ(in.GetValue(1), -2);
  EXPECT_EQ(b.graph().node(c.node).constant->GetValue(0), 7);
}

// With an ExecuteCache, nodes that read only constants (a Dequantize of a
// weight, and a Neg of that) run on the first run alone: later runs take
// their values from the cache, with the same results. A second graph whose
// weight has the same type but other values, run with the same cache, is
// not given the first graph's values; neither is a Dequantize of the same
// weight to another type, nor a run with another thread count.
TEST(ExecuteCacheTest, NodesReadingOnlyConstantsRunOnce) {
  const TensorType wt(DType::kQInt8, {2, 3}, -3, 0.25f);
  const auto w = std::make_shared<Tensor>(Tensor::FromValues(wt, {1, 2, 3, 4, 5, 6}));
  const auto w2 = std::make_shared<Tensor>(Tensor::FromValues(wt, {-1, -2, -3, -4, -5, -6}));
  auto build = [&](GraphBuilder& b, const std::shared_ptr<Tensor>& weight, DType to) {
    ValueRef x = b.Input(TensorType(to, {2, 3}));
    ValueRef dq =
        b.Op("Dequantize", {{b.graph().AddConstant("w", weight), 0}}, {TensorType(to, {})});
    b.Output(b.Op("ElementWiseMultiply", {x, b.Op("Neg", {dq})}));
  };
  GraphBuilder first, second, half;
  build(first, w, DType::kFloat32);
  build(second, w2, DType::kFloat32);
  build(half, w, DType::kFloat16);  // the same weight tensor
  const std::vector<Tensor> in = {
      Tensor::FromValues(TensorType(DType::kFloat32, {2, 3}), {1, 1, 1, 2, 2, 2})};
  const std::vector<Tensor> in_half = {
      Tensor::FromValues(TensorType(DType::kFloat16, {2, 3}), {1, 1, 1, 2, 2, 2})};
  ExecuteCache cache;
  ExecuteStats stats;
  auto run = [&](const Graph& g, const std::vector<Tensor>& inputs, int threads) {
    auto r = Execute(g, inputs, {.stats = &stats, .threads = threads, .cache = &cache});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? (*r)[0] : Tensor(TensorType(DType::kFloat32, {}));
  };
  const Tensor once = run(first.graph(), in, 1);
  EXPECT_EQ(stats.nodes_run, 3);
  const int64_t held = cache.bytes();
  EXPECT_GE(held, 2 * 6 * 4);  // the Dequantize's and the Neg's floats
  const Tensor again = run(first.graph(), in, 1);
  EXPECT_EQ(stats.nodes_run, 1);
  EXPECT_TRUE(again == once);
  EXPECT_EQ(cache.bytes(), held);
  EXPECT_EQ(once.GetValue(5), -2 * (6 + 3) * 0.25);
  EXPECT_EQ(run(second.graph(), in, 1).GetValue(5), -2 * (-6 + 3) * 0.25);
  EXPECT_EQ(stats.nodes_run, 3);
  EXPECT_EQ(run(half.graph(), in_half, 1).GetValue(5), -2 * (6 + 3) * 0.25);
  EXPECT_EQ(stats.nodes_run, 3);
  EXPECT_TRUE(run(first.graph(), in, 2) == once);
  EXPECT_EQ(stats.nodes_run, 3);
  // Without a cache every node runs, every time.
  auto plain = Execute(first.graph(), in, {.stats = &stats});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(stats.nodes_run, 3);
  EXPECT_TRUE((*plain)[0] == once);
}

TEST(RandomInputs, DeterministicPerSeedAndInRange) {
  GraphBuilder b;
  b.InputF32({64});
  b.Input(TensorType(DType::kQUInt8, {64}, 128, 0.1f));
  b.Input(TensorType(DType::kInt32, {64}));
  auto r1 = MakeRandomInputs(b.graph(), 7);
  auto r2 = MakeRandomInputs(b.graph(), 7);
  auto r3 = MakeRandomInputs(b.graph(), 8);
  ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok());
  ASSERT_EQ(r1->size(), 3u);
  EXPECT_EQ(*r1, *r2);
  EXPECT_NE((*r1)[0], (*r3)[0]);
  double lo = 1, hi = -1;
  for (int i = 0; i < 64; ++i) {
    double v = (*r1)[0].GetValue(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    EXPECT_GE((*r1)[2].GetValue(i), 0);
    EXPECT_LT((*r1)[2].GetValue(i), 16);
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.5);  // 64 uniform draws spread over the range
  EXPECT_GT(hi, 0.5);
  EXPECT_EQ((*r1)[1].type(), TensorType(DType::kQUInt8, {64}, 128, 0.1f));
}

TEST(CompareOutputs, ReportsMaxErrorsAndTolerance) {
  TensorType t(DType::kFloat32, {3});
  Tensor expected = Tensor::FromValues(t, {1, 2, 0});
  Tensor actual = Tensor::FromValues(t, {1, 2.5, 0});
  auto d = CompareOutputs(std::vector<Tensor>{actual}, std::vector<Tensor>{expected}, 0.1, 0.0);
  ASSERT_TRUE(d.ok());
  EXPECT_DOUBLE_EQ((*d)[0].max_abs, 0.5);
  EXPECT_DOUBLE_EQ((*d)[0].max_rel, 0.25);
  EXPECT_EQ((*d)[0].mismatches, 1);
  EXPECT_FALSE((*d)[0].within_tolerance());
  auto ok = CompareOutputs(std::vector<Tensor>{actual}, std::vector<Tensor>{expected}, 0.3, 0.0);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE((*ok)[0].within_tolerance());
  Tensor other(TensorType(DType::kFloat32, {4}));
  auto bad = CompareOutputs(std::vector<Tensor>{other}, std::vector<Tensor>{expected}, 0, 0);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("output 0 is Float32[4]"));
  Tensor nan = Tensor::FromValues(t, {1, 2, std::nan("")});
  auto n = CompareOutputs(std::vector<Tensor>{nan}, std::vector<Tensor>{expected}, 1, 1);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)[0].mismatches, 1);
}

TEST(Verify, SubtractRewrittenAsAddIsCaught) {
  // The check `egret verify` makes: the same random inputs through two graphs.
  auto build = [](const char* op) {
    GraphBuilder b;
    ValueRef x = b.InputF32({16});
    ValueRef y = b.InputF32({16});
    b.Output(b.Op(op, {x, y}));
    return b.graph();
  };
  Graph a = build("ElementWiseSubtract");
  Graph c = build("ElementWiseAdd");
  auto in = MakeRandomInputs(a, 1);
  ASSERT_TRUE(in.ok());
  auto ra = Execute(a, *in);
  auto rc = Execute(c, *in);
  auto same = Execute(a, *in);
  ASSERT_TRUE(ra.ok() && rc.ok() && same.ok());
  auto d = CompareOutputs(*rc, *ra, 1e-5, 1e-6);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE((*d)[0].within_tolerance());
  auto s = CompareOutputs(*same, *ra, 0, 0);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE((*s)[0].within_tolerance());
  EXPECT_EQ((*s)[0].max_abs, 0);
}

}  // namespace
}  // namespace egret
