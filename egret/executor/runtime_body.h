// Subgraph bodies imported at run time. An egret graph has static types, but
// the body of an ONNX SequenceMap maps sequence elements whose dims differ
// element to element. The importer keeps such a body as its ONNX text (node
// attribute kRuntimeBodyAttr: the serialized onnx::GraphProto, base64) and
// the kernel has it imported for each tuple of input types it meets, by the
// hook the ONNX stage installs (the backend cannot depend on that stage).
#ifndef EGRET_EXECUTOR_RUNTIME_BODY_H_
#define EGRET_EXECUTOR_RUNTIME_BODY_H_

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

// Imports the body that a node's attributes `attrs` hold (kRuntimeBodyAttr,
// and "onnx.opset") as a graph whose inputs have exactly the types `inputs`
// (its formal inputs, then the node's captured values) and whose outputs are
// the body's. Errors are one line; they name the body's op.
using RuntimeBodyImporter = absl::StatusOr<GraphPtr> (*)(const Attributes& attrs,
                                                         absl::Span<const TensorType> inputs);

// Installs the importer (the ONNX reader does, before it returns a graph
// that needs one). Thread-safe; the last one installed wins.
void SetRuntimeBodyImporter(RuntimeBodyImporter importer);

// The body of a node of op `op` for these input types, through the installed
// importer; kUnimplemented when none is installed or the node has no body.
absl::StatusOr<GraphPtr> ImportRuntimeBody(std::string_view op, const Attributes& attrs,
                                           absl::Span<const TensorType> inputs);

}  // namespace egret

#endif  // EGRET_EXECUTOR_RUNTIME_BODY_H_
