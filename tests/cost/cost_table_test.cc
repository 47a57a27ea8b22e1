// The cost table of a rule set: registrations evaluated as far as they can
// be, and JSON overrides.
#include "egret/cost/cost_table.h"

#include <string>

#include "egret/cost/hvx_cost_model.h"
#include "egret/rules/op_registry.h"
#include "egret/rules/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost/node_profile.h"

namespace egret::cost {
namespace {

using testing::P;

TEST(CostModelTest, SymbolicCostsEvaluateWhatTheyCanAndWarnOtherwise) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"Relu\", COST_OF(f, SNAIL)/2, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(b, \"Relu6\", FAST + 3*COST_OF(g, FAST), RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(c, \"Relu1\", COST_OF_F(h)/2, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(d, \"ReluX\", x_cost, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(e, \"Conv2d\", DISABLE, RESOURCE_HVX)\n",
      "sym.rules", {}, &diags);
  ASSERT_FALSE(diags.has_errors()) << diags.ToString();
  DiagnosticList cost_diags;
  CostTable t = CostTableFromRegistry(set.ops, &cost_diags);
  EXPECT_EQ(t.ops["Relu"][0].cost, rules::kCostSnail / 2);
  EXPECT_EQ(t.ops["Relu6"][0].cost, 4 * rules::kCostFast);
  EXPECT_EQ(t.ops["Relu1"][0].cost, rules::kCostGlacial);
  EXPECT_EQ(t.ops["ReluX"][0].cost, rules::kCostGlacial);
  EXPECT_TRUE(t.ops["Conv2d"][0].disabled);
  EXPECT_FALSE(t.ops["Relu"][0].disabled);
  EXPECT_EQ(cost_diags.warning_count(), 2);
  EXPECT_EQ(cost_diags.error_count(), 0);
  const std::string text = cost_diags.ToString();
  EXPECT_THAT(text, ::testing::HasSubstr("sym.rules:3:"));
  EXPECT_THAT(text, ::testing::HasSubstr("cost function 'h'"));
  EXPECT_THAT(text, ::testing::HasSubstr("sym.rules:4:"));
  EXPECT_THAT(text, ::testing::HasSubstr("cost function 'x_cost'"));
  EXPECT_THAT(text, ::testing::HasSubstr("warning: "));
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("sym.rules:1:")));
}

TEST(CostTableTest, OverridesReplaceTheRegistrysCostPerDtype) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"Relu\", 10, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(b, \"Relu\", FAST, IS_COPY)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(c, \"Reshape\", 1, NULL_EXEC)\n",
      "t.rules", {}, &diags);
  ASSERT_FALSE(diags.has_errors()) << diags.ToString();
  CostTable t =
      CostTableWithOverrides(set.ops, {{"Relu", {{"QUInt8", 3}}}, {"Conv2d", {{"*", 9}}}});
  ASSERT_EQ(t.ops["Relu"].size(), 2u);
  EXPECT_EQ(t.ops["Relu"][0].impl, "a");
  EXPECT_EQ(t.ops["Relu"][0].cost, 10);
  EXPECT_TRUE(t.ops["Relu"][0].hvx);
  EXPECT_FALSE(t.ops["Relu"][0].copy);
  EXPECT_EQ(t.ops["Relu"][1].cost, rules::kCostFast);
  EXPECT_TRUE(t.ops["Relu"][1].copy);
  EXPECT_TRUE(t.ops["Reshape"][0].no_op);
  EXPECT_EQ(t.overrides["Relu"]["QUInt8"], 3);
  EXPECT_EQ(t.overrides["Conv2d"]["*"], 9);
  EXPECT_EQ(HvxCostModel(t).Cost("Relu", P(DType::kQUInt8, 256)).cost, 6);
  EXPECT_EQ(HvxCostModel(t).Cost("Relu", P(DType::kInt32, 256)).impl, "a");
}

