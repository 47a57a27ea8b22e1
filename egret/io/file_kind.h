// What a file holds, from its first bytes: so that a model in a format egret
// does not read (a PyTorch checkpoint, a TensorFlow Lite flatbuffer, a Keras
// HDF5 file) gets a message naming it and pointing to the ONNX export,
// instead of "invalid JSON: syntax error", and a graph file with an unusual
// extension is still read by what it is.
#ifndef EGRET_IO_FILE_KIND_H_
#define EGRET_IO_FILE_KIND_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace egret {

enum class FileKind {
  kEgretJson,      // text starting with '{' (after white space)
  kOnnx,           // a protobuf whose first field is one of ModelProto's
  kPyTorchZip,     // torch.save's zip archive (a zip holding data.pkl)
  kPyTorchPickle,  // a legacy torch.save pickle
  kTfLite,         // a TensorFlow Lite flatbuffer ("TFL3")
  kHdf5,           // HDF5 (Keras .h5)
  kZip,            // another zip archive
  kOther,          // anything else
};

// Classifies `head`, the first bytes of a file (512 are enough).
FileKind ClassifyFileHead(std::string_view head);

// The first bytes of the regular file at `path` (at most `n`). A FIFO, a
// device or a directory is not opened (kFailedPrecondition).
absl::StatusOr<std::string> ReadFileHead(const std::string& path, size_t n = 512);

// For a kind egret does not read, what it is and what to do:
//   "this is a TensorFlow Lite model, not a graph egret reads; convert it to
//   ONNX (python -m tf2onnx.convert --tflite model.tflite --output
//   model.onnx), then give egret the .onnx file"
// "" for kEgretJson and kOnnx.
std::string ForeignFileAdvice(FileKind kind, std::string_view path);

}  // namespace egret

#endif  // EGRET_IO_FILE_KIND_H_
