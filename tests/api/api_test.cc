#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "egret/api/egret.h"
#include "gtest/gtest.h"

namespace egret::api {
namespace {

// The implementations every test graph needs (costs per HVX vector).
constexpr char kImpls[] = R"(
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<Tensor>), "Relu", 2, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((addImpl<Tensor>), "ElementWiseAdd", 4, RESOURCE_HVX)
)";

// Relu(Relu(x)) is Relu(x) when the external constraint says so.
constexpr char kDoubleRelu[] = R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("Relu", LET("inner", Op("Relu", "x"))),
  EXTERNAL_CONSTRAINT(allow, "x", 3, 1.5),
  "inner")
)";

const TensorType kAct(DType::kFloat32, {1, 4, 4, 32});

Graph DoubleRelu() {
  GraphBuilder b("g");
  ValueRef x = b.Input("x", kAct);
  b.Output(b.Op("Relu", {b.Op("Relu", {x})}), "y");
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

absl::StatusOr<Rules> Load(const std::string& text, const Functions& fns, DiagnosticList* diags) {
  return Rules::Load({RuleSource::Text("<test>", text), RuleSource::Text("<impls>", kImpls)}, fns,
                     {}, diags);
}

const OptimizeResult::RuleUse* FindRule(const OptimizeResult& r, std::string_view prefix) {
  for (const OptimizeResult::RuleUse& u : r.rules) {
    if (u.rule.starts_with(prefix)) return &u;
  }
  return nullptr;
}

TEST(GraphBuilderTest, InfersTypesAndValidates) {
  GraphBuilder b("block");
  ValueRef x = b.Input("x", TensorType(DType::kFloat32, {1, 8, 8, 4}));
  ValueRef w = b.Constant("w", Tensor(TensorType(DType::kFloat32, {3, 3, 4, 6})));
  ValueRef bias = b.Constant("bias", Tensor(TensorType(DType::kFloat32, {6})));
  ValueRef conv = b.Op("Conv2d", {x, w, bias, b.Shape({1, 2, 2, 1}), b.Shape({1, 1, 1, 1})},
                       std::nullopt, "conv");
  b.Output(conv, "y");
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->name(), "block");
  EXPECT_EQ(g->TypeOf(conv).ToString(), "Float32[1,4,4,6]");
  EXPECT_EQ(g->node(conv.node).name, "conv");
  ASSERT_EQ(g->outputs().size(), 1u);
}

TEST(GraphBuilderTest, DeclaredTypeGivesTheEncoding) {
  GraphBuilder b;
  ValueRef x = b.Input("x", TensorType(DType::kQUInt8, {1, 2, 2, 8}, 128, 0.05f));
  TensorType declared(DType::kQUInt8, {1}, 0, 0.025f);  // dims are inferred, not taken
  ValueRef r = b.Op("Relu", {x}, declared);
  b.Output(r);
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(r), TensorType(DType::kQUInt8, {1, 2, 2, 8}, 0, 0.025f));
}

TEST(GraphBuilderTest, FirstErrorSticksAndNamesTheNode) {
  GraphBuilder b;
  ValueRef x = b.Input("x", TensorType(DType::kFloat32, {1, 8, 8, 6}));
  ValueRef w = b.Constant("w", Tensor(TensorType(DType::kFloat32, {3, 3, 4, 6})));
  ValueRef bias = b.Constant("bias", Tensor(TensorType(DType::kFloat32, {6})));
  ValueRef bad = b.Op("Conv2d", {x, w, bias, b.Shape({1, 1, 1, 1}), b.Shape({0, 0, 0, 0})},
                      std::nullopt, "conv");
  EXPECT_EQ(bad.node, kNoNode);
  EXPECT_EQ(b.Op("Relu", {x}).node, kNoNode);  // after an error, nothing is added
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(g.status().message(), "node 'conv' (Conv2d): ")) << g.status();
  EXPECT_NE(g.status().message().find("does not divide"), std::string_view::npos) << g.status();
}

