// Loading and saving graphs by file name: the one entry point the CLI and
// library users call, dispatching on the file's extension. Its own stage (io),
// above graph/ (JSON, DOT) and onnx/ (ONNX import), so that graph/ does not
// link protobuf and ONNX.
#ifndef EGRET_IO_GRAPH_IO_H_
#define EGRET_IO_GRAPH_IO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "egret/graph/graph.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/support/file_io.h"

namespace egret {

enum class GraphFormat {
  kJson,  // egret's JSON format (graph_json.h), extension .json
  kDot,   // Graphviz DOT (graph_dot.h), extension .dot; write only
  kOnnx,  // ONNX model (onnx_reader.h, onnx_writer.h), extension .onnx
};

// "json", "dot", "onnx".
std::string_view GraphFormatName(GraphFormat format);
// Inverse of GraphFormatName; nullopt for any other name.
std::optional<GraphFormat> ParseGraphFormat(std::string_view name);
// The format named by `path`'s extension (case-insensitive), or nullopt.
std::optional<GraphFormat> GraphFormatFromPath(std::string_view path);

// The format SaveGraph writes `path` in when none is given: its extension's;
// kInvalidArgument ("out.tflite: error: cannot tell which format to write
// ...") when the extension names none, for a front end to check before it
// does any work.
absl::StatusOr<GraphFormat> WriteFormatFromPath(std::string_view path);

// The format LoadGraph reads `path` in: its extension's, else its content's
// (io/file_kind.h); nullopt when neither says (an unreadable file, or one that
// is not regular: the reader's error says why). kInvalidArgument, naming what
// the file is and pointing to the ONNX export, for a format egret does not
// read.
absl::StatusOr<std::optional<GraphFormat>> DetectGraphFormat(const std::string& path);

// Reads the graph at `path` in the format of its extension, or, when the
// extension names none, of its content (io/file_kind.h). A file in a format
// egret does not read (a PyTorch checkpoint, TensorFlow Lite, HDF5, a zip,
// or unrecognized content without a known extension) is kInvalidArgument
// naming what it is and pointing to the ONNX export. Errors are one-line "file[:line:col]: error:
// ..." messages: kInvalidArgument for malformed content, kNotFound for an unreadable file,
// kResourceExhausted for a file over `max_file_bytes`, kUnimplemented for .dot (write only). .onnx
// files go to ReadOnnx (onnx_reader.h) with its default options and this size limit.
absl::StatusOr<Graph> LoadGraph(const std::string& path,
                                uint64_t max_file_bytes = kDefaultMaxFileBytes);

// The same, with the ONNX importer's options (symbolic input dims, layout;
// used for .onnx files only) and `onnx.max_file_bytes` as the size cap for
// every format.
absl::StatusOr<Graph> LoadGraph(const std::string& path, const OnnxImportOptions& onnx);

// Writes `graph` to `path` in `format` (by default, the format of the
// extension; an extension that names no format is kInvalidArgument and
// nothing is written), atomically. ONNX goes through
// WriteOnnxBytes (onnx_writer.h) with `onnx` and is checked by ONNX's checker
// before anything is written.
absl::Status SaveGraph(const Graph& graph, const std::string& path,
                       std::optional<GraphFormat> format = std::nullopt,
                       const OnnxWriteOptions& onnx = {});

// SaveGraph's files staged in `txn` (support/file_io.h), committed with the
// transaction's other files (all or none).
absl::Status StageGraph(const Graph& graph, const std::string& path, FileTransaction* txn,
                        std::optional<GraphFormat> format = std::nullopt,
                        const OnnxWriteOptions& onnx = {});

}  // namespace egret

#endif  // EGRET_IO_GRAPH_IO_H_
