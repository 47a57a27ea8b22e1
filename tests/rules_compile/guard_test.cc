// Constraint forms compiled into guards, evaluated on a tiny e-graph.
#include "egret/rules_compile/guard.h"

#include <cmath>
#include <string>

#include "compile_test_util.h"
#include "egret/egraph/matcher.h"
#include "egret/rules_compile/function_binding.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

using testing::AddConst;
using testing::AddOp;
using testing::AddShapeNode;
using testing::QU8;

class GuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Graph g;
    x_ = g.AddInput("x", QU8({1, 4, 4, 300}, 3, 0.5f));
    NodeId c = AddConst(g, TensorType(DType::kInt32, {4}), {-7, 2, 3, 5}, "c");
    NodeId f = AddConst(g, TensorType(DType::kFloat32, {2}), {1.5, -2.0}, "f");
    NodeId s = AddShapeNode(g, {1, 2, 3});
    NodeId relu = AddOp(g, "Relu", {x_}, QU8({1, 4, 4, 300}, 3, 0.5f), "relu");
    root_ = AddOp(g, "Foo", {relu, c, f, s}, QU8({1, 4, 4, 300}, 3, 0.5f), "foo");
    g.AddOutput(ValueRef{root_, 0}, "out");
    g.mutable_options()["tile_height"] = int64_t{8};
    g.mutable_options()["flag"] = true;
    graph_ = std::move(g);
    im_ = std::make_unique<testing::Imported>(testing::Import(graph_));
  }

  // Evaluates `constraint` on the (only) match of
  // Op("Foo", LET("r", Op("Relu", "x")), "c", "f", "s").
  bool Holds(const std::string& constraint, const rules::FunctionLibrary* lib = nullptr,
             const std::string& prefix = "") {
    rules::RuleSet set = testing::LoadRules(
        prefix +
        "DEF_PACKAGE_OPTIMIZATION(BEGIN, Op(\"Foo\", LET(\"r\", Op(\"Relu\", \"x\")), "
        "\"c\", \"f\", \"s\"), " +
        constraint + ", Op(\"Bar\", \"x\"))\n");
    EXPECT_EQ(set.rules.size(), 1u);
    EXPECT_TRUE(set.valid.empty() || set.valid[0]) << constraint;
    rules::CompileOptions co;
    co.options = graph_.options();
    co.functions = lib;
    absl::StatusOr<rules::CompiledRule> r = rules::CompileRule(set.rules[0], co);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return false;
    Matcher m(r->rewrite.pattern);
    int matches = 0;
    bool result = false;
    m.MatchAll(im_->eg, [&](const MatchView& v) {
      ++matches;
      result = !r->rewrite.guard || r->rewrite.guard(im_->eg, v);
      return true;
    });
    EXPECT_EQ(matches, 1) << constraint;
    return result;
  }

  Graph graph_;
  NodeId x_ = 0, root_ = 0;
  std::unique_ptr<testing::Imported> im_;
};

TEST_F(GuardTest, Properties) {
  EXPECT_TRUE(Holds("EQ(RANK_OF(\"x\"), 4)"));
  EXPECT_TRUE(Holds("EQ(DIM_OF(\"x\", 3), 300)"));
  EXPECT_TRUE(Holds("EQ(DIM_DEPTH(\"*\"), 300)"));
  EXPECT_FALSE(Holds("EQ(DIM_HEIGHT(\"x\"), 5)"));
  EXPECT_TRUE(Holds("IS_QUINT8(\"x\")"));
  EXPECT_TRUE(Holds("EQ(DTYPE_OF(\"x\"), DType::QUInt8)"));
  EXPECT_TRUE(Holds("NE(DTYPE_OF(\"c\"), DType::QUInt8)"));
  EXPECT_TRUE(Holds("EQ(ELEMENTSIZE_OF(\"x\"), 1)"));
  EXPECT_TRUE(Holds("EQ(ELEMENTSIZE_OF(\"c\"), 4)"));
  EXPECT_TRUE(Holds("EQ(STEPSIZE_OF(\"x\"), 0.5)"));
  EXPECT_TRUE(Holds("EQ(ZERO_OFFSET_OF(\"x\"), 3)"));
  EXPECT_TRUE(Holds("EQ(INPUTS_OF(\"*\"), 4)"));
  EXPECT_TRUE(Holds("EQ(INPUTS_OF(\"r\"), 1)"));
  EXPECT_TRUE(Holds("EQ(OUTPUTS_OF(\"*\"), 1)"));
  EXPECT_TRUE(Holds("SAME_SHAPE(\"x\", \"*\")"));
  EXPECT_FALSE(Holds("SAME_SHAPE(\"x\", \"c\")"));
  EXPECT_TRUE(Holds("SAME_ENCODING(\"x\", \"r\")"));
  EXPECT_FALSE(Holds("SAME_ENCODING(\"x\", \"f\")"));
}

