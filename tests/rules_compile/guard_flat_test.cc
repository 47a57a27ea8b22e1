// Flat guards (guard_flat.h) against the closure tree they replace: every
// constraint below, compiled both ways, gives the same value and the same
// failure on every match of an e-graph whose operands differ in rank, dims,
// dtype and encoding.
#include "egret/rules_compile/guard_flat.h"

#include <string>
#include <vector>

#include "compile_test_util.h"
#include "egret/egraph/matcher.h"
#include "egret/rules_compile/guard.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

using testing::AddConst;
using testing::AddOp;
using testing::QU8;

class GuardFlatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Graph g;
    std::vector<NodeId> v;
    v.push_back(g.AddInput("f4", TensorType(DType::kFloat32, {1, 4, 4, 8})));
    v.push_back(g.AddInput("f3", TensorType(DType::kFloat32, {4, 4, 8})));
    v.push_back(g.AddInput("f4b", TensorType(DType::kFloat32, {1, 4, 2, 8})));
    v.push_back(g.AddInput("q", QU8({1, 4, 4, 8}, 3, 0.5f)));
    v.push_back(g.AddInput("q2", QU8({1, 4, 4, 8}, 3, 0.25f)));
    v.push_back(g.AddInput("h", TensorType(DType::kFloat16, {1, 1, 1, 1})));
    v.push_back(AddConst(g, TensorType(DType::kFloat32, {1}), {1.0}, "one"));
    v.push_back(AddConst(g, TensorType(DType::kInt32, {8}), {1, 2, 3, 4, 5, 6, 7, 8}, "i"));
    // Foo(x, y) for every pair, typed as x (and, for one of each three, as y).
    int k = 0;
    for (NodeId x : v) {
      for (NodeId y : v) {
        const TensorType& t = (k++ % 3 == 0 ? g.node(y) : g.node(x)).outputs[0];
        g.AddOutput(ValueRef{AddOp(g, "Foo", {x, y}, t), 0}, "o" + std::to_string(k));
      }
    }
    graph_ = std::move(g);
    im_ = std::make_unique<testing::Imported>(testing::Import(graph_));
  }

  // How many matches of Op("Foo", "x", "y") `constraint` holds for, after
  // checking that the flat and the closure compilations agree on each.
  int CountAgreeing(const std::string& constraint) {
    rules::RuleSet set = testing::LoadRules(
        // As rules/lib/egret_macros.h defines it.
        "#define SAME_DIMS(a, b) AND(EQ(RANK_OF(a), RANK_OF(b)), SAME_SHAPE(a, b))\n"
        "DEF_PACKAGE_OPTIMIZATION(BEGIN, Op(\"Foo\", \"x\", \"y\"), " +
        constraint + ", Op(\"Bar\", \"x\"))\n");
    EXPECT_EQ(set.rules.size(), 1u);
    if (set.rules.size() != 1) return -1;
    const rules::Rule& rule = set.rules[0];
    absl::StatusOr<rules::CompiledMatch> match = rules::CompileMatch(rule.match);
    EXPECT_TRUE(match.ok()) << match.status();
    absl::StatusOr<CompiledPattern> pattern = CompilePattern(match->pattern);
    EXPECT_TRUE(pattern.ok()) << pattern.status();
    rules::ExprEnv env;
    env.bindings = &match->bindings;
    rules::ExprEnv tree_env = env;
    tree_env.flat = false;
    absl::StatusOr<rules::ScalarFn> flat = rules::CompileScalar(*rule.constraint, env);
    absl::StatusOr<rules::ScalarFn> tree = rules::CompileScalar(*rule.constraint, tree_env);
    absl::StatusOr<Guard> guard = rules::CompileGuard(*rule.constraint, env);
    EXPECT_TRUE(flat.ok() && tree.ok() && guard.ok()) << constraint;
    if (!flat.ok() || !tree.ok() || !guard.ok()) return -1;
    int holds = 0, matches = 0;
    Matcher m(*pattern);
    m.MatchAll(im_->eg, [&](const MatchView& view) {
      ++matches;
      rules::EvalState a, b;
      a.g = b.g = &im_->eg;
      a.m = b.m = &view;
      rules::Scalar x = (*flat)(a), y = (*tree)(b);
      EXPECT_EQ(x.AsBool(), y.AsBool()) << constraint << " at match " << matches;
      EXPECT_EQ(a.failed, b.failed) << constraint << " at match " << matches;
      bool g = (*guard)(im_->eg, view);
      EXPECT_EQ(g, y.AsBool() && !b.failed) << constraint << " at match " << matches;
      holds += g ? 1 : 0;
      return true;
    });
    EXPECT_EQ(matches, 64) << constraint;
    return holds;
  }

  Graph graph_;
  std::unique_ptr<testing::Imported> im_;
};

