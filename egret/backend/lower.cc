#include "egret/backend/lower.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/backend/unique_names.h"
#include "egret/egraph/multi_outputs.h"

namespace egret {

void ENodeNames::Add(NodeIdx n, std::string_view name) {
  if (n >= index_.size()) index_.resize(n + 1, kNone);
  if (index_[n] != kNone) return;
  index_[n] = static_cast<uint32_t>(end_.size());
  text_.append(name);
  end_.push_back(text_.size());
}

namespace {

class Lowerer {
 public:
  Lowerer(const EGraph& g, const LowerRequest& req, LowerTrace* trace)
      : g_(g), req_(req), trace_(trace) {}

  absl::StatusOr<Graph> Run() {
    out_.set_name(req_.graph_name);
    out_.mutable_options() = req_.options;
    // The choice in an array by class id: lowering reads it two or three
    // times a class.
    Id end = 0;
    for (const auto& [c, n] : req_.choice) end = std::max(end, c + 1);
    for (const auto& [c, name] : req_.inputs) end = std::max(end, g_.Find(c) + 1);
    // One node per chosen class at most (a "$Out" class adds none) and per
    // input: room made up front.
    const size_t most = req_.choice.size() + req_.inputs.size();
    out_.ReserveNodes(most);
    enode_.reserve(most);
    want_.reserve(most);
    chosen_.assign(end, kNotChosen);
    for (const auto& [c, n] : req_.choice) chosen_[c] = n;
    value_.assign(end, ValueRef{kNoNode, 0});
    on_stack_.assign(end, false);
    for (const auto& [cls, name] : req_.inputs) {
      Id c = g_.Find(cls);
      if (HasValue(c)) continue;
      NodeId id = out_.AddInput(std::string(), g_.TypeOf(c));
      value_[c] = ValueRef{id, 0};
      enode_.push_back(LowerTrace::kNoENode);
      want_.push_back(name);
    }
    for (const auto& [cls, name] : req_.outputs) {
      absl::Status s = Visit(g_.Find(cls));
      if (!s.ok()) return s;
    }
    for (const auto& [cls, name] : req_.outputs) {
      out_.AddOutput(value_[g_.Find(cls)], name);
    }
    // The names, made unique in the order of the nodes (the first of equal
    // names keeps it) once all are known.
    std::vector<std::string> names = UniqueNames(want_);
    for (NodeId id = 0; id < names.size(); ++id) out_.mutable_node(id).name = std::move(names[id]);
    if (trace_ != nullptr) {
      trace_->enode = std::move(enode_);
      trace_->node_of_class.resize(value_.size());
      for (size_t c = 0; c < value_.size(); ++c) trace_->node_of_class[c] = value_[c].node;
    }
    return std::move(out_);
  }

 private:
  static constexpr NodeIdx kNotChosen = ~NodeIdx{0};

  bool HasValue(Id c) const { return c < value_.size() && value_[c].node != kNoNode; }