TEST_F(GuardTest, Navigation) {
  EXPECT_TRUE(Holds("SAME_OP(INPUT_OF(\"*\", 1), \"c\")"));
  EXPECT_TRUE(Holds("SAME_OP(INPUT_OF(\"r\", 0), \"x\")"));
  EXPECT_FALSE(Holds("SAME_OP(INPUT_OF(\"*\", 2), \"c\")"));
  EXPECT_TRUE(Holds("SAME_OP(INPUT_OF(INPUT_OF(\"*\", 0), 0), \"x\")"));
  EXPECT_TRUE(Holds("SAME_OP(OUTPUT_OF(\"*\", 0), \"*\")"));
  // A missing input makes the whole constraint false, whatever it says.
  EXPECT_FALSE(Holds("NOT(SAME_OP(INPUT_OF(\"*\", 9), \"c\"))"));
  EXPECT_FALSE(Holds("EQ(RANK_OF(INPUT_OF(\"x\", 0)), 0)"));  // "*Input" has no inputs
  EXPECT_TRUE(Holds("IS_OP(INPUT_OF(\"*\", 0), \"Relu\")"));
  EXPECT_FALSE(Holds("IS_OP(\"r\", \"Foo\")"));
  EXPECT_TRUE(Holds("EQ(DIM_OF(SELECT(true, \"x\", \"c\"), 3), 300)"));
  EXPECT_TRUE(Holds("EQ(DIM_OF(SELECT(false, \"x\", \"c\"), 0), 4)"));
}

TEST_F(GuardTest, ProducerEmptinessAndLayoutChunks) {
  EXPECT_TRUE(Holds("PRODUCER_FOR(INPUT_OF(\"*\", 0), \"Relu\")"));
  EXPECT_FALSE(Holds("PRODUCER_FOR(\"c\", \"Relu\")"));
  EXPECT_FALSE(Holds("IS_EMPTY(\"x\")"));
  EXPECT_FALSE(Holds("IS_EMPTY_DIM(\"x\", 3)"));
  // Crouton tensors are 1x8x8x32 chunks; any other layout is flat.
  EXPECT_TRUE(Holds("EQ(LAYOUT_CHUNKSIZE(QUint8CroutonTensor, 3), 32)"));
  EXPECT_TRUE(Holds("EQ(LAYOUT_CHUNKSIZE(QUint8CroutonTensor, 1), 8)"));
  EXPECT_TRUE(Holds("EQ(LAYOUT_CHUNKSIZE(PlainFloatTensor, 3), 1)"));
}

TEST(GuardEmptyTest, EmptyTensorsAndDims) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 0, 4, 8}));
  NodeId root = AddOp(g, "Foo", {x}, QU8({1, 0, 4, 8}));
  g.AddOutput(ValueRef{root, 0}, "out");
  testing::Imported im = testing::Import(g);
  auto holds = [&](const std::string& c) {
    rules::RuleSet set = testing::LoadRules("DEF_PACKAGE_OPTIMIZATION(BEGIN, Op(\"Foo\", \"x\"), " +
                                            c + ", \"x\")\n");
    absl::StatusOr<rules::CompiledRule> r = rules::CompileRule(set.rules[0], {});
    EXPECT_TRUE(r.ok()) << r.status();
    bool result = false;
    Matcher m(r->rewrite.pattern);
    m.MatchAll(im.eg, [&](const MatchView& v) {
      result = r->rewrite.guard(im.eg, v);
      return true;
    });
    return result;
  };
  EXPECT_TRUE(holds("IS_EMPTY(\"x\")"));
  EXPECT_TRUE(holds("IS_EMPTY_DIM(\"x\", 1)"));
  EXPECT_FALSE(holds("IS_EMPTY_DIM(\"x\", 2)"));
}

