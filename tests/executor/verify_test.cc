// Verification: two graphs on the same inputs, compared output by output.
#include "egret/executor/verify.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using ::egret::testing::GraphBuilder;
using ::testing::HasSubstr;

// op(x, y) on two Float32[dims] inputs, output named "z".
Graph Binary(const std::string& op, Dims dims = {2, 3}) {
  GraphBuilder b;
  ValueRef x = b.InputF32(dims);
  ValueRef y = b.InputF32(dims);
  ValueRef z = b.Op(op, {x, y});
  b.graph().AddOutput(z, "z");
  return std::move(b.graph());
}

// Verifies b against a on a's random inputs of seed 7.
absl::StatusOr<VerifyReport> Check(const Graph& a, const Graph& b,
                                   const VerifyOptions& options = {}) {
  absl::StatusOr<std::vector<Tensor>> in = MakeRandomInputs(a, 7);
  if (!in.ok()) return in.status();
  return VerifyGraphs(a, "a.json", b, "b.json", *in, options);
}

TEST(VerifyTest, SameComputationIsOk) {
  absl::StatusOr<VerifyReport> r = Check(Binary("ElementWiseAdd"), Binary("ElementWiseAdd"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok());
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].label, "z");
  EXPECT_EQ(r->outputs[0].elements, 6);
  EXPECT_EQ(r->outputs[0].diff.max_abs, 0);
  EXPECT_EQ(r->ToString(),
            "output z: max abs error 0, max rel error 0, 0 of 6 elements outside tolerance: ok\n"
            "verify: ok (rtol 0.0001, atol 1e-05)\n");
}

// x * 200, and the same plus `shift`: outputs of magnitude up to 200.
Graph Scaled(double shift) {
  GraphBuilder b;
  ValueRef x = b.InputF32({8, 8});
  ValueRef z = b.Op("ElementWiseMultiply", {x, b.F32({1, 1}, {200})});
  if (shift != 0) z = b.Op("ElementWiseAdd", {z, b.F32({1, 1}, {shift})});
  b.graph().AddOutput(z, "z");
  return std::move(b.graph());
}

// A float output's tolerance grows with its largest magnitude (float32
// reassociation errors scale with the values summed): an error of 1e-5 of
// that magnitude passes even on elements near zero, ten times more does not.
TEST(VerifyTest, FloatToleranceScalesWithTheOutputsLargestMagnitude) {
  absl::StatusOr<VerifyReport> r = Check(Scaled(0), Scaled(1e-3));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok()) << r->ToString();
  EXPECT_EQ(r->outputs[0].atol_source, "output magnitude");
  EXPECT_GT(r->outputs[0].atol, 1e-3);
  EXPECT_LT(r->outputs[0].atol, 2.1e-3);
  EXPECT_THAT(r->ToString(), HasSubstr("of the output's largest magnitude): ok"));
  absl::StatusOr<VerifyReport> far = Check(Scaled(0), Scaled(3e-2));
  ASSERT_TRUE(far.ok()) << far.status();
  EXPECT_FALSE(far->ok());
  VerifyOptions strict;
  strict.magnitude_rtol = 0;
  absl::StatusOr<VerifyReport> off = Check(Scaled(0), Scaled(1e-3), strict);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->ok());
  EXPECT_EQ(off->outputs[0].atol_source, "atol");
}

TEST(VerifyTest, SubtractRewrittenToAddFails) {
  Graph a = Binary("ElementWiseSubtract");
  Graph b = Binary("ElementWiseAdd");
  absl::StatusOr<VerifyReport> r = Check(a, b);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok());
  // (x + y) - (x - y) = 2y, nonzero for random y.
  EXPECT_GT(r->outputs[0].diff.max_abs, 0);
  EXPECT_EQ(r->outputs[0].diff.mismatches, 6);
  EXPECT_THAT(r->ToString(), HasSubstr("6 of 6 elements outside tolerance: FAIL\n"
                                       "verify: FAILED (rtol 0.0001, atol 1e-05)\n"));
  // A loose enough tolerance accepts it.
  r = Check(a, b, {.rtol = 0, .atol = 2});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok());
}

// x -> Quantize[QUInt8(0, step)] -> Dequantize, with x scaled by `k` first:
// the output is a dequantized tensor of stepsize `step`.
Graph Quantized(double k, float step) {
  GraphBuilder b;
  ValueRef x = b.InputF32({8, 8});
  ValueRef scaled = b.Op("ElementWiseMultiply", {x, b.F32({1}, {k})});
  TensorType t;  // (field by field: GCC warns falsely on the constructor here)
  t.dtype = DType::kQUInt8;
  t.zero_offset = 128;
  t.stepsize = step;
  ValueRef q = b.Op("Quantize", {scaled}, {t});
  b.graph().AddOutput(b.Op("Dequantize", {q}), "z");
  return std::move(b.graph());
}