TEST_F(GuardFlatTest, ShippedGuardShapesAgree) {
  // x and y of the same dims: f4, q and q2 pairwise, and each with itself.
  EXPECT_EQ(CountAgreeing("SAME_DIMS(\"x\", \"y\")"), 9 + 5);
  int same_root = CountAgreeing("SAME_DIMS(\"x\", \"*\")");
  EXPECT_GT(same_root, 0);
  EXPECT_LT(same_root, 64);
  EXPECT_GT(CountAgreeing("AND(IS_FLOAT32(\"x\"), SAME_DIMS(\"x\", \"*\"), "
                          "SAME_ENCODING(\"x\", \"*\"), IS_SCALAR(\"y\"), "
                          "EQ(CONSTVAL_FLOAT(\"y\", 0), 1.0f))"),
            0);
  EXPECT_GT(CountAgreeing("SAME_QUANT(\"x\", \"y\")"), 0);
  EXPECT_GT(CountAgreeing("AND(IS_QUINT8(\"x\"), SAME_SHAPE(\"x\", \"y\"), SAME_OP(\"x\", \"y\"))"),
            0);
}

TEST_F(GuardFlatTest, ComparisonsAgree) {
  for (const char* c : {
           "EQ(STEPSIZE_OF(\"x\"), 0.5)",
           "LT(DIM_OF(\"x\", 0), DIM_OF(\"y\", 0))",
           "GE(RANK_OF(\"x\"), 4)",
           "NE(DTYPE_OF(\"x\"), DTYPE_OF(\"y\"))",
           "LE(ZERO_OFFSET_OF(\"x\"), ZERO_OFFSET_OF(\"y\"))",
           "GT(DIM_OF(\"x\", 7), 0)",
           "EQ(DIM_OF(\"x\", -1), 1)",
           "EQ(QUANT_AXIS_OF(\"x\"), -1)",
           "EQ(ELEMENTSIZE_OF(\"x\"), 4)",
           "LT(STEPSIZE_OF(\"x\"), DIM_OF(\"y\", 3))",
           "NE(STEPSIZE_OF(\"x\"), STEPSIZE_OF(\"y\"))",
       }) {
    int n = CountAgreeing(c);
    EXPECT_GE(n, 0) << c;
  }
}

