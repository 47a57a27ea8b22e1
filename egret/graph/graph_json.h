// egret's JSON graph format ("format": "egret-graph", "version": 1), described
// in full in docs/graph-format.md.
//
// A graph file holds the graph name, options, nodes (op, name, inputs by name,
// typed outputs, attributes, constant data), graph inputs and named graph
// outputs. Small "$Const" data is written inline as a JSON array of storage
// values; larger data goes to a binary sidecar file "<path>.<hash>.bin" (named
// by the FNV-1a hash of its contents) and is referenced by byte offset and
// length. Reading a written file gives back an
// equal graph (node ids follow the order of "nodes").
//
// Readers reject bad input with kInvalidArgument (or the ReadFile codes for
// unreadable or oversized files) and a one-line message:
//   "g.json:12:18: error: at /nodes/3/inputs/1: no node named 'foo'"
// giving the line and column of the offending JSON value and its JSON pointer.
#ifndef EGRET_GRAPH_GRAPH_JSON_H_
#define EGRET_GRAPH_GRAPH_JSON_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "egret/graph/graph.h"
#include "egret/support/file_io.h"

namespace egret {

// "$Const" tensors with more elements than this go to the sidecar by default.
inline constexpr int64_t kDefaultMaxInlineElements = 4096;

// Maximum nesting depth of arrays and objects accepted by the reader (a graph
// file needs 5); deeper input is rejected before it is parsed.
inline constexpr int kMaxJsonDepth = 64;

struct GraphWriteOptions {
  // Constants with more elements are written to the sidecar file.
  int64_t max_inline_elements = kDefaultMaxInlineElements;
};

// Reads the graph file at `path`; a sidecar it refers to is looked up in the
// same directory and must be a regular file there (a symbolic link is
// refused: support/file_io.h ReadFileInDir). Each file read is limited to `max_file_bytes`. The
// returned graph passes Validate().
absl::StatusOr<Graph> ReadGraphJson(const std::string& path,
                                    uint64_t max_file_bytes = kDefaultMaxFileBytes);

// Parses graph JSON `text`. `filename` is used in error messages only; a
// sidecar named in the text is read from directory `sidecar_dir` ("" means
// the current directory). Same contract as ReadGraphJson.
absl::StatusOr<Graph> ParseGraphJson(std::string_view text, std::string_view filename,
                                     std::string_view sidecar_dir,
                                     uint64_t max_file_bytes = kDefaultMaxFileBytes);

// Writes `graph` to `path`, and its large constants to the sidecar
// "<name>.<16 hex digits>.bin" beside it (only when there are some), named by
// the FNV-1a hash of the sidecar's contents. The pair is replaced so that
// readers see the old pair or the new one, never a mix: the new sidecar (a
// new name) is committed first, then the JSON naming it, then the sidecars of
// the replaced graph ("<name>.bin", "<name>.<16 hex>.bin") are removed. The
// JSON also records the sidecar's size and checksum. Nodes without a name get
// a generated unique one ("<op>_<id>"). Fails without writing anything when
// the graph does not pass Validate() or a file cannot be staged.
absl::Status WriteGraphJson(const Graph& graph, const std::string& path,
                            const GraphWriteOptions& options = {});

// WriteGraphJson's files staged in `txn` (support/file_io.h), to be committed
// with the other files of the transaction: a caller writing a graph and a
// report together commits both or neither.
absl::Status StageGraphJson(const Graph& graph, const std::string& path,
                            const GraphWriteOptions& options, FileTransaction* txn);

// The JSON text of `graph` with every constant inline (no sidecar), in the
// same normalized form WriteGraphJson writes. Fails when the graph does not
// pass Validate().
absl::StatusOr<std::string> GraphToJsonString(const Graph& graph);

}  // namespace egret

#endif  // EGRET_GRAPH_GRAPH_JSON_H_
