// Match and replacement forms applied by saturation on tiny graphs.
#include <string>

#include "compile_test_util.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

using testing::AddConst;
using testing::AddOp;
using testing::AddShapeNode;
using testing::HasOp;
using testing::NodeWithOp;
using testing::QU8;

std::string Rule(const std::string& match, const std::string& constraint, const std::string& repl,
                 const std::string& pass = "BEGIN") {
  return "DEF_PACKAGE_OPTIMIZATION(" + pass + ", " + match + ", " + constraint + ", " + repl +
         ")\n";
}

TEST(MatchTest, OpHasExactArityAndOpVarInAtLeast) {
  Graph g;
  NodeId a = g.AddInput("a", QU8({4}));
  NodeId b = g.AddInput("b", QU8({4}));
  NodeId c = g.AddInput("c", QU8({4}));
  NodeId two = AddOp(g, "Foo", {a, b}, QU8({4}));
  NodeId three = AddOp(g, "Foo", {a, b, c}, QU8({4}));
  testing::Imported im = testing::Import(g);
  auto exact = testing::CompileAll(
      testing::LoadRules(Rule("Op(\"Foo\", \"x\", \"y\")", "OK", "WrapOpAlways(\"E\", \"x\")")));
  testing::Saturate(im.eg, exact, 1);
  EXPECT_TRUE(HasOp(im.eg, im.cls[two], "E"));
  EXPECT_FALSE(HasOp(im.eg, im.cls[three], "E"));
  auto varin = testing::CompileAll(testing::LoadRules(
      Rule("OpVarIn(\"Foo\", \"x\", \"y\")", "OK", "WrapOpAlways(\"V\", \"x\")")));
  testing::Saturate(im.eg, varin, 1);
  EXPECT_TRUE(HasOp(im.eg, im.cls[two], "V"));
  EXPECT_TRUE(HasOp(im.eg, im.cls[three], "V"));  // the extra input is allowed
}

TEST(MatchTest, RepeatedTagsAndLet) {
  Graph g;
  NodeId a = g.AddInput("a", QU8({4}));
  NodeId b = g.AddInput("b", QU8({4}));
  NodeId same = AddOp(g, "Foo", {a, a}, QU8({4}));
  NodeId diff = AddOp(g, "Foo", {a, b}, QU8({4}));
  NodeId r = AddOp(g, "Relu", {a}, QU8({4}));
  NodeId nested = AddOp(g, "Foo", {r, b}, QU8({4}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(
      Rule("Op(\"Foo\", \"x\", \"x\")", "OK", "WrapOpAlways(\"Same\", \"x\")") +
      Rule("Op(\"Foo\", LET(\"r\", Op(\"Relu\", \"y\")), \"z\")",
           "SAME_OP(INPUT_OF(\"r\", 0), \"y\")", "WrapOpAlways(\"Let\", \"r\")")));
  testing::Saturate(im.eg, rules, 1);
  EXPECT_TRUE(HasOp(im.eg, im.cls[same], "Same"));
  EXPECT_FALSE(HasOp(im.eg, im.cls[diff], "Same"));
  EXPECT_TRUE(HasOp(im.eg, im.cls[nested], "Let"));
  EXPECT_FALSE(HasOp(im.eg, im.cls[diff], "Let"));
}

TEST(ReplacementTest, BypassIntToFloatFloatToInt) {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kInt32, {8}));
  NodeId f = AddOp(g, "IntToFloat", {x}, TensorType(DType::kFloat32, {8}));
  NodeId i = AddOp(g, "FloatToInt", {f}, TensorType(DType::kInt32, {8}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(
      testing::LoadRules(Rule("Op(\"FloatToInt\", Op(\"IntToFloat\", \"x\"))", "OK", "\"x\"")));
  RunReport rep = testing::Saturate(im.eg, rules);
  EXPECT_EQ(im.eg.Find(im.cls[i]), im.eg.Find(im.cls[x]));
  EXPECT_EQ(rep.stop_reason, StopReason::kSaturated);
}

TEST(ReplacementTest, WrapOpIsIdempotentWrapOpAlwaysIsNot) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({4}));
  NodeId q = AddOp(g, "Quant", {x}, QU8({4}));
  NodeId root = AddOp(g, "Foo", {q}, QU8({4}));
  {
    testing::Imported im = testing::Import(g);
    // "q" already is a Quant: WrapOp evaluates to it, so Foo(q) merges with q.
    auto rules = testing::CompileAll(
        testing::LoadRules(Rule("Op(\"Foo\", \"q\")", "OK", "WrapOp(\"Quant\", \"q\")")));
    size_t before = im.eg.num_nodes();
    testing::Saturate(im.eg, rules);
    EXPECT_EQ(im.eg.Find(im.cls[root]), im.eg.Find(im.cls[q]));
    EXPECT_EQ(im.eg.num_nodes(), before);  // nothing was built
  }
  {
    testing::Imported im = testing::Import(g);
    auto rules = testing::CompileAll(
        testing::LoadRules(Rule("Op(\"Foo\", \"q\")", "OK", "WrapOpAlways(\"Quant\", \"q\")")));
    testing::Saturate(im.eg, rules);
    ENodeView v = NodeWithOp(im.eg, im.cls[root], "Quant");
    ASSERT_EQ(v.children.size(), 1u);
    EXPECT_EQ(im.eg.Find(v.children[0]), im.eg.Find(im.cls[q]));  // Quant(Quant(x))
    EXPECT_NE(im.eg.Find(im.cls[root]), im.eg.Find(im.cls[q]));
  }
}

