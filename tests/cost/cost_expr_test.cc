// Costs as written in rule files, evaluated to cycles (the parser keeps them
// symbolic: tests/rules/parser_test.cc checks how they are parsed).
#include "egret/cost/cost_expr.h"

#include <cmath>
#include <string>

#include "egret/rules/op_registry.h"
#include "egret/rules/rule_set.h"
#include "gtest/gtest.h"

namespace egret::cost {
namespace {

rules::RuleSet Load(const std::string& text) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(text, "t.rules", {}, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  return set;
}

TEST(CostExprTest, EvaluatesNumbersNamedCostsAndArithmetic) {
  // The costs of tests/rules/parser_test.cc's OpRegistrations, and a negation.
  rules::RuleSet set = Load(
      "DEF_PACKAGE_OP(i0, \"Op0\")\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(i1, \"Op1\", SNAIL/128)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(i2, \"Op2\", COST_OF(conv_cost, FAST*2))\n"
      "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(i3, \"Op3\", add_cost_fn)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(i4, \"Op4\", FREE)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(i5, \"Op5\", 1.5e3 + DISABLE - GLACIAL)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(i6, \"Op6\", -(FAST * 2) / 4)\n");
  const std::vector<rules::OpImplementation>& ops = set.ops.all();
  ASSERT_EQ(ops.size(), 7u);
  EXPECT_EQ(EvaluateCost(ops[0].cost), rules::kCostGlacial);  // DEF_PACKAGE_OP's default
  EXPECT_EQ(EvaluateCost(ops[1].cost), 4294967296.0 / 128);
  EXPECT_FALSE(EvaluateCost(ops[2].cost).has_value());  // COST_OF is symbolic
  EXPECT_FALSE(EvaluateCost(ops[3].cost).has_value());  // so is a cost function
  EXPECT_EQ(EvaluateCost(ops[4].cost), std::ldexp(1.0, -64));
  EXPECT_EQ(EvaluateCost(ops[5].cost), 1.5e3 + std::ldexp(1.0, 50) - std::ldexp(1.0, 48));
  EXPECT_EQ(EvaluateCost(ops[6].cost), -128.0);
}

TEST(CostExprTest, EstimateCountsCostOfAsItsBaseAndNamesCostFunctions) {
  rules::RuleSet set = Load(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(a, \"A\", COST_OF(f, SNAIL)/2, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(b, \"B\", FAST + 3*COST_OF(g, FAST), RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(c, \"C\", COST_OF_F(h)/2, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(d, \"D\", x_cost, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(e, \"E\", 7, RESOURCE_HVX)\n");
  const std::vector<rules::OpImplementation>& ops = set.ops.all();
  ASSERT_EQ(ops.size(), 5u);
  std::string function;
  EXPECT_EQ(EstimateCost(ops[0].cost, &function), rules::kCostSnail / 2);
  EXPECT_EQ(EstimateCost(ops[1].cost, &function), 4 * rules::kCostFast);
  EXPECT_EQ(function, "");
  EXPECT_FALSE(EstimateCost(ops[2].cost, &function).has_value());
  EXPECT_EQ(function, "h");
  function.clear();
  EXPECT_FALSE(EstimateCost(ops[3].cost, &function).has_value());
  EXPECT_EQ(function, "x_cost");
  EXPECT_FALSE(EstimateCost(ops[3].cost, nullptr).has_value());
  EXPECT_EQ(EstimateCost(ops[4].cost, nullptr), 7.0);
  EXPECT_EQ(EvaluateCost(ops[4].cost), 7.0);
}

}  // namespace
}  // namespace egret::cost