TEST(GraphBuilderTest, UnknownOpAndMissingValue) {
  GraphBuilder b;
  ValueRef x = b.Input("x", kAct);
  b.Op("NoSuchOp", {x}, std::nullopt, "n");
  EXPECT_EQ(b.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StartsWith(b.status().message(), "node 'n' (NoSuchOp): ")) << b.status();

  GraphBuilder c;
  c.Op("Relu", {ValueRef{7, 0}}, std::nullopt, "r");
  EXPECT_EQ(c.status().message(), "node 'r' (Relu): input 0 refers to no value");
}

TEST(RulesTest, DiagnosticsNameThePseudoFile) {
  DiagnosticList diags;
  absl::StatusOr<Rules> rules =
      Rules::Load({RuleSource::Text("<my rules>",
                                    "DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,\n"
                                    "  Op(\"Relu\", \"x\"), NO_SUCH_PRED(\"x\"), \"x\")\n")},
                  Functions(), {}, &diags);
  ASSERT_FALSE(rules.ok());
  EXPECT_EQ(rules.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(rules.status().message(), "<my rules>:2:")) << rules.status();
  ASSERT_TRUE(diags.has_errors());
  EXPECT_EQ(diags.all()[0].loc.file, "<my rules>");
}

// A rule calling a function with no implementation loads with a warning and
// is skipped by Optimize, which lists it with the reason.
TEST(RulesTest, ARuleCallingAnUnregisteredFunctionIsSkipped) {
  DiagnosticList diags;
  absl::StatusOr<Rules> rules = Load(kDoubleRelu, Functions(), &diags);
  ASSERT_TRUE(rules.ok()) << rules.status();
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  ASSERT_EQ(diags.warning_count(), 1) << diags.ToString();
  EXPECT_EQ(diags.all()[0].ToString(),
            "<test>:4:3: warning: external function 'allow' has no EXTERNAL_CONSTRAINT "
            "implementation (not built in, registered or loaded from a --plugin): the rule "
            "GRAPH_CLEANUP@<test>:2 is kept but not run");
  absl::StatusOr<OptimizeResult> r = Optimize(DoubleRelu(), *rules, {}, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->skipped_rules.size(), 1u);
  EXPECT_EQ(r->skipped_rules[0].rule, "GRAPH_CLEANUP@<test>:2");
  EXPECT_EQ(r->skipped_rules[0].reasons,
            (std::vector<std::string>{"EXTERNAL_CONSTRAINT function 'allow' (<test>:4:3)"}));
  EXPECT_EQ(FindRule(*r, "GRAPH_CLEANUP@<test>:2"), nullptr);
  EXPECT_EQ(r->ops[0].after, 2);  // not rewritten

  // A missing plugin is a one-line error naming it.
  Functions fns;
  absl::Status s = fns.LoadPlugin("/nonexistent/libfns.so");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "/nonexistent/libfns.so: error: cannot open plugin: no such file");
}