TEST_F(GuardTest, ConstValuesAndFailureValues) {
  EXPECT_TRUE(Holds("EQ(CONSTVAL_INT(\"c\", 0), -7)"));
  EXPECT_TRUE(Holds("EQ(CONSTVAL_INT(\"c\", 3), 5)"));
  EXPECT_TRUE(Holds("EQ(CONSTVAL_INT(\"c\", 0, 2), 3)"));  // row 0, column 2 of a [4] vector
  EXPECT_FALSE(Holds("CONSTVAL_INT_VALID(\"c\", 1, 2)"));  // a [4] vector has one row
  EXPECT_TRUE(Holds("EQ(CONSTVAL_INT(\"s\", 2), 3)"));     // a $Shape's dims are its value
  EXPECT_TRUE(Holds("EQ(CONSTVAL_FLOAT(\"f\", 1), -2.0)"));
  EXPECT_TRUE(Holds("CONSTVAL_INT_VALID(\"c\", 3)"));
  // Failures: out of range, not a constant, not an integer.
  EXPECT_TRUE(Holds("EQ(CONSTVAL_INT(\"c\", 4), -2147483648)"));
  EXPECT_TRUE(Holds("EQ(CONSTVAL_INT(\"c\", -1), -2147483648)"));
  EXPECT_TRUE(Holds("EQ(CONSTVAL_INT(\"x\", 0), -2147483648)"));
  EXPECT_TRUE(Holds("EQ(CONSTVAL_INT(\"f\", 0), -2147483648)"));
  EXPECT_FALSE(Holds("CONSTVAL_INT_VALID(\"c\", 4)"));
  EXPECT_FALSE(Holds("CONSTVAL_INT_VALID(\"f\", 0)"));
  EXPECT_TRUE(Holds("CONSTVAL_FLOAT_VALID(\"f\", 0)"));
  EXPECT_FALSE(Holds("CONSTVAL_FLOAT_VALID(\"f\", 2)"));
  EXPECT_FALSE(Holds("CONSTVAL_FLOAT_VALID(\"x\", 0)"));
  // NaN: unequal to itself.
  EXPECT_TRUE(Holds("NE(CONSTVAL_FLOAT(\"f\", 7), CONSTVAL_FLOAT(\"f\", 7))"));
  EXPECT_FALSE(Holds("EQ(CONSTVAL_FLOAT(\"x\", 0), CONSTVAL_FLOAT(\"x\", 0))"));
}

TEST_F(GuardTest, RemAndModSigns) {
  EXPECT_TRUE(Holds("EQ(REM(7, 3), 1)"));
  EXPECT_TRUE(Holds("EQ(MOD(7, 3), 1)"));
  EXPECT_TRUE(Holds("EQ(REM(-7, 3), -1)"));  // sign of a
  EXPECT_TRUE(Holds("EQ(MOD(-7, 3), 2)"));   // sign of b
  EXPECT_TRUE(Holds("EQ(REM(7, -3), 1)"));
  EXPECT_TRUE(Holds("EQ(MOD(7, -3), -2)"));
  EXPECT_TRUE(Holds("EQ(REM(-6, 3), 0)"));
  EXPECT_TRUE(Holds("EQ(MOD(-6, 3), 0)"));
  EXPECT_TRUE(Holds("EQ(REM(CONSTVAL_INT(\"c\", 0), 2), -1)"));
  EXPECT_TRUE(Holds("EQ(MOD(CONSTVAL_INT(\"c\", 0), 2), 1)"));
}

TEST_F(GuardTest, Arithmetic) {
  EXPECT_TRUE(Holds("EQ(ADD(1, 2, 3), 6)"));
  EXPECT_TRUE(Holds("EQ(MUL(2, 3, 4), 24)"));
  EXPECT_TRUE(Holds("EQ(MIN(5, 2, 9), 2)"));
  EXPECT_TRUE(Holds("EQ(MAX(5, 2, 9), 9)"));
  EXPECT_TRUE(Holds("EQ(SUB(2, 5), -3)"));
  EXPECT_TRUE(Holds("EQ(DIV(-7, 2), -3)"));
  EXPECT_TRUE(Holds("EQ(DIV(7.0, 2), 3.5)"));
  EXPECT_TRUE(Holds("EQ(NEG(4), -4)"));
  EXPECT_TRUE(Holds("EQ(ABS(-4), 4)"));
  EXPECT_TRUE(Holds("IS_POW2(64)"));
  EXPECT_FALSE(Holds("IS_POW2(48)"));
  EXPECT_TRUE(Holds("EQ(ROUNDUP(300, 32), 320)"));
  EXPECT_TRUE(Holds("EQ(CEILDIV(300, 256), 2)"));
  EXPECT_TRUE(Holds("EQ(LCM(4, 6), 12)"));
  EXPECT_TRUE(Holds("EQ(BIT_AND(12, 10), 8)"));
  EXPECT_TRUE(Holds("EQ(BIT_OR(12, 10), 14)"));
  EXPECT_TRUE(Holds("XOR(true, false)"));
  EXPECT_FALSE(Holds("XOR(true, true)"));
  EXPECT_TRUE(Holds("EQ(SELECT(GT(DIM_DEPTH(\"x\"), 256), 1, 2), 1)"));
  EXPECT_TRUE(Holds("EQ(INT(2.7), 2)"));
  EXPECT_TRUE(Holds("EQ(FLOAT(3), 3.0)"));
  EXPECT_TRUE(Holds("EQ(UINT(5), 5u)"));
  EXPECT_TRUE(Holds("EQ(DTYPE(1), DType::QUInt8)"));
  EXPECT_TRUE(Holds("EQ(INT(DTYPE_OF(\"x\")), 1)"));
  EXPECT_TRUE(Holds("LT(NEG_INF, -1e30)"));
  EXPECT_TRUE(Holds("GE(3, 3)"));
  EXPECT_TRUE(Holds("LE(2.5, 3)"));
}

