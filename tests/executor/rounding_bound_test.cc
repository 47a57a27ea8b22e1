// The rounding bound --verify derives for quantized rewrites: a fused island
// that rounds once where the reference rounded twice passes verification by
// default, while wrong rewrites (a wrong scale, a dropped zero point, swapped
// operands) still fail.
#include "egret/executor/rounding_bound.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using ::egret::testing::GraphBuilder;
using ::testing::HasSubstr;

TensorType QU8(int32_t zero, float step, Dims dims = {}) {
  TensorType t;  // (field by field: GCC warns falsely on the constructor here)
  t.dtype = DType::kQUInt8;
  t.dims = std::move(dims);
  t.zero_offset = zero;
  t.stepsize = step;
  return t;
}

struct Variant {
  bool fused = false;      // the candidate: Multiply -> Relu -> Quantize(0.08), one rounding
  double k = 0.5;          // the Multiply's constant (a scale folded into it)
  int32_t out_zero = 128;  // the last Quantize's zero offset
  bool swapped = false;    // Subtract(a, d2) instead of Subtract(d2, a)
};

// The residual block as ONNX Runtime's static quantizer writes it, in egret's
// ops: x -> Q(0.02) -> DQ = a; a * 0.5 -> Q(0.013) -> DQ -> Relu ->
// Q(0.08) -> DQ = d2; d2 - a -> Q(0.05) -> DQ. The fused variant computes
// Relu(a * 0.5) and rounds it once, at 0.08, and says (Provenance::from)
// that it took over the Multiply, the first Quantize and Dequantize, the Relu
// and the second Quantize.
Graph Block(const Variant& v) {
  const Dims dims = {1, 32, 32, 16};
  GraphBuilder b;
  Graph& g = b.graph();
  auto name = [&](ValueRef r, const std::string& n, std::vector<std::string> from = {}) {
    g.mutable_node(r.node).name = n;
    if (!from.empty()) g.mutable_node(r.node).provenance.mutable_from() = std::move(from);
    return r;
  };
  ValueRef x = b.InputF32(dims);
  ValueRef q0 = name(b.Op("Quantize", {x}, {QU8(128, 0.02f, dims)}), "q0");
  ValueRef a = name(b.Op("Dequantize", {q0}), "a");
  ValueRef t = name(b.Op("ElementWiseMultiply", {a, b.Scalar(v.k)}), "mul");
  ValueRef q2;
  if (v.fused) {
    ValueRef relu = name(b.Op("Relu", {t}), "relu", {"relu"});
    q2 = name(b.Op("Quantize", {relu}, {QU8(0, 0.08f, dims)}), "q2",
              {"d1", "mul", "q1", "q2", "relu"});
  } else {
    ValueRef q1 = name(b.Op("Quantize", {t}, {QU8(128, 0.013f, dims)}), "q1");
    ValueRef d1 = name(b.Op("Dequantize", {q1}), "d1");
    ValueRef relu = name(b.Op("Relu", {d1}), "relu");
    q2 = name(b.Op("Quantize", {relu}, {QU8(0, 0.08f, dims)}), "q2");
  }
  ValueRef d2 = name(b.Op("Dequantize", {q2}), "d2");
  ValueRef sub =
      name(b.Op("ElementWiseSubtract", v.swapped ? std::vector{a, d2} : std::vector{d2, a}), "sub");
  ValueRef q3 = name(b.Op("Quantize", {sub}, {QU8(v.out_zero, 0.05f, dims)}), "q3");
  g.AddOutput(name(b.Op("Dequantize", {q3}), "out"), "y");
  return std::move(g);
}

absl::StatusOr<VerifyReport> Check(const Graph& a, const Graph& b, VerifyOptions options = {}) {
  absl::StatusOr<std::vector<Tensor>> in = MakeRandomInputs(a, 3);
  if (!in.ok()) return in.status();
  return VerifyGraphs(a, "input", b, "optimized", *in, options);
}

