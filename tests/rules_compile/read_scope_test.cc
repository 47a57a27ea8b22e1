// What compiled rules read (read_scope.h), and the Rewrite::reads the
// compiler gives them.
#include "egret/rules_compile/read_scope.h"

#include <string>

#include "compile_test_util.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

// The Rewrite::reads of the rule matching
// Op("Foo", LET("r", Op("Relu", "x")), "c") with `constraint` and
// `replacement`, and its lookahead in *lookahead.
Rewrite::Reads ReadsOf(const std::string& constraint, const std::string& replacement,
                       int* lookahead = nullptr) {
  rules::RuleSet set = testing::LoadRules(
      "DEF_PACKAGE_OPTIMIZATION(BEGIN, Op(\"Foo\", LET(\"r\", Op(\"Relu\", \"x\")), \"c\"), " +
      constraint + ", " + replacement + ")\n");
  EXPECT_EQ(set.rules.size(), 1u);
  absl::StatusOr<rules::CompiledRule> r = rules::CompileRule(set.rules[0], {});
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return Rewrite::Reads::kAnything;
  if (lookahead != nullptr) *lookahead = r->rewrite.lookahead;
  return r->rewrite.reads;
}

TEST(ReadScopeTest, TypesAndMatchedNodesReadTheMatchOnly) {
  EXPECT_EQ(ReadsOf("OK", "\"x\""), Rewrite::Reads::kMatch);
  EXPECT_EQ(ReadsOf("AND(EQ(RANK_OF(\"x\"), 4), SAME_ENCODING(\"x\", \"*\"), "
                    "GT(DIM_OF(\"c\", 3), 1U), IS_OP(\"r\", \"Relu\"), EQ(INPUTS_OF(\"*\"), 2))",
                    "\"r\""),
            Rewrite::Reads::kMatch);
  EXPECT_EQ(ReadsOf("EQ(DTYPE_OF(\"x\"), DType::Float32)", "SELECT(OK, \"x\", \"r\")"),
            Rewrite::Reads::kMatch);
}

TEST(ReadScopeTest, ConstantsAndNewNodes) {
  // A new node's shape check reads its operands' constants.
  EXPECT_EQ(ReadsOf("OK", "Op(\"Bar\", \"x\")"), Rewrite::Reads::kConstants);
  EXPECT_EQ(ReadsOf("OK", "WITH_SAME_OUTPUT(\"x\", Op(\"Bar\", \"x\", \"c\"))"),
            Rewrite::Reads::kConstants);
  EXPECT_EQ(ReadsOf("EQ(CONSTVAL_INT(\"c\", 0), 1)", "\"x\""), Rewrite::Reads::kConstants);
  EXPECT_EQ(ReadsOf("CONSTVAL_FLOAT_VALID(\"x\", 0)", "\"x\""), Rewrite::Reads::kConstants);
}

TEST(ReadScopeTest, TheNodesOfABoundClass) {
  // IS_OP of a tag that bound no node reads its class's nodes; of a LET tag,
  // the matched node.
  EXPECT_EQ(ReadsOf("IS_OP(\"x\", \"Relu\")", "\"x\""), Rewrite::Reads::kClassNodes);
  EXPECT_EQ(ReadsOf("IS_OP(\"r\", \"Relu\")", "\"x\""), Rewrite::Reads::kMatch);
  EXPECT_EQ(ReadsOf("EQ(INPUTS_OF(\"c\"), 0)", "\"x\""), Rewrite::Reads::kClassNodes);
  // Two classes are one once they merge, which the root's class may do
  // without a matched node changing.
  EXPECT_EQ(ReadsOf("NOT(SAME_OP(\"x\", \"c\"))", "\"x\""), Rewrite::Reads::kClassNodes);
  EXPECT_EQ(ReadsOf("OK", "WrapOp(\"Relu\", \"x\")"), Rewrite::Reads::kClassNodes);
  EXPECT_EQ(ReadsOf("OK", "WrapOpAlways(\"Relu\", \"x\")"), Rewrite::Reads::kConstants);
}

TEST(ReadScopeTest, TheTypeOfAMatchedNodesInputReadsTheMatchOnly) {
  // The class of an input of a matched e-node ("*", a LET tag) has a type
  // that never changes, and the node's inputs are the match's.
  int lookahead = 0;
  EXPECT_EQ(ReadsOf("EQ(RANK_OF(INPUT_OF(\"r\", 0)), 4)", "\"x\"", &lookahead),
            Rewrite::Reads::kMatch);
  EXPECT_EQ(lookahead, 2);  // unchanged: one level for the navigation
  EXPECT_EQ(ReadsOf("AND(EQ(RANK_OF(\"*\"), RANK_OF(INPUT_OF(\"*\", 0))), "
                    "EQ(DIM_OF(INPUT_OF(\"*\", 1), 0), 2))",
                    "\"x\""),
            Rewrite::Reads::kMatch);
  // A new node's shape check reads its operands' constants; the output type
  // it takes reads the match only.
  EXPECT_EQ(ReadsOf("OK", "WITH_SAME_OUTPUT(INPUT_OF(\"*\", 0), Op(\"Bar\", \"x\"))"),
            Rewrite::Reads::kConstants);
  EXPECT_EQ(ReadsOf("SAME_ENCODING(INPUT_OF(\"*\", 1), \"x\")", "\"x\""), Rewrite::Reads::kMatch);
  // Anything else of that class (its constant, its nodes) is beyond the
  // match.
  EXPECT_EQ(ReadsOf("EQ(CONSTVAL_INT(INPUT_OF(\"*\", 1), 0), 1)", "\"x\""),
            Rewrite::Reads::kAnything);
  EXPECT_EQ(ReadsOf("IS_OP(INPUT_OF(\"*\", 0), \"Relu\")", "\"x\""), Rewrite::Reads::kAnything);
  EXPECT_EQ(ReadsOf("NOT(SAME_OP(INPUT_OF(\"*\", 0), \"x\"))", "\"x\""), Rewrite::Reads::kAnything);
  EXPECT_EQ(ReadsOf("EQ(INPUTS_OF(INPUT_OF(\"*\", 0)), 1)", "\"x\""), Rewrite::Reads::kAnything);
  // That class bound no e-node: an input of it is some node's of the class.
  EXPECT_EQ(ReadsOf("EQ(DIM_OF(INPUT_OF(INPUT_OF(\"*\", 0), 0), 0), 2)", "\"x\""),
            Rewrite::Reads::kAnything);
}

TEST(ReadScopeTest, NavigationReadsAnything) {
  int lookahead = 0;
  // An input of a class that bound no e-node: of some node of the class.
  EXPECT_EQ(ReadsOf("EQ(RANK_OF(INPUT_OF(\"x\", 0)), 4)", "\"x\"", &lookahead),
            Rewrite::Reads::kAnything);
  EXPECT_EQ(lookahead, 2);  // unchanged: one level for the navigation
  EXPECT_EQ(ReadsOf("OK", "INPUT_OF(\"r\", 0)"), Rewrite::Reads::kAnything);
  EXPECT_EQ(ReadsOf("EQ(OUTPUTS_OF(\"x\"), 1U)", "\"x\""), Rewrite::Reads::kAnything);
  // The search does not change with what the rule reads.
  ReadsOf("OK", "\"x\"", &lookahead);
  EXPECT_EQ(lookahead, 1);
}

}  // namespace
}  // namespace egret