TEST_F(GuardTest, ShortCircuitAndFailures) {
  // DIV by zero fails the constraint, unless AND/OR never evaluates it.
  EXPECT_FALSE(Holds("EQ(DIV(1, 0), 0)"));
  EXPECT_FALSE(Holds("NE(DIV(1, 0), 0)"));
  EXPECT_FALSE(Holds("AND(false, EQ(DIV(1, 0), 0))"));
  EXPECT_TRUE(Holds("OR(true, EQ(DIV(1, 0), 0))"));
  EXPECT_TRUE(Holds("NOT(AND(true, false))"));
  EXPECT_TRUE(Holds("OR(false, false, true)"));
  EXPECT_TRUE(Holds("EQ(SELECT(true, 1, DIV(1, 0)), 1)"));
}

TEST_F(GuardTest, Options) {
  EXPECT_TRUE(Holds("EQ(OPTION_INT(\"tile_height\"), 8)"));
  EXPECT_TRUE(Holds("EQ(OPTION_UINT(\"tile_height\"), 8u)"));
  EXPECT_TRUE(Holds("EQ(OPTION_FLOAT(\"tile_height\"), 8.0)"));
  EXPECT_TRUE(Holds("OPTION_BOOL(\"flag\")"));
  EXPECT_TRUE(Holds("EQ(OPTION_INT(\"flag\"), 1)"));
  EXPECT_FALSE(Holds("OPTION_BOOL(\"missing\")"));
  EXPECT_TRUE(Holds("EQ(OPTION_INT(\"missing\"), 0)"));
}

TEST_F(GuardTest, ExternalConstraintFromTheLibrary) {
  rules::FunctionLibrary lib = rules::FunctionLibrary::WithBuiltins();
  lib.RegisterConstraint("depth_at_least",
                         [](const EGraph& g, Id c, absl::Span<const rules::Scalar> args) {
                           return g.TypeOf(c).dim(3) >= args[0].AsInt();
                         });
  const std::string decl =
      "// :::EXTERNAL_SHAPEFN::: { bool depth_at_least(const OpDef &, int); }\n";
  EXPECT_TRUE(Holds("EXTERNAL_CONSTRAINT(depth_at_least, \"x\", 256)", &lib, decl));
  EXPECT_FALSE(Holds("EXTERNAL_CONSTRAINT(depth_at_least, \"x\", 301)", &lib, decl));
}

