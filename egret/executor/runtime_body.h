// Subgraph bodies imported at run time. An egret graph has static types, but
// the body of an ONNX SequenceMap maps sequence elements whose dims differ
// element to element, and a Loop's carried value may grow each trip. The
// importer keeps such a body as its ONNX text (the serialized
// onnx::GraphProto, base64: kRuntimeBodyAttr for SequenceMap, a kept graph
// for an If or Loop whose bodies it could not import) and the kernel has it
// imported for each tuple of input types it meets, by the hook the ONNX stage
// installs (the executor cannot depend on that stage).
#ifndef EGRET_EXECUTOR_RUNTIME_BODY_H_
#define EGRET_EXECUTOR_RUNTIME_BODY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/graph.h"

namespace egret {

// Node attributes of a body imported at run time: the body (a serialized
// onnx::GraphProto, base64), and the names by which it reads its node's
// captured values (kCapturedAttr), comma separated.
inline constexpr std::string_view kRuntimeBodyAttr = "onnx.runtime_body";
inline constexpr std::string_view kRuntimeBodyCapturedAttr = "onnx.runtime_body_captured";

// Subgraphs the importer kept as ONNX because it could not import them
// (egret/onnx/kept_graph_internal.h): attribute `name`'s GraphProto,
// serialized and base64, under kKeptGraphAttrPrefix + name, and in
// kKeptReadsAttr (EncodeStringList) the names by which the kept graphs read
// the node's captured values, in the order of those inputs.
inline constexpr std::string_view kKeptGraphAttrPrefix = "onnx.graph.";
inline constexpr std::string_view kKeptReadsAttr = "onnx.kept_reads";

// kKeptGraphAttrPrefix + name: where subgraph attribute `name` is kept.
std::string KeptGraphKey(std::string_view name);

// Whether `attrs` keep subgraph attribute `name` as ONNX.
bool HasKeptGraph(const Attributes& attrs, std::string_view name);

// Imports the body that attribute `key` of a node's attributes `attrs` holds
// (kRuntimeBodyAttr, or kKeptGraphAttrPrefix + a subgraph's name), with the
// node's "onnx.opset", as a graph whose inputs have exactly the types
// `inputs`: the body's own inputs, then (a kept graph) one per name of
// kKeptReadsAttr. Its outputs are the body's, typed by the import. Errors
// are one line.
using RuntimeBodyImporter = absl::StatusOr<GraphPtr> (*)(const Attributes& attrs,
                                                         std::string_view key,
                                                         absl::Span<const TensorType> inputs);

// Installs the importer (the ONNX reader does, before it returns a graph
// that needs one). Thread-safe; the last one installed wins.
void SetRuntimeBodyImporter(RuntimeBodyImporter importer);

// The body attribute `key` of a node of op `op` holds, for these input
// types, through the installed importer; kUnimplemented when none is
// installed or the node has no such attribute. Errors name the op.
absl::StatusOr<GraphPtr> ImportRuntimeBody(std::string_view op, const Attributes& attrs,
                                           std::string_view key,
                                           absl::Span<const TensorType> inputs);

}  // namespace egret

#endif  // EGRET_EXECUTOR_RUNTIME_BODY_H_
