#include "egret/graph/onnx_reader.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace egret {

absl::StatusOr<Graph> ParseOnnx(std::string_view, std::string_view file, const OnnxImportOptions&) {
  return absl::UnimplementedError(absl::StrFormat("%s: error: ONNX import is being written", file));
}

absl::StatusOr<Graph> ReadOnnx(const std::string& path, const OnnxImportOptions& options) {
  return ParseOnnx("", path, options);
}

absl::StatusOr<Tensor> ReadOnnxTensor(const std::string& path, uint64_t) {
  return absl::UnimplementedError(path);
}

}  // namespace egret
