// Parser tests of every grammar form's tree: constraints and replacements,
// their macro expansions and errors, op registrations, and the recorded
// tensor properties and parameter order.
#include "tests/rules/parser_test_util.h"

namespace egret::rules {
namespace {

TEST(ParserTest, EveryConstraintForm) {
  const char* forms[] = {
      "OPTION_BOOL(\"o\")",
      "EQ(OPTION_INT(\"o\"),OPTION_UINT(\"p\"))",
      "LT(OPTION_FLOAT(\"o\"),1.0)",
      "NOT(EQ(UINT(1),INT(FLOAT(2))))",
      "EQ(DTYPE(4),DType::Float32)",
      "LT(NEG(1),ABS(-2))",
      "IS_POW2(8)",
      "SELECT(true,true,false)",
      "EQ(ROUNDUP(5,4),CEILDIV(9,LCM(2,3)))",
      "EQ(BIT_AND(1,BIT_OR(2,3)),0)",
      "XOR(OR(true,false),AND(true))",
      "EQ(ADD(1,2,3),MUL(MIN(1,2),MAX(3,4,5)))",
      "EQ(SUB(1,DIV(4,2)),REM(MOD(7,3),2))",
      "AND(NE(1,2),LT(1,2),GT(1,2),LE(1,2),GE(1,2))",
      "EQ(RANK_OF(INPUT_OF(\"x\",0)),DIM_OF(OUTPUT_OF(\"*\",0),1))",
      "LT(STEPSIZE_OF(\"x\"),ZERO_OFFSET_OF(\"x\"))",
      "EQ(ELEMENTSIZE_OF(\"x\"),ADD(INPUTS_OF(\"x\"),OUTPUTS_OF(\"x\")))",
      "AND(SAME_ENCODING(\"x\",\"*\"),SAME_OP(\"x\",\"x\"),IS_OP(\"x\",\"Relu\"))",
      "AND(IS_EMPTY(\"x\"),IS_EMPTY_DIM(\"x\",2),PRODUCER_FOR(\"x\",\"Conv\"))",
      "EQ(CONSTVAL_INT(\"x\",0),CONSTVAL_INT(\"x\",0,1))",
      // One literal in two pieces (parenthesized: not a missing comma).
      ("AND(CONSTVAL_INT_VALID(\"x\",0),CONSTVAL_INT_VALID(\"x\",1,2),CONSTVAL_FLOAT_VALID(\"x\",0)"
       ")"),
      "LT(CONSTVAL_FLOAT(\"x\",0),INF)",
      "EXTERNAL_CONSTRAINT(my_check,\"x\",RANK_OF(\"x\"),1.5)",
      "EQ(SELECT(true,\"x\",\"*\"),\"x\")",
  };
  for (const char* f : forms) {
    EXPECT_EQ(Constraint(f), f);
  }
}

TEST(ParserTest, ConstraintMacrosExpand) {
  EXPECT_EQ(Constraint("IS_QUINT8(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QUInt8)");
  EXPECT_EQ(Constraint("IS_QINT8(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QInt8)");
  EXPECT_EQ(Constraint("IS_QUINT16(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QUInt16)");
  EXPECT_EQ(Constraint("IS_QINT16(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QInt16)");
  EXPECT_EQ(Constraint("IS_QINT32(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::QInt32)");
  EXPECT_EQ(Constraint("IS_INT32(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Int32)");
  EXPECT_EQ(Constraint("IS_INT64(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Int64)");
  EXPECT_EQ(Constraint("IS_FLOAT16(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Float16)");
  EXPECT_EQ(Constraint("IS_FLOAT32(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Float32)");
  EXPECT_EQ(Constraint("IS_FLOAT(\"x\")"), "EQ(DTYPE_OF(\"x\"),DType::Float32)");
  EXPECT_EQ(Constraint("IS_FLOAT16_BOTH(\"x\",\"*\")"),
            "AND(EQ(DTYPE_OF(\"x\"),DType::Float16),EQ(DTYPE_OF(\"*\"),DType::Float16))");
  const char* dims[][2] = {{"DIM_BATCHES", "0"},   {"DIM_HEIGHT", "1"},     {"DIM_WIDTH", "2"},
                           {"DIM_DEPTH", "3"},     {"DIM_FILTHEIGHT", "0"}, {"DIM_FILTWIDTH", "1"},
                           {"DIM_FILTDEPTH", "2"}, {"DIM_NFILTS", "3"},     {"DIM_CHANNEL", "4"}};
  for (const auto& [name, d] : dims) {
    EXPECT_EQ(Constraint(std::string("GT(") + name + "(\"x\"),1)"),
              std::string("GT(DIM_OF(\"x\",") + d + "),1)");
  }
  EXPECT_EQ(Constraint("SAME_SHAPE(\"x\",\"*\")"),
            "AND(EQ(DIM_OF(\"x\",3),DIM_OF(\"*\",3)),EQ(DIM_OF(\"x\",2),DIM_OF(\"*\",2)),"
            "EQ(DIM_OF(\"x\",1),DIM_OF(\"*\",1)),EQ(DIM_OF(\"x\",0),DIM_OF(\"*\",0)))");
  Parsed p = Parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"), IS_QUINT8(\"x\"), \"x\")\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_EQ(p.file.rules[0].constraint->macro, "IS_QUINT8");
  EXPECT_EQ(p.file.rules[0].constraint->loc().col, 46);
  EXPECT_EQ(p.file.rules[0].constraint->args[0]->args[0]->loc().col, 56);
}

TEST(ParserTest, EveryReplacementForm) {
  const char* forms[] = {
      "\"x\"",
      "INPUT_OF(\"x\",1)",
      "Op(\"B\",\"x\",Op(\"C\"))",
      "WrapOp(\"Cast\",\"x\")",
      "WrapOpAlways(\"Cast\",Op(\"B\",\"x\"))",
      "Op(\"B\",gen_Shape(1,2,3,DIM_OF(\"x\",3)),gen_ShapeOf(\"x\"))",
      "Op(\"B\",gen_ConstScalar_f32(1.5),gen_ConstScalar_i32(3))",
      "Op(\"B\",gen_ConstArr_f32(0.5,4),gen_ConstArr_i32(7,4),gen_ConstArr_vals_i32(1,2,3))",
      "AUTOSPLIT(1,\"I\",32,Op(\"B\",AUTOSPLIT_SHAPEFN_APPLY(simple_split_start,\"I\",\"x\")))",
      "OP_ITER(Op(\"Concat\"),\"J\",0,4,Op(\"B\",ITER_INPUT_OF(\"x\",\"J\"),SPLIT_START(\"J\")))",
      "SELECT(GT(SPLIT_SIZE(\"I\"),SPLIT_DIM(\"I\")),\"x\",Op(\"B\"))",
      "WITH_SIZE(gen_Shape(1,1,1,4),Op(\"B\"))",
      "WITH_TYPE(\"x\",WITH_SAME_OUTPUT(\"x\",Op(\"B\")))",
      "WITH_OUTPUT_TYPE(DType::QUInt8,0,1.0,Op(\"B\"))",
      "WITH_MULTI_OUT(2,Op(\"B\"))",
      "ResizeDim(3,64,Op(\"B\"))",
      "WITH_SAME_ID(\"x\",WITH_SPLIT_HISTORY(\"x\",WITH_SPLIT_HISTORY(\"x\",1,Op(\"B\"))))",
      "EXTERNAL_REPLACE(my_replace)",
      "SHAPEFN_APPLY(my_shape,\"x\",3,1.5)",
  };
  for (const char* f : forms) {
    EXPECT_EQ(Replacement(f), f);
  }
  EXPECT_EQ(Replacement("Operand(\"x\")"), "\"x\"");
  EXPECT_EQ(Replacement("SPLIT_START(\"I\")"), "SPLIT_START(\"I\")");
  EXPECT_EQ(Replacement("Op(\"B\", ITER_VAR(\"I\"))"), "Op(\"B\",SPLIT_START(\"I\"))");
}

TEST(ParserTest, ReplacementMacrosExpand) {
  EXPECT_EQ(Replacement("AUTOSPLIT_SLICE(\"x\", gen_Shape(0,0,0,0), gen_ShapeOf(\"x\"))"),
            "WITH_SIZE(gen_ShapeOf(\"x\"),WITH_TYPE(\"x\",Op(\"Slice_shape\",\"x\","
            "gen_Shape(0,0,0,0),gen_ShapeOf(\"x\"))))");
  EXPECT_EQ(Replacement("TYPICAL_SLICE(\"x\", \"I\")"),
            "WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(simple_split_size,\"I\",\"x\"),WITH_TYPE(\"x\","
            "Op(\"Slice_shape\",\"x\",AUTOSPLIT_SHAPEFN_APPLY(simple_split_start,\"I\",\"x\"),"
            "AUTOSPLIT_SHAPEFN_APPLY(simple_split_size,\"I\",\"x\"))))");
  EXPECT_EQ(Replacement("CHANGEDIM_SLICE(\"x\", \"I\", 2)"),
            "WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size,\"I\",\"x\",2),WITH_TYPE("
            "\"x\",Op(\"Slice_shape\",\"x\",AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_start,\"I\","
            "\"x\",2),AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size,\"I\",\"x\",2))))");
  EXPECT_EQ(Replacement("OpMultiOut(2, 1, \"Split\", \"x\", \"*\")"),
            "Op(\"$Out\",WITH_MULTI_OUT(2,Op(\"Split\",\"x\",\"*\")),gen_Shape(0,0,2,1))");
  Parsed p =
      Parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\",\"x\"), OK, TYPICAL_SLICE(\"x\",\"I\"))\n");
  ASSERT_EQ(p.file.rules.size(), 1u);
  EXPECT_EQ(p.file.rules[0].replacement->macro, "TYPICAL_SLICE");
}

TEST(ParserTest, FormErrors) {
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK)\n"),
            "t.rules:1:1: error: DEF_PACKAGE_OPTIMIZATION expects 4 arguments (pass, match, "
            "constraint, replacement), got 3");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, \"x\", OK, Op(\"B\"))\n"),
            "t.rules:1:33: error: the root of a match must be Op(...) or OpVarIn(...), not an "
            "operand tag");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, LET(\"a\", Op(\"A\")), OK, Op(\"B\"))\n"),
            "t.rules:1:33: error: LET cannot be the root of a match");
  EXPECT_EQ(
      FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", LET(\"a\", \"b\")), OK, Op(\"B\"))\n"),
      "t.rules:1:50: error: the second operand of LET must be Op(...) or OpVarIn(...)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", 3), OK, Op(\"B\"))\n"),
            "t.rules:1:41: error: expected an operand tag, Op, OpVarIn or LET in a match, found "
            "'3'");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(A), OK, Op(\"B\"))\n"),
            "t.rules:1:36: error: the first operand of Op must be an op name (a string constant)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\" \"x\"(\n"),
            "t.rules:1:1: error: missing ')' at the end of DEF_PACKAGE_OPTIMIZATION");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\" 3))\n"),
            "t.rules:1:53: error: expected ',' or ')' in the operands of Op, found '3'");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, OpVarIn(\"B\"))\n"),
            "t.rules:1:46: error: OpVarIn may only be used in a match");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), NOT, Op(\"B\"))\n"),
            "t.rules:1:42: error: 'NOT' needs operands in parentheses");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, AUTOSPLIT(1, I, 2, "
                       "\"x\"))\n"),
            "t.rules:1:59: error: expected a split tag (a string constant), found 'I'");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, SHAPEFN_APPLY(\"f\"))\n"),
            "t.rules:1:60: error: expected a name (a C identifier), found '\"f\"'");
  EXPECT_EQ(
      FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, WITH_SPLIT_HISTORY(\"x\"))\n"),
      "t.rules:1:46: error: WITH_SPLIT_HISTORY expects 2 or 3 operands, got 1");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), AND(), Op(\"B\"))\n"),
            "t.rules:1:42: error: AND expects at least 1 operand, got 0");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, Op(\"B\") Op(\"C\"))\n"),
            "t.rules:1:54: error: unexpected 'Op' after a replacement expression");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, - )\n"),
            "t.rules:1:46: error: expected an expression, found '-'");
}

