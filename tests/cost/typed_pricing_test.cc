// Type-correct pricing: a node is priced only by the implementations whose
// declared tensor types fit it; a node none fits runs off the HTP, with the
// reason; overrides still apply per dtype. Through the model, through a rule
// file's registrations, and through the shipped library.
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/cost/cost_table.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/cost/make_cost_model.h"
#include "egret/graph/graph.h"
#include "egret/rules/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::cost {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A Conv2d node: NHWC input, HWIO filter, bias, and "$Shape" stride and pads.
struct Conv {
  TensorType in, filter, bias, out;
  TensorType shape = TensorType(DType::kInt32, {1, 4});

  Conv(DType act, DType weights, DType bias_dtype, DType out_dtype)
      : in(act, {1, 16, 16, 8}),
        filter(weights, {3, 3, 8, 8}),
        bias(bias_dtype, {8}),
        out(out_dtype, {1, 16, 16, 8}) {}

  NodeCost Price(const HvxCostModel& m, const std::string& op = "Conv2d") const {
    const std::vector<NodeInput> ins = {
        {&in}, {&filter}, {&bias}, {&shape, /*shape_value=*/true}, {&shape, true}};
    return NodeCostOf(m, op, {out}, ins);
  }
};

// Conv2d implemented for QUInt8 croutons (cheap) and Float16 croutons.
CostTable QuantizedConvTable() {
  CostTable t;
  t.ops["Conv2d"] = {{"(conv2dImpl<QUint8CroutonTensor>)", 4, /*hvx=*/true, false},
                     {"(conv2dImpl<F16CroutonTensor_TCM>)", 8, true, false}};
  return t;
}

TEST(TypedPricingTest, FloatConvIsNeverPricedWithAQuantizedImplementation) {
  CostTable t = QuantizedConvTable();
  t.ops["Conv2d"].push_back({"(conv2dImpl<PlainFloatTensor>)", 1000, true, false});
  const HvxCostModel m(t);
  const NodeCost f32 =
      Conv(DType::kFloat32, DType::kFloat32, DType::kFloat32, DType::kFloat32).Price(m);
  ASSERT_TRUE(f32.computable);
  EXPECT_FALSE(f32.off_htp);
  EXPECT_EQ(f32.impl, "(conv2dImpl<PlainFloatTensor>)");
  EXPECT_EQ(f32.cost, 1000 * 64);  // 8 KiB of Float32 output: 64 vectors
  const NodeCost f16 =
      Conv(DType::kFloat16, DType::kFloat16, DType::kFloat16, DType::kFloat16).Price(m);
  EXPECT_EQ(f16.impl, "(conv2dImpl<F16CroutonTensor_TCM>)");
  EXPECT_EQ(f16.cost, 8 * 32);
}

TEST(TypedPricingTest, QuantizedConvIsNeverPricedWithAFloatImplementation) {
  CostTable t;
  // The float implementation is the cheaper one: it must still not be used.
  t.ops["Conv2d"] = {{"(conv2dImpl<PlainFloatTensor>)", 1, true, false},
                     {"(conv2dImpl<QUint8CroutonTensor>)", 100, true, false}};
  const HvxCostModel m(t);
  // QInt8 weights and an Int32 bias do not stop the QUInt8 implementation.
  const NodeCost q = Conv(DType::kQUInt8, DType::kQInt8, DType::kInt32, DType::kQUInt8).Price(m);
  EXPECT_EQ(q.impl, "(conv2dImpl<QUint8CroutonTensor>)");
  EXPECT_EQ(q.cost, 100 * 16);  // 2 KiB of QUInt8 output
  // A QInt8 convolution has no implementation here.
  const NodeCost qi8 = Conv(DType::kQInt8, DType::kQInt8, DType::kInt32, DType::kQInt8).Price(m);
  EXPECT_TRUE(qi8.off_htp);
  EXPECT_EQ(qi8.reason, "no QInt8 implementation of Conv2d (registered: Float32, QUInt8 crouton)");
}

