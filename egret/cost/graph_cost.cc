#include "egret/cost/graph_cost.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/dtype.h"
#include "egret/graph/op_table.h"

namespace egret::cost {

NodeProfile ProfileOf(std::string_view op, absl::Span<const TensorType> outputs,
                      absl::Span<const NodeInput> inputs) {
  NodeProfile p;
  p.dtype = outputs.empty() ? DType::kUnknown : outputs[0].dtype;
  p.multi_output = outputs.size() > 1;
  for (const TensorType& t : outputs) {
    p.output_bytes = SaturatingAdd(p.output_bytes, t.byte_size());
    p.max_rank = std::max(p.max_rank, t.rank());
  }
  const OpDef* def = FindOpDef(op);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& t = *inputs[i].type;
    if (inputs[i].shape_value) continue;
    p.input_bytes = SaturatingAdd(p.input_bytes, t.byte_size());
    if (def != nullptr && def->IsParam(static_cast<int>(i))) continue;
    p.data_dtypes.push_back(t.dtype);
    p.max_rank = std::max(p.max_rank, t.rank());
  }
  return p;
}

NodeCost NodeCostOf(const HvxCostModel& model, std::string_view op,
                    absl::Span<const TensorType> outputs, absl::Span<const NodeInput> inputs) {
  return model.Cost(op, ProfileOf(op, outputs, inputs));
}

NodeCost GraphNodeCost(const HvxCostModel& model, const Graph& g, const Node& n) {
  absl::InlinedVector<NodeInput, 8> ins;
  for (const ValueRef& v : n.inputs) {
    ins.push_back(NodeInput{&g.TypeOf(v), g.node(v.node).op == kShapeOp});
  }
  return NodeCostOf(model, n.op, n.outputs, ins);
}

double GraphCost(const Graph& g, const HvxCostModel& model, UncomputableNode* missing) {
  double total = 0;
  for (const Node& n : g.nodes()) {
    NodeCost c = GraphNodeCost(model, g, n);
    if (!c.computable) {
      if (missing != nullptr) *missing = UncomputableNode{n.op, std::move(c.reason)};
      return std::numeric_limits<double>::infinity();
    }
    total += c.cost;
  }
  return total;
}

NodeId AnnotateImplementations(const HvxCostModel& model, Graph* g, NodeCost* blocked) {
  for (NodeId id = 0; id < g->num_nodes(); ++id) {
    const Node& n = g->node(id);
    if (n.op == kConstOp || n.op == kShapeOp || n.op == kInputOp) continue;
    NodeCost c = GraphNodeCost(model, *g, n);
    if (!c.computable) {
      if (blocked != nullptr) *blocked = std::move(c);
      return id;
    }
    Node& m = g->mutable_node(id);
    m.attrs[std::string(kImplAttr)] = c.impl;
    m.attrs[std::string(kCostAttr)] = c.cost;
    if (c.off_htp) {
      m.attrs[std::string(kOffHtpReasonAttr)] = std::move(c.reason);
    } else {
      m.attrs.erase(std::string(kOffHtpReasonAttr));
    }
  }
  return kNoNode;
}

}  // namespace egret::cost
