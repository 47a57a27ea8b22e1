#include "egret/egraph/graph_import.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"

namespace egret {
namespace {

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

}  // namespace

absl::StatusOr<GraphClasses> AddGraph(EGraph& g, const Graph& graph) {
  // One pass for the room every node needs (a node of k > 1 outputs adds k
  // "$Out" nodes too) and whether the ids are a topological order already
  // (every input from a smaller id: how graphs are built and read).
  size_t nodes = 0, non_binary = 0;
  bool ascending = true;
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const Node& node = graph.node(id);
    const size_t outs = node.outputs.size() > 1 ? node.outputs.size() : 0;
    nodes += 1 + outs;
    non_binary += (node.inputs.size() != 2 ? 1 : 0) + outs;
    for (const ValueRef& in : node.inputs) ascending = ascending && in.node < id;
  }
  std::vector<NodeId> order;
  if (ascending) {
    order.resize(graph.num_nodes());
    for (NodeId id = 0; id < graph.num_nodes(); ++id) order[id] = id;
  } else {
    absl::StatusOr<std::vector<NodeId>> sorted = graph.TopologicalOrder();
    if (!sorted.ok()) return sorted.status();
    order = *std::move(sorted);
  }
  g.Reserve(nodes, non_binary);
  // The constants' payloads, interned in the order the nodes are added (so
  // the same payloads as one AddConstant each) but all at once, their pool
  // probes issued ahead; then each "$Const" node's hash-cons slot is
  // prefetched kConstAhead constants before it is added. At a million nodes,
  // where most nodes of a CNN are weights, both lookups miss the cache.
  std::vector<ConstTensorPtr> tensors;
  for (NodeId id : order) {
    const Node& node = graph.node(id);
    if (node.op == kConstOp && node.constant != nullptr) tensors.push_back(node.constant);
  }
  const std::vector<Payload> payloads = g.InternConstants(tensors);
  tensors = {};
  constexpr size_t kConstAhead = 8;
  for (size_t i = 0; i < std::min(kConstAhead, payloads.size()); ++i) {
    g.PrefetchInternedConstant(payloads[i]);
  }
  size_t next_const = 0;
  GraphClasses classes(graph.num_nodes());
  const Symbol shape_op = Symbol::Intern(kShapeOp);
  absl::InlinedVector<Id, 8> children;
  TensorType multi;
  multi.dtype = DType::kMulti;
  const TypeId multi_type = g.InternType(multi);
  for (NodeId id : order) {
    const Node& node = graph.node(id);
    auto where = [&] { return absl::StrCat("node ", graph.NodeLabel(id), " (", node.op, "): "); };
    if (node.outputs.empty()) return absl::InvalidArgumentError(where() + "has no output");
    if (node.op == kConstOp) {
      if (node.constant == nullptr) return absl::InvalidArgumentError(where() + "no constant data");
      if (next_const + kConstAhead < payloads.size()) {
        g.PrefetchInternedConstant(payloads[next_const + kConstAhead]);
      }
      classes[id].push_back(g.AddInternedConstant(payloads[next_const++]));
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