// One removed rounding of 0.013 moves the Relu's value by at most 0.0065;
// rounded at 0.08 that is one step (0.08), which the Subtract carries to the
// last rounding at 0.05: at most floor(0.08 / 0.05) + 1 = 2 steps, 0.1.
TEST(RoundingBoundTest, AFusedRoundingIsCarriedToTheOutput) {
  std::vector<RoundingBound> b = DeriveRoundingBounds(Block({}), Block({.fused = true}));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NEAR(b[0].bound, 0.1, 1e-6);
  EXPECT_EQ(b[0].removed_roundings, 1);
  EXPECT_EQ(b[0].added_roundings, 0);
  // Graphs that round at the same places: no bound beyond quant_steps.
  b = DeriveRoundingBounds(Block({}), Block({}));
  EXPECT_EQ(b[0].bound, 0);
  EXPECT_EQ(b[0].removed_roundings, 0);
}

TEST(RoundingBoundTest, TheFusedBlockVerifiesByDefaultAndNotWithOneStep) {
  const Graph input = Block({});
  const Graph fused = Block({.fused = true});
  absl::StatusOr<VerifyReport> r = Check(input, fused);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok()) << r->ToString();
  // It needed the bound: some elements differ by two steps of 0.05.
  EXPECT_GT(r->outputs[0].diff.max_abs, 0.05 * 1.5) << r->ToString();
  EXPECT_EQ(r->outputs[0].atol_source, "rounding bound");
  EXPECT_THAT(r->ToString(), HasSubstr("(atol 0.1: rounding bound, 1 removed rounding)"));
  // A fixed allowance of one step (--quant-steps 1) fails the same result.
  r = Check(input, fused, {.quant_steps = 1, .derive_rounding_bound = false});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->failed()) << r->ToString();
}

// Wrong rewrites of the same block are still caught under the derived bound.
TEST(RoundingBoundTest, WrongRewritesStillFail) {
  const Graph input = Block({});
  for (const auto& [what, v] : std::vector<std::pair<std::string, Variant>>{
           {"wrong scale (x1.5 folded into the multiply)", {.fused = true, .k = 0.75}},
           {"dropped zero point", {.fused = true, .out_zero = 0}},
           {"swapped operands", {.fused = true, .swapped = true}}}) {
    SCOPED_TRACE(what);
    absl::StatusOr<VerifyReport> r = Check(input, Block(v));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->failed()) << r->ToString();
  }
}

// A Multiply of two varying operands carries each one's bound by the other's
// range; an op with no known constant makes the bound infinite and says where.
TEST(RoundingBoundTest, UnknownOpsMakeTheBoundInfinite) {
  auto graph = [](bool fused, const std::string& tail) {
    const Dims dims = {64};
    GraphBuilder b;
    Graph& g = b.graph();
    ValueRef x = b.InputF32(dims);
    ValueRef q0 = b.Op("Quantize", {x}, {QU8(128, 0.02f, dims)});
    g.mutable_node(q0.node).name = "q0";
    ValueRef a = b.Op("Dequantize", {q0});
    g.mutable_node(a.node).name = "a";
    ValueRef t = a;
    if (!fused) {
      ValueRef q1 = b.Op("Quantize", {a}, {QU8(128, 0.013f, dims)});
      g.mutable_node(q1.node).name = "q1";
      t = b.Op("Dequantize", {q1});
      g.mutable_node(t.node).name = "d1";
    }
    ValueRef y = b.Op(tail, {t});
    g.mutable_node(y.node).name = "tail";
    if (fused) g.mutable_node(y.node).provenance.mutable_from() = {"d1", "q1", "tail"};
    g.AddOutput(y, "y");
    return std::move(g);
  };
  std::vector<RoundingBound> b = DeriveRoundingBounds(graph(false, "Exp"), graph(true, "Exp"));
  EXPECT_TRUE(std::isinf(b[0].bound));
  EXPECT_THAT(b[0].unbounded_at, HasSubstr("Exp"));
  b = DeriveRoundingBounds(graph(false, "Sigmoid"), graph(true, "Sigmoid"));
  EXPECT_NEAR(b[0].bound, 0.013 / 2 / 4, 1e-9);
}

}  // namespace
}  // namespace egret
