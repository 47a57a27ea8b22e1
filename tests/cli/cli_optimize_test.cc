// `egret optimize`: extractors, cost files, --verify, rule flags, ops off
// the HTP, control flow and the time limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "egret/graph/graph_json.h"
#include "egret/support/file_io.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_test_util.h"

namespace egret {
namespace {

// An op egret has no HTP implementation for runs off the HTP: the run
// succeeds and says so, --verify runs the ONNX kernel where one exists
// (onnx.Cos) and reports the output behind an op without one (MyOp) as not
// verified, which is no pass: exit 3 and nothing written, unless
// --allow-unverified (exit 0, a warning, the report's verify says which
// output and why); --htp-only makes such an op an error.
TEST_F(CliTest, OptimizeKeepsOpsWithoutImplementationOffTheHtp) {
  Write("opaque.json", R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "r1", "op": "Relu", "inputs": ["x"], "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "c", "op": "onnx.Cos", "inputs": ["r1"], "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "m", "op": "MyOp", "inputs": ["r1"], "outputs": [{"dtype": "Float32", "shape": [4]}]}],
  "inputs": ["x"], "outputs": [{"value": "c", "name": "cos"}, {"value": "m", "name": "mine"}]})");
  Result r = Run({"optimize", Path("opaque.json"), "--verify", "-o", Path("out.json"), "--report",
                  Path("rep.json")});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output cos: max abs error 0"));
  EXPECT_THAT(r.out, HasSubstr("output mine: not verified: the reference depends on node 'm'"));
  EXPECT_THAT(r.out, HasSubstr("verify: incomplete (1 of 2 outputs not verified: mine)"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("verify: ok")));
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("error: 1 of 2 outputs could not be verified (mine: "));
  EXPECT_FALSE(fs::exists(Path("out.json")));
  EXPECT_FALSE(fs::exists(Path("rep.json")));

  r = Run({"optimize", Path("opaque.json"), "--verify", "--allow-unverified", "-o",
           Path("out.json"), "--report", Path("rep.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("runs off the HTP: 2 ops: MyOp x1, onnx.Cos x1\n"
                               "  MyOp: no implementation of MyOp is registered\n"
                               "  onnx.Cos: no implementation of onnx.Cos is registered\n"));
  EXPECT_THAT(r.out, HasSubstr("verify: incomplete (1 of 2 outputs not verified: mine)"));
  EXPECT_THAT(r.err,
              HasSubstr("warning: 1 of 2 outputs not verified (--allow-unverified): mine: "));
  EXPECT_TRUE(fs::exists(Path("out.json")));
  const nlohmann::json v = ReadJson("rep.json")["verify"];
  EXPECT_EQ(v["status"], "incomplete");
  EXPECT_EQ(v["ok"], false);
  ASSERT_EQ(v["outputs"].size(), 2u);
  EXPECT_EQ(v["outputs"][0]["name"], "cos");
  EXPECT_EQ(v["outputs"][0]["verified"], true);
  EXPECT_EQ(v["outputs"][0]["mismatches"], 0);
  EXPECT_EQ(v["outputs"][1]["name"], "mine");
  EXPECT_EQ(v["outputs"][1]["verified"], false);
  EXPECT_THAT(v["outputs"][1]["reason"].get<std::string>(),
              HasSubstr("the reference depends on node 'm' (#3) (MyOp), which has no reference "
                        "kernel"));

  // egret verify says the same, with the same exit status.
  Result verify = Run({"verify", Path("opaque.json"), Path("out.json")});
  EXPECT_EQ(verify.code, 3) << verify.err;
  EXPECT_THAT(verify.out, HasSubstr("verify: incomplete (1 of 2 outputs not verified: mine)"));
  Result strict = Run({"optimize", Path("opaque.json"), "--htp-only"});
  EXPECT_EQ(strict.code, 1);
  EXPECT_THAT(strict.FirstErrLine(), HasSubstr("has no registered implementation"));
}

