// What the CLI tests (tests/cli/cli_*_test.cc) share: the fixture that runs
// the egret binary and captures its exit code, stdout and stderr in a
// temporary folder, the example graph and rules, and a graph with a rule that
// rewrites it wrongly.
#ifndef EGRET_TESTS_CLI_CLI_TEST_UTIL_H_
#define EGRET_TESTS_CLI_CLI_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/support/file_io.h"
#include "nlohmann/json.hpp"
#include "tests/onnx/onnx_builder.h"

namespace egret {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

inline const std::string kExample = std::string(EGRET_SOURCE_DIR) + "/examples/residual_block.json";
inline const std::string kExampleRules =
    std::string(EGRET_SOURCE_DIR) + "/examples/residual_block.rules";

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
    // The pid keeps concurrent runs of the suite (two build trees) apart.
    dir_ =
        (fs::path(::testing::TempDir()) / absl::StrCat("egret_cli_", info->name(), "_", getpid()))
            .string();
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

  // Runs `egret optimize` on the example with `rule_file`, writing out.json
  // and report.json, and `extra` arguments.
  Result OptimizeExample(const std::string& rule_file, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"optimize", kExample,         "--rules",  rule_file,
                                     "-o",       Path("out.json"), "--report", Path("report.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }
  // The JSON in file `name` (discarded if missing or malformed).
  nlohmann::json ReadJson(std::string_view name) const {
    return nlohmann::json::parse(ReadFile(Path(name)).value_or(""), nullptr, false);
  }

  std::string dir_;
};

class CliOnnxTest : public CliTest {
 protected:
  // x: FLOAT[batch, 3], state: FLOAT[2, ?, 4]; y = Relu(x), s = Relu(state).
  std::string SymbolicModel() {
    testing::OnnxBuilder b;
    b.InputSymbolic("x", "batch", 3);
    auto* st = b.model().mutable_graph()->add_input();
    st->set_name("state");
    auto* tt = st->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(2);
    tt->mutable_shape()->add_dim();
    tt->mutable_shape()->add_dim()->set_dim_value(4);
    b.Node("Relu", {"x"}, {"y"});
    b.Node("Relu", {"state"}, {"s"});
    b.Output("y");
    b.Output("s");
    Write("sym.onnx", b.Bytes());
    return Path("sym.onnx");
  }
};

// A failure: exit 2 and one line "FILE...: error: ..." on stderr.
inline void ExpectBadInput(const Result& r, const std::string& file) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, StartsWith(file));
  EXPECT_THAT(r.err, HasSubstr(": error: "));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
}

// a - b, and a rule that wrongly rewrites it to a + b (and makes Add cheaper).
inline constexpr std::string_view kSubGraph = R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "a", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [1, 4, 4, 8]}]},
  {"name": "b", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [1, 4, 4, 8]}]},
  {"name": "d", "op": "ElementWiseSubtract", "inputs": ["a", "b"],
   "outputs": [{"dtype": "Float32", "shape": [1, 4, 4, 8]}]}],
  "inputs": ["a", "b"], "outputs": [{"value": "d", "name": "diff"}]})";
inline constexpr std::string_view kWrongRule = R"(
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("ElementWiseSubtract", "a", "b"), OK, Op("ElementWiseAdd", "a", "b"))
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((subImpl<PlainFloatTensor>), "ElementWiseSubtract", 8, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((addImpl<PlainFloatTensor>), "ElementWiseAdd", 4, RESOURCE_HVX)
)";

}  // namespace egret

#endif  // EGRET_TESTS_CLI_CLI_TEST_UTIL_H_
