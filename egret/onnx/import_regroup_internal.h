// Private to the onnx stage: reading a model egret wrote back as the egret
// graph it was written from, node for node (docs/onnx-export.md, "Records").
//
// Used by ParseOnnx before the plain import, for models whose producer_name
// is "egret" only. The graph is rebuilt from the records the writer left in
// the doc strings (egret_record_internal.h): one egret node per group of ONNX
// nodes, the values of constants from the initializers. It is then written
// again by the writer itself and accepted only when that reproduces the
// model's graph exactly (nodes with their op types, attributes, wiring and
// doc strings; initializers; inputs; outputs; value_info): a record that does
// not match what the ONNX nodes compute (a file edited by another tool) or
// that is malformed gives nullopt, never an error, and the caller imports the
// model as any other.
#ifndef EGRET_ONNX_IMPORT_REGROUP_INTERNAL_H_
#define EGRET_ONNX_IMPORT_REGROUP_INTERNAL_H_

#include <optional>

#include "egret/graph/graph.h"
#include "egret/onnx/onnx_reader.h"
#include "onnx/onnx_pb.h"

namespace egret::onnx_import {

std::optional<Graph> RegroupEgretModel(const onnx::ModelProto& model,
                                       const OnnxImportOptions& options);

}  // namespace egret::onnx_import

#endif  // EGRET_ONNX_IMPORT_REGROUP_INTERNAL_H_