TEST(ReplacementTest, AutosplitOf300ChannelsIntoPiecesOf256And44) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 2, 2, 300}, 0, 0.1f));
  NodeId r = AddOp(g, "Relu", {x}, QU8({1, 2, 2, 300}, 0, 0.1f));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(
      Rule("Op(\"Relu\", \"x\")", "GT(DIM_DEPTH(\"*\"), CHANNEL_SPLIT_SIZE)",
           "AUTOSPLIT(3, \"I\", CHANNEL_SPLIT_SIZE, Op(\"Relu\", TYPICAL_SLICE(\"x\", \"I\")))")));
  testing::Saturate(im.eg, rules);
  ASSERT_TRUE(HasOp(im.eg, im.cls[r], "Concat"));
  ENodeView concat = NodeWithOp(im.eg, im.cls[r], "Concat");
  ASSERT_EQ(concat.children.size(), 3u);
  EXPECT_EQ(im.eg.TypeOf(im.eg.Find(concat.children[0])).dims, Dims{3});  // axis 3
  const int64_t want_start[2] = {0, 256}, want_size[2] = {256, 44};
  for (int k = 0; k < 2; ++k) {
    Id piece = im.eg.Find(concat.children[1 + k]);
    EXPECT_EQ(im.eg.TypeOf(piece), QU8({1, 2, 2, want_size[k]}, 0, 0.1f));
    ENodeView relu = NodeWithOp(im.eg, piece, "Relu");
    Id slice = im.eg.Find(relu.children[0]);
    ENodeView sl = NodeWithOp(im.eg, slice, "Slice_shape");
    ASSERT_EQ(sl.children.size(), 3u);
    EXPECT_EQ(im.eg.Find(sl.children[0]), im.eg.Find(im.cls[x]));
    EXPECT_EQ(im.eg.TypeOf(im.eg.Find(sl.children[1])).dims, (Dims{0, 0, 0, want_start[k]}));
    EXPECT_EQ(im.eg.TypeOf(im.eg.Find(sl.children[2])).dims, (Dims{1, 2, 2, want_size[k]}));
    EXPECT_EQ(im.eg.TypeOf(slice), QU8({1, 2, 2, want_size[k]}, 0, 0.1f));
  }
}

