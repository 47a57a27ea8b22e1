#include "egret/io/file_kind.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_format.h"

namespace egret {

FileKind ClassifyFileHead(std::string_view head) {
  if (head.starts_with("PK\x03\x04")) {
    // torch.save writes "<archive>/data.pkl" early in the archive.
    return head.find("data.pkl") != std::string_view::npos ? FileKind::kPyTorchZip : FileKind::kZip;
  }
  if (head.size() >= 8 && head.substr(4, 4) == "TFL3") return FileKind::kTfLite;
  if (head.starts_with("\x89HDF\r\n\x1a\n")) return FileKind::kHdf5;
  if (head.size() >= 2 && head[0] == '\x80' && head[1] >= 2 && head[1] <= 5) {
    return FileKind::kPyTorchPickle;  // pickle protocol 2..5
  }
  for (char c : head) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == '{') return FileKind::kEgretJson;
    break;
  }
  if (!head.empty()) {
    // ModelProto's fields 1..8 and 14 (ir_version, producer_name, ...,
    // graph, opset_import, metadata_props) as a protobuf key byte.
    switch (static_cast<unsigned char>(head[0])) {
      case 0x08:
      case 0x12:
      case 0x1a:
      case 0x22:
      case 0x28:
      case 0x32:
      case 0x3a:
      case 0x42:
      case 0x72:
        return FileKind::kOnnx;
      default:
        break;
    }
  }
  return FileKind::kOther;
}

absl::StatusOr<std::string> ReadFileHead(const std::string& path, size_t n) {
  // Never open a FIFO or a device: opening one can block, and reading one
  // can consume what a reader after us needs.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::FailedPreconditionError(absl::StrFormat("%s: error: is not a regular file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrFormat("%s: error: cannot open the file", path));
  }
  std::string head(n, '\0');
  in.read(head.data(), static_cast<std::streamsize>(n));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

std::string ForeignFileAdvice(FileKind kind, std::string_view path) {
  switch (kind) {
    case FileKind::kEgretJson:
    case FileKind::kOnnx:
      return "";
    case FileKind::kPyTorchZip:
    case FileKind::kPyTorchPickle:
      return "this is a PyTorch checkpoint (torch.save), not a graph egret reads; export the "
             "model to ONNX (torch.onnx.export(model, example_input, \"model.onnx\")), then give "
             "egret the .onnx file";
    case FileKind::kTfLite:
      return absl::StrFormat(
          "this is a TensorFlow Lite model, not a graph egret reads; convert it to ONNX "
          "(python -m tf2onnx.convert --tflite %s --output model.onnx), then give egret the "
          ".onnx file",
          path);
    case FileKind::kHdf5:
      return "this is an HDF5 file (a Keras .h5 model?), not a graph egret reads; convert the "
             "model to ONNX (tf2onnx), then give egret the .onnx file";
    case FileKind::kZip:
      return "this is a zip archive, not a graph egret reads; egret reads ONNX models (.onnx) "
             "and its own JSON graphs (.json)";
    case FileKind::kOther:
      return "egret does not recognize this file; it reads ONNX models (.onnx) and its own "
             "JSON graphs (.json)";
  }
  return "";
}

}  // namespace egret