// The HTP has no Float64, UInt32, UInt64 or BFloat16 tensors: a node with
// such an output or data operand runs off the HTP even where a generic
// implementation or an override ("*") would price it on the HTP.
TEST(TypedPricingTest, TypesTheHtpLacksRunOffTheHtp) {
  CostTable t;
  t.ops["Relu"] = {{"(reluImpl<Tensor>)", 2, true, false}};
  t.ops["Cast"] = {{"(castImpl<Tensor>)", 2, true, false}};
  t.overrides["Relu"]["*"] = 1;
  const HvxCostModel m(t);
  for (DType d : {DType::kFloat64, DType::kUInt32, DType::kUInt64, DType::kBFloat16}) {
    const TensorType x(d, {1, 64});
    const NodeCost c = NodeCostOf(m, "Relu", {x}, {NodeInput{&x}});
    EXPECT_TRUE(c.computable) << DTypeName(d);
    EXPECT_TRUE(c.off_htp) << DTypeName(d);
    EXPECT_EQ(c.impl, kOffHtpImpl);
    EXPECT_EQ(c.no_htp, NoHtpImpl::kNotForTypes);
    EXPECT_EQ(c.reason, "the HTP has no " + std::string(DTypeName(d)) + " tensors");
    // An operand of such a type is enough: a Cast from it to Float32.
    const TensorType f(DType::kFloat32, {1, 64});
    const NodeCost cast = NodeCostOf(m, "Cast", {f}, {NodeInput{&x}});
    EXPECT_TRUE(cast.off_htp) << DTypeName(d);
  }
  const TensorType f(DType::kFloat32, {1, 64});
  EXPECT_FALSE(NodeCostOf(m, "Cast", {f}, {NodeInput{&f}}).off_htp);
  HvxCostModel strict(t);
  strict.set_cpu_fallback(false);
  const TensorType d(DType::kFloat64, {4});
  EXPECT_FALSE(NodeCostOf(strict, "Relu", {d}, {NodeInput{&d}}).computable);
}

TEST(TypedPricingTest, GenericImplementationsPriceEveryDtype) {
  CostTable t;
  t.ops["Relu"] = {{"(reluImpl<Tensor>)", 2, true, false}};
  t.ops["Conv2d"] = {{"(conv2dImpl<QUint8CroutonTensor>)", 1, true, false},
                     {"conv2dRefImpl", 500, true, false}};
  const HvxCostModel m(t);
  for (DType d : {DType::kFloat32, DType::kFloat16, DType::kQUInt8, DType::kQInt16, DType::kInt32,
                  DType::kBool}) {
    const TensorType x(d, {1, 2, 3, 4, 5, 6});  // any rank
    const NodeCost c = NodeCostOf(m, "Relu", {x}, {NodeInput{&x}});
    EXPECT_EQ(c.impl, "(reluImpl<Tensor>)") << DTypeName(d);
    EXPECT_FALSE(c.off_htp);
  }
  // The generic reference implementation prices what the typed one cannot.
  EXPECT_EQ(Conv(DType::kFloat32, DType::kFloat32, DType::kFloat32, DType::kFloat32).Price(m).impl,
            "conv2dRefImpl");
  EXPECT_EQ(Conv(DType::kQUInt8, DType::kQUInt8, DType::kInt32, DType::kQUInt8).Price(m).impl,
            "(conv2dImpl<QUint8CroutonTensor>)");
}

TEST(TypedPricingTest, NodeWithOnlyOtherDtypesImplementationsRunsOffTheHtpWithTheReason) {
  HvxCostModel m(QuantizedConvTable());
  const Conv f32(DType::kFloat32, DType::kFloat32, DType::kFloat32, DType::kFloat32);
  NodeCost c = f32.Price(m);
  ASSERT_TRUE(c.computable);
  EXPECT_TRUE(c.off_htp);
  EXPECT_EQ(c.impl, kOffHtpImpl);
  EXPECT_EQ(c.no_htp, NoHtpImpl::kNotForTypes);
  EXPECT_EQ(c.reason,
            "no Float32 implementation of Conv2d (registered: QUInt8 crouton, Float16 crouton)");
  EXPECT_GE(c.cost, kOffHtpFixedCost);
  EXPECT_THAT(NoHtpImplementationText(c), StartsWith("has no implementation for its types: no "
                                                     "Float32 implementation of Conv2d"));
  // A suffixed op without implementations of its own is judged by its base op's.
  EXPECT_THAT(f32.Price(m, "Conv2d.special").reason,
              StartsWith("no Float32 implementation of Conv2d (registered: "));
  // Without the CPU fallback the node cannot be computed, for the same reason.
  m.set_cpu_fallback(false);
  c = f32.Price(m);
  EXPECT_FALSE(c.computable);
  EXPECT_FALSE(c.off_htp);
  EXPECT_EQ(c.no_htp, NoHtpImpl::kNotForTypes);
  EXPECT_EQ(c.reason,
            "no Float32 implementation of Conv2d (registered: QUInt8 crouton, Float16 crouton)");
}