TEST(ReplacementTest, ChangedimSliceAndSplitScalarsInTheBody) {
  // A depth split of Foo(x [.., 300], b [300]): b is sliced on its dim 0, and
  // gen_Shape(SPLIT_START, SPLIT_SIZE, SPLIT_DIM) records each piece.
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 2, 2, 300}));
  NodeId b = g.AddInput("b", QU8({300}));
  NodeId r = AddOp(g, "Foo", {x, b}, QU8({1, 2, 2, 300}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(
      Rule("Op(\"Foo\", \"x\", \"b\")", "GT(DIM_DEPTH(\"*\"), CHANNEL_SPLIT_SIZE)",
           "AUTOSPLIT(3, \"I\", CHANNEL_SPLIT_SIZE, Op(\"Foo2\", TYPICAL_SLICE(\"x\", \"I\"), "
           "CHANGEDIM_SLICE(\"b\", \"I\", 0), gen_Shape(SPLIT_START(\"I\"), SPLIT_SIZE(\"I\"), "
           "SPLIT_DIM(\"I\"))))")));
  testing::Saturate(im.eg, rules);
  ENodeView concat = NodeWithOp(im.eg, im.cls[r], "Concat");
  ASSERT_EQ(concat.children.size(), 3u);
  const int64_t want_start[2] = {0, 256}, want_size[2] = {256, 44};
  for (int k = 0; k < 2; ++k) {
    ENodeView foo = NodeWithOp(im.eg, im.eg.Find(concat.children[1 + k]), "Foo2");
    ASSERT_EQ(foo.children.size(), 3u);
    ENodeView bs = NodeWithOp(im.eg, im.eg.Find(foo.children[1]), "Slice_shape");
    EXPECT_EQ(im.eg.Find(bs.children[0]), im.eg.Find(im.cls[b]));
    EXPECT_EQ(im.eg.TypeOf(im.eg.Find(bs.children[1])).dims, Dims{want_start[k]});
    EXPECT_EQ(im.eg.TypeOf(im.eg.Find(bs.children[2])).dims, Dims{want_size[k]});
    EXPECT_EQ(im.eg.TypeOf(im.eg.Find(foo.children[1])), QU8({want_size[k]}));
    EXPECT_EQ(im.eg.TypeOf(im.eg.Find(foo.children[2])).dims,
              (Dims{want_start[k], want_size[k], 3}));
  }
}

TEST(ReplacementTest, TypicalConvSliceSplitsAValidConvolutionAlongHeight) {
  // A 3x3 VALID convolution of [1,10,4,8] gives [1,8,2,4]; pieces of 4 output
  // rows need input rows [0,6) and [4,10) (conv_valid_split_start/size).
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 10, 4, 8}));
  NodeId f = AddConst(g, QU8({3, 3, 8, 4}), std::vector<double>(3 * 3 * 8 * 4, 1.0));
  NodeId bias = AddConst(g, TensorType(DType::kInt32, {4}), {0, 0, 0, 0});
  NodeId s = AddShapeNode(g, {1, 1, 1, 1});
  NodeId p = AddShapeNode(g, {0, 0, 0, 0});
  NodeId conv = AddOp(g, "Conv2d", {x, f, bias, s, p}, QU8({1, 8, 2, 4}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(
      Rule("Op(\"Conv2d\", \"in\", \"f\", \"b\", \"s\", \"p\")", "GT(DIM_HEIGHT(\"*\"), 4)",
           "AUTOSPLIT(1, \"I\", 4, Op(\"Conv2d\", TYPICAL_CONV_SLICE(\"in\", \"I\", 1, 3), \"f\", "
           "\"b\", \"s\", \"p\"))")));
  testing::Saturate(im.eg, rules);
  ENodeView concat = NodeWithOp(im.eg, im.cls[conv], "Concat");
  ASSERT_EQ(concat.children.size(), 3u);
  for (int k = 0; k < 2; ++k) {
    Id piece = im.eg.Find(concat.children[1 + k]);
    EXPECT_EQ(im.eg.TypeOf(piece).dims, (Dims{1, 4, 2, 4}));
    ENodeView c = NodeWithOp(im.eg, piece, "Conv2d");
    ENodeView sl = NodeWithOp(im.eg, im.eg.Find(c.children[0]), "Slice_shape");
    EXPECT_EQ(im.eg.TypeOf(im.eg.Find(sl.children[1])).dims, (Dims{0, 4 * k, 0, 0}));
    EXPECT_EQ(im.eg.TypeOf(im.eg.Find(sl.children[2])).dims, (Dims{1, 6, 4, 8}));
  }
}