// A Clip whose minimum the graph computes (ReduceMax of the input, as a
// log-mel front end's "max - 80 dB" floor) stays opaque; --verify runs its
// ONNX kernel and verifies the output instead of reporting it not verified.
TEST_F(CliTest, OptimizeVerifiesAClipWithAComputedMinimum) {
  Write("clip.json", R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2, 8]}]},
  {"name": "m", "op": "onnx.ReduceMax", "inputs": ["x"], "attrs": {"keepdims": 0,
   "onnx.opset": 13}, "outputs": [{"dtype": "Float32", "shape": []}]},
  {"name": "c", "op": "onnx.Clip", "inputs": ["x", "m"], "attrs": {"onnx.opset": 13},
   "outputs": [{"dtype": "Float32", "shape": [2, 8]}]}],
  "inputs": ["x"], "outputs": [{"value": "c", "name": "y"}]})");
  Result r = Run({"optimize", Path("clip.json"), "--verify", "-o", Path("out.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output y: max abs error 0, max rel error 0, 0 of 16 elements"));
  EXPECT_THAT(r.out, HasSubstr("verify: ok (rtol"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("not verified")));
}

// A Loop whose body is a subgraph attribute and reads the outer Relu through
// a captured input: --verify runs it (every output verified), the optimized
// graph written as ONNX reads back and computes the same, and so does the
// JSON written by convert.
TEST_F(CliTest, OptimizeVerifiesAndWritesControlFlow) {
  Write("loop.json", R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2]}]},
  {"name": "y0", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2]}]},
  {"name": "trips", "op": "$Const", "outputs": [{"dtype": "Int64", "shape": []}], "data": [3]},
  {"name": "xr", "op": "Relu", "inputs": ["x"], "outputs": [{"dtype": "Float32", "shape": [2]}]},
  {"name": "loop", "op": "onnx.Loop", "inputs": ["trips", "y0", "xr"],
   "outputs": [{"dtype": "Float32", "shape": [2]}, {"dtype": "Float32", "shape": [3, 2]}],
   "attrs": {"onnx.absent_inputs": [1], "onnx.captured": 1, "onnx.opset": 13, "body": {"graph": {
     "nodes": [
      {"name": "i", "op": "*Input", "outputs": [{"dtype": "Int64", "shape": []}]},
      {"name": "c", "op": "*Input", "outputs": [{"dtype": "Bool", "shape": []}]},
      {"name": "y", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2]}]},
      {"name": "xr", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [2]}]},
      {"name": "sum", "op": "ElementWiseAdd", "inputs": ["y", "xr"],
       "outputs": [{"dtype": "Float32", "shape": [2]}]}],
     "inputs": ["i", "c", "y", "xr"],
     "outputs": [{"value": "c", "name": "c_out"}, {"value": "sum", "name": "y_out"},
                 {"value": "sum", "name": "scan"}]}}}}],
  "inputs": ["x", "y0"], "outputs": [{"value": "loop", "name": "y"}, {"value": "loop:1", "name": "ys"}]})");
  Result r = Run({"optimize", Path("loop.json"), "--verify", "-o", Path("out.onnx")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output y: max abs error 0"));
  EXPECT_THAT(r.out, HasSubstr("output ys: max abs error 0"));
  EXPECT_THAT(r.out, HasSubstr("verify: ok (rtol"));
  EXPECT_THAT(r.out, Not(HasSubstr("not verified")));
  Result back = Run({"convert", Path("out.onnx"), "-o", Path("back.json")});
  ASSERT_EQ(back.code, 0) << back.err;
  Result v = Run({"verify", Path("loop.json"), Path("back.json")});
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_THAT(v.out, HasSubstr("verify: ok (rtol"));
  Result json = Run({"convert", Path("loop.json"), "-o", Path("rt.json")});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_THAT(ReadFile(Path("rt.json")).value_or(""), HasSubstr("\"graph\": {"));
  Result v2 = Run({"verify", Path("loop.json"), Path("rt.json")});
  ASSERT_EQ(v2.code, 0) << v2.err;
  EXPECT_THAT(v2.out, HasSubstr("verify: ok (rtol"));
}

TEST_F(CliTest, OptimizeWithEachExtractorWritesGraphAndReport) {
  std::optional<double> dag_cost;
  for (const char* kind : {"tree", "dag", "ilp"}) {
    SCOPED_TRACE(kind);
    Result r = OptimizeExample(kExampleRules, {"--extractor", kind});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, StartsWith("nodes: 15 -> "));
    EXPECT_THAT(r.out, HasSubstr("cost before: "));
    absl::StatusOr<Graph> g = ReadGraphJson(Path("out.json"));
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_GT(g->num_nodes(), 0u);
    EXPECT_LT(g->num_nodes(), 15u);  // the duplicate Add and double Relu are gone
    EXPECT_EQ(g->outputs().size(), 2u);
    nlohmann::json rep = ReadJson("report.json");
    ASSERT_TRUE(rep.is_object());
    for (const char* key : {"input_cost", "output_cost", "enodes", "eclasses", "iterations",
                            "stop_reason", "phases", "time_ms", "peak_rss_bytes"}) {
      EXPECT_TRUE(rep.contains(key)) << key;
    }
    EXPECT_LT(rep["output_cost"].get<double>(), rep["input_cost"].get<double>());
    EXPECT_GT(rep["enodes"].get<int64_t>(), 0);
    EXPECT_GT(rep["peak_rss_bytes"].get<int64_t>(), 0);
    EXPECT_TRUE(rep["phases"].is_array());
    EXPECT_FALSE(rep["phases"].empty());
    // The example has one optimum; every extractor finds it.
    if (!dag_cost) dag_cost = rep["output_cost"].get<double>();
    EXPECT_DOUBLE_EQ(rep["output_cost"].get<double>(), *dag_cost);
  }
}

