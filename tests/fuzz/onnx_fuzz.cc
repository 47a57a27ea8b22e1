// libFuzzer target for the ONNX reader and importer: the input is a
// serialized ModelProto, imported (with constant folding) as `egret info`
// would with --default-dim 2. Bad input must give one error line; an imported
// graph must pass Validate().
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "egret/graph/graph.h"
#include "egret/onnx/onnx_reader.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using egret::fuzz::Check;
  egret::OnnxImportOptions options;
  options.default_dim = 2;
  options.max_file_bytes = uint64_t{1} << 20;
  absl::StatusOr<egret::Graph> g =
      egret::ParseOnnx(egret::fuzz::AsText(data, size), "fuzz.onnx", options);
  if (!g.ok()) {
    egret::fuzz::CheckErrorLine(std::string(g.status().message()));
    return 0;
  }
  Check(g->Validate().ok(), "an imported graph fails Validate()");
  return 0;
}
