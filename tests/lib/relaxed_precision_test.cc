// Relaxed precision end to end: rules flagged relaxed_precision_flag (in the
// style of an op package's Float16 rules: tests/lib/testdata/relu_fp16.rules)
// run only when the run asks for them, and then compute a Float32 Relu and
// maximum in Float16 between casts; the QNN_Cast those rules insert converts
// values between float, integer and quantized types.
#include <cmath>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules/rule_flags.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "shipped_library.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::CountOp;
using ::testing::ElementsAre;
using testing::FindOp;
using testing::GraphBuilder;

const std::string kRules = std::string(EGRET_SOURCE_DIR) + "/tests/lib/testdata/relu_fp16.rules";

const rules::RuleSet& Fp16Rules() {
  static const rules::RuleSet* const kSet = [] {
    DiagnosticList diags;
    absl::StatusOr<rules::RuleSet> set = rules::LoadRuleFiles({kRules}, {}, &diags);
    EXPECT_TRUE(set.ok()) << set.status();
    EXPECT_EQ(diags.error_count() + diags.warning_count(), 0) << diags.ToString();
    return new rules::RuleSet(set.ok() ? *std::move(set) : rules::RuleSet{});
  }();
  return *kSet;
}

// Relu(Maximum(a, b)) in Float32, from inputs of `input_dtype` (Float16
// inputs go through a Cast up first, so the Float32 values are exactly
// representable in Float16).
Graph MaxRelu(DType input_dtype) {
  GraphBuilder b;
  const Dims dims = {1, 8, 8, 16};
  ValueRef a = b.Input(TensorType(input_dtype, dims));
  ValueRef c = b.Input(TensorType(input_dtype, dims));
  if (input_dtype != DType::kFloat32) {
    a = b.Op("Cast", {a}, {TensorType(DType::kFloat32, dims)});
    c = b.Op("Cast", {c}, {TensorType(DType::kFloat32, dims)});
  }
  b.Output(b.Op("Relu", {b.Op("ElementWiseMaximum", {a, c})}));
  return b.graph();
}

OptimizeResult OptimizeFp16(const Graph& g, uint32_t rule_flags) {
  OptimizeOptions options;
  options.rule_flags = rule_flags;
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(g, Fp16Rules(), options, &diags);
  EXPECT_TRUE(r.ok()) << r.status() << diags.ToString();
  if (!r.ok()) return OptimizeResult();
  EXPECT_TRUE(r->rule_issues.empty()) << ToJson(*r)["rule_issues"].dump();
  return *std::move(r);
}

