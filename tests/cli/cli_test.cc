// Runs the egret binary on good and bad input and checks exit codes, the
// first line of stderr and that failures write no output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/graph/graph_json.h"
#include "egret/support/file_io.h"
#include "nlohmann/json.hpp"

namespace egret {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kExample = std::string(EGRET_SOURCE_DIR) + "/examples/residual_block.json";
const std::string kExampleRules = std::string(EGRET_SOURCE_DIR) + "/examples/residual_block.rules";

struct Result {
  int code = -1;
  std::string out;
  std::string err;
  std::string FirstErrLine() const { return err.substr(0, err.find('\n')); }
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) / absl::StrCat("egret_cli_", info->name())).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(std::string_view name) const {
    return absl::StrCat(dir_, "/", std::string(name));
  }
  void Write(std::string_view name, std::string_view text) const {
    std::ofstream(Path(name), std::ios::binary) << text;
  }

  // Runs egret with `args` (each single-quoted for the shell).
  Result Run(std::vector<std::string> args) const {
    std::string cmd = absl::StrCat("'", EGRET_CLI_PATH, "'");
    for (const std::string& a : args) absl::StrAppend(&cmd, " '", a, "'");
    absl::StrAppend(&cmd, " >'", Path("stdout"), "' 2>'", Path("stderr"), "'");
    int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadFile(Path("stdout")).value_or("");
    r.err = ReadFile(Path("stderr")).value_or("");
    return r;
  }

  std::string dir_;
};

TEST_F(CliTest, InfoSummarizesTheExample) {
  Result r = Run({"info", kExample});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, StartsWith("graph: residual_block\nnodes: 15\n"
                                "constant data: 1216 bytes in 4 tensor(s)\nops:\n"
                                "  $Const          4\n  Relu            4\n"));
  EXPECT_THAT(r.out, HasSubstr("  Conv2d          2\n  ElementWiseAdd  2\n  *Input          1\n"));
  EXPECT_THAT(r.out, HasSubstr("inputs:\n  x: QUInt8[1,16,16,8](z=128,s=0.05)\noutputs:\n"
                               "  out = relu_a: QUInt8[1,16,16,8](z=128,s=0.1)\n"
                               "  out_skip = relu_b: QUInt8[1,16,16,8](z=128,s=0.1)\n"));
  EXPECT_THAT(r.out,
              HasSubstr("options:\n  enable_autothread = 1\n  quant_is_updateable = false\n"));
  // Nine 2048-byte values; at most four live at once (docs/memory-plan.md).
  EXPECT_THAT(r.out,
              HasSubstr("memory: peak 8192 bytes (file order 8192, lower bound 6144), arena 8192 "
                        "bytes, "
                        "18432 bytes in all buffers\n"));
}

TEST_F(CliTest, HelpOnEverySubcommand) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--help"}, {"info", "--help"}, {"convert", "--help"}}) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 0) << absl::StrJoin(args, " ");
    EXPECT_THAT(r.out, HasSubstr("Usage:")) << absl::StrJoin(args, " ");
  }
  EXPECT_THAT(Run({"convert", "--help"}).out, HasSubstr("--format"));
}