TEST_F(GuardFlatTest, NestingAndFailuresAgree) {
  // INPUT_OF("*", 5) does not exist: its conjunct fails, whatever surrounds it.
  const char* missing = "EQ(DIM_OF(INPUT_OF(\"*\", 5), 0), 1)";
  EXPECT_EQ(CountAgreeing(std::string("AND(EQ(RANK_OF(\"x\"), 4), ") + missing + ")"), 0);
  // Alone, a failed comparison still has a value (0 == 0 holds; the guard is
  // false all the same), and NOT of it fails too.
  EXPECT_EQ(CountAgreeing("EQ(DIM_OF(INPUT_OF(\"*\", 5), 0), 0)"), 0);
  EXPECT_EQ(CountAgreeing("NOT(EQ(DIM_OF(INPUT_OF(\"*\", 5), 0), 0))"), 0);
  EXPECT_EQ(CountAgreeing("OR(NOT(EQ(DIM_OF(INPUT_OF(\"*\", 5), 0), 1)), true)"), 0);
  EXPECT_EQ(CountAgreeing("NOT(EQ(STEPSIZE_OF(INPUT_OF(\"*\", 5)), 0.0))"), 0);
  // NOT of a failed AND fails too; where x's rank is not 4 (f3, one, i: 3 x 8
  // matches) the AND is false before it reaches the missing input.
  EXPECT_EQ(CountAgreeing(std::string("NOT(AND(EQ(RANK_OF(\"x\"), 4), ") + missing + "))"), 24);
  // A false conjunct before it ends the AND without failing: NOT holds.
  EXPECT_EQ(CountAgreeing(std::string("NOT(AND(EQ(RANK_OF(\"x\"), 9), ") + missing + "))"), 64);
  EXPECT_GT(CountAgreeing("OR(AND(IS_FLOAT16(\"x\"), IS_FLOAT16(\"y\")), "
                          "AND(AND(IS_FLOAT32(\"x\")), OR(IS_QUINT8(\"y\"), "
                          "SAME_DIMS(\"x\", \"y\"))))"),
            0);
  // Navigation: Foo's inputs are x and y; Foo has no input 2.
  EXPECT_EQ(CountAgreeing("AND(SAME_OP(INPUT_OF(\"*\", 0), \"x\"), "
                          "SAME_DIMS(INPUT_OF(\"*\", 1), \"y\"))"),
            64);
  EXPECT_EQ(CountAgreeing("AND(EQ(RANK_OF(\"x\"), 4), SAME_DIMS(INPUT_OF(\"*\", 2), \"y\"))"), 0);
  EXPECT_EQ(CountAgreeing("NOT(AND(EQ(RANK_OF(\"x\"), 4), SAME_OP(INPUT_OF(\"*\", 2), \"y\")))"),
            24);
  EXPECT_EQ(CountAgreeing("AND(EQ(RANK_OF(\"x\"), 4), SAME_OP(INPUT_OF(\"x\", 0), \"y\"))"), 0);
  EXPECT_GT(CountAgreeing("SAME_DIMS(INPUT_OF(\"*\", 0), INPUT_OF(\"*\", 1))"), 0);
  EXPECT_GT(CountAgreeing("AND(SELECT(EQ(RANK_OF(\"x\"), 3), true, SAME_DIMS(\"x\", \"*\")), "
                          "NOT(SAME_OP(\"x\", \"*\")))"),
            0);
}

TEST(GuardFlatFormsTest, OnlyAndsAndComparisonsAreFlat) {
  rules::RuleSet set = testing::LoadRules(
      "DEF_PACKAGE_OPTIMIZATION(BEGIN, Op(\"Foo\", \"x\", \"y\"), "
      "AND(OR(IS_FLOAT32(\"x\"), true), EQ(DIM_OF(INPUT_OF(\"*\", SUB(1, 1)), 0), 1)), "
      "Op(\"Bar\", \"x\"))\n");
  ASSERT_EQ(set.rules.size(), 1u);
  absl::StatusOr<rules::CompiledMatch> match = rules::CompileMatch(set.rules[0].match);
  ASSERT_TRUE(match.ok());
  rules::ExprEnv env;
  env.bindings = &match->bindings;
  rules::ExprCompiler c(env);
  const rules::Expr& e = *set.rules[0].constraint;
  absl::StatusOr<std::optional<rules::ScalarFn>> and_flat = rules::CompileFlat(c, e);
  ASSERT_TRUE(and_flat.ok());
  EXPECT_TRUE(and_flat->has_value());
  // The OR is not flat; nor is a comparison that navigates by a computed index.
  absl::StatusOr<std::optional<rules::ScalarFn>> or_flat = rules::CompileFlat(c, *e.args[0]);
  ASSERT_TRUE(or_flat.ok());
  EXPECT_FALSE(or_flat->has_value());
  absl::StatusOr<std::optional<rules::ScalarFn>> nav = rules::CompileFlat(c, *e.args[1]);
  ASSERT_TRUE(nav.ok());
  EXPECT_FALSE(nav->has_value());
}

}  // namespace
}  // namespace egret
