// Bad input to the egret binary: malformed graphs and flags, special files,
// huge inputs and bad limits exit 2 with one line and write nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "egret/support/file_io.h"
#include "tests/cli/cli_test_util.h"

namespace egret {
namespace {

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

TEST_F(CliTest, BadInputSuiteExitsTwoAndWritesNothing) {
  const std::string head = R"({"format": "egret-graph", "version": 1, "nodes": [)";
  Write("cycle.json", head + R"(
  {"name": "a", "op": "Relu", "inputs": ["b"], "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "b", "op": "Relu", "inputs": ["a"], "outputs": [{"dtype": "Float32", "shape": [4]}]}]})");
  Write("wrong_type.json", head + R"(
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": "four"}]}]})");
  Write("dangling.json", head + R"(
  {"name": "r", "op": "Relu", "inputs": ["nope"], "outputs": [{"dtype": "Float32"}]}]})");
  std::string text = *ReadFile(kExample);
  Write("truncated.json", text.substr(0, text.size() * 2 / 3));
  {
    std::ofstream garbage(Path("garbage.json"), std::ios::binary);
    std::string block(1 << 20, '\0');
    for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>((i * 7919 + 13) % 251);
    for (int mb = 0; mb < 100; ++mb) garbage << block;
  }
  ASSERT_EQ(fs::file_size(Path("garbage.json")), 100u << 20);
  for (const char* name :
       {"cycle.json", "wrong_type.json", "dangling.json", "truncated.json", "garbage.json"}) {
    SCOPED_TRACE(name);
    const std::string in = Path(name);
    ExpectBadInput(Run({"info", in}), in);
    ExpectBadInput(Run({"convert", in, "-o", Path("out.json")}), in);
    EXPECT_FALSE(fs::exists(Path("out.json")));
    ExpectBadInput(Run({"optimize", in, "--rules", kExampleRules, "-o", Path("opt.json"),
                        "--report", Path("report.json")}),
                   in);
    EXPECT_FALSE(fs::exists(Path("opt.json")));
    EXPECT_FALSE(fs::exists(Path("report.json")));
  }
  // Nothing else was written, not even a temporary file.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  EXPECT_THAT(
      names, ::testing::UnorderedElementsAre("cycle.json", "wrong_type.json", "dangling.json",
                                             "truncated.json", "garbage.json", "stdout", "stderr"));
  // Each names what is wrong.
  EXPECT_THAT(Run({"info", Path("cycle.json")}).err, HasSubstr("cycle"));
  EXPECT_THAT(Run({"info", Path("wrong_type.json")}).err, HasSubstr("/nodes/0/outputs/0/shape"));
  EXPECT_THAT(Run({"info", Path("dangling.json")}).err, HasSubstr("no node named 'nope'"));
}