TEST(CostTableTest, BadOverrideFilesNameTheFile) {
  auto error = [](const std::string& json) {
    CostTable t;
    absl::Status s = AddCostOverrides(json, "costs.json", &t);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << json;
    return std::string(s.message());
  };
  EXPECT_EQ(error("{"), "costs.json: error: malformed JSON cost table");
  EXPECT_EQ(error("[1]"), "costs.json: error: the cost table must be a JSON object");
  EXPECT_EQ(error(R"({"Relu": "x"})"),
            "costs.json: error: cost of 'Relu' must be a number or an object");
  EXPECT_EQ(error(R"({"Relu": {"QUInt8": "x"}})"),
            "costs.json: error: cost of 'Relu' for dtype 'QUInt8' is not a number");
  EXPECT_EQ(error(R"({"Relu": {"Int5": 1}})"),
            "costs.json: error: unknown dtype 'Int5' in the cost of 'Relu'");
  CostTable t;
  ASSERT_TRUE(AddCostOverrides(R"({"Relu": 2, "Add": {"*": 1, "Int32": 4}})", "c.json", &t).ok());
  EXPECT_EQ(t.overrides["Relu"]["*"], 2);
  EXPECT_EQ(t.overrides["Add"]["Int32"], 4);
}

// RESOURCE_HMX: an implementation on the matrix unit is priced like an HVX
// one (per output vector, spill term included) divided by
// kHmxThroughputFactor, so an HMX Conv2d registered with its HVX twin's figure
// is chosen, at an eighth of the cost.
TEST(CostTableTest, HmxImplementationIsPricedWithTheThroughputFactor) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((convHvx<QUint8CroutonTensor>), \"Conv2d\", 1024, "
      "RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((convHmx<QUint8CroutonTensor>), \"Conv2d\", 1024, "
      "RESOURCE_HMX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((mmHvx<PlainFloatTensor>), \"MatMul\", 512, "
      "RESOURCE_HVX)\n",
      "hmx.rules", {}, &diags);
  ASSERT_FALSE(diags.has_errors()) << diags.ToString();
  CostTable t = CostTableFromRegistry(set.ops);
  ASSERT_EQ(t.ops["Conv2d"].size(), 2u);
  EXPECT_FALSE(t.ops["Conv2d"][0].hmx);
  EXPECT_TRUE(t.ops["Conv2d"][1].hmx);
  const HvxCostModel m(t, /*vtcm_bytes=*/1 << 20);
  // 4 output vectors: HVX 4 * 1024, HMX 4 * 1024 / 8.
  const NodeCost c = m.Cost("Conv2d", P(DType::kQUInt8, 512));
  EXPECT_EQ(c.impl, "(convHmx<QUint8CroutonTensor>)");
  EXPECT_EQ(c.cost, 4 * 1024 / kHmxThroughputFactor);
  // Over the VTCM capacity HMX pays the spill term like HVX: 8 cycles per
  // vector over it.
  const int64_t out = 1 << 20, in = 1024;  // 8 vectors over
  const double vectors = static_cast<double>(out / kHvxVectorBytes);
  EXPECT_EQ(m.Cost("Conv2d", P(DType::kQUInt8, out, in)).cost,
            vectors * 1024 / kHmxThroughputFactor + 8 * kSpillCyclesPerVector);
  // An op with no HMX implementation keeps its HVX price.
  EXPECT_EQ(m.Cost("MatMul", P(DType::kFloat32, 512)).cost, 4 * 512);
}

// IS_CONST: the implementation's output never changes; the HTP computes it
// while preparing the graph, so it costs nothing when the graph runs.
TEST(CostTableTest, IsConstImplementationIsFree) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((tableImpl<Tensor>), \"MakeTable\", SNAIL, "
      "RESOURCE_HVX, IS_CONST)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((tableImpl<Tensor>), \"RunTable\", SNAIL, "
      "RESOURCE_HVX)\n",
      "const.rules", {}, &diags);
  ASSERT_FALSE(diags.has_errors()) << diags.ToString();
  const HvxCostModel m(CostTableFromRegistry(set.ops));
  const NodeCost c = m.Cost("MakeTable", P(DType::kFloat32, 4096));
  ASSERT_TRUE(c.computable);
  EXPECT_EQ(c.cost, kFreeCost);
  EXPECT_EQ(c.impl, "(tableImpl<Tensor>)");
  EXPECT_EQ(m.Cost("RunTable", P(DType::kFloat32, 4096)).cost, 32 * rules::kCostSnail);
}

}  // namespace
}  // namespace egret::cost
