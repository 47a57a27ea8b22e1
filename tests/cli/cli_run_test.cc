// `egret run` (--repeat, --profile, --save-inputs), the executor's memory
// limit, and the latency model from the command line (cost, calibrate).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "egret/support/file_io.h"
#include "tests/cli/cli_test_util.h"

namespace egret {
namespace {

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
           Path("phone.json"), "--no-cross-validate", "--nodes", Path("nodes.tsv")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("calibrate: Phone 1, qnn_dlc: 1 measured networks (1 float); left "
                               "out 1 (no float network file)"));
  // Quantized networks are priced with quantized graph I/O unless --float-io;
  // the device file says which.
  EXPECT_THAT(r.out, HasSubstr("graph I/O: quantized networks priced with quantized graph I/O"));
  absl::StatusOr<std::string> phone = ReadFile(Path("phone.json"));
  ASSERT_TRUE(phone.ok());
  EXPECT_THAT(*phone, HasSubstr("quantized networks priced with quantized graph I/O"));
  r = Run({"calibrate", Path("m.tsv"), "--models", Path("nets"), "--chipset", "Phone 1", "-o",
           Path("phone-float-io.json"), "--no-cross-validate", "--float-io"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("graph I/O: every network priced with float graph I/O"));
  // --nodes: every priced node of each network, with its types and work.
  absl::StatusOr<std::string> nodes = ReadFile(Path("nodes.tsv"));
  ASSERT_TRUE(nodes.ok());
  EXPECT_THAT(*nodes, ::testing::StartsWith("model\tprecision\tmeasured_ms\tnode\top\timpl\t"));
  EXPECT_THAT(*nodes, ::testing::ContainsRegex("\nblock\tfloat\t0.5\t[0-9]+\tConv2d"));
  r = Run({"cost", Path("nets/block.onnx"), "--device", Path("phone.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("(predicted for phone-1,"));
  // A float graph has no quantized boundary: --quantized-io changes nothing.
  const std::string latency = r.out.substr(0, r.out.find('\n'));
  r = Run({"cost", Path("nets/block.onnx"), "--device", Path("phone.json"), "--quantized-io"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), latency);
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