TEST(RulesTest, FilesAndTextsLoadTogether) {
  Functions fns;
  fns.AddConstraint("allow", [](const Operand&, absl::Span<const double>) { return true; });
  DiagnosticList diags;
  absl::StatusOr<Rules> rules = Load(kDoubleRelu, fns, &diags);
  ASSERT_TRUE(rules.ok()) << diags.ToString();
  EXPECT_EQ(rules->num_rules(), 1u);
  EXPECT_EQ(rules->num_implementations(), 2u);

  absl::StatusOr<Rules> missing =
      Rules::Load({RuleSource::File("/nonexistent/x.rules")}, fns, {}, &diags);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

TEST(RulesTest, ShippedLibraryLoads) {
  DiagnosticList diags;
  absl::StatusOr<Rules> rules =
      Rules::Load(ShippedRuleLibrary(EGRET_SOURCE_DIR "/egret/rules/lib"), Functions(), {}, &diags);
  ASSERT_TRUE(rules.ok()) << diags.ToString();
  EXPECT_GT(rules->num_rules(), 10u);
}

// The constraint decides whether the rule fires, and sees the operand and
// the rule's arguments.
TEST(OptimizeTest, ExternalConstraintGuardsTheRule) {
  for (bool allow : {true, false}) {
    SCOPED_TRACE(allow);
    std::vector<double> seen_args;
    TensorType seen_type;
    Functions fns;
    fns.AddConstraint("allow", [&](const Operand& x, absl::Span<const double> args) {
      seen_args.assign(args.begin(), args.end());
      seen_type = x.type;
      return allow;
    });
    DiagnosticList diags;
    absl::StatusOr<Rules> rules = Load(kDoubleRelu, fns, &diags);
    ASSERT_TRUE(rules.ok()) << diags.ToString();
    absl::StatusOr<OptimizeResult> r = Optimize(DoubleRelu(), *rules, {}, &diags);
    ASSERT_TRUE(r.ok()) << r.status() << diags.ToString();

    EXPECT_EQ(seen_args, (std::vector<double>{3, 1.5}));
    EXPECT_EQ(seen_type, kAct);
    const OptimizeResult::RuleUse* use = FindRule(*r, "GRAPH_CLEANUP@<test>:2");
    ASSERT_NE(use, nullptr);
    EXPECT_EQ(use->applications > 0, allow);
    ASSERT_EQ(r->ops.size(), 1u);
    EXPECT_EQ(r->ops[0].op, "Relu");
    EXPECT_EQ(r->ops[0].before, 2);
    EXPECT_EQ(r->ops[0].after, allow ? 1 : 2);
    // 512 float outputs = 16 vectors at 2 cycles each per Relu.
    EXPECT_DOUBLE_EQ(r->input_cost, 64);
    EXPECT_DOUBLE_EQ(r->output_cost, allow ? 32 : 64);
    EXPECT_EQ(r->extractor, "dag");
    EXPECT_EQ(r->stop_reason, "Saturated");
    EXPECT_GT(r->iterations, 0);
    // At most two 2048-byte tensors are live at once, before and after.
    EXPECT_EQ(r->peak_bytes, 4096);
    EXPECT_EQ(r->input_peak_bytes, 4096);
    EXPECT_TRUE(r->rule_issues.empty());
  }
}

// A rewrite that runs in several phases (a built-in) is listed once, with its
// counts summed; each phase's own rules are listed too.
TEST(OptimizeTest, RuleUsesAreSummedOverPhases) {
  Functions fns;
  fns.AddConstraint("allow", [](const Operand&, absl::Span<const double>) { return true; });
  absl::StatusOr<Rules> rules = Load(absl::StrCat(kDoubleRelu, R"(
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Relu", Op("Relu", Op("Relu", "x"))), OK, "x")
)"),
                                     fns, nullptr);
  ASSERT_TRUE(rules.ok());
  GraphBuilder b;
  ValueRef x = b.Input("x", kAct);
  b.Output(b.Op("ElementWiseAdd", {b.Op("Relu", {b.Op("Relu", {x})}), x}));
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok());
  absl::StatusOr<OptimizeResult> r = Optimize(*g, *rules, {}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> names;
  for (const OptimizeResult::RuleUse& u : r->rules) names.push_back(u.rule);
  std::vector<std::string> unique = names;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  EXPECT_EQ(unique.size(), names.size());
  // Both phases ran, each with the built-ins.
  ASSERT_NE(FindRule(*r, "GRAPH_CLEANUP@<test>:2"), nullptr);
  ASSERT_NE(FindRule(*r, "LATE@<test>:7"), nullptr);
  EXPECT_GT(FindRule(*r, "GRAPH_CLEANUP@<test>:2")->applications, 0);
  EXPECT_GT(FindRule(*r, "LATE@<test>:7")->applications, 0);
  ASSERT_NE(FindRule(*r, "comm-ElementWiseAdd"), nullptr);
  EXPECT_GT(FindRule(*r, "comm-ElementWiseAdd")->applications, 0);
}

// A shape function's result becomes a parameter of the rewritten op: a
// "$Shape" from dims, a "$Const" from a tensor. (The graph gives Reshape's
// shape as an Int32 "$Const"; rules see integer lists as a "$Shape",
// graph/canonical_params.h.)
TEST(OptimizeTest, ShapeFunctionsBuildParameters) {
  Functions fns;
  int64_t calls = 0;
  fns.AddShapeFn("dims_of", 1, [&](absl::Span<const Arg> args) -> absl::StatusOr<Built> {
    ++calls;
    EXPECT_TRUE(args[0].is_operand);
    return Built(args[0].operand.type.dims);
  });
  fns.AddShapeFn("two", 1, [&](absl::Span<const Arg> args) -> absl::StatusOr<Built> {
    ++calls;
    EXPECT_FALSE(args[0].is_operand);
    return Built(Tensor::FromValues(TensorType(DType::kFloat32, {1}), {args[0].scalar}));
  });
  DiagnosticList diags;
  absl::StatusOr<Rules> rules = Load(R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("Reshape", "x", LET("s", Op("$Shape"))),
  OK,
  Op("Reshape.flat", "x", SHAPEFN_APPLY(dims_of, "*")))
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("ElementWiseAdd", "x", "x"),
  OK,
  Op("ElementWiseMultiply", "x", SHAPEFN_APPLY(two, 2)))
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reshapeImpl<Tensor>), "Reshape", 2, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reshapeFlatImpl<Tensor>), "Reshape.flat", 1, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((mulImpl<Tensor>), "ElementWiseMultiply", 2, RESOURCE_HVX)
)",
                                     fns, &diags);
  ASSERT_TRUE(rules.ok()) << diags.ToString();
  GraphBuilder b;
  ValueRef shape = b.Constant(
      "shape", Tensor::FromValues(TensorType(DType::kInt32, {2}), std::vector<double>{1, 512}));
  ValueRef r = b.Op("Reshape", {b.Input("x", kAct), shape});
  b.Output(b.Op("ElementWiseAdd", {r, r}));
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<OptimizeResult> result = Optimize(*g, *rules, {}, &diags);
  ASSERT_TRUE(result.ok()) << result.status() << diags.ToString();
  EXPECT_GT(calls, 0);
  EXPECT_TRUE(result->rule_issues.empty());
  std::vector<std::string> ops;
  for (const OptimizeResult::OpCount& c : result->ops) {
    ops.push_back(absl::StrCat(c.op, " ", c.before, "->", c.after));
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"ElementWiseAdd 1->0", "ElementWiseMultiply 0->1",
                                           "Reshape 1->0", "Reshape.flat 0->1"}));
  std::vector<std::string> params;  // the parameter each computing node reads last
  for (const Node& n : result->graph.nodes()) {
    if (n.op == "Reshape.flat" || n.op == "ElementWiseMultiply") {
      const Node& p = result->graph.node(n.inputs.back().node);
      params.push_back(
          absl::StrCat(n.op, " ", p.op, " ", result->graph.TypeOf(n.inputs.back()).ToString()));
    }
  }
  std::sort(params.begin(), params.end());
  EXPECT_EQ(params, (std::vector<std::string>{"ElementWiseMultiply $Const Float32[1]",
                                              "Reshape.flat $Shape Int32[1,512]"}));
}

