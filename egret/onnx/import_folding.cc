// Constant folding at import: a node whose inputs are all constants is mapped
// as usual (its handler, or an opaque node), then the egret nodes it produced
// are run by the reference executor and its outputs become constants (ONNX
// layout). Shape subgraphs (Shape -> Gather -> Concat -> Reshape), If
// conditions and Pad amounts thus become plain data, and the nodes that
// computed them are dead (Compact drops them). One folding path for every
// op: what egret maps runs on egret's kernels, an opaque op on its
// ONNX-semantics kernel (egret/executor/kernels/onnx/).
#include "egret/executor/executor.h"
#include "egret/graph/checked_math.h"
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

namespace {

// Ops never folded: random generators (each run differs; a Dropout the
// handler left opaque may be in training mode, drawing its mask) and control
// flow (If is inlined by its handler; a Loop or Scan body is not run here).
bool NeverFolded(const onnx::NodeProto& n) {
  static const absl::flat_hash_set<std::string> kOps = {"RandomNormal",  "RandomNormalLike",
                                                        "RandomUniform", "RandomUniformLike",
                                                        "Bernoulli",     "Multinomial",
                                                        "Dropout",       "If",
                                                        "Loop",          "Scan"};
  return kOps.contains(n.op_type());
}

// A copy of the nodes `roots` depend on, from `first` on (older nodes must
// be constants or shapes), with `roots` as its outputs; nullopt when the cone
// reaches anything else (a graph input, an older computed node).
std::optional<Graph> Cone(const Graph& g, NodeId first, const std::vector<ValueRef>& roots) {
  absl::flat_hash_set<NodeId> in_cone;
  std::vector<NodeId> stack;
  for (const ValueRef& r : roots) stack.push_back(r.node);
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (in_cone.contains(id)) continue;
    const Node& n = g.node(id);
    const bool leaf = n.op == kConstOp || n.op == kShapeOp;
    if ((id < first && !leaf) || n.op == kInputOp) return std::nullopt;
    in_cone.insert(id);
    for (const ValueRef& in : n.inputs) stack.push_back(in.node);
  }
  std::vector<NodeId> ids(in_cone.begin(), in_cone.end());
  std::sort(ids.begin(), ids.end());  // node ids are in topological order
  Graph cone;
  absl::flat_hash_map<NodeId, NodeId> remap;
  for (NodeId id : ids) {
    Node n = g.node(id);
    for (ValueRef& in : n.inputs) in.node = remap.at(in.node);
    remap[id] = cone.AddNode(std::move(n));
  }
  for (const ValueRef& r : roots) cone.AddOutput(ValueRef{remap.at(r.node), r.output});
  return cone;
}

}  // namespace

void Importer::FoldCurrent(NodeId first) {
  const onnx::NodeProto& node = *cur_;
  if (NeverFolded(node)) return;
  int64_t in_bytes = 0;
  int present = 0;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!Has(i)) continue;
    const Value& v = In(i);
    if (!v.constant) return;
    in_bytes = SaturatingAdd(in_bytes, v.type.byte_size());
    ++present;
  }
  if (present == 0) return;  // generators (Constant) make their own constants
  std::vector<std::string> names;
  std::vector<Layout> layouts;
  std::vector<ValueRef> roots;
  for (int k = 0; k < node.output_size(); ++k) {
    auto it = Out(k).empty() ? values_.end() : values_.find(Out(k));
    if (it == values_.end() || it->second.constant) continue;
    const Value& v = it->second;
    // A sequence or optional stays a node: constants are tensors (the graph
    // formats hold no constant containers).
    if (!v.type.is_tensor()) continue;
    const int64_t bytes = v.type.byte_size();
    if (v.type.num_elements() > kFoldElements &&
        (bytes > kFoldGrowth * in_bytes || bytes > kFoldMaxBytes)) {
      continue;
    }
    const Layout l = v.type.rank() == 4 ? v.native : kPlain;
    if (v.ref[l].node == kNoNode) continue;
    names.push_back(Out(k));
    layouts.push_back(l);
    roots.push_back(v.ref[l]);
  }
  if (roots.empty()) return;
  std::optional<Graph> cone = Cone(g_, first, roots);
  if (!cone) return;
  for (const Node& n : cone->nodes()) {
    if (!HasKernel(n.op)) return;
  }
  // An op the executor rejects here would fail at run time as well; it stays
  // a node, so that the error shows where it belongs.
  absl::StatusOr<std::vector<Tensor>> out = Execute(*cone, {});
  if (!out.ok()) return;
  for (size_t k = 0; k < names.size(); ++k) {
    Tensor& t = (*out)[k];
    SetConst(names[k], layouts[k] == kNhwc ? TransposeTensor(t, kToNchw) : std::move(t));
  }
}

}  // namespace egret::onnx_import
