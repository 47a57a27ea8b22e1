// OnnxImportOptions::memory_limit_bytes and OnnxWriteOptions::memory_limit_bytes:
// the reader and the writer stop, with an error that names the file and says
// the figures, when the process holds more than the limit; without a limit,
// or under a generous one, the same model reads and writes.
#include <gtest/gtest.h>

#include <string>

#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/support/process_memory.h"
#include "onnx_builder.h"

namespace egret {
namespace {

using testing::OnnxBuilder;

std::string TwoReluModel() {
  OnnxBuilder b(17);
  b.Input("x", {1, 4});
  b.Node("Relu", {"x"}, {"y"});
  b.Node("Relu", {"y"}, {"z"});
  b.Output("z");
  return b.Bytes();
}

TEST(OnnxMemoryLimit, ReadingStopsOverTheLimit) {
  const std::string model = TwoReluModel();
  OnnxImportOptions options;
  options.memory_limit_bytes = 1;  // below what any process holds
  absl::StatusOr<Graph> g = ParseOnnx(model, "m.onnx", options);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(g.status().message().find("m.onnx: error: over the memory limit: "), 0u) << g.status();
  EXPECT_NE(g.status().message().find("GiB resident, the limit is 0.00 GiB"), std::string::npos)
      << g.status();
}

TEST(OnnxMemoryLimit, ReadsUnderTheLimitAndWithout) {
  const std::string model = TwoReluModel();
  OnnxImportOptions options;
  EXPECT_TRUE(ParseOnnx(model, "m.onnx", options).ok());  // 0: no limit
  options.memory_limit_bytes = ResidentBytes() + (int64_t{1} << 30);
  EXPECT_TRUE(ParseOnnx(model, "m.onnx", options).ok());
}

// OnnxWriteOptions::memory_limit_bytes: the writer stops the same way, and
// writes under a generous limit.
TEST(OnnxMemoryLimit, WritingStopsOverTheLimit) {
  absl::StatusOr<Graph> g = ParseOnnx(TwoReluModel(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  OnnxWriteOptions options;
  options.memory_limit_bytes = 1;
  absl::StatusOr<OnnxFiles> files = WriteOnnxFiles(*g, "out.onnx", options);
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(files.status().message().find("out.onnx: error: over the memory limit: "), 0u)
      << files.status();
  EXPECT_NE(files.status().message().find("GiB more to serialize"), std::string::npos)
      << files.status();
  options.memory_limit_bytes = ResidentBytes() + (int64_t{1} << 30);
  EXPECT_TRUE(WriteOnnxFiles(*g, "out.onnx", options).ok());
}

}  // namespace
}  // namespace egret