TEST(ParserTest, OpRegistrations) {
  Parsed p = Parse(
      "DEF_PACKAGE_OP((reluImpl<PlainFloatTensor, Tensor>), \"Relu\")\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<QUint8CroutonTensor>), \"Relu\", SNAIL/128,\n"
      "    Flags::RESOURCE_HVX, Flags::IS_CONST, MY_FLAG)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(convImpl, \"Conv\" \"2d\", COST_OF(conv_cost, FAST*2))\n"
      "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(addImpl<float>, \"Add\", add_cost_fn, RESOURCE_HMX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(x, \"Free\", FREE, 0)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(x, \"Num\", 1.5e3 + DISABLE - GLACIAL, IS_DMA | "
      "NULL_EXEC)\n");
  ASSERT_FALSE(p.diags.has_errors()) << p.diags.ToString();
  ASSERT_EQ(p.file.ops.size(), 6u);
  const OpImplementation& a = p.file.ops[0];
  EXPECT_EQ(a.op_name, "Relu");
  EXPECT_EQ(a.impl, "(reluImpl<PlainFloatTensor, Tensor>)");
  EXPECT_EQ(a.cost.ToString(), "GLACIAL");  // cost/cost_expr_test.cc evaluates the costs
  EXPECT_EQ(a.flag_bits, kResourceHvx);
  EXPECT_EQ(a.form, "DEF_PACKAGE_OP");
  const OpImplementation& b = p.file.ops[1];
  EXPECT_EQ(b.cost.ToString(), "SNAIL/128");
  EXPECT_EQ(b.flags, (std::vector<std::string>{"RESOURCE_HVX", "IS_CONST", "MY_FLAG"}));
  EXPECT_EQ(b.flag_bits, kResourceHvx | kIsConst);
  EXPECT_EQ(b.loc.line, 2);
  const OpImplementation& c = p.file.ops[2];
  EXPECT_EQ(c.op_name, "Conv2d");
  EXPECT_EQ(c.cost.kind, CostExpr::Kind::kCostOf);
  EXPECT_EQ(c.cost.ToString(), "COST_OF(conv_cost,FAST*2)");
  EXPECT_TRUE(c.flags.empty());
  const OpImplementation& d = p.file.ops[3];
  EXPECT_EQ(d.cost.kind, CostExpr::Kind::kFunction);
  EXPECT_EQ(d.cost.name, "add_cost_fn");
  EXPECT_EQ(d.flag_bits, kResourceHmx);
  EXPECT_EQ(p.file.ops[4].cost.ToString(), "FREE");
  EXPECT_TRUE(p.file.ops[4].flags.empty());
  EXPECT_EQ(p.file.ops[5].cost.ToString(), "(1500+DISABLE)-GLACIAL");
  EXPECT_EQ(p.file.ops[5].flag_bits, kIsDma | kNullExec);

  EXPECT_EQ(FirstError("DEF_PACKAGE_OP_AND_COST_AND_FLAGS(x, \"A\", SLOW)\n"),
            "t.rules:1:43: error: unknown cost 'SLOW' (expected GLACIAL, SNAIL, FAST, FREE, "
            "DISABLE, a number, COST_OF or COST_OF_F)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OP(x, Relu)\n"),
            "t.rules:1:19: error: expected a string constant (op name)");
  EXPECT_EQ(FirstError("DEF_PACKAGE_OP(x, \"Relu\", 3)\n"),
            "t.rules:1:1: error: DEF_PACKAGE_OP expects 2 arguments (implementation, op name), "
            "got 3");
}

TEST(ParserTest, RecordsTensorPropertiesAndParamOrder) {
  Parsed p = Parse(
      "DEF_TENSOR_PROPERTIES(Op(\"Conv\", \"in\", \"w\"), Flat(\"*\"), MainMemory(\"w\"))\n"
      "DEF_PACKAGE_PARAM_ORDER(\"Conv\", \"in\", true, nullptr, \"w\", false, nullptr)\n");
  ASSERT_FALSE(p.diags.has_errors()) << p.diags.ToString();
  ASSERT_EQ(p.file.tensor_properties.size(), 1u);
  EXPECT_EQ(p.file.tensor_properties[0].args,
            (std::vector<std::string>{"Op(\"Conv\", \"in\", \"w\")", "Flat(\"*\")",
                                      "MainMemory(\"w\")"}));
  ASSERT_EQ(p.file.param_orders.size(), 1u);
  EXPECT_EQ(p.file.param_orders[0].op_name, "Conv");
  EXPECT_EQ(p.file.param_orders[0].args.size(), 6u);
  EXPECT_EQ(p.file.param_orders[0].loc.line, 2);
}

}  // namespace
}  // namespace egret::rules