TEST_F(CliTest, OptimizeCostsFileOptionsAndBadSyntax) {
  auto run = [&](std::vector<std::string> extra, const std::string& rule_file) {
    Result r = OptimizeExample(rule_file, std::move(extra));
    EXPECT_EQ(r.code, 0) << r.err;
    nlohmann::json rep = ReadJson("report.json");
    EXPECT_TRUE(rep.is_object());
    return rep;
  };
  // --costs: Conv2d at 1 cycle per vector instead of 1024 lowers both costs.
  nlohmann::json plain = run({}, kExampleRules);
  Write("costs.json", R"({"Conv2d": 1})");
  nlohmann::json cheap = run({"--costs", Path("costs.json")}, kExampleRules);
  EXPECT_LT(cheap["input_cost"].get<double>(), plain["input_cost"].get<double>());
  EXPECT_LT(cheap["output_cost"].get<double>(), plain["output_cost"].get<double>());
  Write("bad_costs.json", R"({"Conv2d": "fast"})");
  ExpectBadInput(
      Run({"optimize", kExample, "--rules", kExampleRules, "--costs", Path("bad_costs.json")}),
      Path("bad_costs.json"));

  // A cost egret cannot evaluate is counted as GLACIAL, with a warning at its
  // registration.
  Write("cost_fn.rules",
        "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(concatF, \"Concat\", concat_cost, RESOURCE_HVX)\n");
  Result warned = OptimizeExample(kExampleRules, {"--rules", Path("cost_fn.rules")});
  EXPECT_EQ(warned.code, 0) << warned.err;
  EXPECT_EQ(warned.err, absl::StrCat(Path("cost_fn.rules"),
                                     ":1:1: warning: cost 'concat_cost' of 'Concat' depends on the "
                                     "cost function 'concat_cost', which egret cannot run; counted "
                                     "as GLACIAL\n"));

  // --option reaches an OPTION_* guard: Relu becomes ReluMinMax only when
  // relu_knob is 7.
  Write("option.rules", R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op("Relu", "x"), EQ(OPTION_INT("relu_knob"), 7),
  Op("ReluMinMax", "x", gen_ConstScalar_f32(0.0f), gen_ConstScalar_f32(INF)))
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((conv), "Conv2d", 1024, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((add), "ElementWiseAdd", 4, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((relu), "Relu", 64, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((minmax), "ReluMinMax", 1, RESOURCE_HVX)
)");
  auto count_op = [&](const std::string& op) {
    absl::StatusOr<Graph> g = ReadGraphJson(Path("out.json"));
    EXPECT_TRUE(g.ok()) << g.status();
    int n = 0;
    for (const Node& node : g->nodes()) n += node.op == op;
    return n;
  };
  nlohmann::json on = run({"--option", "relu_knob=7"}, Path("option.rules"));
  EXPECT_EQ(count_op("Relu"), 0);
  EXPECT_GT(count_op("ReluMinMax"), 0);
  nlohmann::json off = run({"--option", "relu_knob=6"}, Path("option.rules"));
  EXPECT_GT(count_op("Relu"), 0);
  EXPECT_EQ(count_op("ReluMinMax"), 0);
  EXPECT_LT(on["output_cost"].get<double>(), off["output_cost"].get<double>());

  for (const char* bad : {"relu_knob", "=7", ""}) {
    SCOPED_TRACE(bad);
    Result r = Run({"optimize", kExample, "--rules", kExampleRules, "--option", bad, "-o",
                    Path("bad_out.json")});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, absl::StrCat("egret optimize: error: --option must be NAME=VALUE, not '", bad,
                                  "'\n"));
    EXPECT_FALSE(fs::exists(Path("bad_out.json")));
  }
}

TEST_F(CliTest, OptimizeVerifyPassesOnTheExampleAndSummarizes) {
  Result r =
      Run({"optimize", kExample, "--rules", kExampleRules, "--verify", "-o", Path("out.json"),
           "--report", Path("report.json"), "--dot", Path("direct.dot"), "--verbose"});
  ASSERT_EQ(r.code, 0) << r.err;
  // The example's outputs are QUInt8 with stepsize 0.1: one step is allowed.
  EXPECT_THAT(r.out, HasSubstr("output out: max abs error 0, max rel error 0, 0 of 2048 "
                               "elements outside tolerance (atol 0.1: 1 quantization step): ok\n"));
  EXPECT_THAT(r.out, HasSubstr("output out_skip: "));
  EXPECT_THAT(r.out, HasSubstr("verify: ok (rtol 0.0001, atol 1e-05)\n"));
  // Two commuted adds merge; the double Relu goes.
  EXPECT_THAT(r.out, HasSubstr("ops: Conv2d 2 -> 2, ElementWiseAdd 2 -> 1, Relu 4 -> "));
  EXPECT_THAT(r.out, HasSubstr("peak memory: 8192 bytes before, "));
  EXPECT_THAT(r.out,
              HasSubstr("provenance: 2 nodes rewritten, taking over 5 input nodes; most by "));
  // The rules that took the saturation's time, the slowest first.
  EXPECT_THAT(r.out,
              ::testing::ContainsRegex("rule time: saturation [0-9.]+ ms; most in [^ ]+ \\([0-9.]+ "
                                       "ms: search [0-9.]+, apply [0-9.]+\\)"));
  ASSERT_TRUE(fs::exists(Path("out.json")));
  nlohmann::json rep = nlohmann::json::parse(*ReadFile(Path("report.json")));
  const nlohmann::json& mem = rep["memory"];
  EXPECT_GT(mem["peak_bytes"].get<int64_t>(), 0);
  EXPECT_LE(mem["peak_bytes"].get<int64_t>(), mem["naive_peak_bytes"].get<int64_t>());
  EXPECT_GE(mem["arena_bytes"].get<int64_t>(), mem["peak_bytes"].get<int64_t>());
  EXPECT_EQ(rep["ops"]["Conv2d"]["after"], 2);
  EXPECT_EQ(rep["ops"]["Relu"]["before"], 4);
  EXPECT_EQ(rep["ops"]["Relu"]["after"].get<int>() +
                rep["ops"].value("ReluMinMax", nlohmann::json{{"after", 0}})["after"].get<int>(),
            2);

  // Verification reports its time and memory: a "time" line whose stages run
  // from reading the file to verifying, a "verify cost" line, and the same
  // in the report.
  EXPECT_THAT(r.out, HasSubstr("\ntime: read "));
  EXPECT_THAT(r.out, HasSubstr(" ms, compile "));
  EXPECT_THAT(r.out, HasSubstr(" ms, seed "));
  EXPECT_THAT(r.out, HasSubstr(" ms, verify "));
  EXPECT_THAT(r.out, HasSubstr("\nverify cost: "));
  std::vector<std::string> stages;
  double sum = 0;
  for (const auto& [stage, ms] : rep["time_ms"].items()) {
    stages.push_back(stage);
    if (stage != "total") sum += ms.get<double>();
  }
  EXPECT_THAT(stages, ::testing::UnorderedElementsAre("read", "compile", "seed", "saturate",
                                                      "extract_and_lower", "memory_plan", "verify",
                                                      "total"));
  // total spans the stages and the small steps between them.
  EXPECT_GE(rep["time_ms"]["total"].get<double>(), sum * (1 - 1e-9));
  EXPECT_GT(rep["time_ms"]["verify"].get<double>(), 0);
  const nlohmann::json& v = rep["verify"];
  EXPECT_EQ(v["ok"], true);
  EXPECT_EQ(v["status"], "ok");
  ASSERT_FALSE(v["outputs"].empty());
  for (const nlohmann::json& o : v["outputs"]) EXPECT_EQ(o["verified"], true) << o.dump();
  // The executor runs the input in file order and does not count graph
  // inputs: its peak is at most the plan's file-order peak, which does.
  EXPECT_GT(v["reference_peak_live_bytes"].get<int64_t>(), 0);
  EXPECT_LE(v["reference_peak_live_bytes"].get<int64_t>(),
            mem["input_naive_peak_bytes"].get<int64_t>());
  EXPECT_GT(v["candidate_peak_live_bytes"].get<int64_t>(), 0);
  EXPECT_GE(v["peak_rss_bytes"].get<int64_t>(), rep["peak_rss_bytes"].get<int64_t>());

  // The report says where the merged nodes came from.
  ASSERT_EQ(rep["provenance"]["nodes"].size(), 2u);
  EXPECT_EQ(rep["provenance"]["nodes"][0]["from"], nlohmann::json({"add_a", "add_b"}));

  // The optimized graph's DOT shows the implementation, cost and provenance
  // of each op; --dot writes the same as converting the result.
  r = Run({"convert", Path("out.json"), "-o", Path("out.dot")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string dot = *ReadFile(Path("out.dot"));
  EXPECT_THAT(dot, HasSubstr("\\nimpl: (conv2dImpl<QUint8CroutonTensor>)\\ncost: 16384\\n#1 w1: "));
  EXPECT_THAT(dot, HasSubstr("\\n#4 [1,1,1,1]\\nfrom: conv1\"];"));
  EXPECT_THAT(
      dot,
      HasSubstr(
          "\\nimpl: (eltwiseAddImpl<QUint8CroutonTensor>)\\ncost: 64\\nfrom: "
          "add_a, add_b\\nrules: comm-ElementWiseAdd\", style=filled, fillcolor=\"#fde2b8\"]"));
  EXPECT_EQ(*ReadFile(Path("direct.dot")), dot);
}

TEST_F(CliTest, OptimizeVerifiesTheBranchyExampleWithTheShippedLibrary) {
  // The Inception-style example: the shipped library fuses every Relu into
  // its convolution, the result verifies, and the memory plan of the input
  // beats its file order.
  const std::string example = std::string(EGRET_SOURCE_DIR) + "/examples/inception_block.json";
  Result r = Run({"optimize", example, "--verify", "--report", Path("inception.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify: ok"));
  EXPECT_THAT(r.out, HasSubstr("Relu 7 -> 0"));
  nlohmann::json rep = nlohmann::json::parse(*ReadFile(Path("inception.json")));
  const nlohmann::json& mem = rep["memory"];
  EXPECT_LT(mem["input_peak_bytes"].get<int64_t>(), mem["input_naive_peak_bytes"].get<int64_t>());
  EXPECT_LE(mem["peak_bytes"].get<int64_t>(), mem["naive_peak_bytes"].get<int64_t>());
  EXPECT_GE(rep["provenance"]["rewritten_nodes"].get<int>(), 7);  // the fused convolutions
}

TEST_F(CliTest, OptimizeVerifyCatchesAWrongRuleAndWritesNothing) {
  Write("sub.json", kSubGraph);
  Write("wrong.rules", kWrongRule);
  // Without --verify the wrong rewrite goes through.
  Result r = Run(
      {"optimize", Path("sub.json"), "--rules", Path("wrong.rules"), "-o", Path("unchecked.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ops: ElementWiseAdd 0 -> 1, ElementWiseSubtract 1 -> 0\n"));
  EXPECT_THAT(*ReadFile(Path("unchecked.json")), HasSubstr("\"ElementWiseAdd\""));

  r = Run({"optimize", Path("sub.json"), "--rules", Path("wrong.rules"), "--verify", "-o",
           Path("out.json"), "--report", Path("report.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("output diff: max abs error "));
  EXPECT_THAT(r.out, HasSubstr("elements outside tolerance: FAIL\n"));
  EXPECT_THAT(r.out, HasSubstr("verify: FAILED"));
  EXPECT_EQ(r.err, absl::StrCat(Path("sub.json"),
                                ": error: the optimized graph computes different outputs "
                                "(--verify); nothing written\n"));
  EXPECT_FALSE(fs::exists(Path("out.json")));
  EXPECT_FALSE(fs::exists(Path("report.json")));
}

const std::string kFp16Graph = std::string(EGRET_SOURCE_DIR) + "/tests/lib/testdata/relu_fp16.json";
const std::string kFp16Rules =
    std::string(EGRET_SOURCE_DIR) + "/tests/lib/testdata/relu_fp16.rules";

// Rules flagged relaxed_precision_flag run only with --flag relaxed_precision:
// without it the graph is unchanged and the run says how many rules it left
// out; with it Relu runs in Float16 and --verify passes at the default
// tolerance.
TEST_F(CliTest, RelaxedPrecisionRulesRunOnlyWithTheirFlag) {
  Result r = Run({"rules", "check", kFp16Rules});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "7 rules, 6 op implementations, 0 errors, 0 warnings, 3 rules left out (they need "
            "--flag relaxed_precision)\n");
  r = Run({"rules", "check", "--flag", "relaxed_precision", kFp16Rules});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "7 rules, 6 op implementations, 0 errors, 0 warnings\n");

  r = Run({"optimize", kFp16Graph, "--rules", kFp16Rules, "--verify", "-o", Path("plain.json"),
           "--report", Path("plain_report.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rules: 4 compiled, 0 skipped, 3 rules left out (they need --flag "
                               "relaxed_precision)\n"));
  EXPECT_THAT(r.out, HasSubstr("ops: Cast 2 -> 2, ElementWiseMaximum 1 -> 1, Relu 1 -> 1\n"));
  EXPECT_EQ(ReadJson("plain_report.json")["rules_left_out"]["count"], 3);

  r = Run({"optimize", kFp16Graph, "--rules", kFp16Rules, "--flag", "relaxed_precision", "--verify",
           "-o", Path("out.json"), "--report", Path("report.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify: ok (rtol 0.0001, atol 1e-05)\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("left out")));
  EXPECT_THAT(r.out, HasSubstr("Relu 1 -> 0, Relu.fp16 0 -> 1\n"));
  EXPECT_EQ(ReadJson("report.json")["rules_left_out"]["count"], 0);
  absl::StatusOr<Graph> g = ReadGraphJson(Path("out.json"));
  ASSERT_TRUE(g.ok()) << g.status();
  int fp16_ops = 0;
  for (const Node& n : g->nodes()) {
    if (n.op == "Relu.fp16" || n.op == "ElementWiseMaximum") {
      EXPECT_EQ(n.outputs[0].dtype, DType::kFloat16) << n.op;
      ++fp16_ops;
    }
  }
  EXPECT_EQ(fp16_ops, 2);
}

// An unknown --flag is bad input (exit 2) naming the known ones, on every
// command that takes it.
TEST_F(CliTest, UnknownRuleFlagIsAnError) {
  const std::string known = "(known: relaxed_precision, fold_relu)";
  Result r = Run(
      {"optimize", kFp16Graph, "--rules", kFp16Rules, "--flag", "fp16", "-o", Path("out.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "egret optimize: error: --flag: unknown rule flag 'fp16' " + known + "\n");
  EXPECT_FALSE(fs::exists(Path("out.json")));
  r = Run({"compare", kFp16Graph, "--rules", kFp16Rules, "--flag", "cse_after_if"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.FirstErrLine(),
            "egret compare: error: --flag: unknown rule flag 'cse_after_if' " + known);
  r = Run({"rules", "check", "--flag", "x", kFp16Rules});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.FirstErrLine(), "egret rules check: error: --flag: unknown rule flag 'x' " + known);
}

// A memory limit below what the process already uses stops saturation at
// once, and leaves extraction no room for the DAG heuristic's cost sets, with
// the reasons in the summary and the report; the result (the input,
// extracted) and the report are still written.
TEST_F(CliTest, TinyMemoryLimitStopsWithReasonAndStillWrites) {
  Result r = OptimizeExample(kExampleRules, {"--memory-limit", "1M"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("stop: MemoryLimit"));
  EXPECT_THAT(r.out, HasSubstr("extraction: dag, stop: MemoryLimit (best so far)"));
  nlohmann::json report = nlohmann::json::parse(*ReadFile(Path("report.json")));
  EXPECT_EQ(report["stop_reason"], "MemoryLimit");
  EXPECT_EQ(report["extraction"]["stop_reason"], "MemoryLimit");
  EXPECT_TRUE(ReadGraphJson(Path("out.json")).ok());
}

// The time limit covers extraction: with no time left after saturation the
// extractor returns its best so far and says so (stop reason TimeLimit).
TEST_F(CliTest, TimeLimitCoversExtraction) {
  for (const std::string extractor : {"dag", "ilp"}) {
    SCOPED_TRACE(extractor);
    Result r = OptimizeExample(kExampleRules, {"--time-limit", "1e-6", "--extractor", extractor});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("stop: TimeLimit"));
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("extraction: ", extractor, ", stop: TimeLimit")));
    nlohmann::json report = nlohmann::json::parse(*ReadFile(Path("report.json")));
    EXPECT_EQ(report["extraction"]["stop_reason"], "TimeLimit");
    EXPECT_TRUE(ReadGraphJson(Path("out.json")).ok());
  }
  // A generous limit: extraction finishes.
  Result r = OptimizeExample(kExampleRules, {"--time-limit", "60", "--verbose"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("extraction: dag, stop: Finished"));
}

}  // namespace
}  // namespace egret
