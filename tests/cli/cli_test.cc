// Runs the egret binary on good and bad input and checks exit codes, the
// first line of stderr and that failures write no output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "egret/graph/graph_json.h"
#include "egret/support/file_io.h"
#include "nlohmann/json.hpp"
#include "tests/onnx/onnx_builder.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
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
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("opaque ops")));
}

// A graph whose tensors each fit (2^58 bytes: 2^56 Float32 elements, the
// largest legal shape) but whose 33 inputs add up past 2^63 - 1: the memory
// line prints the saturated sums as ">= 9223372036854775807", never a
// negative or wrapped count.
TEST_F(CliTest, InfoPrintsSaturatedByteSums) {
  std::string nodes;
  std::vector<std::string> names;
  for (int i = 0; i < 33; ++i) {
    absl::StrAppend(
        &nodes, R"({"name": "x)", i,
        R"(", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [72057594037927936]}]},)");
    names.push_back(absl::StrCat("\"x", i, "\""));
  }
  Write("huge.json", absl::StrCat(R"({"format": "egret-graph", "version": 1, "nodes": [)", nodes,
                                  R"({"name": "r", "op": "Relu", "inputs": ["x0"],
                         "outputs": [{"dtype": "Float32", "shape": [72057594037927936]}]}],
                     "inputs": [)",
                                  absl::StrJoin(names, ", "),
                                  R"(], "outputs": [{"value": "r", "name": "y"}]})"));
  Result r = Run({"info", Path("huge.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("constant data: 0 bytes in 0 tensor(s)\n"));
  EXPECT_THAT(r.out, HasSubstr("memory: peak >= 9223372036854775807 bytes (file order >= "
                               "9223372036854775807, lower bound 576460752303423488), arena >= "
                               "9223372036854775807 bytes, >= 9223372036854775807 bytes in all "
                               "buffers\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("-")));
  // egret optimize's peak memory line and its JSON report.
  r = Run({"optimize", Path("huge.json"), "--report", Path("report.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("peak memory: >= 9223372036854775807 bytes before, >= "
                               "9223372036854775807 bytes after (naive order >= "
                               "9223372036854775807), arena >= 9223372036854775807 bytes, >= "
                               "9223372036854775807 bytes in all buffers\n"));
  nlohmann::json report = nlohmann::json::parse(ReadFile(Path("report.json")).value_or("{}"));
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  for (const char* k : {"peak_bytes", "naive_peak_bytes", "arena_bytes", "total_bytes",
                        "input_peak_bytes", "input_naive_peak_bytes"}) {
    EXPECT_EQ(report["memory"][k], kMax) << k;
  }
  EXPECT_EQ(report["memory"]["lower_bound_bytes"], int64_t{1} << 59);
}

TEST_F(CliTest, InfoListsOpaqueOps) {
  Write("opaque.json", R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "a", "op": "onnx.LpNormalization", "inputs": ["x"],
   "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "b", "op": "MyOp", "inputs": ["a"], "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "c", "op": "MyOp", "inputs": ["b"], "outputs": [{"dtype": "Float32", "shape": [4]}]}],
  "inputs": ["x"], "outputs": [{"value": "c", "name": "y"}]})");
  Result r = Run({"info", Path("opaque.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("opaque ops: MyOp x2, onnx.LpNormalization x1\n"));
}

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

TEST_F(CliTest, MalformedInputShapeAndValueFlagsExitTwo) {
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--input-shape", "x=1xa"}, {"--input-shape", "x="}, {"--input-value", "sr=abc"}}) {
    Result r = Run({"info", kExample, flag, value});
    EXPECT_EQ(r.code, 2) << flag << " " << value;
    EXPECT_THAT(r.FirstErrLine(), HasSubstr(absl::StrCat(flag, " '", value, "'")));
  }
}

// First contact: --version, did-you-mean, shapes with commas, unknown input
// names, every unsized dim with a ready-to-paste line, info on a model with
// symbolic dims, files egret does not read, and -o with an extension egret
// does not write.
TEST_F(CliTest, VersionAndDidYouMean) {
  Result r = Run({"--version"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::MatchesRegex("egret [0-9]+\\.[0-9]+\\.[0-9]+\n"));
  r = Run({"optimise", kExample});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("(did you mean 'optimize'?)"));
  r = Run({"optimize", kExample, "--out", Path("o.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("(did you mean '--output'?)"));
  r = Run({"optimize", kExample, "--verfy"});
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("(did you mean '--verify'?)"));
  // Nothing close: no suggestion.
  r = Run({"frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), ::testing::Not(HasSubstr("did you mean")));
}

// optimize --help: flags in groups, examples at the end, no raw limits.
TEST_F(CliTest, OptimizeHelpIsGroupedWithExamples) {
  Result r = Run({"optimize", "--help"});
  EXPECT_EQ(r.code, 0) << r.err;
  size_t last = 0;
  for (const char* group : {"Common:", "Input shapes (ONNX):", "Rules:", "Limits:", "Extraction:",
                            "Output:", "Verification (--verify):", "Examples:"}) {
    const size_t at = r.out.find(group);
    EXPECT_NE(at, std::string::npos) << group;
    if (at == std::string::npos) continue;
    EXPECT_GT(at, last) << group;
    last = at;
  }
  EXPECT_THAT(r.out, HasSubstr("  egret optimize model.onnx --verify -o model.opt.onnx\n"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("72057594037927936")));
}

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

TEST_F(CliOnnxTest, UnsizedDimsAreListedWithAReadyLine) {
  const std::string model = SymbolicModel();
  Result r = Run({"optimize", model});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.FirstErrLine(),
            model +
                ": error: 2 graph input dims have no size: 'x' dim 0 (symbolic 'batch'), "
                "'state' dim 1 (unknown); give them (--dim NAME=N, --default-dim N or "
                "--input-shape INPUT=AxB), e.g. --dim batch=1 --input-shape state=2x1x4");
  // The suggested line works, and shapes may be written with commas.
  r = Run({"optimize", model, "--dim", "batch=1", "--input-shape", "state=2x1x4", "--verify"});
  EXPECT_EQ(r.code, 0) << r.err;
  r = Run({"optimize", model, "--dim", "batch=1", "--input-shape", "state=2,1,4", "--verify"});
  EXPECT_EQ(r.code, 0) << r.err;
  // A name that is no input or symbolic dim is an error listing the real ones.
  r = Run({"info", model, "--input-shape", "x2=1x3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("a shape is given for 'x2', which is not a graph input "
                                          "(the graph inputs are: x, state)"));
  r = Run({"info", model, "--dim", "N=1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("a size is given for symbolic dim 'N', which no graph "
                                          "input has (the symbolic dims are: batch)"));
}

TEST_F(CliOnnxTest, InfoShowsTheInputSignatureWithoutSizes) {
  const std::string model = SymbolicModel();
  Result r = Run({"info", model});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              ::testing::StartsWith("input signature:\n"
                                    "  x: FLOAT[batch,3]\n"
                                    "  state: FLOAT[2,?,4]\n"
                                    "note: below, input dims without a size are taken as 1"));
  EXPECT_THAT(r.out, HasSubstr("  x: Float32[1,3]\n"));
  r = Run({"info", model, "--dim", "batch=5", "--default-dim", "2"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("note:")));
  EXPECT_THAT(r.out, HasSubstr("  x: Float32[5,3]\n"));
  EXPECT_THAT(r.out, HasSubstr("  state: Float32[2,2,4]\n"));
}

TEST_F(CliOnnxTest, FilesEgretDoesNotReadOrWriteAreNamed) {
  // torch.save's zip archive, a TensorFlow Lite flatbuffer, HDF5.
  using namespace std::string_literals;  // (literals with NUL bytes)
  Write("model.pt", "PK\x03\x04\x14\0\0\0\0\0archive/data.pklxxxx"s);
  Write("model.tflite", "\x1c\0\0\0TFL3\0\0\x12\0"s);
  Write("model.h5", "\x89HDF\r\n\x1a\n\0\0"s);
  Write("renamed.onnx", "PK\x03\x04\x14\0\0\0\0\0archive/data.pklxxxx"s);
  for (const auto& [file, says] : std::vector<std::pair<std::string, std::string>>{
           {"model.pt",
            "PyTorch checkpoint (torch.save), not a graph egret reads; export the "
            "model to ONNX (torch.onnx.export("},
           {"renamed.onnx", "PyTorch checkpoint"},
           {"model.tflite",
            "TensorFlow Lite model, not a graph egret reads; convert it to ONNX "
            "(python -m tf2onnx.convert --tflite "},
           {"model.h5", "HDF5 file (a Keras .h5 model?)"}}) {
    Result r = Run({"optimize", Path(file)});
    EXPECT_EQ(r.code, 2) << file;
    EXPECT_THAT(r.FirstErrLine(), HasSubstr(Path(file) + ": error: this is a")) << file;
    EXPECT_THAT(r.FirstErrLine(), HasSubstr(says)) << file;
  }
  // A graph file is read by its content when its extension says nothing.
  const std::string model = SymbolicModel();
  fs::copy_file(model, Path("model.bin"));
  fs::copy_file(kExample, Path("graph.txt"));
  EXPECT_EQ(Run({"info", Path("model.bin")}).code, 0);
  EXPECT_EQ(Run({"info", Path("graph.txt")}).code, 0);
  // -o with an extension egret does not write: an error, nothing written.
  for (const std::string out : {"out.tflite", "out"}) {
    Result r = Run({"optimize", kExample, "-o", Path(out)});
    EXPECT_EQ(r.code, 2) << out;
    EXPECT_THAT(r.FirstErrLine(), HasSubstr(": error: cannot tell which format to write from the "
                                            "file name; egret writes .json, .onnx and .dot"));
    EXPECT_FALSE(fs::exists(Path(out))) << out;
  }
}

// The subcommand names listed under "Subcommands:" in a --help text.
std::vector<std::string> SubcommandsInHelp(const std::string& help) {
  std::vector<std::string> names;
  size_t at = help.find("\nSubcommands:\n");
  if (at == std::string::npos) return names;
  std::istringstream lines(help.substr(at + 14));
  std::string line;
  while (std::getline(lines, line) && !line.empty()) {
    if (line.size() > 2 && line[0] == ' ' && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return names;
}

// docs/ops.md is generated from the op table; this fails when one changed
// without the other.
TEST_F(CliTest, OpsMarkdownIsDocsOpsMd) {
  Result r = Run({"ops", "--markdown"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string doc = std::string(EGRET_SOURCE_DIR) + "/docs/ops.md";
  EXPECT_TRUE(r.out == ReadFile(doc).value_or(""))
      << "docs/ops.md differs from the op table (egret/graph/op_table.cc); regenerate it with\n"
      << "  build/cli/egret ops --markdown > docs/ops.md";
}

TEST_F(CliTest, OpsListsEverySignature) {
  Result r = Run({"ops"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("Conv2d(in, filter, bias, $stride, $pads[, $dilation, $act_min, $act_max])"
                        ": 2-D convolution"));
  EXPECT_THAT(r.out, HasSubstr("Concat($axis, x...): joins"));
  EXPECT_THAT(r.out, HasSubstr("$Const(): a constant tensor"));
}

TEST_F(CliTest, HelpOnEverySubcommand) {
  // Walks the command tree as the CLI itself registers it: every subcommand
  // listed by a --help, recursively.
  std::vector<std::vector<std::string>> todo = {{}};
  std::vector<std::string> visited;
  while (!todo.empty()) {
    std::vector<std::string> path = todo.back();
    todo.pop_back();
    std::vector<std::string> args = path;
    args.push_back("--help");
    Result r = Run(args);
    const std::string name = absl::StrJoin(path, " ");
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.err, "") << name;
    EXPECT_THAT(r.out, HasSubstr("Usage:")) << name;
    if (!path.empty()) {
      EXPECT_THAT(r.out, HasSubstr(path.back())) << name;
    }
    visited.push_back(name);
    for (const std::string& sub : SubcommandsInHelp(r.out)) {
      std::vector<std::string> next = path;
      next.push_back(sub);
      todo.push_back(std::move(next));
    }
  }
  EXPECT_THAT(visited, ::testing::IsSupersetOf({"", "info", "convert", "optimize", "extract", "run",
                                                "verify", "rules", "rules check", "rules list",
                                                "rules dump", "ops"}));
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

// A failure: exit 2 and one line "FILE...: error: ..." on stderr.
void ExpectBadInput(const Result& r, const std::string& file) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, StartsWith(file));
  EXPECT_THAT(r.err, HasSubstr(": error: "));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
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

// Costs whose totals overflow: the tree extractor printed "inf" with exit 0
// and the DAG extractor "produced an invalid choice"; now both exit 2.
TEST_F(CliTest, ExtractRejectsOverflowingCosts) {
  Write("sum.json", R"({"nodes": {
  "a": {"op": "x", "eclass": "A", "cost": 1e308, "children": []},
  "b": {"op": "y", "eclass": "B", "cost": 1e308, "children": ["a"]}}, "root_eclasses": ["B"]})");
  for (const char* x : {"tree", "dag"}) {
    Result r = Run({"extract", Path("sum.json"), "--extractor", x});
    EXPECT_EQ(r.code, 2) << x;
    EXPECT_EQ(r.err, absl::StrCat(Path("sum.json"),
                                  ":3:43: error: $.nodes.b.cost: the costs add up to more than "
                                  "the largest double; every total would overflow\n"));
  }
  // Each class uses the one below twice: the tree cost doubles per level and
  // overflows (2^40 * 1e300) while the DAG cost (40 * 1e300) does not.
  std::string text = "{\"nodes\": {\"n0\": {\"op\": \"leaf\", \"eclass\": \"c0\", \"cost\": 1e300}";
  for (int i = 1; i <= 40; ++i) {
    absl::StrAppend(&text, ",\n\"n", i, "\": {\"op\": \"f\", \"eclass\": \"c", i,
                    "\", \"cost\": 1e300, \"children\": [\"n", i - 1, "\", \"n", i - 1, "\"]}");
  }
  absl::StrAppend(&text, "}, \"root_eclasses\": [\"c40\"]}");
  Write("shared.json", text);
  Result r = Run({"extract", Path("shared.json"), "--extractor", "tree"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, absl::StrCat(Path("shared.json"),
                                ": error: the extracted term's tree cost overflows (inf)\n"));
}

// An e-graph with no extraction (a root whose every term is cyclic, a cycle
// of negative cost) names the file, line and column of the class on the cycle
// (its first node: "b" for class B).
TEST_F(CliTest, ExtractCycleErrorsPointAtTheClass) {
  Write("cycle.json", R"({"nodes": {
"a": {"op": "f", "eclass": "A", "children": ["b"]},
"b": {"op": "g", "eclass": "B", "children": ["a"]}},
"root_eclasses": ["B"]})");
  Write("negative.json", R"({"nodes": {
"a": {"op": "f", "eclass": "A", "cost": -1, "children": ["b"]},
"b": {"op": "x", "eclass": "B", "cost": 1},
"c": {"op": "g", "eclass": "B", "cost": -5, "children": ["a"]}},
"root_eclasses": ["A"]})");
  for (const char* x : {"tree", "dag", "ilp"}) {
    Result r = Run({"extract", Path("cycle.json"), "--extractor", x});
    EXPECT_EQ(r.code, 2) << x;
    EXPECT_EQ(r.err, absl::StrCat(Path("cycle.json"),
                                  ":3:1: error: root class 'B' cannot be extracted: no node of it "
                                  "has an acyclic term (every path is cyclic through class "
                                  "'B')\n"))
        << x;
    r = Run({"extract", Path("negative.json"), "--extractor", x});
    EXPECT_EQ(r.code, 2) << x;
    EXPECT_EQ(r.err, absl::StrCat(Path("negative.json"),
                                  ":3:1: error: class 'B' is on a cycle of negative cost; no tree "
                                  "cost exists\n"))
        << x;
  }
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

// JSON -> ONNX -> JSON (docs/onnx-export.md), by extension or --format.
TEST_F(CliTest, ConvertToOnnxAndBack) {
  Result r = Run({"convert", kExample, "-o", Path("g.onnx"), "--onnx-standard-only"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = Run({"convert", Path("g.onnx"), "-o", Path("back.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  absl::StatusOr<Graph> back = ReadGraphJson(Path("back.json"));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->outputs().size(), 2u);
  r = Run({"convert", kExample, "-o", Path("g.bin"), "--format", "onnx"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(*ReadFile(Path("g.bin")), *ReadFile(Path("g.onnx")));
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
  EXPECT_EQ(r.err, "egret: error: --format: svg not in {json,dot,onnx} (see --help)\n");
  EXPECT_FALSE(fs::exists(Path("out.json")));

  // A graph with symmetric padding (no standard ONNX Pad mode) in
  // standard-only ONNX: a failed check naming the node, nothing written.
  Write("sym.json", R"({"format": "egret-graph", "version": 1, "nodes": [
    {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [1, 4, 4, 2]}]},
    {"name": "pads", "op": "$Shape", "outputs": [{"dtype": "Int32", "shape": [0, 0, 1, 1, 1, 1, 0, 0]}]},
    {"name": "mode", "op": "$Shape", "outputs": [{"dtype": "Int32", "shape": [1]}]},
    {"name": "p", "op": "Pad", "inputs": ["x", "pads", "mode"],
     "outputs": [{"dtype": "Float32", "shape": [1, 6, 6, 2]}]}],
    "inputs": ["x"], "outputs": [{"value": "p", "name": "y"}]})");
  r = Run({"convert", Path("sym.json"), "-o", Path("out.onnx"), "--onnx-standard-only"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, absl::StrCat(Path("out.onnx"),
                                ": error: node 'p' (#3), op Pad: Pad mode 1 (symmetric) has no "
                                "standard ONNX op (standard-only)\n"));
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

TEST_F(CliTest, RulesCheckListAndDump) {
  // A rule file that needs -I (for its pass name) and whose second rule is
  // only there with -D EXTRA.
  fs::create_directories(Path("inc"));
  Write("inc/passes.h", "#define MY_PASS GRAPH_CLEANUP\n");
  Write("main.cc", R"(#include "passes.h"
DEF_PACKAGE_OPTIMIZATION(MY_PASS, Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")
#ifdef EXTRA
DEF_PACKAGE_OPTIMIZATION(MY_PASS + 3, Op("Relu6", "x"), OK, Op("Relu", "x"))
#endif
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<QUint8CroutonTensor>), "Relu", 2, RESOURCE_HVX)
DEF_PACKAGE_OP(reluRefImpl, "Relu")
)");
  Result r = Run({"rules", "check", "-I", Path("inc"), "-D", "EXTRA", Path("main.cc")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "2 rules, 2 op implementations, 0 errors, 0 warnings\n");
  r = Run({"rules", "check", "-I", Path("inc"), Path("main.cc")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "1 rules, 2 op implementations, 0 errors, 0 warnings\n");
  // Without -I the header is skipped with a warning and MY_PASS is unknown.
  r = Run({"rules", "check", Path("main.cc")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, absl::StrCat(Path("main.cc"),
                                ":1:10: warning: cannot find include file \"passes.h\"; skipped\n",
                                Path("main.cc"), ":2:26: error: unknown pass group 'MY_PASS'\n"));
  EXPECT_EQ(r.out, "0 rules, 2 op implementations, 1 errors, 1 warnings\n");

  // One error: a tag the match does not bind.
  Write("bad.rules", "DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"Relu\", \"x\"), OK, \"y\")\n");
  r = Run({"rules", "check", Path("bad.rules")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, absl::StrCat(Path("bad.rules"),
                                ":1:62: error: operand tag \"y\" does not appear in the match\n"));
  EXPECT_EQ(r.out, "1 rules, 0 op implementations, 1 errors, 0 warnings\n");

  r = Run({"rules", "check", Path("absent.rules")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith(absl::StrCat(Path("absent.rules"), ": error: ")));
  EXPECT_EQ(r.out, "");

  r = Run({"rules", "list", "-I", Path("inc"), "-D", "EXTRA", Path("main.cc")});
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<std::string> rows = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_THAT(rows[0], ::testing::MatchesRegex("PASS +PRIORITY +ROOT_OP +LOCATION"));
  // GRAPH_CLEANUP is 50.
  EXPECT_THAT(rows[1], ::testing::MatchesRegex(
                           absl::StrCat("GRAPH_CLEANUP +50 +Relu +", Path("main.cc"), ":2")));
  EXPECT_THAT(rows[2], ::testing::MatchesRegex(
                           absl::StrCat("GRAPH_CLEANUP\\+3 +53 +Relu6 +", Path("main.cc"), ":4")));

  r = Run({"rules", "dump", "--json", "-I", Path("inc"), "-D", "EXTRA", Path("main.cc")});
  EXPECT_EQ(r.code, 0) << r.err;
  nlohmann::json dump = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(dump.is_discarded()) << r.out;
  ASSERT_EQ(dump["rules"].size(), 2u);
  EXPECT_EQ(dump["rules"][0]["valid"], true);
  EXPECT_EQ(dump["rules"][1]["valid"], true);
  ASSERT_EQ(dump["ops"].size(), 2u);
  EXPECT_EQ(dump["ops"][0]["op"], "Relu");
  EXPECT_EQ(dump["ops"][1]["form"], "DEF_PACKAGE_OP");
}

// An e-graph where the tree- and DAG-optimal choices differ: the root is
// either h (8) or g(s, s) (1 + 5 once, 1 + 5 + 5 as a tree).
constexpr char kSharedEgraph[] = R"({"nodes": {
  "h": {"op": "h", "children": [], "eclass": "r", "cost": 8},
  "g": {"op": "g", "children": ["s1", "s1"], "eclass": "r", "cost": 1},
  "s1": {"op": "s", "children": [], "eclass": "s", "cost": 5}},
  "root_eclasses": ["r"]})";

TEST_F(CliTest, ExtractPrintsCostsAndJson) {
  Write("e.json", kSharedEgraph);
  Result r = Run({"extract", Path("e.json"), "--extractor", "tree"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("tree cost: 8\ndag cost: 8\ntime: "));
  r = Run({"extract", Path("e.json")});  // dag by default
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("tree cost: 11\ndag cost: 6\ntime: "));

  for (const char* kind : {"tree", "dag", "ilp"}) {
    SCOPED_TRACE(kind);
    r = Run({"extract", Path("e.json"), "--extractor", kind, "--json", "--time-limit", "5"});
    ASSERT_EQ(r.code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.out;
    const bool tree = std::string(kind) == "tree";
    EXPECT_EQ(j["extractor"], kind);
    EXPECT_EQ(j["tree_cost"], tree ? 8.0 : 11.0);
    EXPECT_EQ(j["dag_cost"], tree ? 8.0 : 6.0);
    EXPECT_EQ(j["choices"],
              tree ? nlohmann::json({{"r", "h"}}) : nlohmann::json({{"r", "g"}, {"s", "s1"}}));
    EXPECT_TRUE(j["time_ms"].is_number());
    EXPECT_GE(j["time_ms"].get<double>(), 0.0);
    EXPECT_EQ(j.contains("optimal"), std::string(kind) == "ilp");
    EXPECT_EQ(j.contains("bound"), std::string(kind) == "ilp");
    if (j.contains("optimal")) {
      EXPECT_EQ(j["optimal"], true);
      EXPECT_EQ(j["bound"], 6.0);
    }
  }
  r = Run({"extract", Path("e.json"), "--extractor", "ilp"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("tree cost: 11\ndag cost: 6\noptimal: yes\nbound: 6\ntime: "));

  std::string text = kSharedEgraph;
  Write("truncated.json", text.substr(0, text.size() / 2));
  ExpectBadInput(Run({"extract", Path("truncated.json")}), Path("truncated.json"));
  Write("bad.json", R"({"nodes": {"a": {"op": "a", "children": 3, "eclass": "r"}}})");
  ExpectBadInput(Run({"extract", Path("bad.json"), "--json"}), Path("bad.json"));
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

// Every strategy on the example, twice over: one CSV row per graph and
// strategy, every result verifies, and the SVG plot and Markdown are written.
TEST_F(CliTest, CompareRunsEveryStrategyOnEveryGraph) {
  Result r = Run({"compare", kExample, kExample, "--rules", kExampleRules, "--csv", Path("c.csv"),
                  "--markdown", Path("c.md"), "--plot", Path("c.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> lines =
      absl::StrSplit(*ReadFile(Path("c.csv")), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u + 2 * 5);
  EXPECT_EQ(lines[0],
            "graph,strategy,hvx_cost,nodes,ops_added,ops_removed,time_ms,peak_rss_bytes,"
            "egraph_nodes,verify");
  const std::vector<std::string> strategies = {"greedy", "cse", "eqsat-tree", "eqsat-dag",
                                               "eqsat-ilp"};
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cells = absl::StrSplit(lines[i], ',');
    ASSERT_EQ(cells.size(), 10u) << lines[i];
    EXPECT_EQ(cells[0], kExample);
    EXPECT_EQ(cells[1], strategies[(i - 1) % 5]);
    EXPECT_EQ(cells[9], "ok");
    EXPECT_EQ(cells[8].empty(), (i - 1) % 5 < 2) << lines[i];  // e-graph size for eqsat only
  }
  EXPECT_THAT(r.out, HasSubstr("geomean cost vs greedy: eqsat-dag"));
  EXPECT_THAT(*ReadFile(Path("c.svg")), HasSubstr("</svg>"));
  EXPECT_THAT(*ReadFile(Path("c.md")), HasSubstr("| greedy |"));

  r = Run({"compare", kExample, "--rules", kExampleRules, "--strategies", "cse,greedy"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LT(r.out.find(" cse "), r.out.find(" greedy "));
}

// --graphs-dir writes every strategy's result graph, which is a valid graph
// with the cost compare printed; a folder that does not exist is bad input.
TEST_F(CliTest, CompareWritesTheResultGraphs) {
  std::filesystem::create_directories(Path("graphs"));
  Result r = Run({"compare", kExample, "--rules", kExampleRules, "--strategies", "greedy,eqsat-dag",
                  "--graphs-dir", Path("graphs"), "--csv", Path("c.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"greedy", "eqsat-dag"}) {
    const std::string out = Path(absl::StrCat("graphs/residual_block.", s, ".json"));
    Result info = Run({"info", out});
    EXPECT_EQ(info.code, 0) << s << ": " << info.err;
  }
  Result bad = Run({"compare", kExample, "--graphs-dir", Path("absent")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.FirstErrLine(),
            "egret compare: error: --graphs-dir: '" + Path("absent") + "' is not a directory");
}

TEST_F(CliTest, CompareBadInputAndFailedVerify) {
  Result r = Run({"compare", kExample, "--strategies", "greedy,magic"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown strategy 'magic'"));
  EXPECT_EQ(Run({"compare", Path("absent.json")}).code, 2);
  // A wrong rule: greedy and eqsat both apply it, and verify catches it.
  Write("sub.json", kSubGraph);
  Write("wrong.rules", kWrongRule);
  r = Run({"compare", Path("sub.json"), "--rules", Path("wrong.rules"), "--strategies",
           "cse,greedy", "--csv", Path("c.csv")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("greedy: the result computes different outputs"));
  EXPECT_THAT(*ReadFile(Path("c.csv")), HasSubstr(",cse,"));
  EXPECT_THAT(*ReadFile(Path("c.csv")), HasSubstr(",FAIL\n"));
}

// A result with an output the reference executor cannot compute is
// "incomplete", never "ok": exit 3 when nothing else failed.
TEST_F(CliTest, CompareMarksAnUnverifiedResultIncomplete) {
  Write("opaque.json", R"({"format": "egret-graph", "version": 1, "nodes": [
  {"name": "x", "op": "*Input", "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "r1", "op": "Relu", "inputs": ["x"], "outputs": [{"dtype": "Float32", "shape": [4]}]},
  {"name": "m", "op": "MyOp", "inputs": ["r1"], "outputs": [{"dtype": "Float32", "shape": [4]}]}],
  "inputs": ["x"], "outputs": [{"value": "r1", "name": "relu"}, {"value": "m", "name": "mine"}]})");
  Result r =
      Run({"compare", Path("opaque.json"), "--strategies", "cse,greedy", "--csv", Path("c.csv")});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("greedy: the result could not be verified: 1 of 2 outputs not "
                               "verified: mine: "));
  EXPECT_THAT(*ReadFile(Path("c.csv")), HasSubstr(",incomplete\n"));
  EXPECT_THAT(*ReadFile(Path("c.csv")), ::testing::Not(HasSubstr(",ok\n")));
}

// Function plugins (--plugin, docs/plugins.md) with examples/plugin/: its rules
// call functions egret does not build in, so without the plugin they are
// reported and skipped; with it they run and the result verifies.
const std::string kPluginRules =
    std::string(EGRET_SOURCE_DIR) + "/examples/plugin/maxpool_rules.cc";
const std::string kPluginGraph =
    std::string(EGRET_SOURCE_DIR) + "/examples/plugin/padded_pool.json";
constexpr char kMissing[] =
    "no implementation of: has_spatial_padding, pad_total_for_qnn, reshape_hw_to_4d, "
    "pad_before_for_qnn";

// Forms beyond the HTP rule grammar (a non-decimal pass offset, a C-style
// cast) are read, with a warning at the place on stderr; warnings leave the
// exit code of `rules check` and of `optimize` at 0.
TEST_F(CliTest, BeyondGrammarFormsWarnWithoutChangingExitCodes) {
  Write("cast.rules",
        "DEF_PACKAGE_OPTIMIZATION(EARLY + 0x10, Op(\"Relu\", Op(\"Relu\", \"x\")),\n"
        "  GT((int)DIM_OF(\"x\", 3), 0), Op(\"Relu\", \"x\"))\n");
  const std::string want =
      absl::StrCat(Path("cast.rules"),
                   ":1:34: warning: pass offset '0x10' is not a plain decimal constant in the HTP "
                   "rule grammar (pass_spec ::= <name> | <name> '+' <integer_const>, the constant "
                   "decimal with no sign or suffix); the HTP's parser may reject it\n",
                   Path("cast.rules"),
                   ":2:6: warning: C-style cast '(int)' is not in the HTP rule grammar (typecast "
                   "::= INT(...) | UINT(...) | FLOAT(...)); the HTP's parser may reject it\n");
  Result r = Run({"rules", "check", Path("cast.rules")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, want);
  EXPECT_EQ(r.out, "1 rules, 0 op implementations, 0 errors, 2 warnings\n");
  r = Run({"optimize", kExample, "--rules", Path("cast.rules"), "-o", Path("out.json")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, StartsWith(want));
  EXPECT_TRUE(fs::exists(Path("out.json")));
}

TEST_F(CliTest, RulesCheckWarnsAboutFunctionsWithoutImplementation) {
  Result r = Run({"rules", "check", kPluginRules});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat("2 rules, 3 op implementations, 0 errors, 6 warnings, 2 rules not "
                                "run (",
                                kMissing, ")\n"));
  std::vector<std::string> lines = absl::StrSplit(r.err, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 6u) << r.err;
  EXPECT_EQ(lines[1], absl::StrCat(kPluginRules,
                                   ":26:18: warning: external function 'pad_total_for_qnn' has no "
                                   "SHAPEFN_APPLY implementation (not built in, registered or "
                                   "loaded from a --plugin): the rule EARLY+10@",
                                   kPluginRules, ":21 is kept but not run"));
  for (const std::string& l : lines) EXPECT_THAT(l, HasSubstr(": warning: external function '"));

  for (const char* cmd : {"check", "list", "dump"}) {
    std::vector<std::string> args = {"rules", cmd, kPluginRules, "--plugin", EGRET_EXAMPLE_PLUGIN};
    if (std::string(cmd) == "dump") args.push_back("--json");
    r = Run(args);
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
    EXPECT_EQ(r.err, "") << cmd;
  }
  EXPECT_EQ(Run({"rules", "check", "--plugin", EGRET_EXAMPLE_PLUGIN, kPluginRules}).out,
            "2 rules, 3 op implementations, 0 errors, 0 warnings\n");
}

TEST_F(CliTest, OptimizeSkipsRulesWithoutImplementationAndRunsThemWithAPlugin) {
  Result r = Run({"optimize", kPluginGraph, "--rules", kPluginRules, "--verify", "--report",
                  Path("skipped.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("rules: 0 compiled, 2 skipped (", kMissing, ")\n")));
  EXPECT_THAT(r.out, HasSubstr("ops: PoolMax2d 1 -> 1\n"));
  nlohmann::json rep = ReadJson("skipped.json");
  EXPECT_EQ(rep["rules_compiled"], 0);
  ASSERT_EQ(rep["rules_skipped"].size(), 2u) << rep.dump();
  EXPECT_EQ(rep["rules_skipped"][0]["rule"], absl::StrCat("EARLY+10@", kPluginRules, ":21"));
  EXPECT_EQ(rep["rules_skipped"][0]["missing_functions"][1],
            nlohmann::json({{"function", "pad_total_for_qnn"},
                            {"form", "SHAPEFN_APPLY"},
                            {"location", absl::StrCat(kPluginRules, ":26:18")}}));

  // With the plugin both rules run, and the result computes the same.
  r = Run({"optimize", kPluginGraph, "--rules", kPluginRules, "--plugin", EGRET_EXAMPLE_PLUGIN,
           "--verify", "--report", Path("report.json"), "-o", Path("out.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("rules: 2 compiled, 0 skipped\n"));
  EXPECT_THAT(r.out, HasSubstr("verify: ok"));
  rep = ReadJson("report.json");
  EXPECT_EQ(rep["rules_skipped"], nlohmann::json::array());
  EXPECT_EQ(rep["rule_issues"], nlohmann::json::array()) << rep["rule_issues"].dump();
  std::map<std::string, int64_t> applied;
  for (const auto& phase : rep["phases"]) {
    for (const auto& rule : phase["rules"])
      applied[rule["rule"]] += rule["applications"].get<int64_t>();
  }
  EXPECT_GT((applied[absl::StrCat("EARLY+10@", kPluginRules, ":21")]), 0) << rep["phases"].dump();
  EXPECT_GT((applied[absl::StrCat("EARLY+11@", kPluginRules, ":42")]), 0) << rep["phases"].dump();

  // Priced so that the rewritten forms win, the plugin's shapes decide the
  // result, and it still verifies.
  Write("costs.json", R"({"Pad": -100, "Slice_shape": -100})");
  r = Run({"optimize", kPluginGraph, "--rules", kPluginRules, "--plugin", EGRET_EXAMPLE_PLUGIN,
           "--verify", "--costs", Path("costs.json"), "-o", Path("forced.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify: ok"));
  EXPECT_THAT(r.out, HasSubstr("Pad 0 -> 1"));
  EXPECT_THAT(r.out, HasSubstr("Slice_shape 0 -> 1"));
}

// A C++ name in a constraint (SPECIAL_CONDITION) is not a function: the
// summaries list it apart from the functions with no implementation.
TEST_F(CliTest, SummariesListCppNamesApartFromMissingFunctions) {
  Write("cpp_names.rules", R"(
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("PoolMax2d", "In", "W", "S", "P"),
  AND(SPECIAL_CONDITION, MY_FLAG), Op("PoolMax2d", "In", "W", "S", "P"))
)");
  Write("both.rules", R"(
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("PoolMax2d", "In", "W", "S", "P"),
  SPECIAL_CONDITION, Op("PoolMax2d", "In", "W", "S", "P"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("PoolMax2d", "In", "W", "S", "P"),
  AND(SPECIAL_CONDITION, EXTERNAL_CONSTRAINT(my_check, "P")),
  Op("PoolMax2d", "In", SHAPEFN_APPLY(my_window, "W"), "S", "P"))
)");
  Result r = Run({"rules", "check", Path("cpp_names.rules")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "1 rules, 0 op implementations, 0 errors, 2 warnings, 1 rule not run (C++ names: "
            "SPECIAL_CONDITION, MY_FLAG)\n");
  constexpr char kBoth[] =
      "(no implementation of: my_check, my_window; C++ names: SPECIAL_CONDITION)";
  r = Run({"rules", "check", Path("both.rules")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat("2 rules, 0 op implementations, 0 errors, 4 warnings, 2 rules not "
                                "run ",
                                kBoth, "\n"));

  r = Run({"optimize", kPluginGraph, "--rules", Path("both.rules"), "--report", Path("both.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("rules: 0 compiled, 2 skipped ", kBoth, "\n")));
  nlohmann::json rep = ReadJson("both.json");
  ASSERT_EQ(rep["rules_skipped"].size(), 2u) << rep.dump();
  EXPECT_EQ(rep["rules_skipped"][0]["missing_functions"][0]["function"], "SPECIAL_CONDITION");
  EXPECT_EQ(rep["rules_skipped"][0]["missing_functions"][0]["form"], "cpp_name");
}

TEST_F(CliTest, BadPluginsExitTwoWithOneLine) {
  Write("libnot_a_plugin.so", "just text\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Path("absent.so"), "cannot open plugin: no such file"},
      {Path("libnot_a_plugin.so"), "cannot load plugin (not a loadable shared library?)"},
      {EGRET_BAD_PLUGIN_NO_ENTRY, "not an egret plugin"},
      {EGRET_BAD_PLUGIN_VERSION, "plugin ABI version 999, but this egret loads version 1"},
      {EGRET_BAD_PLUGIN_REGISTER, "egret_plugin_register failed: this plugin refuses to register"},
      {EGRET_BAD_PLUGIN_NAME, "bad name 'bad-name'"},
  };
  for (const auto& [plugin, what] : cases) {
    for (std::vector<std::string> args :
         {std::vector<std::string>{"rules", "check", kPluginRules},
          std::vector<std::string>{"optimize", kPluginGraph, "--rules", kPluginRules, "-o",
                                   Path("out.json")},
          std::vector<std::string>{"compare", kPluginGraph, "--rules", kPluginRules}}) {
      args.push_back("--plugin");
      args.push_back(plugin);
      Result r = Run(args);
      SCOPED_TRACE(absl::StrJoin(args, " "));
      EXPECT_EQ(r.code, 2);
      EXPECT_EQ(r.err, absl::StrCat(r.FirstErrLine(), "\n"));  // one line
      EXPECT_THAT(r.FirstErrLine(), StartsWith(absl::StrCat(plugin, ": error: ")));
      EXPECT_THAT(r.FirstErrLine(), HasSubstr(what));
      EXPECT_EQ(r.out, "");
      EXPECT_FALSE(fs::exists(Path("out.json")));
    }
  }
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

// `run --repeat N` runs N times in one process and adds the median of runs
// 2..N; `--profile` lists every op that ran with its node count, slowest
// first. The outputs are those of one run; a repeat count below 1 is a
// one-line usage error.
TEST_F(CliTest, RunRepeatsAndProfiles) {
  Result once = Run({"run", kExample, "--random", "3", "-o", Path("once")});
  ASSERT_EQ(once.code, 0) << once.err;
  EXPECT_THAT(once.out, Not(HasSubstr("time of runs")));
  Result r =
      Run({"run", kExample, "--random", "3", "--repeat", "3", "--profile", "-o", Path("thrice")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\ntime of runs 2-3: median "));
  EXPECT_THAT(r.out, HasSubstr("\nprofile of run 3 (op, nodes, ms, % of the run):\n"));
  // The example's ops (examples/residual_block.json) each have a line.
  for (const char* op : {"Conv2d", "Relu", "ElementWiseAdd"}) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("\n  ", op, " "))) << op;
  }
  EXPECT_EQ(once.out.substr(0, once.out.find("time: ")), r.out.substr(0, r.out.find("time: ")));
  for (const auto& e : fs::directory_iterator(Path("once"))) {
    EXPECT_EQ(*ReadFile(e.path().string()),
              *ReadFile(Path("thrice/" + e.path().filename().string())));
  }
  Result bad = Run({"run", kExample, "--repeat", "0"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.FirstErrLine(), HasSubstr("--repeat"));
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
}

// `run --save-inputs` writes the seeded inputs as --inputs reads them: a run on
// the saved files computes exactly the outputs of the seeded run. Both print
// the time of reading and of the run.
TEST_F(CliTest, RunSavesItsSeededInputsForAnotherRun) {
  Result seeded = Run(
      {"run", kExample, "--random", "7", "--save-inputs", Path("in"), "-o", Path("out_seeded")});
  ASSERT_EQ(seeded.code, 0) << seeded.err;
  EXPECT_THAT(seeded.out, HasSubstr("\ntime: read "));
  EXPECT_THAT(seeded.out, HasSubstr(" ms, run "));
  ASSERT_TRUE(fs::exists(Path("in/x.npy")));
  Result loaded = Run({"run", kExample, "--inputs", Path("in"), "-o", Path("out_loaded")});
  ASSERT_EQ(loaded.code, 0) << loaded.err;
  // The summaries agree up to the time line; the output files byte for byte.
  EXPECT_EQ(seeded.out.substr(0, seeded.out.find("time: ")),
            loaded.out.substr(0, loaded.out.find("time: ")));
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(Path("out_seeded"))) {
    ++files;
    EXPECT_EQ(*ReadFile(e.path().string()),
              *ReadFile(Path("out_loaded/" + e.path().filename().string())));
  }
  EXPECT_GT(files, 0u);
  // A different seed gives different inputs.
  ASSERT_EQ(Run({"run", kExample, "--random", "8", "--save-inputs", Path("in8")}).code, 0);
  EXPECT_NE(*ReadFile(Path("in/x.npy")), *ReadFile(Path("in8/x.npy")));
}

// The executor honours the memory limit too (`run`, `verify`, `optimize
// --verify`): over it the run fails with one line instead of growing. A limit
// hit is exit 1 (the input is fine); a bad limit is exit 2.
TEST_F(CliTest, ExecutorHonoursTheMemoryLimit) {
  // The inputs (2048 bytes) fit in 3K; the live values of the run do not.
  Result r = Run({"run", kExample, "--memory-limit", "3K"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.FirstErrLine(), StartsWith(absl::StrCat(kExample, ": error: node ")));
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("over the limit of 3072"));
  EXPECT_EQ(r.err, r.FirstErrLine() + "\n");
  r = Run({"verify", kExample, kExample, "--memory-limit", "3K"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.FirstErrLine(), HasSubstr("over the limit of 3072"));
  EXPECT_EQ(r.err, r.FirstErrLine() + "\n");
  r = Run({"run", kExample, "--memory-limit", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.FirstErrLine(), StartsWith("egret run: error: --memory-limit must be"));
  r = Run({"run", kExample, "--memory-limit", "64M"});
  EXPECT_EQ(r.code, 0) << r.err;
}

// The latency model from the command line: `egret cost --device` on the
// example, an unknown device naming the shipped ones, a device file made by
// `egret calibrate` from a measurement that names the example, and the
// one-line errors of malformed measurements.
TEST_F(CliTest, CostAndCalibrateOnTheExample) {
  Result r = Run({"cost", kExample, "--device", "snapdragon-8-gen-3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("^latency: [0-9.]+ ms \\(predicted for "
                                              "snapdragon-8-gen-3"));
  EXPECT_THAT(r.out, HasSubstr("time by op: Relu "));
  EXPECT_THAT(r.out, HasSubstr(", Conv2d "));
  EXPECT_THAT(r.out, HasSubstr(" HVX cycles (rule-cost model)\n"));
  r = Run({"cost", kExample, "--device", "snapdragon-1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown device 'snapdragon-1' (shipped: snapdragon-8-elite, "
                               "snapdragon-8-gen-3, snapdragon-x-elite"));
  r = Run({"optimize", kExample, "--device", "snapdragon-8-elite"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("latency before: "));
  EXPECT_THAT(r.out, HasSubstr(" ms (predicted for snapdragon-8-elite"));

  // The example as a measured network (copied under the name the row gives).
  fs::create_directories(Path("nets"));
  ASSERT_TRUE(ReadFile(kExample).ok());
  Run({"convert", kExample, "-o", Path("nets/block.onnx")});
  Write("m.tsv",
        "# a comment\nmodel\tprecision\tchipset\truntime\tinference_ms\n"
        "block\tfloat\tPhone 1\tqnn_dlc\t0.5\nmissing\tfloat\tPhone 1\tqnn_dlc\t1\n");
  r = Run({"calibrate", Path("m.tsv"), "--models", Path("nets"), "--chipset", "Phone 1", "-o",
           Path("phone.json"), "--no-cross-validate"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("calibrate: Phone 1, qnn_dlc: 1 measured networks (1 float); left "
                               "out 1 (no float network file)"));
  r = Run({"cost", Path("nets/block.onnx"), "--device", Path("phone.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("(predicted for phone-1,"));
  // A device path that is no regular file is refused at once, never read.
  r = Run({"cost", Path("nets/block.onnx"), "--device", Path("nets")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr(absl::StrCat(Path("nets"), ": error: is a directory")));

  Write("bad.tsv",
        "model\tprecision\tchipset\truntime\tinference_ms\n"
        "block\tfloat\tPhone 1\tqnn_dlc\tfast\n");
  r = Run({"calibrate", Path("bad.tsv"), "--models", Path("nets"), "--chipset", "Phone 1", "-o",
           Path("x.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.FirstErrLine(), absl::StrCat(Path("bad.tsv"),
                                           ":2:29: error: inference_ms 'fast' is not a positive "
                                           "number"));
  EXPECT_FALSE(fs::exists(Path("x.json")));
  Write("nohead.tsv", "model\tprecision\n");
  r = Run({"calibrate", Path("nohead.tsv"), "--models", Path("nets"), "--chipset", "Phone 1", "-o",
           Path("x.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("nohead.tsv:1:1: error: the header has no 'chipset' column"));
  r = Run({"calibrate", Path("m.tsv"), "--models", Path("nets"), "--chipset", "Phone 2", "-o",
           Path("x.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("no rows for chipset 'Phone 2' and runtime 'qnn_dlc' (chipsets "
                               "in the file: Phone 1)"));
}

}  // namespace
}  // namespace egret
