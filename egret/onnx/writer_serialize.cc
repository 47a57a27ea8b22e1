// Writing an egret graph as ONNX bytes or files (onnx_writer.h): the Writer
// makes the model (onnx_writer.cc), which is checked by ONNX's checker,
// its large initializers moved to external data when asked (or when over
// protobuf's 2 GB), and serialized; CheckOnnxBytes and CheckOnnxStandard.
#include <exception>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "egret/onnx/external_data_internal.h"
#include "egret/onnx/memory_limit_internal.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/onnx/writer_internal.h"
#include "egret/support/status_macros.h"
#include "onnx/checker.h"

namespace egret {

namespace {

absl::Status CheckModel(const onnx::ModelProto& model, std::string_view file) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(file), ": error: the ONNX checker rejects the model: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckOnnxBytes(std::string_view bytes, std::string_view file) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(file), ": error: not a serialized ONNX model"));
  }
  return CheckModel(model, file);
}

namespace {

bool OverProtobufLimit(const onnx::ModelProto& model) {
  return model.ByteSizeLong() > static_cast<size_t>(std::numeric_limits<int32_t>::max());
}

// The checked bytes of `model` (kInternal when the checker rejects it: a
// writer defect). The checker runs on the model in memory, before its
// initializers move to external data, whose file is not written yet.
absl::StatusOr<std::string> Serialize(onnx::ModelProto model, std::string_view file,
                                      std::string* external_data, const std::string& data_name,
                                      int64_t memory_limit_bytes) {
  if (absl::Status s = CheckModel(model, file); !s.ok()) return absl::InternalError(s.message());
  // The serialized bytes (the model's, or its external data's) are a second
  // copy of the initializers while the model still holds them.
  if (absl::Status s = onnx_internal::CheckMemoryLimit(memory_limit_bytes,
                                                       static_cast<int64_t>(model.ByteSizeLong()));
      !s.ok()) {
    return absl::ResourceExhaustedError(
        absl::StrCat(std::string(file), ": error: ", std::string(s.message())));
  }
  if (external_data != nullptr) {
    *external_data = onnx_internal::MoveToExternalData(&model, data_name, kExternalDataMinBytes);
  }
  std::string bytes;
  if (OverProtobufLimit(model) || !model.SerializeToString(&bytes)) {
    return absl::UnimplementedError(absl::StrCat(
        std::string(file), ": error: the model is over 2 GB",
        external_data == nullptr ? " (protobuf's limit); write it with its initializers as "
                                   "external data"
                                 : " without its external data (protobuf's limit)"));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<std::string> WriteOnnxBytes(const Graph& graph, std::string_view file,
                                           const OnnxWriteOptions& options) {
  onnx_export::Writer w(graph, std::string(file), options);
  EGRET_ASSIGN_OR_RETURN(onnx::ModelProto model, w.Run());
  return Serialize(std::move(model), file, nullptr, "", options.memory_limit_bytes);
}

absl::StatusOr<OnnxFiles> WriteOnnxFiles(const Graph& graph, std::string_view path,
                                         const OnnxWriteOptions& options) {
  onnx_export::Writer w(graph, std::string(path), options);
  EGRET_ASSIGN_OR_RETURN(onnx::ModelProto model, w.Run());
  OnnxFiles files;
  const bool external = options.external_data || OverProtobufLimit(model);
  if (external) {
    files.data_name = absl::StrCat(std::filesystem::path(path).filename().string(), ".data");
  }
  EGRET_ASSIGN_OR_RETURN(files.model,
                         Serialize(std::move(model), path, external ? &files.data : nullptr,
                                   files.data_name, options.memory_limit_bytes));
  if (files.data.empty()) files.data_name.clear();
  return files;
}

absl::Status CheckOnnxStandard(const Graph& graph, std::string_view file) {
  OnnxWriteOptions options;
  options.standard_only = true;
  onnx_export::Writer w(graph, std::string(file), options);
  return w.Run().status();
}

}  // namespace egret
