#include "egret/egraph/graph_import.h"

#include "absl/strings/str_cat.h"

namespace egret {
namespace {

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

}  // namespace

absl::StatusOr<GraphClasses> AddGraph(EGraph& g, const Graph& graph) {
  absl::StatusOr<std::vector<NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return order.status();
  GraphClasses classes(graph.num_nodes());
  const Symbol shape_op = Symbol::Intern(kShapeOp);
  absl::InlinedVector<Id, 8> children;
  TensorType multi;
  multi.dtype = DType::kMulti;
  const TypeId multi_type = g.InternType(multi);
  for (NodeId id : *order) {
    const Node& node = graph.node(id);
    auto where = [&] { return absl::StrCat("node ", graph.NodeLabel(id), " (", node.op, "): "); };
    if (node.outputs.empty()) return absl::InvalidArgumentError(where() + "has no output");
    if (node.op == kConstOp) {
      if (node.constant == nullptr) return absl::InvalidArgumentError(where() + "no constant data");
      classes[id].push_back(g.AddConstant(node.constant));
      continue;
    }
    children.clear();
    for (const ValueRef& in : node.inputs) {
      if (in.node >= graph.num_nodes() || in.output >= classes[in.node].size()) {
        return absl::InvalidArgumentError(where() + "input refers to a missing value");
      }
      children.push_back(classes[in.node][in.output]);
    }
    const Symbol op = Symbol::Intern(node.op);
    if (node.op == kShapeOp) {
      TypeId t = g.InternType(node.outputs[0]);
      absl::StatusOr<Id> c = g.Add(ENodeView{shape_op, t, children}, t);
      if (!c.ok()) return Prefixed(c.status(), where());
      classes[id].push_back(*c);
      continue;
    }
    const Payload payload = g.InternAttributes(node.attrs);
    if (node.outputs.size() == 1) {
      absl::StatusOr<Id> c = g.Add(ENodeView{op, payload, children}, node.outputs[0]);
      if (!c.ok()) return Prefixed(c.status(), where());
      classes[id].push_back(*c);
      continue;
    }
    absl::StatusOr<Id> multi = g.Add(ENodeView{op, payload, children}, multi_type);
    if (!multi.ok()) return Prefixed(multi.status(), where());
    const int n = static_cast<int>(node.outputs.size());
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<Id> out = g.AddOut(*multi, n, i, node.outputs[i]);
      if (!out.ok()) return Prefixed(out.status(), where());
      classes[id].push_back(*out);
    }
  }
  return classes;
}

}  // namespace egret
