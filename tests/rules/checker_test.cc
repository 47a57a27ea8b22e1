// Checker and rule-set tests: the static types the checker assigns, macro
// notes, external-function declarations, and LoadRuleFiles' contract. The
// per-rule well-formedness checks are covered by the corpus
// (checker_corpus_test.cc).
#include "egret/rules/checker.h"

#include <string>
#include <vector>

#include "egret/rules/parser.h"
#include "egret/rules/rule_set.h"
#include "egret/rules_pp/lexer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace egret::rules {
namespace {

using ::testing::HasSubstr;

// Parses one rule from `text` (no preprocessor) and checks it.
struct Checked {
  ParsedFile file;
  DiagnosticList diags;
  bool ok = false;
};

Checked Check(const std::string& text,
              const ExternalFunctionRegistry& ext = ExternalFunctionRegistry::WithBuiltins()) {
  Checked c;
  c.file = ParseRuleTokens(Lex(text, "t.rules", &c.diags), &c.diags);
  if (c.file.rules.size() == 1) c.ok = CheckRule(c.file.rules[0], ext, &c.diags);
  return c;
}

Type ConstraintType(const std::string& cst) {
  Checked c = Check("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\", \"y\"), EQ(" + cst + ", " +
                    cst + "), \"x\")\n");
  if (c.file.rules.size() != 1) return Type::kInvalid;
  return c.file.rules[0].constraint->args[0]->type;
}

TEST(CheckerTest, AssignsStaticTypes) {
  EXPECT_EQ(ConstraintType("1"), Type::kInt);
  EXPECT_EQ(ConstraintType("1u"), Type::kSize);
  EXPECT_EQ(ConstraintType("1.0"), Type::kFloat);
  EXPECT_EQ(ConstraintType("OK"), Type::kBool);
  EXPECT_EQ(ConstraintType("DType::Int32"), Type::kDType);
  EXPECT_EQ(ConstraintType("DIM_OF(\"x\", 0)"), Type::kSize);
  EXPECT_EQ(ConstraintType("ZERO_OFFSET_OF(\"x\")"), Type::kInt);
  EXPECT_EQ(ConstraintType("STEPSIZE_OF(\"x\")"), Type::kFloat);
  EXPECT_EQ(ConstraintType("ADD(1, 2u)"), Type::kSize);
  EXPECT_EQ(ConstraintType("ADD(1, 2u, 0.5)"), Type::kFloat);
  EXPECT_EQ(ConstraintType("SUB(3, 1)"), Type::kInt);
  EXPECT_EQ(ConstraintType("SELECT(OK, 1, 2u)"), Type::kSize);
  EXPECT_EQ(ConstraintType("SELECT(OK, DType::Int32, DTYPE_OF(\"y\"))"), Type::kDType);
  EXPECT_EQ(ConstraintType("INT(DTYPE_OF(\"x\"))"), Type::kInt);
  EXPECT_EQ(ConstraintType("UINT(-1)"), Type::kSize);
  EXPECT_EQ(ConstraintType("FLOAT(1)"), Type::kFloat);
  EXPECT_EQ(ConstraintType("DTYPE(4)"), Type::kDType);
  EXPECT_EQ(ConstraintType("OPTION_INT(\"a\")"), Type::kInt);
  EXPECT_EQ(ConstraintType("OPTION_UINT(\"a\")"), Type::kSize);
  EXPECT_EQ(ConstraintType("OPTION_FLOAT(\"a\")"), Type::kFloat);
  EXPECT_EQ(ConstraintType("CONSTVAL_INT(\"y\", 0)"), Type::kInt);
  EXPECT_EQ(ConstraintType("CONSTVAL_FLOAT(\"y\", 0)"), Type::kFloat);
  EXPECT_EQ(ConstraintType("LAYOUT_CHUNKSIZE(T, 1)"), Type::kSize);
  EXPECT_EQ(ConstraintType("NEG(2u)"), Type::kSize);
  EXPECT_EQ(ConstraintType("ROUNDUP(5, 8)"), Type::kInt);
}

TEST(CheckerTest, ReplacementTypes) {
  Checked c = Check(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK,\n"
      "  Op(\"B\", \"x\", gen_Shape(1), gen_ConstScalar_f32(1.0), WITH_SIZE(\"x\", Op(\"C\")),\n"
      "     SELECT(OK, \"x\", gen_Shape(2)), SELECT(OK, \"x\", Op(\"D\"))))\n");
  ASSERT_TRUE(c.ok) << c.diags.ToString();
  const Expr& r = *c.file.rules[0].replacement;
  EXPECT_EQ(r.type, Type::kOp);
  EXPECT_EQ(r.args[0]->type, Type::kOpRef);
  EXPECT_EQ(r.args[1]->type, Type::kShape);
  EXPECT_EQ(r.args[2]->type, Type::kNode);
  EXPECT_EQ(r.args[3]->type, Type::kOp);
  EXPECT_EQ(r.args[4]->type, Type::kNode);
  EXPECT_EQ(r.args[5]->type, Type::kOp);
  // The JSON dump carries the types.
  nlohmann::json j = ToJson(c.file.rules[0]);
  EXPECT_EQ(j["replacement"]["kind"], "Op");
  EXPECT_EQ(j["replacement"]["type"], "op");
  EXPECT_EQ(j["replacement"]["args"][1]["type"], "shape");
  EXPECT_EQ(j["priority"], 3050);
  EXPECT_EQ(j["match"]["op"], "A");
  EXPECT_EQ(j["constraint"]["type"], "bool");
}

TEST(CheckerTest, DuplicatedMacroOperandsReportOnce) {
  // SAME_SHAPE copies its operands four times; the unknown tag is one error.
  Checked c =
      Check("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), SAME_SHAPE(\"x\", \"q\"), \"x\")\n");
  EXPECT_FALSE(c.ok);
  ASSERT_EQ(c.diags.all().size(), 1u) << c.diags.ToString();
  EXPECT_EQ(c.diags.all()[0].ToString(),
            "t.rules:1:63: error: operand tag \"q\" does not appear in the match");
}

// The annotation vocabulary: split, Split_Context, Replacement and OpDef are
// context parameters (however decorated); op, OpRef, int, ... are operands.
TEST(CheckerTest, AnnotationContextParameters) {
  EXPECT_TRUE(IsContextParam("split"));
  EXPECT_TRUE(IsContextParam("hnnx::Split_Context const &info"));
  EXPECT_TRUE(IsContextParam("Replacement &"));
  EXPECT_TRUE(IsContextParam("const OpDef &"));
  EXPECT_FALSE(IsContextParam("op"));
  EXPECT_FALSE(IsContextParam("OpRef const &split"));
  EXPECT_FALSE(IsContextParam("int"));
  ExternalFunctionRegistry ext = ExternalFunctionRegistry::WithBuiltins();
  DiagnosticList d;
  ext.AddAnnotation({"t.rules", 1, 1},
                    "{ qshape piece_start(split,op,int); qshape padded(op,op,op); }", &d);
  EXPECT_FALSE(d.has_errors()) << d.ToString();
  EXPECT_EQ(ext.Find("piece_start")->RuleArity(), 2u);
  EXPECT_EQ(ext.Find("padded")->RuleArity(), 3u);
  Checked c = Check(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, AUTOSPLIT(1, \"t\", 8, "
      "WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(piece_start, \"t\", \"x\", 1), Op(\"B\", \"x\"))))\n",
      ext);
  EXPECT_TRUE(c.ok) << c.diags.ToString();
}

// An annotation re-declaring a built-in with another parameter list adds its
// operand count; the built-in's own forms (with optional trailing operands)
// stay correct.
TEST(CheckerTest, AnnotationOfABuiltinKeepsItsForms) {
  auto rule = [](const std::string& fn, const std::string& operands) {
    return "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\", \"s\"), OK, AUTOSPLIT(1, \"t\", 8, "
           "WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(" +
           fn + ", \"t\", " + operands + "), Op(\"B\", \"x\"))))\n";
  };
  ExternalFunctionRegistry ext = ExternalFunctionRegistry::WithBuiltins();
  DiagnosticList d;
  ext.AddAnnotation({"h.h", 3, 1},
                    "{ qshape conv_valid_split_start(split,op,op); "
                    "qshape conv_valid_split_size(split,op,op,int,int); "
                    "qshape simple_split_start(split,op,op); }",
                    &d);
  EXPECT_FALSE(d.has_errors()) << d.ToString();
  ASSERT_NE(ext.Find("conv_valid_split_start"), nullptr);
  EXPECT_TRUE(ext.Find("conv_valid_split_start")->builtin);
  for (const char* ops : {"\"x\", \"s\"", "\"x\", 2, 3", "\"x\", 2, 3, 1"}) {
    Checked c = Check(rule("conv_valid_split_start", ops), ext);
    EXPECT_TRUE(c.ok) << ops << ": " << c.diags.ToString();
  }
  for (const char* ops : {"\"x\", \"s\", 3, 1", "\"x\", 2, 3"}) {
    Checked c = Check(rule("conv_valid_split_size", ops), ext);
    EXPECT_TRUE(c.ok) << ops << ": " << c.diags.ToString();
  }
  Checked bad = Check(rule("conv_valid_split_start", "\"x\""), ext);
  EXPECT_FALSE(bad.ok);
  EXPECT_THAT(bad.diags.ToString(),
              HasSubstr("external function 'conv_valid_split_start' takes 2 to 4 operands in "
                        "AUTOSPLIT_SHAPEFN_APPLY, got 1"));
  EXPECT_TRUE(Check(rule("simple_split_start", "\"x\""), ext).ok);
  EXPECT_TRUE(Check(rule("simple_split_start", "\"x\", \"s\""), ext).ok);
  bad = Check(rule("simple_split_start", "\"x\", \"s\", 1"), ext);
  EXPECT_THAT(bad.diags.ToString(), HasSubstr("takes 1 or 2 operands"));
}

// An identifier egret does not know is a C++ name in a constraint, typed by
// its place; elsewhere, and misspelled rule-language forms, stay errors.
TEST(CheckerTest, CppNamesInConstraints) {
  auto rule = [](const std::string& cst, const std::string& rpl = "\"x\"") {
    return "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), " + cst + ", " + rpl + ")\n";
  };
  Checked c = Check(rule("PKG_READY"));
  EXPECT_TRUE(c.ok) << c.diags.ToString();
  ASSERT_EQ(c.file.rules.size(), 1u);
  EXPECT_EQ(c.file.rules[0].constraint->kind, ExprKind::kCppName);
  EXPECT_EQ(c.file.rules[0].constraint->type, Type::kBool);
  c =
      Check(rule("AND(PKG_READY, GT(DIM_DEPTH(\"x\"), PKG_LIMIT), "
                 "EQ(DTYPE_OF(\"x\"), PKG_DTYPE), LT(PKG_LO, 2.5))"));
  EXPECT_TRUE(c.ok) << c.diags.ToString();
  const Expr& and_ = *c.file.rules[0].constraint;
  EXPECT_EQ(and_.args[0]->type, Type::kBool);
  EXPECT_EQ(and_.args[1]->args[1]->type, Type::kSize);
  EXPECT_EQ(and_.args[2]->args[1]->type, Type::kDType);
  EXPECT_EQ(and_.args[3]->args[0]->type, Type::kFloat);
  // Errors: in a replacement, where an operand is wanted, a misspelled form,
  // a form without operands, an unknown tag, a qualified name.
  struct Bad {
    std::string text;
    std::string message;
  };
  for (const Bad& b : std::vector<Bad>{
           {rule("OK", "Op(\"B\", PKG_INPUT)"), "unknown name 'PKG_INPUT'"},
           {rule("EQ(DIM_OF(PKG_REF, 0), 1)"), "unknown name 'PKG_REF' (the first operand"},
           {rule("EQQ(1, 1)"), "unknown function 'EQQ'"},
           {rule("AND"), "'AND' needs operands in parentheses"},
           {rule("EQ(DIM_DEPTH(\"q\"), 1)"), "operand tag \"q\" does not appear in the match"},
           {rule("pkg::ready"), "unknown name 'pkg::ready'"},
       }) {
    Checked e = Check(b.text);
    EXPECT_FALSE(e.ok && e.file.rules.size() == 1) << b.text;
    EXPECT_THAT(e.diags.ToString(), HasSubstr(b.message)) << b.text;
  }
}

TEST(CheckerTest, UnknownAndDeclaredExternalFunctions) {
  const std::string rule =
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), EXTERNAL_CONSTRAINT(f, \"x\", 1), "
      "WITH_SIZE(SHAPEFN_APPLY(g, \"x\", 2), Op(\"B\")))\n";
  // Undeclared functions are not the checker's concern (function_binding.h
  // reports rules whose functions have no implementation).
  Checked c = Check(rule);
  EXPECT_TRUE(c.ok) << c.diags.ToString();
  EXPECT_EQ(c.diags.all().size(), 0u) << c.diags.ToString();
  // A declared function is held to its arity.
  ExternalFunctionRegistry one = ExternalFunctionRegistry::WithBuiltins();
  DiagnosticList d1;
  one.AddAnnotation({"t.rules", 1, 1}, "{ OpRef g(OpRef in); }", &d1);
  c = Check(rule, one);
  EXPECT_FALSE(c.ok);
  ASSERT_EQ(c.diags.error_count(), 1) << c.diags.ToString();
  EXPECT_NE(c.diags.all()[0].message.find(
                "external function 'g' takes 1 operand in SHAPEFN_APPLY, got 2"),
            std::string::npos)
      << c.diags.ToString();
  ExternalFunctionRegistry ext = ExternalFunctionRegistry::WithBuiltins();
  DiagnosticList d;
  ext.AddAnnotation({"t.rules", 1, 1},
                    " { bool f(OpRef x, int n); OpRef g(Replacement &rpx, OpRef in, int k); } ",
                    &d);
  EXPECT_FALSE(d.has_errors()) << d.ToString();
  ASSERT_NE(ext.Find("g"), nullptr);
  EXPECT_EQ(ext.Find("g")->return_type, "OpRef");
  EXPECT_EQ(ext.Find("g")->params,
            (std::vector<std::string>{"Replacement &rpx", "OpRef in", "int k"}));
  EXPECT_EQ(ext.Find("g")->RuleArity(), 2u);
  c = Check(rule, ext);
  EXPECT_TRUE(c.ok) << c.diags.ToString();
  ext.AddAnnotation({"t.rules", 7, 4}, "{ not a declaration }", &d);
  ASSERT_EQ(d.error_count(), 1);
  EXPECT_EQ(d.all()[0].ToString(),
            "t.rules:7:4: error: malformed EXTERNAL_SHAPEFN declaration 'not a declaration': "
            "expected '<return type> <name>(<parameter types>)'");
}

TEST(RuleSetTest, MacroDiagnosticsCarryExpansionNotes) {
  DiagnosticList d;
  RuleSet set = LoadRuleText(
      "#define MY_BAD(x) LT(DTYPE_OF(x), DType::Int32)\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"),\n"
      "  AND(TILE_HEIGHT, MY_BAD(\"x\")), \"x\")\n",
      "m.cc", {}, &d);
  ASSERT_EQ(d.error_count(), 2) << d.ToString();
  EXPECT_EQ(d.all()[0].ToString(),
            "m.cc:3:7: error: the first operand of AND must be a bool, not a size\n"
            "<egret-prelude>:" +
                std::to_string(d.all()[0].notes.empty() ? 0 : d.all()[0].notes[0].first.line) +
                ":" + std::to_string(d.all()[0].notes.empty() ? 0 : d.all()[0].notes[0].first.col) +
                ": note: expanded from macro 'TILE_HEIGHT'");
  ASSERT_EQ(d.all()[1].notes.size(), 1u);
  EXPECT_EQ(d.all()[1].ToString(),
            "m.cc:3:20: error: dtype values can only be compared with EQ and NE, not LT\n"
            "m.cc:1:19: note: expanded from macro 'MY_BAD'");
  EXPECT_EQ(set.rules.size(), 1u);
  EXPECT_FALSE(set.valid[0]);
}

TEST(RuleSetTest, LoadsFilesInOrderWithRegistryAndRecords) {
  const std::string dir = std::string(EGRET_SOURCE_DIR) + "/tests/rules/testdata/rules/valid/";
  PreprocessOptions options;
  options.include_dirs.push_back(std::string(EGRET_SOURCE_DIR) +
                                 "/tests/rules/testdata/rules/include");
  DiagnosticList d;
  absl::StatusOr<RuleSet> set =
      LoadRuleFiles({dir + "autosplit.rules", dir + "op_package.cc"}, options, &d);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_FALSE(d.has_errors()) << d.ToString();
  ASSERT_EQ(set->rules.size(), 10u);
  EXPECT_THAT(set->rules[0].loc().file, HasSubstr("autosplit.rules"));
  EXPECT_THAT(set->rules[5].loc().file, HasSubstr("op_package.cc"));
  EXPECT_EQ(set->rules[0].priority, 11000);
  EXPECT_EQ(set->rules[5].priority, 50);
  std::vector<const OpImplementation*> relu = set->ops.Find("Relu");
  ASSERT_EQ(relu.size(), 2u);
  EXPECT_EQ(relu[0]->impl, "(reluImpl<PlainFloatTensor, MyTensorLayout>)");
  EXPECT_EQ(relu[1]->impl, "(reluImpl<QUint8CroutonTensor, Crouton>)");
  ASSERT_EQ(set->ops.Find("Relu.fp16").size(), 1u);
  EXPECT_EQ(set->ops.Find("Relu.fp16")[0]->cost.kind, CostExpr::Kind::kFunction);
  EXPECT_EQ(set->tensor_properties.size(), 1u);
  ASSERT_EQ(set->param_orders.size(), 1u);
  EXPECT_EQ(set->param_orders[0].op_name, "Relu");
  EXPECT_NE(set->externals.Find("relu_tile_shape"), nullptr);
}

TEST(RuleSetTest, UnreadableFileIsAStatus) {
  DiagnosticList d;
  absl::StatusOr<RuleSet> set = LoadRuleFiles({"/nonexistent/x.rules"}, {}, &d);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(ExitCodeFor(set.status()), kExitBadInput);
  EXPECT_THAT(std::string(set.status().message()), HasSubstr("/nonexistent/x.rules"));
}

}  // namespace
}  // namespace egret::rules
