// Reading ONNX models (onnx::ModelProto, via Debian's libonnx) into egret graphs.
//
// Each ONNX op is mapped onto egret's op vocabulary (docs/ops.md); the full
// table and the layout rules are in docs/onnx-import.md. In short:
//   - initializers, Constant and ConstantOfShape (with a constant shape) become
//     "$Const" nodes; a node whose inputs are all constants (shape arithmetic,
//     Cast of fp16 weights, ...) is computed at import by the reference
//     executor and becomes a constant too;
//   - If with a constant condition is replaced by its taken branch; LSTM, GRU
//     and RNN over short static sequences are unrolled;
//   - with OnnxImportOptions::nhwc (the default), 4-D activations are NHWC and
//     convolution filters [fh, fw, in_depth/groups, out_depth], as the HTP
//     expects; the graph's 4-D inputs and outputs keep their ONNX (NCHW) types,
//     with a Transpose at the boundary, and ops whose meaning depends on the
//     element order (a Reshape that mixes channel and spatial dims, an opaque
//     op) get their operand back in NCHW order, so the result is exact;
//   - every tensor gets a type and dims from egret's shape functions;
//   - an op egret cannot map is kept as an opaque node whose op string is
//     "onnx.<OpType>" (e.g. "onnx.LRN"; "onnx.<domain>.<OpType>" for another
//     domain), with the ONNX attributes as node attributes and its output types
//     from ONNX's shape inference or the model's value_info. Its inputs and
//     outputs are in ONNX layout. Bodies of opaque If/Loop/Scan nodes are not
//     imported.
// Nodes are emitted in topological order whatever the order in the file, and
// nodes no graph output depends on are dropped.
// A model egret wrote (producer_name "egret") is read back node for node
// from the records the writer left in it when they verify (the writer must
// reproduce the file from the rebuilt graph; docs/onnx-export.md "Records");
// otherwise, or with options other than the defaults for layout and inputs,
// it is imported as above.
#ifndef EGRET_ONNX_ONNX_READER_H_
#define EGRET_ONNX_ONNX_READER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"
#include "egret/support/file_io.h"

