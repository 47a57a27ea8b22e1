// Writing egret graphs as ONNX models (onnx::ModelProto, via Debian's libonnx).
//
// docs/onnx-export.md has the full op mapping. In short:
//   - models are written at ONNX opset kOnnxWriteOpset (17, the newest the
//     Debian checker knows; Gelu, opset 20, is written as its Erf form);
//   - every op of egret's table (docs/ops.md) becomes standard ONNX ops:
//     NHWC ops (Conv2d, pools, Resize, LRN, ...) are written as their NCHW
//     ONNX op between two Transposes, fused clamps as a following Clip (or
//     Relu), fused biases as Conv's bias; the graph's own inputs and outputs
//     keep their types, so a model imported from NCHW ONNX (whose boundary
//     Transposes are graph nodes) is NCHW again at its boundary; a last
//     pass (write_tidy.cc) then moves those Transposes through the ops that
//     run in any layout until they cancel, and removes Identity and dead
//     nodes;
//   - a quantized value is its stored integers; ops computing on real values
//     read it through DequantizeLinear and write it through QuantizeLinear
//     (per-axis encodings use the axis attribute); data movement on one
//     encoding moves the integers directly;
//   - constants are initializers, splat ones (one repeated element, at least
//     Writer::kMinSplatElements) ConstantOfShape nodes; opaque "onnx.<Op>" nodes are written back
//     as that op (domain "onnx.<domain>.<Op>") with their attributes;
//   - what no standard op expresses (an op outside the table, Pad mode 1,
//     16-bit quantization, grouped TransposeConv2d) is a node of the custom
//     domain "egret.htp" (16-bit QDQ: com.microsoft), unless
//     OnnxWriteOptions::standard_only, which fails naming the node;
//   - node names are egret's; the doc_string of the first ONNX node written
//     for an egret node carries its op, implementation, cost and provenance;
//   - doc strings and metadata_props carry records (egret_record_internal.h)
//     from which the importer reads the model back node for node.
//   - initializers of 1 KiB or more can go to an external data file
//     (WriteOnnxFiles; always, for a model over 2 GB).
#ifndef EGRET_ONNX_ONNX_WRITER_H_
#define EGRET_ONNX_ONNX_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "egret/graph/graph.h"

namespace egret {

inline constexpr int kOnnxWriteOpset = 17;
// The custom domain of ops ONNX lacks.
inline constexpr std::string_view kEgretOnnxDomain = "egret.htp";

struct OnnxWriteOptions {
  // Fail (kFailedPrecondition, naming the first such node) instead of
  // writing a node outside ONNX's default domain.
  bool standard_only = false;
  // WriteOnnxFiles: write initializers of kExternalDataMinBytes or more to
  // the external data file. Done regardless for a model that would
  // otherwise exceed protobuf's 2 GB.
  bool external_data = false;
  // Leave the records (docs/onnx-export.md "Records") in the file, from
  // which egret reads its own graph back node for node. Without them the
  // file is smaller (most of a small quantized model's bytes are records)
  // and reads back through the importer like any ONNX model.
  bool records = true;
  // The most this process may hold resident while writing (0: no limit):
  // checked before each large constant is converted and before the model is
  // serialized (with the bytes that will take); over it, the write stops
  // with kResourceExhausted naming the file, and nothing is returned.
  int64_t memory_limit_bytes = 0;
};

// Initializers at least this large go to the external data file.
inline constexpr uint64_t kExternalDataMinBytes = 1024;

// A written model and its external data (docs/onnx-export.md "External
// data"): `data`, when not empty, belongs in the file `data_name` beside the
// model, which names it in each moved initializer's external_data.
struct OnnxFiles {
  std::string model;
  std::string data_name;
  std::string data;
};

// The serialized ModelProto of `graph`, checked by onnx::checker::check_model.
// `file` names the destination in errors: "out.onnx: error: node 'p' (#3),
// op Pad: Pad mode 1 (symmetric) has no standard ONNX op (standard-only)".
// kInvalidArgument for a graph
// that does not validate, kUnimplemented for what cannot be written (a
// dtype ONNX lacks, a model over 2 GB), kInternal when the checker rejects
// the result (a writer defect); with standard_only, kFailedPrecondition
// for a node that needs another domain.
absl::StatusOr<std::string> WriteOnnxBytes(const Graph& graph, std::string_view file,
                                           const OnnxWriteOptions& options = {});

// As WriteOnnxBytes, for the model file `path`; its external data file is
// "<file name of path>.data". A model over 2 GB moves its large initializers
// there, whatever OnnxWriteOptions::external_data says (so only a model
// whose other parts exceed 2 GB is refused).
absl::StatusOr<OnnxFiles> WriteOnnxFiles(const Graph& graph, std::string_view path,
                                         const OnnxWriteOptions& options = {});

// onnx::checker::check_model on serialized model bytes; kInvalidArgument
// with the checker's message.
absl::Status CheckOnnxBytes(std::string_view bytes, std::string_view file);

// Whether `graph` can be written with standard_only: OK, or the error
// WriteOnnxBytes would give.
absl::Status CheckOnnxStandard(const Graph& graph, std::string_view file);

}  // namespace egret

#endif  // EGRET_ONNX_ONNX_WRITER_H_
