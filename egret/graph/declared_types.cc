#include "egret/graph/declared_types.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"

namespace egret {
namespace {

// Every parameter operand of `node` is a value known before running.
bool ParamsKnown(const Graph& g, const Node& node, const OpDef& def) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!def.IsParam(static_cast<int>(i))) continue;
    const std::string_view producer = g.node(node.inputs[i].node).op;
    if (!IsConstantOp(producer) && producer != kShapeOp) return false;
  }
  return true;
}

}  // namespace

absl::Status CheckDeclaredTypes(const Graph& g, NodeId id) {
  const Node& node = g.node(id);
  // Graph inputs and constants declare their types; nothing computes them.
  if (node.op == kInputOp || IsConstantOp(node.op) || node.op == kShapeOp) {
    return absl::OkStatus();
  }
  const OpDef* def = FindOpDef(node.op);
  if (def == nullptr || !ParamsKnown(g, node, *def)) return absl::OkStatus();
  absl::StatusOr<std::vector<TensorType>> inferred = InferNodeOutputTypes(g, id);
  if (!inferred.ok()) return absl::InvalidArgumentError(inferred.status().message());
  // A multi-output node may declare one Multi type: its outputs are then
  // whatever the op computes.
  if (node.outputs.size() == 1 && node.outputs[0].dtype == DType::kMulti) {
    return absl::OkStatus();
  }
  const std::string op(BaseOpName(node.op));
  if (inferred->size() != node.outputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": declares ", node.outputs.size(),
                                                   " outputs, its inputs give ", inferred->size()));
  }
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if ((*inferred)[k] == node.outputs[k]) continue;
    return absl::InvalidArgumentError(absl::StrCat(op, ": declares output ", k, " ",
                                                   node.outputs[k].ToString(), ", its inputs give ",
                                                   (*inferred)[k].ToString()));
  }
  return absl::OkStatus();
}

absl::Status CheckAllDeclaredTypes(const Graph& g, NodeId* culprit) {
  if (culprit != nullptr) *culprit = kNoNode;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (absl::Status s = CheckDeclaredTypes(g, id); !s.ok()) {
      if (culprit != nullptr) *culprit = id;
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace egret
