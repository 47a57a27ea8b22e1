#include "egret/egraph/graph_import.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace egret {
namespace {

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

// Whether the node is one e-node of one class: a node of one output, or a
// "$Shape" (whatever its outputs say). Others add "$Out" nodes too.
bool OneClass(const Node& node) { return node.op == kShapeOp || node.outputs.size() == 1; }

// Interns the types AddOut will give a multi-output node's "$Out" nodes, in
// its order (the "$Shape" of the index, then the output).
void InternOutTypes(EGraph& g, const Node& node) {
  const int n = static_cast<int>(node.outputs.size());
  for (int i = 0; i < n; ++i) {
    g.InternType(EGraph::OutIndexType(n, i));
    g.InternType(node.outputs[i]);
  }
}

}  // namespace

absl::StatusOr<GraphClasses> AddGraph(EGraph& g, const Graph& graph, std::vector<NodeIdx>* added,
                                      std::vector<NodeId>* order_out) {
  // One pass for the room every node needs (a node of k > 1 outputs adds k
  // "$Out" nodes too), whether the ids are a topological order already
  // (every input from a smaller id: how graphs are built and read), and the
  // constants in id order. Every pass over a million-node graph's nodes
  // (hundreds of megabytes) comes from memory.
  size_t nodes = 0, non_binary = 0;
  bool ascending = true;
  std::vector<ConstTensorPtr> tensors;
  auto take_constant = [&tensors](const Node& node) {
    if (node.op == kConstOp && node.constant != nullptr) tensors.push_back(node.constant);
  };
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const Node& node = graph.node(id);
    const size_t outs = node.outputs.size() > 1 ? node.outputs.size() : 0;
    nodes += 1 + outs;
    non_binary += (node.inputs.size() != 2 ? 1 : 0) + outs;
    for (const ValueRef& in : node.inputs) ascending = ascending && in.node < id;
    take_constant(node);
  }
  // The order of addition (empty: the ids themselves).
  std::vector<NodeId> order;
  const size_t count = graph.num_nodes();
  auto node_at = [&](size_t pos) { return order.empty() ? static_cast<NodeId>(pos) : order[pos]; };
  if (!ascending) {
    absl::StatusOr<std::vector<NodeId>> sorted = graph.TopologicalOrder();
    if (!sorted.ok()) return sorted.status();
    order = *std::move(sorted);
    // The constants in the order the nodes are added, instead.
    tensors.clear();
    for (NodeId id : order) take_constant(graph.node(id));
  }
  g.Reserve(nodes, non_binary);
  // The constants' payloads, interned in the order the nodes are added (so
  // the same payloads as one AddConstant each) but all at once, their pool
  // probes issued ahead.
  const std::vector<Payload> payloads = g.InternConstants(tensors);
  tensors = {};
  GraphClasses classes(graph.num_nodes());
  if (added != nullptr) added->assign(graph.num_nodes(), kNoNodeIdx);
  // A class id not seen before is the class of a node just stored, its only
  // member yet.
  auto record = [&](NodeId id, Id cls, size_t ids_before) {
    if (added != nullptr && cls >= ids_before) (*added)[id] = g.ClassNodes(cls).front();
  };
  const Symbol const_op = Symbol::Intern(kConstOp);
  TensorType multi;
  multi.dtype = DType::kMulti;
  const TypeId multi_type = g.InternType(multi);

  // Each node's hash-cons slot is prefetched kAhead nodes before it is
  // added: at a million nodes the hash-cons outgrows the caches and its
  // probe was the import's largest stall. The key needs the node's op,
  // payload and type, made here for each node in the order it is added (the
  // same interning order as adding alone, so the same ids), and its operands'
  // classes: those of nodes added already, else predicted. The import of a
  // fresh graph makes a class per new node in turn, so a node's class is
  // predicted as the classes made so far plus those the nodes before it in
  // the window will make; a CSE hit (or an output whose "$Shape" exists)
  // makes fewer, and a wrong guess only wastes the hint.
  constexpr size_t kAhead = 8;
  struct Ready {
    Symbol op;
    Payload payload = kNoPayload;
    TypeId type = 0;
    size_t made = 0;  // classes the node makes when all are new
  };
  std::array<Ready, kAhead + 1> ring;
  std::vector<Id> predicted(graph.num_nodes(), kNoId);
  size_t window_made = 0;  // classes the nodes in the ring make when new
  size_t ahead_const = 0;
  absl::InlinedVector<Id, 8> operands;
  auto prepare = [&](size_t pos) {
    Ready& r = ring[pos % ring.size()];
    r = Ready{};
    if (pos >= count) return;
    const NodeId id = node_at(pos);
    const Node& node = graph.node(id);
    if (node.outputs.empty() || (node.op == kConstOp && node.constant == nullptr)) return;
    if (node.op == kConstOp) {
      r.op = const_op;
      r.payload = payloads[ahead_const++];
      r.type = g.InternType(g.ConstantOfPayload(r.payload)->type());
    } else {
      r.op = Symbol::Intern(node.op);
      if (node.op == kShapeOp) {
        r.type = g.InternType(node.outputs[0]);
        r.payload = r.type;  // a "$Shape" node's payload is its type
      } else {
        r.payload = g.InternAttributes(node.attrs);
        if (OneClass(node)) {
          r.type = g.InternType(node.outputs[0]);
        } else {
          InternOutTypes(g, node);
          r.type = multi_type;
        }
      }
    }
    r.made = OneClass(node) ? 1 : 1 + 2 * node.outputs.size();
    if (OneClass(node)) predicted[id] = static_cast<Id>(g.num_ids() + window_made);
    window_made += r.made;
    operands.clear();
    for (const ValueRef& in : node.inputs) {
      if (in.node >= graph.num_nodes()) return;
      const absl::Span<const Id> known = classes[in.node];
      if (in.output < known.size()) {
        operands.push_back(known[in.output]);
      } else if (in.output == 0 && predicted[in.node] != kNoId) {
        operands.push_back(predicted[in.node]);
      } else {
        return;  // an output of a multi-output node in the window
      }
    }
    g.PrefetchAdd(ENodeView{r.op, r.payload, operands}, r.type);
  };
  for (size_t pos = 0; pos < kAhead; ++pos) prepare(pos);

  size_t next_const = 0;
  absl::InlinedVector<Id, 8> children;
  absl::InlinedVector<Id, 8> outs;
  for (size_t pos = 0; pos < count; ++pos) {
    prepare(pos + kAhead);
    const Ready ready = ring[pos % ring.size()];
    window_made -= ready.made;
    const NodeId id = node_at(pos);
    const Node& node = graph.node(id);
    auto where = [&] { return absl::StrCat("node ", graph.NodeLabel(id), " (", node.op, "): "); };
    if (node.outputs.empty()) return absl::InvalidArgumentError(where() + "has no output");
    if (node.op == kConstOp) {
      if (node.constant == nullptr) return absl::InvalidArgumentError(where() + "no constant data");
      const size_t before = g.num_ids();
      const Id c = g.AddInternedConstant(payloads[next_const++]);
      classes.Set(id, {c});
      record(id, c, before);
      continue;
    }
    children.clear();
    for (const ValueRef& in : node.inputs) {
      if (in.node >= graph.num_nodes() || in.output >= classes[in.node].size()) {
        return absl::InvalidArgumentError(where() + "input refers to a missing value");
      }
      children.push_back(classes[in.node][in.output]);
    }
    const ENodeView view{ready.op, ready.payload, children};
    const size_t before = g.num_ids();
    if (OneClass(node)) {
      absl::StatusOr<Id> c = g.Add(view, ready.type);
      if (!c.ok()) return Prefixed(c.status(), where());
      classes.Set(id, {*c});
      record(id, *c, before);
      continue;
    }
    absl::StatusOr<Id> multi_class = g.Add(view, multi_type);
    if (!multi_class.ok()) return Prefixed(multi_class.status(), where());
    record(id, *multi_class, before);
    const int n = static_cast<int>(node.outputs.size());
    outs.clear();
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<Id> out = g.AddOut(*multi_class, n, i, node.outputs[i]);
      if (!out.ok()) return Prefixed(out.status(), where());
      outs.push_back(*out);
    }
    classes.Set(id, outs);
  }
  if (order_out != nullptr) {
    if (order.empty()) {
      order.resize(count);
      std::iota(order.begin(), order.end(), NodeId{0});
    }
    *order_out = std::move(order);
  }
  return classes;
}

}  // namespace egret