TEST_F(CliTest, UsageErrorsExitTwoWithOneLine) {
  Result none = Run({});
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err, "egret: error: A subcommand is required (see --help)\n");
  Result missing = Run({"info"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err, "egret: error: GRAPH is required (see --help)\n");
  Result unknown = Run({"frobnicate"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.FirstErrLine(), StartsWith("egret: error: "));
}

TEST_F(CliTest, BadGraphsExitTwoWithTheReaderMessage) {
  Write("dangling.json", R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "r", "op": "Relu", "inputs": ["nope"], "outputs": [{"dtype": "Float32"}]}]})");
  Result r = Run({"info", Path("dangling.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, absl::StrCat(Path("dangling.json"),
                                ":2:42: error: at /nodes/0/inputs/0: no node named 'nope'\n"));

  std::string text = *ReadFile(kExample);
  Write("truncated.json", text.substr(0, text.size() / 2));
  r = Run({"info", Path("truncated.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), StartsWith(absl::StrCat(Path("truncated.json"), ":")));
  EXPECT_THAT(r.FirstErrLine(), HasSubstr(": error: invalid JSON: "));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);  // one line

  r = Run({"info", Path("absent.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            absl::StrCat(Path("absent.json"), ": error: cannot open: No such file or directory\n"));

  r = Run({"info", Path("g.dot")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            absl::StrCat(Path("g.dot"), ": error: DOT files are write-only; give a .json graph\n"));
}

TEST_F(CliTest, ConvertNormalizesJson) {
  Result r = Run({"convert", kExample, "-o", Path("out.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  // The bundled example is kept in normalized form, so converting it is the identity.
  EXPECT_EQ(*ReadFile(Path("out.json")), *ReadFile(kExample));
  absl::StatusOr<Graph> g = ReadGraphJson(Path("out.json"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->num_nodes(), 15u);
}

TEST_F(CliTest, ConvertToDotByExtensionOrFlag) {
  Result r = Run({"convert", kExample, "-o", Path("g.dot")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string dot = *ReadFile(Path("g.dot"));
  EXPECT_THAT(dot, StartsWith("digraph \"residual_block\" {\n"));
  EXPECT_THAT(dot, HasSubstr("[label=\"QUInt8[1,16,16,8](z=128,s=0.05)\"]"));
  r = Run({"convert", kExample, "-o", Path("g.txt"), "--format", "dot"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(*ReadFile(Path("g.txt")), dot);
}

TEST_F(CliTest, FailedConvertWritesNothing) {
  Write("bad.json", "{\"format\": \"egret-graph\", \"version\": 1, \"nodes\": 3}");
  Result r = Run({"convert", Path("bad.json"), "-o", Path("out.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, absl::StrCat(Path("bad.json"),
                                ":1:50: error: at /nodes: expected an array of nodes, got an "
                                "integer\n"));
  EXPECT_FALSE(fs::exists(Path("out.json")));

  r = Run({"convert", kExample, "-o", Path("out.json"), "--format", "svg"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "egret: error: --format: svg not in {json,dot} (see --help)\n");
  EXPECT_FALSE(fs::exists(Path("out.json")));

  r = Run({"convert", kExample, "-o", Path("out.onnx")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            absl::StrCat(Path("out.onnx"), ": error: writing ONNX models is not supported yet\n"));
  EXPECT_FALSE(fs::exists(Path("out.onnx")));

  // An unwritable destination: the output cannot be produced (exit 1).
  r = Run({"convert", kExample, "-o", Path("no/such/dir/out.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.FirstErrLine(),
              StartsWith(absl::StrCat(Path("no/such/dir/out.json"), ": error: cannot write")));
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::string name = e.path().filename().string();
    EXPECT_THAT(name, ::testing::Not(HasSubstr(".tmp"))) << name;
  }
}

TEST_F(CliTest, OptimizeVerifyPassesOnTheExampleAndSummarizes) {
  Result r = Run({"optimize", kExample, "--rules", kExampleRules, "--verify", "-o",
                  Path("out.json"), "--report", Path("report.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output out: max abs error 0, max rel error 0, 0 of 2048 "
                               "elements outside tolerance: ok\n"));
  EXPECT_THAT(r.out, HasSubstr("output out_skip: "));
  EXPECT_THAT(r.out, HasSubstr("verify: ok (rtol 0.0001, atol 1e-05)\n"));
  // Two commuted adds merge; the double Relu goes.
  EXPECT_THAT(r.out, HasSubstr("ops: Conv2d 2 -> 2, ElementWiseAdd 2 -> 1, Relu 4 -> "));
  EXPECT_THAT(r.out, HasSubstr("peak memory: 8192 bytes before, "));
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

  // The optimized graph's DOT shows the implementation and cost of each op.
  r = Run({"convert", Path("out.json"), "-o", Path("out.dot")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string dot = *ReadFile(Path("out.dot"));
  EXPECT_THAT(dot, HasSubstr("\\nimpl: (conv2dImpl<QUint8CroutonTensor>)\\ncost: 16384\""));
  EXPECT_THAT(dot, HasSubstr("\\nimpl: (eltwiseAddImpl<QUint8CroutonTensor>)\\ncost: 64\""));
}

// a - b, and a rule that wrongly rewrites it to a + b (and makes Add cheaper).
constexpr std::string_view kSubGraph = R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "a", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [1, 4, 4, 8]}]},
  {"name": "b", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [1, 4, 4, 8]}]},
  {"name": "d", "op": "ElementWiseSubtract", "inputs": ["a", "b"],
   "outputs": [{"dtype": "Float32", "shape": [1, 4, 4, 8]}]}],
  "inputs": ["a", "b"], "outputs": [{"value": "d", "name": "diff"}]})";
constexpr std::string_view kWrongRule = R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("ElementWiseSubtract", "a", "b"), OK, Op("ElementWiseAdd", "a", "b"))
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((subImpl<PlainFloatTensor>), "ElementWiseSubtract", 8, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((addImpl<PlainFloatTensor>), "ElementWiseAdd", 4, RESOURCE_HVX)
)";

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

}  // namespace
}  // namespace egret