  absl::StatusOr<NodeIdx> Chosen(Id c) const {
    if (c >= chosen_.size() || chosen_[c] == kNotChosen) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "lowering: class %d (%s) has no chosen node", c, g_.TypeOf(c).ToString()));
    }
    return chosen_[c];
  }

  absl::Status Visit(Id root) {
    // Iterative post-order; `on_stack` detects cycles in the choice. A
    // frame's dependencies are the children of its chosen node (of a "$Out",
    // only the multi-output class it reads), canonical.
    struct Frame {
      Id cls;
      NodeIdx node;
      uint32_t deps;
      uint32_t next = 0;
    };
    std::vector<Frame> stack;
    auto push = [&](Id c) -> absl::Status {
      if (HasValue(c)) return absl::OkStatus();
      absl::StatusOr<NodeIdx> n = Chosen(c);
      if (!n.ok()) return n.status();
      if (on_stack_[c]) {
        return absl::InvalidArgumentError(
            absl::StrFormat("lowering: the choice has a cycle through class %d", c));
      }
      ENodeView v = g_.Node(*n);
      uint32_t deps = static_cast<uint32_t>(v.children.size());
      if (v.op == out_op_) {
        if (deps != 2) return absl::InvalidArgumentError("lowering: malformed $Out");
        deps = 1;
      }
      on_stack_[c] = true;
      stack.push_back(Frame{c, *n, deps, 0});
      return absl::OkStatus();
    };
    if (absl::Status s = push(root); !s.ok()) return s;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.deps) {
        Id d = g_.Find(g_.Node(f.node).children[f.next++]);
        if (absl::Status s = push(d); !s.ok()) return s;
        continue;
      }
      Id c = f.cls;
      stack.pop_back();
      on_stack_[c] = false;
      if (absl::Status s = Emit(c); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Emit(Id c) {
    NodeIdx n = chosen_[c];
    ENodeView v = g_.Node(n);
    const TensorType& type = g_.TypeOf(c);
    if (v.op == out_op_) {
      Id multi = g_.Find(v.children[0]);
      const Dims& sel = g_.TypeOf(g_.Find(v.children[1])).dims;
      if (sel.empty()) return absl::InvalidArgumentError("lowering: $Out without a selector");
      ValueRef base = value_[multi];
      int64_t k = sel.back();
      if (k < 0 || k >= static_cast<int64_t>(out_.node(base.node).outputs.size())) {
        return absl::InvalidArgumentError(
            absl::StrFormat("lowering: $Out selects output %d of a node with %d outputs", k,
                            out_.node(base.node).outputs.size()));
      }
      value_[c] = ValueRef{base.node, static_cast<uint32_t>(k)};
      return absl::OkStatus();
    }
    const bool computed = v.op != const_op_ && v.op != shape_op_;
    std::vector<TensorType> multi;
    if (computed && type.dtype == DType::kMulti) {
      absl::StatusOr<std::vector<TensorType>> outs = MultiOutputTypes(g_, c);
      if (!outs.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("lowering: ", outs.status().message()));
      }
      multi = *std::move(outs);
    }
    std::string_view name;
    if (req_.names != nullptr) name = req_.names->Find(n).value_or(std::string_view());
    // Built in place: a node built aside and moved in copies its inline
    // arrays (its inputs, its output type's dims) a second time.
    const NodeId id = out_.AddNode(Node());
    Node& node = out_.mutable_node(id);
    node.op = v.op.str();
    if (v.op == const_op_) node.constant = g_.ConstantOfPayload(v.payload);
    if (computed) {
      if (v.payload != kNoPayload && IsVolatileOp(node.op) == false) {
        node.attrs = g_.AttributesOf(v.payload);
      }
      for (Id ch : v.children) node.inputs.push_back(value_[g_.Find(ch)]);
    }
    if (type.dtype == DType::kMulti && computed) {
      for (TensorType& t : multi) node.outputs.push_back(std::move(t));
    } else {
      node.outputs.push_back(type);
    }
    if (out_.node(id).op == kInputOp) out_.mutable_inputs().push_back(id);
    value_[c] = ValueRef{id, 0};
    enode_.push_back(n);
    want_.push_back(name);
    return absl::OkStatus();
  }

  const EGraph& g_;
  const LowerRequest& req_;
  LowerTrace* trace_;
  Graph out_;
  std::vector<NodeIdx> enode_;  // by NodeId of out_
  // By class id, below the largest chosen or input class + 1: the chosen
  // node (kNotChosen: none), the lowered value (node kNoNode: not yet), and
  // whether the class is on Visit's stack.
  std::vector<NodeIdx> chosen_;
  std::vector<ValueRef> value_;
  std::vector<bool> on_stack_;
  // By NodeId of out_: the name asked for (a view of the request's names;
  // empty: none), made unique when all are known (UniqueNames).
  std::vector<std::string_view> want_;
  Symbol out_op_ = Symbol::Intern(kOutOp);
  Symbol const_op_ = Symbol::Intern(kConstOp);
  Symbol shape_op_ = Symbol::Intern(kShapeOp);
};

}  // namespace

absl::StatusOr<Graph> LowerChoice(const EGraph& g, const LowerRequest& request, LowerTrace* trace) {
  return Lowerer(g, request, trace).Run();
}

}  // namespace egret
