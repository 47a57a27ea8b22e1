// Function plugins (rules/plugin_loader.h): the example plugin's functions
// through the FunctionLibrary, their declarations, and broken plugins.
#include "egret/rules_compile/plugin_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/graph/tensor.h"
#include "egret/rules/rule_set.h"
#include "egret/rules_compile/function_binding.h"

namespace egret::rules {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Loaded {
  FunctionLibrary library = FunctionLibrary::WithBuiltins();
  ExternalFunctionRegistry declared = ExternalFunctionRegistry::WithBuiltins();
  absl::StatusOr<PluginInfo> info;
};

std::unique_ptr<Loaded> Load(const std::string& path) {
  auto l = std::make_unique<Loaded>();
  l->info = LoadPlugin(path, &l->library, &l->declared);
  return l;
}

FnArg Operand(Id c) {
  FnArg a;
  a.is_operand = true;
  a.operand = c;
  return a;
}

Id Int32Const(EGraph& g, Dims dims, std::vector<double> values) {
  return g.AddConstant(
      std::make_shared<const Tensor>(Tensor::FromValues(TensorType(DType::kInt32, dims), values)));
}

TEST(PluginLoaderTest, TheExamplePluginsFunctionsComputeTheirShapes) {
  std::unique_ptr<Loaded> l = Load(EGRET_EXAMPLE_PLUGIN);
  ASSERT_TRUE(l->info.ok()) << l->info.status();
  EXPECT_THAT(l->info->functions,
              ElementsAre("shapefn pad_total_for_qnn", "shapefn pad_before_for_qnn",
                          "shapefn reshape_hw_to_4d", "constraint has_spatial_padding"));
  ASSERT_NE(l->declared.Find("pad_total_for_qnn"), nullptr);
  EXPECT_EQ(l->declared.Find("pad_total_for_qnn")->RuleArity(), 2u);
  EXPECT_EQ(l->declared.Find("reshape_hw_to_4d")->RuleArity(), 1u);
  EXPECT_EQ(l->declared.Find("has_spatial_padding")->RuleArity(), std::nullopt);

  EGraph g;
  // Only the activation's dims matter; a $Shape class has them.
  const Id act = g.AddShape({1, 6, 7, 3});
  // QNN's [[top, bottom], [left, right]].
  const Id pads = Int32Const(g, {2, 2}, {1, 2, 3, 0});
  const std::vector<FnArg> args = {Operand(act), Operand(pads)};
  const ShapeFn* total = l->library.FindShapeFn("pad_total_for_qnn");
  const ShapeFn* before = l->library.FindShapeFn("pad_before_for_qnn");
  const ShapeFn* hw = l->library.FindShapeFn("reshape_hw_to_4d");
  ASSERT_TRUE(total && before && hw);
  absl::StatusOr<Id> t = (*total)(g, args);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(g.TypeOf(*t).dims, (Dims{1, 9, 10, 3}));
  absl::StatusOr<Id> b = (*before)(g, args);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(g.TypeOf(*b).dims, (Dims{0, 1, 3, 0}));
  // egret's $Shape form of the padding gives the same.
  absl::StatusOr<Id> t2 = (*total)(g, {Operand(act), Operand(g.AddShape({1, 2, 3, 0}))});
  ASSERT_TRUE(t2.ok()) << t2.status();
  EXPECT_EQ(g.Find(*t2), g.Find(*t));

  absl::StatusOr<Id> r = (*hw)(g, {Operand(Int32Const(g, {2}, {3, 2}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(g.TypeOf(*r).dims, (Dims{1, 3, 2, 1}));
  r = (*hw)(g, {Operand(g.AddShape({1, 5, 4, 1}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(g.TypeOf(*r).dims, (Dims{1, 5, 4, 1}));

  // A callback's error is the status message.
  r = (*hw)(g, {Operand(Int32Const(g, {3}, {1, 2, 3}))});
  EXPECT_EQ(r.status().message(), "expected a constant [height, width] (or [1, height, width, 1])");
  r = (*total)(g, {Operand(g.AddShape({6, 7})), Operand(pads)});
  EXPECT_EQ(r.status().message(), "the activation must have rank 4 (NHWC), not 2");

  const ConstraintFn* padded = l->library.FindConstraint("has_spatial_padding");
  ASSERT_NE(padded, nullptr);
  EXPECT_TRUE((*padded)(g, pads, {}));
  EXPECT_FALSE((*padded)(g, Int32Const(g, {2, 2}, {0, 0, 0, 0}), {}));
  EXPECT_FALSE((*padded)(g, g.AddShape({6, 7}), {}));  // an error (2 values) counts as false
}

TEST(PluginLoaderTest, RulesCallingPluginFunctionsAreBound) {
  const std::string text =
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"PoolMax2d\", \"x\", \"w\", \"s\", \"p\"),\n"
      "  EXTERNAL_CONSTRAINT(has_spatial_padding, \"p\"),\n"
      "  Op(\"PoolMax2d\", \"x\", SHAPEFN_APPLY(reshape_hw_to_4d, \"w\"), \"s\", \"p\"))\n";
  DiagnosticList d;
  RuleSet set = LoadRuleText(text, "t.rules", {}, &d);
  ASSERT_FALSE(d.has_errors()) << d.ToString();
  std::vector<SkippedRule> skipped = RulesWithUnboundCalls(set, FunctionLibrary::WithBuiltins());
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].rule, "EARLY@t.rules:1");
  EXPECT_EQ(skipped[0].Reason(),
            "no implementation of EXTERNAL_CONSTRAINT function 'has_spatial_padding' "
            "(t.rules:2:3), SHAPEFN_APPLY function 'reshape_hw_to_4d' (t.rules:3:24)");
  std::unique_ptr<Loaded> l = Load(EGRET_EXAMPLE_PLUGIN);
  ASSERT_TRUE(l->info.ok()) << l->info.status();
  EXPECT_TRUE(RulesWithUnboundCalls(set, l->library).empty());
  // The checker holds calls to the plugin's arities.
  DiagnosticList d2;
  absl::StatusOr<RuleSet> bad = LoadRuleSources(
      {RuleSource::Text(
          "u.rules",
          "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK,\n"
          "  WITH_SIZE(SHAPEFN_APPLY(reshape_hw_to_4d, \"x\", \"x\"), Op(\"B\")))\n")},
      l->declared, {}, &d2);
  ASSERT_TRUE(bad.ok());
  ASSERT_EQ(d2.error_count(), 1) << d2.ToString();
  EXPECT_THAT(d2.all()[0].message, HasSubstr("takes 1 operand in SHAPEFN_APPLY, got 2"));
}

TEST(PluginLoaderTest, BrokenPluginsAreOneLineErrorsAndRegisterNothing) {
  struct Case {
    std::string path;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"/nonexistent/libx.so", "/nonexistent/libx.so: error: cannot open plugin: no such file"},
      {EGRET_SOURCE_DIR "/README.md",
       EGRET_SOURCE_DIR "/README.md: error: cannot load plugin (not a loadable shared library?): "},
      {EGRET_BAD_PLUGIN_NO_ENTRY,
       EGRET_BAD_PLUGIN_NO_ENTRY ": error: not an egret plugin: it does not export "
                                 "egret_plugin_abi_version (see egret/rules_compile/plugin_abi.h)"},
      {EGRET_BAD_PLUGIN_VERSION,
       EGRET_BAD_PLUGIN_VERSION ": error: plugin ABI version 999, but this egret loads version 1 "
                                "(rebuild the plugin against this egret's plugin_abi.h)"},
      {EGRET_BAD_PLUGIN_REGISTER, EGRET_BAD_PLUGIN_REGISTER
       ": error: egret_plugin_register failed: this plugin refuses to register"},
      {EGRET_BAD_PLUGIN_NAME,
       EGRET_BAD_PLUGIN_NAME ": error: registers a shape function with a bad name 'bad-name' (not "
                             "a C identifier)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    std::unique_ptr<Loaded> l = Load(c.path);
    ASSERT_FALSE(l->info.ok());
    const std::string m(l->info.status().message());
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_THAT(m, ::testing::StartsWith(c.message));
    // Nothing registered, not even the plugin's good functions.
    EXPECT_EQ(l->library.FindShapeFn("fine_name"), nullptr);
    EXPECT_EQ(l->declared.Find("fine_name"), nullptr);
  }
}

}  // namespace
}  // namespace egret::rules
