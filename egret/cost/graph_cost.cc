#include "egret/cost/graph_cost.h"

#include <cstdint>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "egret/graph/dtype.h"

namespace egret::cost {

NodeCost NodeCostOf(const HvxCostModel& model, std::string_view op,
                    absl::Span<const TensorType> outputs, absl::Span<const TensorType> inputs) {
  int64_t out_bytes = 0, in_bytes = 0;
  std::string_view dtype = "UNKNOWN";
  for (const TensorType& t : outputs) out_bytes += t.byte_size();
  for (const TensorType& t : inputs) in_bytes += t.byte_size();
  if (!outputs.empty()) dtype = DTypeName(outputs[0].dtype);
  return model.Cost(op, dtype, out_bytes, in_bytes);
}

NodeCost GraphNodeCost(const HvxCostModel& model, const Graph& g, const Node& n) {
  absl::InlinedVector<TensorType, 8> ins;
  for (const ValueRef& v : n.inputs) {
    if (g.node(v.node).op != kShapeOp) ins.push_back(g.TypeOf(v));
  }
  return NodeCostOf(model, n.op, n.outputs, ins);
}

double GraphCost(const Graph& g, const HvxCostModel& model, std::string* missing_op) {
  double total = 0;
  for (const Node& n : g.nodes()) {
    NodeCost c = GraphNodeCost(model, g, n);
    if (!c.computable) {
      if (missing_op != nullptr) *missing_op = n.op;
      return std::numeric_limits<double>::infinity();
    }
    total += c.cost;
  }
  return total;
}

NodeId AnnotateImplementations(const HvxCostModel& model, Graph* g) {
  for (NodeId id = 0; id < g->num_nodes(); ++id) {
    const Node& n = g->node(id);
    if (n.op == kConstOp || n.op == kShapeOp || n.op == kInputOp) continue;
    NodeCost c = GraphNodeCost(model, *g, n);
    if (!c.computable) return id;
    Node& m = g->mutable_node(id);
    m.attrs[std::string(kImplAttr)] = c.impl;
    m.attrs[std::string(kCostAttr)] = c.cost;
  }
  return kNoNode;
}

}  // namespace egret::cost
