// Private to the onnx stage: ONNX external data, the tensors a model keeps in
// a file beside itself (TensorProto.data_location EXTERNAL, external_data
// "location", "offset", "length"), as exporters write every model over
// protobuf's 2 GB limit and often smaller ones (docs/onnx-import.md,
// docs/onnx-export.md "External data").
#ifndef EGRET_ONNX_EXTERNAL_DATA_INTERNAL_H_
#define EGRET_ONNX_EXTERNAL_DATA_INTERNAL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace egret::onnx_internal {

// Whether any initializer or node tensor attribute (a Constant's or
// ConstantOfShape's `value`, ...) of the main graph is external.
bool HasExternalData(const onnx::ModelProto& model);

// Reads every external tensor of the main graph (those HasExternalData
// looks at) into its raw_data, leaving it as if it had been
// stored inline. A location must be a plain file name in `dir` (no '/'; a
// symbolic link is refused unfollowed: egret/support/file_io.h FileInDir);
// each tensor's bytes are read alone (the rest of the file is not loaded),
// at most `max_bytes` over all tensors; offset and length must lie inside
// the file. Errors (kInvalidArgument, kNotFound, kResourceExhausted) name
// the tensor and the file, without a "file: error:" prefix.
absl::Status LoadExternalData(onnx::ModelProto* model, const std::string& dir, uint64_t max_bytes);

// Moves the raw_data of every initializer of at least `min_bytes` into one
// blob, returned, replacing it by external_data {location = `location`,
// offset, length}; offsets are multiples of 64.
std::string MoveToExternalData(onnx::ModelProto* model, const std::string& location,
                               uint64_t min_bytes);

}  // namespace egret::onnx_internal

#endif  // EGRET_ONNX_EXTERNAL_DATA_INTERNAL_H_