// An EXTERNAL_REPLACE that returns a constant replaces the matched value;
// one that fails is reported as a rule issue and changes nothing.
TEST(OptimizeTest, ReplaceFunctionAndItsErrors) {
  for (bool fail : {false, true}) {
    SCOPED_TRACE(fail);
    Functions fns;
    fns.AddReplace("zeros", [fail](const Operand& root) -> absl::StatusOr<std::optional<Tensor>> {
      if (fail) return absl::InvalidArgumentError("no zeros today");
      return Tensor(root.type);
    });
    DiagnosticList diags;
    absl::StatusOr<Rules> rules = Load(R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("ElementWiseAdd", "x", "x"),
  OK,
  EXTERNAL_REPLACE(zeros))
)",
                                       fns, &diags);
    ASSERT_TRUE(rules.ok()) << diags.ToString();
    GraphBuilder b;
    ValueRef x = b.Input("x", kAct);
    b.Output(b.Op("ElementWiseAdd", {x, x}));
    absl::StatusOr<Graph> g = std::move(b).Build();
    ASSERT_TRUE(g.ok());
    absl::StatusOr<OptimizeResult> r = Optimize(*g, *rules, {}, &diags);
    ASSERT_TRUE(r.ok()) << r.status() << diags.ToString();
    ASSERT_EQ(r->ops.size(), 1u);
    EXPECT_EQ(r->ops[0].after, fail ? 1 : 0);
    ASSERT_EQ(r->rule_issues.size(), fail ? 1u : 0u);
    if (fail) {
      ASSERT_FALSE(r->rule_issues[0].messages.empty());
      EXPECT_NE(r->rule_issues[0].messages[0].find("zeros: no zeros today"), std::string::npos);
    }
  }
}

