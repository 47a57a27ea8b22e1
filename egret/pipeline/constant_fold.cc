#include "egret/pipeline/constant_fold.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "egret/executor/evaluate_op.h"
#include "egret/executor/executor.h"
#include "egret/graph/graph.h"
#include "egret/graph/op_table.h"

namespace egret {

FoldPolicy::OpFlags FoldPolicy::FlagsOf(std::string_view op) const {
  if (ops.empty()) return {};
  auto it = ops.find(std::string(op));
  if (it == ops.end()) it = ops.find(std::string(BaseOpName(op)));
  return it == ops.end() ? OpFlags{} : it->second;
}

FoldPolicy FoldPolicyFor(const rules::OpRegistry& registry, int64_t max_elements) {
  FoldPolicy p;
  p.max_elements = max_elements;
  absl::flat_hash_map<std::string, bool> all_const;
  for (const rules::OpImplementation& impl : registry.all()) {
    FoldPolicy::OpFlags& f = p.ops[impl.op_name];
    f.inhibit |= (impl.flag_bits & rules::kInhibitConstProp) != 0;
    all_const.try_emplace(impl.op_name, true).first->second &=
        (impl.flag_bits & rules::kIsConst) != 0;
  }
  for (auto& [op, f] : p.ops) f.is_const = all_const[op];
  // Keep the flagged ops, and the unflagged "X.suffix" whose base "X" is
  // flagged (it has implementations of its own, which decide).
  auto flagged = [&p](std::string_view op) {
    auto it = p.ops.find(std::string(op));
    return it != p.ops.end() && (it->second.inhibit || it->second.is_const);
  };
  std::vector<std::string> drop;
  for (const auto& [op, f] : p.ops) {
    if (!flagged(op) && (BaseOpName(op) == op || !flagged(BaseOpName(op)))) drop.push_back(op);
  }
  for (const std::string& op : drop) p.ops.erase(op);
  return p;
}

namespace {

// The node of class c that can be folded, if any.
std::optional<NodeIdx> Foldable(const EGraph& g, Id c, const FoldPolicy& policy) {
  const int64_t max_elements = policy.max_elements;
  static const Symbol const_op = Symbol::Intern(kConstOp);
  static const Symbol shape_op = Symbol::Intern(kShapeOp);
  static const Symbol out_op = Symbol::Intern(kOutOp);
  static const Symbol dequantize_op = Symbol::Intern("Dequantize");
  c = g.Find(c);
  const TensorType& t = g.TypeOf(c);
  if (!IsConcrete(t.dtype)) return std::nullopt;
  if (!g.ClassNodesWithOp(c, const_op).empty() || !g.ClassNodesWithOp(c, shape_op).empty()) {
    return std::nullopt;
  }
  for (NodeIdx n : g.ClassNodes(c)) {
    if (!g.IsLive(n)) continue;
    ENodeView v = g.Node(n);
    if (v.op == out_op || v.op.is_volatile()) continue;
    // The cheapest test first (no op-name lookups): an input that is
    // neither a constant nor a shape rules the node out, whatever its op.
    bool inputs_known = true;
    for (Id ch : v.children) {
      const Id cc = g.Find(ch);
      if (!g.HasConstant(cc) && g.ClassNodesWithOp(cc, shape_op).empty()) {
        inputs_known = false;
        break;
      }
    }
    if (!inputs_known) continue;
    const FoldPolicy::OpFlags flags = policy.FlagsOf(v.op.str());
    if (flags.inhibit || !HasKernel(v.op.str())) continue;
    // An op with no inputs is volatile unless IS_CONST; an IS_CONST op is
    // folded whatever the sizes of its output and inputs.
    if (!flags.is_const && (v.children.empty() || t.num_elements() > max_elements)) continue;
    // A 4-bit weight stays 4-bit: the HTP reads it quantized, and its float
    // values would be 8 times its bytes in the e-graph.
    if (v.op == dequantize_op && v.children.size() == 1 &&
        StorageBits(g.TypeOf(g.Find(v.children[0])).dtype) == 4) {
      continue;
    }
    bool all_const = true;
    for (Id ch : v.children) {
      Id cc = g.Find(ch);
      const bool shape = !g.ClassNodesWithOp(cc, shape_op).empty();
      // A constant input over the bound is copied whole by the executor on
      // every fold: slicing a 100M-element weight into pieces would take
      // minutes.
      if ((!g.HasConstant(cc) && !shape) ||
          (!shape && !flags.is_const && g.TypeOf(cc).num_elements() > max_elements)) {
        all_const = false;
        break;
      }
    }
    if (all_const) return n;
  }
  return std::nullopt;
}

// The value of node v (of class `root`; its inputs are constants and
// shapes) by EvaluateOp: an op of the op table.
absl::StatusOr<Tensor> EvaluateNode(const EGraph& g, const ENodeView& v, Id root) {
  absl::InlinedVector<OperandInfo, 4> inputs(v.children.size());
  for (size_t i = 0; i < v.children.size(); ++i) {
    const Id cc = g.Find(v.children[i]);
    if (const ConstTensorPtr& t = g.ConstantOf(cc)) {
      inputs[i].type = &t->type();
      inputs[i].value = t.get();
    } else {
      inputs[i].type = &g.TypeOf(cc);  // a "$Shape": its dims are the value
      inputs[i].is_shape = true;
    }
  }
  static const Attributes kNoAttributes;
  const Attributes& attrs = v.payload != kNoPayload ? g.AttributesOf(v.payload) : kNoAttributes;
  return EvaluateOp(v.op.str(), attrs, inputs, g.TypeOf(root));
}

// The value of node v as Execute() computes it on a graph of that node
// alone: the path of ops outside the op table (an opaque "onnx.<Op>" node,
// whose kernel may need what Execute() sets up, such as its bodies).
absl::StatusOr<Tensor> ExecuteAlone(const EGraph& g, const ENodeView& v, Id root) {
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
  node.outputs.push_back(g.TypeOf(root));
  NodeId id = one.AddNode(std::move(node));
  one.AddOutput(ValueRef{id, 0}, "out");
  absl::StatusOr<std::vector<Tensor>> out = Execute(one, {});
  if (!out.ok()) return out.status();
  if (out->size() != 1) return absl::InternalError("one output expected");
  return std::move((*out)[0]);
}

}  // namespace

absl::StatusOr<Rewrite> ConstantFoldRewrite(int64_t max_elements) {
  FoldPolicy policy;
  policy.max_elements = max_elements;
  return ConstantFoldRewrite(std::move(policy));
}

absl::StatusOr<Rewrite> ConstantFoldRewrite(FoldPolicy policy) {
  auto shared = std::make_shared<const FoldPolicy>(std::move(policy));
  Guard guard = [shared](const EGraph& g, const MatchView& m) {
    return Foldable(g, m.root, *shared).has_value();
  };
  Applier applier = [shared](EGraph& g, const MatchView& m) -> std::optional<Id> {
    std::optional<NodeIdx> n = Foldable(g, m.root, *shared);
    if (!n) return std::nullopt;
    const ENodeView v = g.Node(*n);
    const Id root = g.Find(m.root);
    absl::StatusOr<Tensor> out =
        FindOpDef(v.op.str()) != nullptr ? EvaluateNode(g, v, root) : ExecuteAlone(g, v, root);
    if (!out.ok()) return std::nullopt;
    return g.AddConstant(std::make_shared<const Tensor>(*std::move(out)));
  };
  absl::StatusOr<Rewrite> rw =
      MakeRewrite(std::string(kConstantFoldRule), Pattern::Var("x"), applier, guard);
  if (!rw.ok()) return rw.status();
  rw->lookahead = 1;
  return rw;
}

}  // namespace egret