TEST(ReplacementTest, TypeMismatchIsReportedAndSkipped) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({4}));
  NodeId root = AddOp(g, "Foo", {x}, QU8({4}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(
      testing::LoadRules(Rule("Op(\"Foo\", \"x\")", "OK",
                              "WITH_OUTPUT_TYPE(DType::Float32, 0, 1.0f, Op(\"Bar\", \"x\"))")));
  testing::Saturate(im.eg, rules);
  EXPECT_FALSE(HasOp(im.eg, im.cls[root], "Bar"));
  ASSERT_GE(rules[0].log->type_mismatches, 1u);
  ASSERT_FALSE(rules[0].log->messages.empty());
  const std::string& m = rules[0].log->messages[0];
  EXPECT_NE(m.find("test.rules:1"), std::string::npos) << m;
  EXPECT_NE(m.find("Float32[4]"), std::string::npos) << m;
  EXPECT_NE(m.find("QUInt8[4]"), std::string::npos) << m;
}

TEST(ReplacementTest, ModifiersSetTheOutputType) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 4, 4, 8}, 3, 0.5f));
  NodeId y = g.AddInput("y", TensorType(DType::kFloat32, {1, 2, 2, 8}));
  NodeId root = AddOp(g, "Foo", {x, y}, QU8({1, 4, 4, 8}, 3, 0.5f));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(Rule(
      "Op(\"Foo\", \"x\", \"y\")", "OK",
      "Op(\"Join\", WITH_SAME_OUTPUT(\"y\", Op(\"A\", \"x\")), ResizeDim(3, 5, Op(\"B\", \"x\")), "
      "WITH_SIZE(gen_Shape(2, 2), Op(\"C\", \"x\")), WITH_TYPE(\"y\", Op(\"D\", \"x\")), "
      "WITH_OUTPUT_TYPE(DType::QInt8, 7, 0.25f, Op(\"E\", \"x\")), "
      "ResizeDim(0, 9, WITH_SAME_OUTPUT(\"y\", Op(\"F\", \"x\"))))")));
  testing::Saturate(im.eg, rules, 1);
  ENodeView join = NodeWithOp(im.eg, im.cls[root], "Join");
  ASSERT_EQ(join.children.size(), 6u);
  auto type = [&](int k) { return im.eg.TypeOf(im.eg.Find(join.children[k])); };
  EXPECT_EQ(type(0), TensorType(DType::kFloat32, {1, 2, 2, 8}));
  EXPECT_EQ(type(1), QU8({1, 4, 4, 5}, 3, 0.5f));
  EXPECT_EQ(type(2), QU8({2, 2}, 3, 0.5f));
  EXPECT_EQ(type(3), TensorType(DType::kFloat32, {1, 4, 4, 8}));
  EXPECT_EQ(type(4), TensorType(DType::kQInt8, {1, 4, 4, 8}, 7, 0.25f));
  EXPECT_EQ(type(5), TensorType(DType::kFloat32, {9, 2, 2, 8}));  // ResizeDim applies last
}

// A modifier sets the output of every Op() in its last operand: an op built
// inside another inherits the enclosing op's type, not the root's, unless it
// has a modifier of its own. This is how op packages write a Float16 island:
// the inner Cast converts x to Float16 because the Relu around it is Float16.
TEST(ReplacementTest, NestedOpsInheritTheEnclosingOpsType) {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {1, 4, 4, 8}));
  NodeId root = AddOp(g, "Foo", {x}, TensorType(DType::kFloat32, {1, 2, 2, 8}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(
      Rule("Op(\"Foo\", \"x\")", "OK",
           "Op(\"Back\", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, "
           "Op(\"Half\", WITH_SIZE(\"x\", Op(\"ToHalf\", \"x\")), Op(\"Plain\", \"x\"))))")));
  testing::Saturate(im.eg, rules, 1);
  ENodeView back = NodeWithOp(im.eg, im.cls[root], "Back");
  ASSERT_EQ(back.children.size(), 1u);
  const Id half_cls = im.eg.Find(back.children[0]);
  EXPECT_EQ(im.eg.TypeOf(half_cls), TensorType(DType::kFloat16, {1, 2, 2, 8}));
  ENodeView half = NodeWithOp(im.eg, half_cls, "Half");
  ASSERT_EQ(half.children.size(), 2u);
  // Float16 from the enclosing Half, dims from its own WITH_SIZE.
  EXPECT_EQ(im.eg.TypeOf(im.eg.Find(half.children[0])), TensorType(DType::kFloat16, {1, 4, 4, 8}));
  // No modifier of its own: all of Half's output.
  EXPECT_EQ(im.eg.TypeOf(im.eg.Find(half.children[1])), TensorType(DType::kFloat16, {1, 2, 2, 8}));
}