TEST(OptimizeTest, ExtractorsByName) {
  std::vector<std::string> names;
  for (const ExtractorInfo& e : Extractors()) {
    names.push_back(e.name);
    EXPECT_FALSE(e.description.empty());
  }
  for (const char* name : {"tree", "dag", "ilp"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }

  Functions fns;
  fns.AddConstraint("allow", [](const Operand&, absl::Span<const double>) { return true; });
  absl::StatusOr<Rules> rules = Load(kDoubleRelu, fns, nullptr);
  ASSERT_TRUE(rules.ok());
  for (const std::string& name : names) {
    OptimizeOptions options;
    options.extractor = name;
    absl::StatusOr<OptimizeResult> r = Optimize(DoubleRelu(), *rules, options, nullptr);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status();
    EXPECT_EQ(r->extractor, name);
    EXPECT_DOUBLE_EQ(r->output_cost, 32) << name;
  }
  OptimizeOptions bad;
  bad.extractor = "no-such";
  absl::StatusOr<OptimizeResult> r = Optimize(DoubleRelu(), *rules, bad, nullptr);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(r.status().message(), "unknown extractor 'no-such' ("))
      << r.status();
  for (const std::string& name : names) {
    EXPECT_NE(r.status().message().find(name), std::string_view::npos) << name;
  }
}

TEST(OptimizeTest, InvalidGraphAndLimits) {
  Functions fns;
  fns.AddConstraint("allow", [](const Operand&, absl::Span<const double>) { return true; });
  absl::StatusOr<Rules> rules = Load(kDoubleRelu, fns, nullptr);
  ASSERT_TRUE(rules.ok());

  Graph invalid;
  Node n;
  n.op = "Relu";
  n.name = "r";
  n.inputs = {{5, 0}};
  n.outputs = {kAct};
  invalid.AddOutput({invalid.AddNode(n), 0});
  EXPECT_EQ(Optimize(invalid, *rules, {}, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);

  OptimizeOptions options;
  options.max_iterations = 1;
  options.builtin_rewrites = false;
  absl::StatusOr<OptimizeResult> r = Optimize(DoubleRelu(), *rules, options, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->iterations, 1);
  EXPECT_EQ(r->stop_reason, "IterationLimit");
}

// should_stop cancels the call: an error (kCancelled), not a result; a hook
// that never fires changes nothing.
TEST(OptimizeTest, ShouldStopCancels) {
  Functions fns;
  fns.AddConstraint("allow", [](const Operand&, absl::Span<const double>) { return true; });
  absl::StatusOr<Rules> rules = Load(kDoubleRelu, fns, nullptr);
  ASSERT_TRUE(rules.ok());
  OptimizeOptions options;
  int polls = 0;
  options.should_stop = [&polls] {
    ++polls;
    return true;
  };
  absl::StatusOr<OptimizeResult> r = Optimize(DoubleRelu(), *rules, options, nullptr);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled) << r.status();
  EXPECT_GT(polls, 0);

  options.should_stop = [] { return false; };
  r = Optimize(DoubleRelu(), *rules, options, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stop_reason, "Saturated");
  EXPECT_DOUBLE_EQ(r->output_cost, 32);
}