TEST(RelaxedPrecisionTest, RunFlagNamesAndTheirBits) {
  EXPECT_EQ(rules::RunFlagNames(), "relaxed_precision, fold_relu");
  absl::StatusOr<uint32_t> bits = rules::ParseRunFlags({"relaxed_precision", "fold_relu_flag"});
  ASSERT_TRUE(bits.ok()) << bits.status();
  EXPECT_EQ(*bits, rules::kRelaxedPrecision | rules::kFoldRelu);
  EXPECT_EQ(*rules::ParseRunFlags({}), 0u);
  absl::StatusOr<uint32_t> bad = rules::ParseRunFlags({"relaxed_precision", "cse_after_always"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unknown rule flag 'cse_after_always' (known: relaxed_precision, fold_relu)");
}

// Only the gating flags leave a rule out; the others (CSE and constant
// propagation after a pass, explicit AUTOSPLIT) never do.
TEST(RelaxedPrecisionTest, OnlyGatingFlagsLeaveRulesOut) {
  DiagnosticList diags;
  const rules::RuleSet set = rules::LoadRuleText(
      "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(GRAPH_CLEANUP, cse_after_always | cp_after_if | "
      "explicit_autosplit_flag, Op(\"Neg\", \"x\"), OK, Op(\"Neg\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(GRAPH_CLEANUP, relaxed_precision_flag | fold_relu_flag,"
      " Op(\"Neg\", \"x\"), OK, Op(\"Neg\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(GRAPH_CLEANUP, fold_relu_flag, Op(\"Neg\", \"x\"), OK,"
      " Op(\"Neg\", \"x\"))\n",
      "flags.rules", {}, &diags);
  ASSERT_EQ(set.rules.size(), 3u) << diags.ToString();
  EXPECT_TRUE(rules::RuleRuns(set.rules[0], 0));
  EXPECT_FALSE(rules::RuleRuns(set.rules[1], rules::kRelaxedPrecision));  // needs both
  EXPECT_TRUE(rules::RuleRuns(set.rules[1], rules::kRelaxedPrecision | rules::kFoldRelu));
  rules::LeftOutRules none = rules::RulesLeftOut(set, 0);
  EXPECT_EQ(none.count, 2u);
  EXPECT_THAT(none.needed, ElementsAre("relaxed_precision", "fold_relu"));
  EXPECT_EQ(none.ToString(),
            "2 rules left out (they need --flag relaxed_precision or --flag fold_relu)");
  rules::LeftOutRules some = rules::RulesLeftOut(set, rules::kFoldRelu);
  EXPECT_EQ(some.ToString(), "1 rule left out (it needs --flag relaxed_precision)");
  EXPECT_EQ(rules::RulesLeftOut(set, rules::kFoldRelu | rules::kRelaxedPrecision).count, 0u);
}

TEST(RelaxedPrecisionTest, WithoutTheFlagTheGraphIsUnchanged) {
  const Graph g = MaxRelu(DType::kFloat16);
  const OptimizeResult r = OptimizeFp16(g, 0);
  EXPECT_EQ(r.rules_left_out.count, 3u);
  EXPECT_THAT(r.rules_left_out.needed, ElementsAre("relaxed_precision"));
  EXPECT_EQ(ToJson(r)["rules_left_out"],
            nlohmann::json::parse(
                R"({"count": 3, "needed": ["relaxed_precision"], "device_lowering": 0})"));
  EXPECT_EQ(r.rules_compiled, 4u);  // the four cast round trips
  EXPECT_EQ(r.graph.num_nodes(), g.num_nodes());
  EXPECT_EQ(CountOp(r.graph, "Relu"), 1);
  EXPECT_EQ(CountOp(r.graph, "Relu.fp16"), 0);
  EXPECT_EQ(CountOp(r.graph, "QNN_Cast"), 0);
  EXPECT_EQ(CountOp(r.graph, "Cast"), 2);
  const Node* max = FindOp(r.graph, "ElementWiseMaximum");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->outputs[0].dtype, DType::kFloat32);
  EXPECT_EQ(r.output_cost, r.input_cost);
}

// Float16 inputs: every Float32 value is a Float16 one, so the Float16
// computation is exact and the default tolerance holds. The casts in the
// middle cancel: Maximum runs on the inputs, Relu.fp16 on its result, and one
// Cast brings the output back to Float32.
TEST(RelaxedPrecisionTest, WithTheFlagReluAndMaximumRunInFloat16) {
  const Graph g = MaxRelu(DType::kFloat16);
  const OptimizeResult r = OptimizeFp16(g, rules::kRelaxedPrecision);
  EXPECT_EQ(r.rules_left_out.count, 0u);
  EXPECT_EQ(r.rules_compiled, 7u);
  EXPECT_EQ(CountOp(r.graph, "Relu"), 0);
  EXPECT_EQ(CountOp(r.graph, "Relu.fp16"), 1);
  EXPECT_EQ(CountOp(r.graph, "Cast"), 1);
  EXPECT_EQ(CountOp(r.graph, "QNN_Cast"), 0);
  const Node* max = FindOp(r.graph, "ElementWiseMaximum");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->outputs[0].dtype, DType::kFloat16);
  const Node* relu = FindOp(r.graph, "Relu.fp16");
  EXPECT_EQ(relu->outputs[0].dtype, DType::kFloat16);
  EXPECT_EQ(r.graph.node(r.graph.outputs()[0].value.node).outputs[0].dtype, DType::kFloat32);
  EXPECT_LT(r.output_cost, r.input_cost);
  testing::ExpectSameOutputs(g, r.graph, 3, VerifyOptions{});
}

