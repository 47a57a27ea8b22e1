// Reading and writing graphs by file name: egret's JSON format
// (docs/graph-format.md, extension .json), ONNX models (.onnx, read only,
// docs/onnx-import.md) and Graphviz DOT (.dot, write only).
#ifndef EGRET_API_GRAPH_FILES_H_
#define EGRET_API_GRAPH_FILES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "egret/graph/graph.h"

namespace egret::api {

// Reads the graph at `path` in the format of its extension (JSON for an
// unknown one). Errors are one-line "file[:line:col]: error: ..." messages:
// kInvalidArgument for malformed content, kNotFound for an unreadable file,
// kResourceExhausted for a file over 1 GiB, kUnimplemented for .dot.
absl::StatusOr<Graph> LoadGraph(const std::string& path);

// Writes `graph` to `path` in the format of its extension (JSON for an
// unknown one), atomically (a failed write leaves no partial file).
// kUnimplemented for .onnx.
absl::Status SaveGraph(const Graph& graph, const std::string& path);

}  // namespace egret::api

#endif  // EGRET_API_GRAPH_FILES_H_
