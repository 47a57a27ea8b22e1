// Private to the onnx stage: the records the writer leaves in the ONNX files
// it writes so that the importer can read each egret node back as itself
// (docs/onnx-export.md, "Records"). Doc strings hold one tag per line:
//   "egret-group <id>"        on every ONNX node written for egret node <id>;
//   "egret-record <json>"     on the first of them, on each graph input and on
//                             each initializer of a "$Const": a small egret
//                             graph (graph/graph_json.h, one line) holding the
//                             node, see NodeRecord;
//   "egret-permuted <perm>"   on an initializer holding a constant transposed
//                             at write time (out dim d = dim perm[d]), with the
//                             record of the constant it was made from;
//   "egret-record-before <json>" on a node (or the graph's doc string, at the
//                             end) for an egret node whose ONNX nodes the
//                             writer's tidy pass removed (write_tidy.cc): the
//                             record of a group read just before this node;
//   "egret-splat"             on a ConstantOfShape node that stands for a
//                             splat initializer of the same name, followed by
//                             that initializer's doc string;
// and the model's metadata_props hold kGraphKey -> GraphRecord.
#ifndef EGRET_ONNX_EGRET_RECORD_INTERNAL_H_
#define EGRET_ONNX_EGRET_RECORD_INTERNAL_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "egret/graph/graph.h"
#include "onnx/onnx_pb.h"

namespace egret::onnx_record {

inline constexpr char kGroupTag[] = "egret-group ";
inline constexpr char kRecordTag[] = "egret-record ";
inline constexpr char kPermutedTag[] = "egret-permuted ";
inline constexpr char kSplatTag[] = "egret-splat";
inline constexpr char kBeforeTag[] = "egret-record-before ";
// Names of record inputs that stand for ONNX tensors start with this.
inline constexpr char kTensorPrefix[] = "%";
// Record copies of unnamed "$Shape" and "$Const" nodes are named this + the
// node's id; the reader gives them back their empty name.
inline constexpr char kUnnamedPrefix[] = "#";

// Model metadata_props key of the graph record (GraphRecord).
inline constexpr char kGraphKey[] = "egret.graph";

// The text after `tag` on the first line of `doc` that starts with it.
std::optional<std::string_view> DocLine(std::string_view doc, std::string_view tag);

// The record of node `id` of `g`: a graph holding a copy of the node whose
// inputs are
//   - "$Shape" producers: copies of them (same name, kUnnamedPrefix + id
//     when unnamed, and type);
//   - "$Const" producers of parameter inputs (op_table.h OpDef::IsParam),
//     which ONNX holds as attributes only: copies of them, data included;
//   - any other value: an "*Input" named "%" + its ONNX tensor name
//     (`onnx_name`), typed as the value;
// and whose graph outputs are the node's outputs in order, named by their
// ONNX tensor names. One line of graph JSON.
absl::StatusOr<std::string> NodeRecord(const Graph& g, NodeId id,
                                       const std::function<std::string(ValueRef)>& onnx_name);

// The record of a graph input or constant: a graph with one "*Input" named
// `egret_name` of type `type` carrying the value's `provenance`, output named
// `onnx_name`.
absl::StatusOr<std::string> ValueRecord(const std::string& egret_name, const TensorType& type,
                                        const std::string& onnx_name, const Provenance& provenance);

// The record of the graph itself: a graph with no nodes holding `g`'s name
// and options (graph-format.md "options"), which ONNX has no place for.
absl::StatusOr<std::string> GraphRecord(const Graph& g);

// Removes every record from `model` (OnnxWriteOptions::records false): the
// tagged lines above from the doc strings of nodes, initializers and graph
// inputs (a node's first line, "egret op ...", stays) and the graph record
// from metadata_props. The model then reads back through the importer.
void StripRecords(onnx::ModelProto* model);

}  // namespace egret::onnx_record

#endif  // EGRET_ONNX_EGRET_RECORD_INTERNAL_H_