TEST(TypedPricingTest, CroutonImplementationsDoNotPriceRankFiveTensors) {
  CostTable t;
  t.ops["ElementWiseAdd"] = {{"(addImpl<QUint8CroutonTensor>)", 4, true, false}};
  const HvxCostModel m(t);
  const TensorType r4(DType::kQUInt8, {1, 2, 4, 128}), r5(DType::kQUInt8, {1, 1, 2, 4, 128});
  EXPECT_FALSE(NodeCostOf(m, "ElementWiseAdd", {r4}, {NodeInput{&r4}, NodeInput{&r4}}).off_htp);
  const NodeCost c = NodeCostOf(m, "ElementWiseAdd", {r5}, {NodeInput{&r5}, NodeInput{&r5}});
  EXPECT_TRUE(c.off_htp);
  EXPECT_THAT(c.reason, HasSubstr("rank-5 QUInt8"));
  // A rank-5 data operand is enough.
  EXPECT_TRUE(NodeCostOf(m, "ElementWiseAdd", {r4}, {NodeInput{&r4}, NodeInput{&r5}}).off_htp);
}

TEST(TypedPricingTest, OverridesApplyPerDtypeWhateverTheDeclaredTypes) {
  CostTable t = QuantizedConvTable();
  ASSERT_TRUE(AddCostOverrides(R"({"Conv2d": {"Float32": 3}})", "c.json", &t).ok());
  const HvxCostModel m(t);
  const NodeCost f32 =
      Conv(DType::kFloat32, DType::kFloat32, DType::kFloat32, DType::kFloat32).Price(m);
  EXPECT_FALSE(f32.off_htp);
  EXPECT_EQ(f32.impl, "override");
  EXPECT_EQ(f32.cost, 3 * 64);
  // Other dtypes keep their eligible implementations, or their reason.
  EXPECT_EQ(Conv(DType::kQUInt8, DType::kQUInt8, DType::kInt32, DType::kQUInt8).Price(m).impl,
            "(conv2dImpl<QUint8CroutonTensor>)");
  EXPECT_EQ(Conv(DType::kQInt8, DType::kQInt8, DType::kInt32, DType::kQInt8).Price(m).no_htp,
            NoHtpImpl::kNotForTypes);
  // "*" covers every dtype.
  CostTable all = QuantizedConvTable();
  ASSERT_TRUE(AddCostOverrides(R"({"Conv2d": 5})", "c.json", &all).ok());
  EXPECT_EQ(Conv(DType::kQInt8, DType::kQInt8, DType::kInt32, DType::kQInt8)
                .Price(HvxCostModel(all))
                .impl,
            "override");
}

