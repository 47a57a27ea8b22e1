#include "egret/pipeline/constant_fold.h"

#include <memory>
#include <vector>

#include "egret/backend/executor.h"
#include "egret/graph/graph.h"

namespace egret {
namespace {

// The node of class c that can be folded, if any.
std::optional<NodeIdx> Foldable(const EGraph& g, Id c, int64_t max_elements) {
  static const Symbol const_op = Symbol::Intern(kConstOp);
  static const Symbol shape_op = Symbol::Intern(kShapeOp);
  static const Symbol out_op = Symbol::Intern(kOutOp);
  c = g.Find(c);
  const TensorType& t = g.TypeOf(c);
  if (!IsConcrete(t.dtype) || t.num_elements() > max_elements) return std::nullopt;
  if (!g.ClassNodesWithOp(c, const_op).empty() || !g.ClassNodesWithOp(c, shape_op).empty()) {
    return std::nullopt;
  }
  for (NodeIdx n : g.ClassNodes(c)) {
    if (!g.IsLive(n)) continue;
    ENodeView v = g.Node(n);
    if (v.op == out_op || v.op.is_volatile() || v.children.empty()) continue;
    if (!HasKernel(v.op.str())) continue;
    bool all_const = true;
    for (Id ch : v.children) {
      Id cc = g.Find(ch);
      const bool shape = !g.ClassNodesWithOp(cc, shape_op).empty();
      // A constant input over the bound is copied whole by the executor on
      // every fold: slicing a 100M-element weight into pieces would take
      // minutes.
      if ((g.ConstantOf(cc) == nullptr && !shape) ||
          (!shape && g.TypeOf(cc).num_elements() > max_elements)) {
        all_const = false;
        break;
      }
    }
    if (all_const) return n;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<Rewrite> ConstantFoldRewrite(int64_t max_elements) {
  Guard guard = [max_elements](const EGraph& g, const MatchView& m) {
    return Foldable(g, m.root, max_elements).has_value();
  };
  Applier applier = [max_elements](EGraph& g, const MatchView& m) -> std::optional<Id> {
    std::optional<NodeIdx> n = Foldable(g, m.root, max_elements);
    if (!n) return std::nullopt;
    ENodeView v = g.Node(*n);
    Graph one;
    Node node;
    node.op = std::string(v.op.str());
    if (v.payload != kNoPayload) node.attrs = g.AttributesOf(v.payload);
    for (Id ch : v.children) {
      Id cc = g.Find(ch);
      NodeId in;
      if (ConstTensorPtr t = g.ConstantOf(cc)) {
        in = one.AddConstant("", t);
      } else {
        Node s;
        s.op = std::string(kShapeOp);
        s.outputs.push_back(g.TypeOf(cc));
        in = one.AddNode(std::move(s));
      }
      node.inputs.push_back(ValueRef{in, 0});
    }
    const Id root = g.Find(m.root);
    node.outputs.push_back(g.TypeOf(root));
    NodeId id = one.AddNode(std::move(node));
    one.AddOutput(ValueRef{id, 0}, "out");
    absl::StatusOr<std::vector<Tensor>> out = Execute(one, {});
    if (!out.ok() || out->size() != 1) return std::nullopt;
    return g.AddConstant(std::make_shared<const Tensor>(std::move((*out)[0])));
  };
  absl::StatusOr<Rewrite> rw = MakeRewrite("constant-fold", Pattern::Var("x"), applier, guard);
  if (!rw.ok()) return rw.status();
  rw->lookahead = 1;
  return rw;
}

}  // namespace egret