// A quantized output may differ by one step of its encoding (a quantized op
// rounds once where the float island it replaces rounded twice), and no more.
TEST(VerifyTest, QuantizedOutputsMayDifferByOneStep) {
  const float step = 0.05f;
  // x * 1.02 against x: a few elements move to the next step, none by two.
  absl::StatusOr<VerifyReport> r = Check(Quantized(1.0, step), Quantized(1.02, step));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->outputs[0].diff.max_abs, 0.9 * step);
  EXPECT_TRUE(r->ok()) << r->ToString();
  EXPECT_THAT(r->ToString(), HasSubstr("(atol 0.05"));
  EXPECT_THAT(r->ToString(), HasSubstr("1 quantization step"));
  // Without the allowance, or off by several steps, it fails.
  r = Check(Quantized(1.0, step), Quantized(1.02, step), {.quant_steps = 0});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok());
  r = Check(Quantized(1.0, step), Quantized(1.5, step));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok());
}

TEST(VerifyTest, OneReferenceRunServesSeveralCandidates) {
  Graph a = Binary("ElementWiseSubtract");
  absl::StatusOr<std::vector<Tensor>> in = MakeRandomInputs(a, 7);
  ASSERT_TRUE(in.ok()) << in.status();
  absl::StatusOr<ReferenceOutputs> ref = RunReference(a, "a.json", *in);
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_EQ(ref->labels, std::vector<std::string>{"z"});
  absl::StatusOr<VerifyReport> same = VerifyAgainst(*ref, Binary("ElementWiseSubtract"), "s", *in);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE(same->ok());
  EXPECT_EQ(same->Failures(), "");
  absl::StatusOr<VerifyReport> wrong = VerifyAgainst(*ref, Binary("ElementWiseAdd"), "w", *in);
  ASSERT_TRUE(wrong.ok()) << wrong.status();
  EXPECT_FALSE(wrong->ok());
  EXPECT_THAT(wrong->Failures(), ::testing::StartsWith("output z: 6 of 6 elements outside "
                                                       "tolerance (max abs error "));
  // A candidate whose outputs do not match in number is an error naming it.
  Graph two = Binary("ElementWiseAdd");
  two.AddOutput(two.outputs()[0].value, "again");
  absl::StatusOr<VerifyReport> bad = VerifyAgainst(*ref, two, "m.json", *in);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::StartsWith("m.json: error: "));
}

// Two outputs, one behind an op with no reference kernel: that one is
// reported as not verified (naming the blocking node), the other is still
// compared, and the verdict is about the compared one.
Graph WithOpaqueOutput(const std::string& visible_op) {
  GraphBuilder b;
  ValueRef x = b.InputF32({4});
  Node n;
  n.op = "onnx.NoKernelOp";
  n.name = "mystery";
  n.inputs = {x};
  n.outputs.push_back(TensorType(DType::kFloat32, {4}));
  ValueRef m{b.graph().AddNode(n), 0};
  b.graph().AddOutput(b.Op(visible_op, {x, x}), "sum");
  b.graph().AddOutput(b.Op("Relu", {m}), "hidden");
  return std::move(b.graph());
}

// An unverified output makes the verdict incomplete, never ok.
TEST(VerifyTest, OutputBehindAnOpWithoutKernelIsNotVerified) {
  absl::StatusOr<VerifyReport> r =
      Check(WithOpaqueOutput("ElementWiseAdd"), WithOpaqueOutput("ElementWiseAdd"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok());
  EXPECT_FALSE(r->failed());
  EXPECT_EQ(r->verdict(), VerifyVerdict::kIncomplete);
  EXPECT_THAT(r->Unverified(), ::testing::StartsWith("hidden: the reference depends on node "));
  EXPECT_EQ(r->not_verified(), 1u);
  EXPECT_EQ(r->outputs[0].not_verified, "");
  EXPECT_EQ(r->outputs[0].elements, 4);
  EXPECT_THAT(r->outputs[1].not_verified,
              HasSubstr("depends on node 'mystery' (#1) (onnx.NoKernelOp), which has no "
                        "reference kernel"));
  EXPECT_THAT(r->ToString(), HasSubstr("output hidden: not verified: the reference depends on"));
  EXPECT_THAT(r->ToString(),
              HasSubstr("verify: incomplete (1 of 2 outputs not verified: hidden) (rtol "));
  EXPECT_THAT(r->ToString(), ::testing::Not(HasSubstr("verify: ok")));
  // The visible output is still checked, and a failure there is a failure.
  absl::StatusOr<VerifyReport> bad =
      Check(WithOpaqueOutput("ElementWiseAdd"), WithOpaqueOutput("ElementWiseSubtract"));
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_FALSE(bad->ok());
  EXPECT_EQ(bad->verdict(), VerifyVerdict::kFailed);
  EXPECT_THAT(bad->Failures(), HasSubstr("output sum"));
  EXPECT_THAT(bad->ToString(), HasSubstr("verify: FAILED, 1 of 2 outputs not verified (rtol "));
}

TEST(VerifyTest, MismatchedInputsNameTheGraph) {
  absl::StatusOr<VerifyReport> r =
      Check(Binary("ElementWiseAdd", {2}), Binary("ElementWiseAdd", {3}));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "b.json: error: input 0 is Float32[3], in a.json it is Float32[2]");
}

}  // namespace
}  // namespace egret