namespace egret {

struct OnnxImportOptions {
  // Convert 4-D activations to NHWC and convolution weights to
  // [fh, fw, in_depth/groups, out_depth]. When false, tensors keep the ONNX
  // layout and layout-dependent ops (Conv, pools, BatchNormalization on
  // 4-D, Resize, ...) become opaque.
  bool nhwc = true;
  // Sizes of symbolic graph-input dims (dim_param), by name, e.g. {"N", 1}.
  std::map<std::string, int64_t, std::less<>> dim_params;
  // Size of a symbolic or unknown input dim not in dim_params; 0 rejects it.
  int64_t default_dim = 0;
  // Whole shapes of graph inputs, by name (e.g. {"input", {1, 512}}): for an
  // input whose dims are unnamed or unknown. The rank and every static dim
  // the model declares must agree.
  std::map<std::string, Dims, std::less<>> input_shapes;
  // What a symbolic-dim error tells the user to give; a front end names its
  // own flags here (the CLI: "--dim NAME=N, --default-dim N or --input-shape
  // INPUT=AxB").
  std::string symbolic_dim_hint = "OnnxImportOptions::dim_params, default_dim or input_shapes";
  // Also end that error with a ready-to-paste line of the CLI's flags that
  // size every unsized dim with 1 ("e.g. --dim batch=1 --input-shape
  // state=2x1x128"): set by the CLI, whose flags these are.
  bool suggest_cli_flags = false;
  // Graph inputs to freeze: each named input becomes a constant with this
  // value (whose type must match the input's) and is no longer a graph input.
  std::map<std::string, Tensor, std::less<>> input_values;
  // The same given as numbers: the input becomes a constant of its declared
  // type holding them (one per element, or one for all), e.g. {"sr", {16000}}
  // so that control flow on the sample rate folds away.
  std::map<std::string, std::vector<double>, std::less<>> input_numbers;
  // Cap on the model file's size.
  uint64_t max_file_bytes = kDefaultMaxFileBytes;
  // Cap on the bytes of its external data (the weights of a model over
  // protobuf's 2 GB, an LLM's): read tensor by tensor, never the file whole.
  uint64_t max_external_bytes = kDefaultMaxExternalBytes;
  // The most this process may hold resident while reading (0: no limit):
  // checked after the external data is read and before each node is
  // imported; over it, the import stops with kResourceExhausted naming the
  // file ("... over the memory limit ...").
  int64_t memory_limit_bytes = 0;
  // What that error tells the user, in parentheses at its end, when set (the
  // CLI names its flag).
  std::string memory_limit_hint;
};

// Reads the ONNX model at `path`. A name in `options` (dim_params,
// input_shapes, input_values, input_numbers) that is no graph input or
// symbolic dim is kInvalidArgument, listing the real ones; graph input dims
// without a size (symbolic or unknown, and not given) are kUnimplemented,
// listing every one. Errors are one line naming the file and,
// where there is one, the ONNX node:
//   "model.onnx: error: node 'conv1' (Conv): weight must be 4-D, got [3,3]".
// kInvalidArgument: malformed protobuf or a model that breaks ONNX's rules;
// kUnimplemented: a valid model egret cannot represent (an element type egret
// lacks, an unmapped op whose output type is unknown);
// kNotFound / kResourceExhausted as for ReadFile. External tensor data is
// read from files beside `path` (docs/onnx-import.md "External data").
absl::StatusOr<Graph> ReadOnnx(const std::string& path, const OnnxImportOptions& options = {});

// ReadOnnx on serialized ModelProto bytes; `file` names them in errors.
// External tensor data is kUnimplemented (there is no directory to read it
// from).
absl::StatusOr<Graph> ParseOnnx(std::string_view bytes, std::string_view file,
                                const OnnxImportOptions& options = {});

// A graph input as the model declares it, without importing the model: its
// name, element type ("FLOAT", ...) and dims, each a size, the name of a
// symbolic dim or "?" (unknown); `dims` is empty for a scalar, and
// `has_shape` false when the model declares no shape.
struct OnnxInputSignature {
  std::string name;
  std::string elem_type;
  std::vector<std::string> dims;
  bool has_shape = true;
};
// The graph inputs of the model at `path` that are not initializers. Errors
// as ReadOnnx's for an unreadable or malformed file.
absl::StatusOr<std::vector<OnnxInputSignature>> ReadOnnxInputSignature(
    const std::string& path, uint64_t max_file_bytes = kDefaultMaxFileBytes);

// True when the importer maps the default-domain ONNX op type `op_type` (e.g.
// "Conv", "Gemm") onto egret ops instead of keeping it opaque. The op table's
// rows (graph/op_table.h) list the ONNX ops they come from; a test checks
// each against this.
bool IsOnnxOpMapped(std::string_view op_type);

// Reads a serialized onnx::TensorProto (the .pb files of ONNX's test data)
// into a Tensor. ONNX element types map to egret dtypes as FLOAT -> Float32,
// FLOAT16 -> Float16, DOUBLE -> Float64, BFLOAT16 -> BFloat16, INT32 -> Int32,
// INT64 -> Int64, UINT32 -> UInt32, UINT64 -> UInt64, BOOL -> Bool,
// UINT8/INT8/UINT16/INT16 -> QUInt8/QInt8/QUInt16/QInt16 with zero_offset 0 and
// stepsize 1 (the same numbers), STRING -> String (Tensor::strings()); other
// types (complex, 4-bit and 8-bit floats) are kUnimplemented.
absl::StatusOr<Tensor> ReadOnnxTensor(const std::string& path,
                                      uint64_t max_file_bytes = kDefaultMaxFileBytes);

// Reads a serialized ONNX value of `type` (the test data of a model whose
// inputs or outputs are sequences or optionals): for a tensor type, a
// TensorProto as ReadOnnxTensor reads it (its dims are not checked against
// `type`); for a sequence, a SequenceProto of tensors; for an optional, an
// OptionalProto holding a tensor or such a sequence, or nothing. The result
// is a Tensor of the container type (Tensor::Container); an element of
// another dtype is kInvalidArgument.
absl::StatusOr<Tensor> ReadOnnxValue(const std::string& path, const TensorType& type,
                                     uint64_t max_file_bytes = kDefaultMaxFileBytes);

}  // namespace egret

#endif  // EGRET_ONNX_ONNX_READER_H_