// for_other_runtimes leaves out the rules of device-lowering passes (a
// TILING rule here) and counts them; `changes` says what the rules did.
TEST(OptimizeTest, ForOtherRuntimesLeavesOutDeviceLowering) {
  constexpr char kRules[] = R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Relu", "x"), OK, Op("Relu", "x"))
)";
  absl::StatusOr<Rules> rules = Load(kRules, Functions(), nullptr);
  ASSERT_TRUE(rules.ok()) << rules.status();
  absl::StatusOr<OptimizeResult> htp = Optimize(DoubleRelu(), *rules, {}, nullptr);
  ASSERT_TRUE(htp.ok()) << htp.status();
  EXPECT_EQ(htp->rules_left_out_device_lowering, 0);
  OptimizeOptions options;
  options.for_other_runtimes = true;
  absl::StatusOr<OptimizeResult> file = Optimize(DoubleRelu(), *rules, options, nullptr);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->rules_left_out_device_lowering, 1);
  EXPECT_EQ(file->rules_left_out, 0);
  ASSERT_FALSE(file->changes.empty());
  EXPECT_EQ(file->changes[0].kind, "rewrote");
  EXPECT_EQ(file->changes[0].op, "Relu");
  EXPECT_EQ(file->changes[0].count, 1);
}

// A device file prices in predicted nanoseconds: the shipped device's
// prediction for the same graph, and a missing file is an error naming it.
TEST(OptimizeTest, DeviceFilePricesInPredictedTime) {
  absl::StatusOr<Rules> rules = Load("", Functions(), nullptr);
  ASSERT_TRUE(rules.ok()) << rules.status();
  absl::StatusOr<OptimizeResult> cycles = Optimize(DoubleRelu(), *rules, {}, nullptr);
  ASSERT_TRUE(cycles.ok()) << cycles.status();
  // The shipped 8 Gen 3 with its dispatch set to 5,000 ns (its fitted value
  // moves with every calibration).
  std::ifstream in(EGRET_SOURCE_DIR "/egret/cost/devices/snapdragon-8-gen-3.json");
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t key = json.find("\"dispatch_ns\"");
  ASSERT_NE(key, std::string::npos);
  const size_t value = json.find("\"value\": ", key) + 9;
  json.replace(value, json.find_first_of(",\n}", value) - value, "5000");
  const std::string device = ::testing::TempDir() + "/dispatch_5000.json";
  std::ofstream(device) << json;
  OptimizeOptions options;
  options.device_file = device;
  absl::StatusOr<OptimizeResult> ns = Optimize(DoubleRelu(), *rules, options, nullptr);
  ASSERT_TRUE(ns.ok()) << ns.status();
  // Each of the two Relus pays the device's dispatch and, on a small tensor,
  // little more.
  EXPECT_NE(ns->input_cost, cycles->input_cost);
  EXPECT_GE(ns->input_cost, 2 * 5000.0);
  EXPECT_LT(ns->input_cost, 2 * 5500.0);
  options.device_file = "no/such/device.json";
  absl::StatusOr<OptimizeResult> missing = Optimize(DoubleRelu(), *rules, options, nullptr);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "no/such/device.json"))
      << missing.status();
}