TEST(GuardCompileTest, UnregisteredExternalConstraintIsAnErrorAtTheRule) {
  rules::RuleSet set = testing::LoadRules(
      "// :::EXTERNAL_SHAPEFN::: { bool nowhere(const OpDef &); }\n"
      "DEF_PACKAGE_OPTIMIZATION(BEGIN, Op(\"Foo\", \"x\"), EXTERNAL_CONSTRAINT(nowhere, \"x\"), "
      "\"x\")\n");
  ASSERT_EQ(set.rules.size(), 1u);
  absl::StatusOr<rules::CompiledRule> r = rules::CompileRule(set.rules[0], {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("test.rules:2:"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("nowhere"), std::string::npos);
}

// has_only_one_consumer / has_n_consumers count the distinct e-classes that
// use an operand: here x feeds Relu and Sigmoid, "c" only Foo.
class GuardConsumersTest : public GuardTest {
 protected:
  void SetUp() override {
    Graph g;
    x_ = g.AddInput("x", QU8({1, 4, 4, 300}, 3, 0.5f));
    NodeId c = AddConst(g, TensorType(DType::kInt32, {4}), {-7, 2, 3, 5}, "c");
    NodeId f = AddConst(g, TensorType(DType::kFloat32, {2}), {1.5, -2.0}, "f");
    NodeId s = AddShapeNode(g, {1, 2, 3});
    NodeId relu = AddOp(g, "Relu", {x_}, QU8({1, 4, 4, 300}, 3, 0.5f), "relu");
    NodeId sig = AddOp(g, "Sigmoid", {x_}, QU8({1, 4, 4, 300}, 3, 0.5f), "sig");
    root_ = AddOp(g, "Foo", {relu, c, f, s}, QU8({1, 4, 4, 300}, 3, 0.5f), "foo");
    g.AddOutput(ValueRef{root_, 0}, "out");
    g.AddOutput(ValueRef{sig, 0}, "out2");
    graph_ = std::move(g);
    im_ = std::make_unique<testing::Imported>(testing::Import(graph_));
  }
};

TEST_F(GuardConsumersTest, BuiltinConsumerCounts) {
  const rules::FunctionLibrary lib = rules::FunctionLibrary::WithBuiltins();
  EXPECT_FALSE(Holds("EXTERNAL_CONSTRAINT(has_only_one_consumer, \"x\")", &lib));
  EXPECT_TRUE(Holds("EXTERNAL_CONSTRAINT(has_n_consumers, \"x\", 2)", &lib));
  EXPECT_FALSE(Holds("EXTERNAL_CONSTRAINT(has_n_consumers, \"x\", 1)", &lib));
  EXPECT_TRUE(Holds("EXTERNAL_CONSTRAINT(has_only_one_consumer, \"c\")", &lib));
  EXPECT_TRUE(Holds("EXTERNAL_CONSTRAINT(has_only_one_consumer, \"r\")", &lib));
  EXPECT_TRUE(Holds("EXTERNAL_CONSTRAINT(has_n_consumers, \"c\", 1)", &lib));
  // Alternatives merged into one consumer class count once: a second node
  // using x in Relu's class leaves x with two consumers.
  const Id relu = im_->eg.Find(im_->cls[4]);
  const Id in[] = {im_->cls[x_]};
  ENode gelu(Symbol::Intern("Gelu"), in);
  ASSERT_TRUE(im_->eg.AddToClass(gelu.view(), relu).ok());
  im_->eg.Rebuild();
  EXPECT_TRUE(Holds("EXTERNAL_CONSTRAINT(has_n_consumers, \"x\", 2)", &lib));
}

// A rule whose constraint is a C++ name egret cannot evaluate is left out of
// compilation and listed as skipped, whatever the library holds.
TEST(GuardCompileTest, RuleWithACppNameIsSkipped) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(
      "DEF_PACKAGE_OPTIMIZATION(BEGIN, Op(\"Foo\", \"x\"), AND(MY_PKG_FLAG, "
      "GT(DIM_DEPTH(\"x\"), MY_PKG_LIMIT)), \"x\")\n"
      "DEF_PACKAGE_OPTIMIZATION(BEGIN, Op(\"Bar\", \"x\"), OK, \"x\")\n",
      "test.rules", {}, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  ASSERT_EQ(set.rules.size(), 2u);
  std::vector<rules::SkippedRule> skipped;
  const rules::FunctionLibrary lib = rules::FunctionLibrary::WithBuiltins();
  rules::CompileOptions co;
  co.functions = &lib;
  std::vector<rules::CompiledRule> compiled = rules::CompileRules(set, co, &diags, &skipped);
  EXPECT_EQ(compiled.size(), 1u);
  ASSERT_EQ(skipped.size(), 1u);
  ASSERT_EQ(skipped[0].calls.size(), 2u);
  EXPECT_EQ(skipped[0].calls[0].function, "MY_PKG_FLAG");
  EXPECT_EQ(skipped[0].calls[1].function, "MY_PKG_LIMIT");
  EXPECT_EQ(skipped[0].calls[0].form, rules::ExprKind::kCppName);
  DiagnosticList warnings;
  rules::WarnSkippedRules(skipped, &warnings);
  ASSERT_EQ(warnings.all().size(), 2u);
  EXPECT_EQ(warnings.all()[0].ToString(),
            "test.rules:1:53: warning: 'MY_PKG_FLAG' is a C++ name egret cannot evaluate: the "
            "rule BEGIN@test.rules:1 is kept but not run");
}

}  // namespace
}  // namespace egret