// Legal but too large for any machine's memory: 2^56 Float32 elements
// (2^58 bytes). `run` ends with one line and exit 2, not an abort.
// A legal input larger than the memory limit is refused before anything is
// allocated (under ASan a 2^58-byte allocation aborts instead of throwing).
TEST_F(CliTest, RunOnAHugeLegalInputHitsTheMemoryLimit) {
  Write("huge.json", R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [134217728, 536870912]}]},
  {"name": "r", "op": "Relu", "inputs": ["x"], "outputs": [{"dtype": "Float32", "shape": [134217728, 536870912]}]}],
  "outputs": [{"value": "r"}]})");
  Result r = Run({"run", Path("huge.json"), "--memory-limit", "1G"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err, absl::StrCat(Path("huge.json"),
                                ": error: the graph's inputs need 288230376151711744 bytes, over "
                                "the limit of 1073741824 bytes (--memory-limit)\n"));
  // With the default limit (a fraction of this machine's memory) too.
  r = Run({"run", Path("huge.json")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("inputs need 288230376151711744 bytes, over the limit"));
}

// An ONNX node without the inputs its schema requires (a Relu with none):
// once a protobuf CHECK abort, now one line naming the file and node.
TEST_F(CliTest, OnnxNodeWithoutInputsExitsTwo) {
  // ModelProto{ir_version 7, opset 13, graph{node{op_type Relu, output y},
  // output{y: float[4]}}}, encoded by hand.
  const std::string model(
      "\x08\x07\x3a\x1f\x0a\x09\x12\x01\x79\x22\x04\x52\x65\x6c\x75\x12\x01\x67\x62\x0f\x0a\x01"
      "\x79\x12\x0a\x0a\x08\x08\x01\x12\x04\x0a\x02\x08\x04\x42\x04\x0a\x00\x10\x0d",
      41);
  Write("m.onnx", model);
  Result r = Run({"info", Path("m.onnx")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, absl::StrCat(Path("m.onnx"),
                                ": error: node #0 (Relu): has 0 inputs; opset 13's Relu takes 1 "
                                "to 1\n"));
}

TEST_F(CliTest, HugeDimFlagsAreRejected) {
  Result r = Run({"info", kExample, "--default-dim", "72057594037927937"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.FirstErrLine(),
            "egret: error: --default-dim: Value 72057594037927937 not in range 1 to "
            "72057594037927936 (see --help)");
  r = Run({"info", kExample, "--dim", "N=72057594037927937"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "egret: error: --dim 'N=72057594037927937': expected NAME=N with 1 <= N <= 2^56\n");
}

// Special files as inputs fail at once with one line and exit 2: a FIFO as
// the graph, as a rules file, as a --costs file and as an npy input. (Without
// the check each would wait for a writer forever; ctest's timeout would catch
// a regression.)
TEST_F(CliTest, FifoInputsFailFastWithOneLine) {
  ASSERT_EQ(mkfifo(Path("pipe.json").c_str(), 0600), 0);
  const std::string kLine = "is not a regular file";
  Result r = Run({"optimize", Path("pipe.json"), "-o", Path("out.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr(kLine));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_FALSE(fs::exists(Path("out.json")));
  r = Run({"optimize", kExample, "--rules", Path("pipe.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr(kLine));
  r = Run({"optimize", kExample, "--costs", Path("pipe.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr(kLine));
  fs::create_directories(Path("in"));
  ASSERT_EQ(mkfifo(Path("in/x.npy").c_str(), 0600), 0);
  r = Run({"run", kExample, "--inputs", Path("in")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr(kLine));
}

// -o to a device or a FIFO is refused (exit 2) and leaves the node as it was,
// with nothing else written.
TEST_F(CliTest, OutputToASpecialFileIsRefused) {
  // (Named .json: a name without an extension is refused before anything
  // runs, CliOnnxTest.FilesEgretDoesNotReadOrWriteAreNamed.)
  ASSERT_EQ(mkfifo(Path("pipe.json").c_str(), 0600), 0);
  Result r = Run({"optimize", kExample, "--rules", kExampleRules, "-o", Path("pipe.json"),
                  "--report", Path("report.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("is not a regular file"));
  EXPECT_TRUE(fs::is_fifo(Path("pipe.json")));
  EXPECT_FALSE(fs::exists(Path("report.json")));
  if (geteuid() == 0) {  // a private copy of /dev/null's device numbers
    ASSERT_EQ(mknod(Path("null.json").c_str(), S_IFCHR | 0600, makedev(1, 3)), 0);
    r = Run({"optimize", kExample, "--rules", kExampleRules, "-o", Path("null.json")});
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(fs::is_character_file(Path("null.json")));
  }
}

// -o, --dot and --report are all or nothing: when the report cannot be
// written, the graph (and its old contents) are left as they were.
TEST_F(CliTest, ReportFailureLeavesNoPartialOutput) {
  Write("out.json", "old");
  Result r = Run({"optimize", kExample, "--rules", kExampleRules, "-o", Path("out.json"), "--dot",
                  Path("out.dot"), "--report", Path("missing/report.json")});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("missing/report.json"));
  EXPECT_EQ(ReadFile(Path("out.json")).value_or(""), "old");
  EXPECT_FALSE(fs::exists(Path("out.dot")));
  // Nothing but the old output and the captured streams.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("out.json", "stdout", "stderr"));
}

// Zero, negative or malformed limits are errors (exit 2, one line), not "no
// limit"; `none` says no limit explicitly.
TEST_F(CliTest, ZeroOrNegativeLimitsExitTwo) {
  for (const auto& [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"--node-limit", "-1"},
                                                        {"--node-limit", "0"},
                                                        {"--iter-limit", "0"},
                                                        {"--iter-limit", "-3"},
                                                        {"--time-limit", "0"},
                                                        {"--time-limit", "-1"},
                                                        {"--time-limit", "nan"},
                                                        {"--memory-limit", "0"},
                                                        {"--memory-limit", "-1G"},
                                                        {"--memory-limit", "12Q"}}) {
    SCOPED_TRACE(flag + " " + value);
    Result r = OptimizeExample(kExampleRules, {flag, value});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.FirstErrLine(),
              absl::StrCat("egret optimize: error: ", flag, " must be ",
                           flag == "--time-limit"     ? "a positive number of seconds"
                           : flag == "--memory-limit" ? "a positive number of bytes (K, M, G, T "
                                                        "suffixes)"
                                                      : "a positive integer",
                           " or 'none', not '", value, "'"));
    EXPECT_FALSE(fs::exists(Path("out.json")));
  }
  Result r = Run({"compare", kExample, "--node-limit", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), StartsWith("egret compare: error: --node-limit"));
  r = OptimizeExample(kExampleRules, {"--node-limit", "none", "--iter-limit", "none",
                                      "--memory-limit", "none", "--time-limit", "none"});
  EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
}  // namespace egret