// A rule flagged relaxed_precision_flag runs only when rule_flags asks for
// it; the result counts the rules it left out.
TEST(OptimizeTest, RuleFlagsLetGatedRulesRun) {
  constexpr char kGated[] = R"(
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(GRAPH_CLEANUP, relaxed_precision_flag,
  Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")
)";
  absl::StatusOr<Rules> rules = Load(kGated, Functions(), nullptr);
  ASSERT_TRUE(rules.ok()) << rules.status();
  absl::StatusOr<OptimizeResult> off = Optimize(DoubleRelu(), *rules, {}, nullptr);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->rules_left_out, 1);
  EXPECT_EQ(off->rules_left_out_need, std::vector<std::string>{"relaxed_precision"});
  EXPECT_DOUBLE_EQ(off->output_cost, 64);  // two Relus, 16 vectors at 2 cycles each
  OptimizeOptions options;
  options.rule_flags = {"relaxed_precision"};
  absl::StatusOr<OptimizeResult> on = Optimize(DoubleRelu(), *rules, options, nullptr);
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_EQ(on->rules_left_out, 0);
  EXPECT_DOUBLE_EQ(on->output_cost, 32);  // one Relu
  options.rule_flags = {"relaxed_precision", "half"};
  absl::StatusOr<OptimizeResult> bad = Optimize(DoubleRelu(), *rules, options, nullptr);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "unknown rule flag 'half' (known: relaxed_precision, fold_relu)");
}

// Verify: the optimized graph against its input; a wrong graph fails; an
// output behind an op with no reference kernel makes the status incomplete,
// never ok, and says why.
TEST(VerifyTest, OkFailedAndIncomplete) {
  Functions fns;
  fns.AddConstraint("allow", [](const Operand&, absl::Span<const double>) { return true; });
  DiagnosticList diags;
  absl::StatusOr<Rules> rules = Load(kDoubleRelu, fns, &diags);
  ASSERT_TRUE(rules.ok()) << diags.ToString();
  absl::StatusOr<OptimizeResult> r = Optimize(DoubleRelu(), *rules, {}, &diags);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<VerifyResult> v = Verify(DoubleRelu(), r->graph);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->status, VerifyStatus::kOk) << v->text;
  ASSERT_EQ(v->outputs.size(), 1u);
  EXPECT_EQ(v->outputs[0].name, "y");
  EXPECT_TRUE(v->outputs[0].verified);
  EXPECT_EQ(v->outputs[0].elements, 512);
  EXPECT_TRUE(absl::StrContains(v->text, "verify: ok")) << v->text;

  GraphBuilder b("g");
  b.Output(b.Op("Sigmoid", {b.Input("x", kAct)}), "y");
  absl::StatusOr<Graph> wrong = std::move(b).Build();
  ASSERT_TRUE(wrong.ok()) << wrong.status();
  v = Verify(DoubleRelu(), *wrong);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->status, VerifyStatus::kFailed);
  EXPECT_GT(v->outputs[0].mismatches, 0);

  // Both graphs gain an output computed by an op with no kernel.
  auto with_mystery = [](Graph g) {
    Node n;
    n.op = "vendor.Mystery";
    n.name = "mystery";
    n.inputs = {g.outputs()[0].value};
    n.outputs.push_back(kAct);
    g.AddOutput(ValueRef{g.AddNode(std::move(n)), 0}, "z");
    return g;
  };
  v = Verify(with_mystery(DoubleRelu()), with_mystery(r->graph));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->status, VerifyStatus::kIncomplete) << v->text;
  ASSERT_EQ(v->outputs.size(), 2u);
  EXPECT_TRUE(v->outputs[0].verified);
  EXPECT_FALSE(v->outputs[1].verified);
  EXPECT_TRUE(absl::StrContains(v->outputs[1].reason, "'mystery'")) << v->outputs[1].reason;
  EXPECT_TRUE(absl::StrContains(v->text, "verify: incomplete (1 of 2 outputs not verified: z)"))
      << v->text;
}

TEST(GraphFilesTest, SaveAndLoadRoundTrip) {
  const std::string path = ::testing::TempDir() + "/api_graph.json";
  Graph g = DoubleRelu();
  ASSERT_TRUE(SaveGraph(g, path).ok());
  absl::StatusOr<Graph> back = LoadGraph(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->num_nodes(), g.num_nodes());
  EXPECT_EQ(LoadGraph(path + ".missing").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace egret::api