TEST(TypedPricingTest, TypedRegistrationsOfARuleFile) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((conv2dImpl<QUint8CroutonTensor_TCM>), \"Conv2d\", 2,\n"
      "                                  RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((conv2dImpl<PlainFloatTensor, Tensor>), \"Conv2d\", 64,\n"
      "                                  RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((quantizeImpl<QuantUint8Tensor, PlainFloatTensor>),\n"
      "                                  \"Quantize\", 1, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<Tensor>), \"Relu\", 1, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((fooImpl<VendorTensor>), \"Relu6\", 1, RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((barImpl<VendorTensor>), \"Relu1\", 1, RESOURCE_HVX)\n",
      "typed.rules", {}, &diags);
  ASSERT_FALSE(diags.has_errors()) << diags.ToString();
  DiagnosticList cost_diags;
  const HvxCostModel m = MakeCostModel(set.ops, {}, {}, &cost_diags);
  // The unknown tensor type is a warning, once, at its first registration.
  EXPECT_EQ(cost_diags.warning_count(), 1) << cost_diags.ToString();
  EXPECT_THAT(cost_diags.ToString(), HasSubstr("typed.rules:8:"));
  EXPECT_THAT(cost_diags.ToString(),
              HasSubstr("warning: implementation '(fooImpl<VendorTensor>)' of 'Relu6' declares the "
                        "tensor type 'VendorTensor', which egret does not know; it matches every "
                        "dtype"));

  Graph g;
  const NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {1, 8, 8, 8}));
  auto add = [&g](const std::string& op, std::vector<ValueRef> in, TensorType out) {
    Node n;
    n.op = op;
    n.inputs.assign(in.begin(), in.end());
    n.outputs.push_back(std::move(out));
    return g.AddNode(std::move(n));
  };
  Node shape;
  shape.op = std::string(kShapeOp);
  shape.outputs.push_back(TensorType(DType::kInt32, {1, 4}));
  const NodeId s = g.AddNode(std::move(shape));
  const NodeId wf = g.AddInput("wf", TensorType(DType::kFloat32, {3, 3, 8, 8}));
  const NodeId bf = g.AddInput("bf", TensorType(DType::kFloat32, {8}));
  const NodeId conv_f = add("Conv2d", {{x, 0}, {wf, 0}, {bf, 0}, {s, 0}, {s, 0}},
                            TensorType(DType::kFloat32, {1, 8, 8, 8}));
  TensorType q8(DType::kQUInt8, {1, 8, 8, 8});
  const NodeId xq = add("Quantize", {{conv_f, 0}}, q8);
  const NodeId wq = g.AddInput("wq", TensorType(DType::kQUInt8, {3, 3, 8, 8}));
  const NodeId bq = g.AddInput("bq", TensorType(DType::kInt32, {8}));
  const NodeId conv_q = add("Conv2d", {{xq, 0}, {wq, 0}, {bq, 0}, {s, 0}, {s, 0}}, q8);
  const NodeId conv_i8 = add("Conv2d", {{xq, 0}, {wq, 0}, {bq, 0}, {s, 0}, {s, 0}},
                             TensorType(DType::kQInt8, {1, 8, 8, 8}));
  const NodeId relu = add("Relu6", {{conv_i8, 0}}, TensorType(DType::kQInt8, {1, 8, 8, 8}));

  EXPECT_EQ(GraphNodeCost(m, g, g.node(conv_f)).impl, "(conv2dImpl<PlainFloatTensor, Tensor>)");
  EXPECT_EQ(GraphNodeCost(m, g, g.node(conv_f)).cost, 64 * 16);
  EXPECT_EQ(GraphNodeCost(m, g, g.node(xq)).impl,
            "(quantizeImpl<QuantUint8Tensor, PlainFloatTensor>)");
  EXPECT_EQ(GraphNodeCost(m, g, g.node(conv_q)).impl, "(conv2dImpl<QUint8CroutonTensor_TCM>)");
  EXPECT_EQ(GraphNodeCost(m, g, g.node(conv_q)).cost, 2 * 4);
  const NodeCost i8 = GraphNodeCost(m, g, g.node(conv_i8));
  EXPECT_TRUE(i8.off_htp);
  EXPECT_EQ(i8.reason, "no QInt8 implementation of Conv2d (registered: QUInt8 crouton, Float32)");
  EXPECT_EQ(GraphNodeCost(m, g, g.node(relu)).impl, "(fooImpl<VendorTensor>)");

  // The annotations carry the reason of the off-HTP node only.
  ASSERT_EQ(AnnotateImplementations(m, &g), kNoNode);
  auto reason_of = [&g](NodeId n) -> std::string {
    auto it = g.node(n).attrs.find(kOffHtpReasonAttr);
    return it == g.node(n).attrs.end() ? "" : std::get<std::string>(it->second);
  };
  EXPECT_EQ(reason_of(conv_i8), i8.reason);
  EXPECT_EQ(std::get<std::string>(g.node(conv_i8).attrs.at(std::string(kImplAttr))), kOffHtpImpl);
  EXPECT_EQ(reason_of(conv_q), "");
  // With the CPU fallback off, annotation stops at that node and says why.
  HvxCostModel strict = m;
  strict.set_cpu_fallback(false);
  NodeCost blocked;
  EXPECT_EQ(AnnotateImplementations(strict, &g, &blocked), conv_i8);
  EXPECT_EQ(blocked.reason, i8.reason);
  UncomputableNode missing;
  EXPECT_EQ(GraphCost(g, strict, &missing), std::numeric_limits<double>::infinity());
  EXPECT_EQ(missing.op, "Conv2d");
  EXPECT_EQ(missing.reason, i8.reason);
}

}  // namespace
}  // namespace egret::cost