// Float32 inputs: the maximum's operands are cast down with QNN_Cast (the
// prelude's CAST_TO_FP16), so the result is the Float16 rounding of the
// Float32 one: within half a Float16 unit in the last place, 2^-11
// relatively.
TEST(RelaxedPrecisionTest, Float32InputsAreRoundedToFloat16) {
  const Graph g = MaxRelu(DType::kFloat32);
  const OptimizeResult r = OptimizeFp16(g, rules::kRelaxedPrecision);
  EXPECT_EQ(CountOp(r.graph, "QNN_Cast"), 2);
  EXPECT_EQ(CountOp(r.graph, "Relu.fp16"), 1);
  for (const Node& n : r.graph.nodes()) {
    if (n.op == "QNN_Cast") {
      EXPECT_EQ(n.outputs[0].dtype, DType::kFloat16);
    }
  }
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 5);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<std::vector<Tensor>> want = Execute(g, *inputs);
  absl::StatusOr<std::vector<Tensor>> got = Execute(r.graph, *inputs);
  ASSERT_TRUE(want.ok() && got.ok());
  int inexact = 0;
  for (int64_t i = 0; i < (*want)[0].num_elements(); ++i) {
    const double w = (*want)[0].GetReal(i), v = (*got)[0].GetReal(i);
    EXPECT_LE(std::abs(v - w), std::ldexp(std::abs(w), -11)) << i;
    inexact += v != w;
  }
  EXPECT_GT(inexact, 0);  // Float16 did round
}

// QNN_Cast keeps the real value and stores it in the declared type.
TEST(RelaxedPrecisionTest, QnnCastConvertsValues) {
  const Dims dims = {4};
  auto cast = [](TensorType from, std::vector<double> values, TensorType to) {
    GraphBuilder b;
    b.Output(b.Op("QNN_Cast", {b.Input(from)}, {to}));
    Tensor in = Tensor::FromValues(from, values);
    absl::StatusOr<std::vector<Tensor>> out = Execute(b.graph(), {in});
    EXPECT_TRUE(out.ok()) << out.status();
    std::vector<double> stored;
    for (int64_t i = 0; out.ok() && i < 4; ++i) stored.push_back((*out)[0].GetValue(i));
    return stored;
  };
  const TensorType f32(DType::kFloat32, dims), qu8(DType::kQUInt8, dims, 128, 0.5f);
  // Quantized: round(r / 0.5) + 128, saturated to [0, 255].
  EXPECT_THAT(cast(f32, {-1.26, 0.3, 100, -100}, qu8), ElementsAre(125, 129, 255, 0));
  // From quantized: the real value.
  EXPECT_THAT(cast(qu8, {130, 128, 0, 255}, f32), ElementsAre(1.0, 0.0, -64.0, 63.5));
  // To Int32: rounded to nearest; to Float16: its nearest value.
  EXPECT_THAT(cast(f32, {2.4, -2.6, 7, 0}, TensorType(DType::kInt32, dims)),
              ElementsAre(2, -3, 7, 0));
  EXPECT_THAT(cast(f32, {0.1, 1, -2048, 65504}, TensorType(DType::kFloat16, dims)),
              ElementsAre(0.0999755859375, 1, -2048, 65504));
}

// Two QNN_Casts of one value to different types are two values in the
// e-graph (their output type is part of the node), not a conflict.
TEST(RelaxedPrecisionTest, QnnCastsOfOneValueToTwoTypesStayApart) {
  GraphBuilder b;
  const Dims dims = {1, 4, 4, 8};
  ValueRef x = b.Input(TensorType(DType::kFloat32, dims));
  b.Output(b.Op("QNN_Cast", {x}, {TensorType(DType::kFloat16, dims)}));
  b.Output(b.Op("QNN_Cast", {x}, {TensorType(DType::kQUInt8, dims, 128, 0.25f)}));
  const OptimizeResult r = OptimizeFp16(b.graph(), 0);
  EXPECT_EQ(CountOp(r.graph, "QNN_Cast"), 2);
  testing::ExpectSameOutputs(b.graph(), r.graph, 1, VerifyOptions{});
}

}  // namespace
}  // namespace egret
