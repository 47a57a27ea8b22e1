// Runs the egret binary: info, --version and did-you-mean, --help, ops and
// convert, and their exit codes and one-line errors (helpers in cli_test_util.h;
// the other commands in cli_*_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/graph/graph_json.h"
#include "egret/support/file_io.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_test_util.h"

namespace egret {
namespace {

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

}  // namespace
}  // namespace egret