TEST(ReplacementTest, GenShapeAndGenConstBuildRealData) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({4}));
  NodeId root = AddOp(g, "Foo", {x}, QU8({4}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(
      Rule("Op(\"Foo\", \"x\")", "OK",
           "Op(\"Bar\", \"x\", gen_Shape(1, 2, 3), gen_ShapeOf(\"x\"), gen_ConstScalar_f32(1.5f), "
           "gen_ConstScalar_i32(-4), gen_ConstArr_f32(2.5f, 3), gen_ConstArr_i32(7, 2), "
           "gen_ConstArr_vals_i32(4, 5, 6))")));
  testing::Saturate(im.eg, rules, 1);
  ENodeView bar = NodeWithOp(im.eg, im.cls[root], "Bar");
  ASSERT_EQ(bar.children.size(), 8u);
  auto cls = [&](int k) { return im.eg.Find(bar.children[k]); };
  EXPECT_TRUE(HasOp(im.eg, cls(1), "$Shape"));
  EXPECT_EQ(im.eg.TypeOf(cls(1)).dims, (Dims{1, 2, 3}));
  EXPECT_EQ(im.eg.TypeOf(cls(2)).dims, (Dims{4}));
  auto data = [&](int k) {
    ConstTensorPtr t = im.eg.ConstantOf(cls(k));
    EXPECT_NE(t, nullptr);
    std::vector<double> v;
    if (t) {
      for (int64_t i = 0; i < t->num_elements(); ++i) v.push_back(t->GetValue(i));
    }
    return v;
  };
  EXPECT_EQ(data(3), std::vector<double>{1.5});
  EXPECT_EQ(im.eg.TypeOf(cls(3)), TensorType(DType::kFloat32, {1, 1, 1, 1}));
  EXPECT_EQ(data(4), std::vector<double>{-4});
  EXPECT_EQ(im.eg.TypeOf(cls(4)).dtype, DType::kInt32);
  EXPECT_EQ(data(5), (std::vector<double>{2.5, 2.5, 2.5}));
  EXPECT_EQ(data(6), (std::vector<double>{7, 7}));
  EXPECT_EQ(data(7), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(im.eg.TypeOf(cls(7)).dims, (Dims{1, 1, 1, 3}));
}

TEST(ReplacementTest, OpMultiOutAndOutputOf) {
  Graph g;
  NodeId x = g.AddInput("x", QU8({4}));
  NodeId root = AddOp(g, "Foo", {x}, QU8({4}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(
      testing::LoadRules(Rule("Op(\"Foo\", \"x\")", "OK", "OpMultiOut(2, 1, \"Pair\", \"x\")")));
  testing::Saturate(im.eg, rules, 2);
  ENodeView out = NodeWithOp(im.eg, im.cls[root], "$Out");
  Id multi = im.eg.Find(out.children[0]);
  EXPECT_EQ(im.eg.TypeOf(multi).dtype, DType::kMulti);
  EXPECT_TRUE(HasOp(im.eg, multi, "Pair"));
  EXPECT_EQ(im.eg.TypeOf(im.eg.Find(out.children[1])).dims, (Dims{0, 0, 2, 1}));
  // OUTPUT_OF navigates from the multi-output class to the selected output.
  EXPECT_EQ(rules::OutputClass(im.eg, multi, 1), im.eg.Find(im.cls[root]));
  EXPECT_EQ(rules::OutputClass(im.eg, multi, 0), kNoId);
  EXPECT_EQ(rules::OutputCount(im.eg, multi), 2);
}

TEST(ReplacementTest, SelectOpIterAndIterInputOf) {
  Graph g;
  NodeId a = g.AddInput("a", QU8({2}));
  NodeId b = g.AddInput("b", QU8({2}));
  NodeId c = g.AddInput("c", QU8({2}));
  NodeId axis = AddShapeNode(g, {0});
  NodeId root = AddOp(g, "Cat", {axis, a, b, c}, QU8({6}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(Rule(
      "OpVarIn(\"Cat\", \"ax\")", "OK",
      "SELECT(GT(INPUTS_OF(\"*\"), 3), OP_ITER(Op(\"Cat2\", \"ax\"), \"I\", 1, INPUTS_OF(\"*\"), "
      "ITER_INPUT_OF(\"*\", \"I\")), \"ax\")")));
  testing::Saturate(im.eg, rules, 1);
  ENodeView cat2 = NodeWithOp(im.eg, im.cls[root], "Cat2");
  ASSERT_EQ(cat2.children.size(), 4u);
  EXPECT_EQ(im.eg.Find(cat2.children[1]), im.eg.Find(im.cls[a]));
  EXPECT_EQ(im.eg.Find(cat2.children[3]), im.eg.Find(im.cls[c]));
}

TEST(ReplacementTest, SameOpIsFalseForDistinctClassesAndTrueAfterTheyMerge) {
  Graph g;
  NodeId a = g.AddInput("a", QU8({4}));
  NodeId b = g.AddInput("b", QU8({4}));
  NodeId ra = AddOp(g, "Relu", {a}, QU8({4}));
  NodeId rb = AddOp(g, "Relu", {b}, QU8({4}));
  NodeId root = AddOp(g, "Foo", {ra, rb}, QU8({4}));
  testing::Imported im = testing::Import(g);
  auto rules = testing::CompileAll(testing::LoadRules(
      Rule("Op(\"Foo\", \"p\", \"q\")", "SAME_OP(\"p\", \"q\")", "WrapOpAlways(\"Same\", \"p\")")));
  testing::Saturate(im.eg, rules);
  EXPECT_FALSE(HasOp(im.eg, im.cls[root], "Same"));
  ASSERT_TRUE(im.eg.Union(im.cls[a], im.cls[b]).ok());  // a = b, so Relu(a) = Relu(b)
  im.eg.Rebuild();
  EXPECT_EQ(im.eg.Find(im.cls[ra]), im.eg.Find(im.cls[rb]));
  testing::Saturate(im.eg, rules);
  EXPECT_TRUE(HasOp(im.eg, im.cls[root], "Same"));
}

TEST(ReplacementTest, ShapeFnApplyAndExternalReplaceCallRegisteredFunctions) {
  rules::FunctionLibrary lib = rules::FunctionLibrary::WithBuiltins();
  // The example of registering a shape function: double the last dim.
  lib.RegisterShapeFn("double_last",
                      [](EGraph& g, absl::Span<const rules::FnArg> args) -> absl::StatusOr<Id> {
                        Dims d = g.TypeOf(g.Find(args[0].operand)).dims;
                        d.back() *= args[1].scalar.AsInt();
                        return g.AddShape(d);
                      });
  lib.RegisterReplace(
      "to_relu",
      [](EGraph& g, const rules::ReplaceContext& ctx) -> absl::StatusOr<std::optional<Id>> {
        ENodeView root = g.Node(ctx.match->nodes[0]);
        Id ch[1] = {root.children[0]};
        absl::StatusOr<Id> r = g.Add(ENodeView{Symbol::Intern("Relu"), 0, ch}, ctx.root_type);
        if (!r.ok()) return r.status();
        return std::optional<Id>(*r);
      });
  Graph g;
  NodeId x = g.AddInput("x", QU8({1, 3}));
  NodeId foo = AddOp(g, "Foo", {x}, QU8({1, 3}));
  NodeId bar = AddOp(g, "Bar", {x}, QU8({1, 3}));
  testing::Imported im = testing::Import(g);
  const std::string decls =
      "// :::EXTERNAL_SHAPEFN::: { OpRef double_last(Replacement &, OpRef, int); }\n"
      "// :::EXTERNAL_SHAPEFN::: { OpRef to_relu(Replacement &, const OpDef &); }\n";
  rules::CompileOptions co;
  co.functions = &lib;
  auto rules = testing::CompileAll(
      testing::LoadRules(decls +
                         Rule("Op(\"Foo\", \"x\")", "OK",
                              "Op(\"Widen\", \"x\", SHAPEFN_APPLY(double_last, \"x\", 2))") +
                         Rule("Op(\"Bar\", \"x\")", "OK", "EXTERNAL_REPLACE(to_relu)")),
      co);
  ASSERT_EQ(rules.size(), 2u);
  testing::Saturate(im.eg, rules, 1);
  // "Widen" is an op egret does not know, so its operands are not checked.
  ENodeView widen = NodeWithOp(im.eg, im.cls[foo], "Widen");
  EXPECT_EQ(im.eg.TypeOf(im.eg.Find(widen.children[1])).dims, (Dims{1, 6}));
  EXPECT_TRUE(HasOp(im.eg, im.cls[bar], "Relu"));
}

}  // namespace
}  // namespace egret
