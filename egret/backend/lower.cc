#include "egret/backend/lower.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/egraph/multi_outputs.h"

namespace egret {
namespace {

class Lowerer {
 public:
  Lowerer(const EGraph& g, const LowerRequest& req, LowerTrace* trace)
      : g_(g), req_(req), trace_(trace) {}

  absl::StatusOr<Graph> Run() {
    out_.set_name(req_.graph_name);
    out_.mutable_options() = req_.options;
    for (const auto& [cls, name] : req_.inputs) {
      Id c = g_.Find(cls);
      if (value_.contains(c)) continue;
      NodeId id = out_.AddInput(UniqueName(name), g_.TypeOf(c));
      value_[c] = ValueRef{id, 0};
      enode_.push_back(LowerTrace::kNoENode);
    }
    for (const auto& [cls, name] : req_.outputs) {
      absl::Status s = Visit(g_.Find(cls));
      if (!s.ok()) return s;
    }
    for (const auto& [cls, name] : req_.outputs) {
      out_.AddOutput(value_.at(g_.Find(cls)), name);
    }
    if (trace_ != nullptr) {
      trace_->enode = std::move(enode_);
      trace_->node_of_class.clear();
      trace_->node_of_class.reserve(value_.size());
      for (const auto& [c, v] : value_) trace_->node_of_class.emplace(c, v.node);
    }
    return std::move(out_);
  }

 private:
  std::string UniqueName(const std::string& want) {
    if (!want.empty() && used_.insert(want).second) return want;
    for (;;) {
      std::string n = absl::StrCat(want.empty() ? "n" : want + "_", fresh_++);
      if (used_.insert(n).second) return n;
    }
  }

  absl::StatusOr<NodeIdx> Chosen(Id c) const {
    auto it = req_.choice.find(c);
    if (it == req_.choice.end()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "lowering: class %d (%s) has no chosen node", c, g_.TypeOf(c).ToString()));
    }
    return it->second;
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
      if (value_.contains(c)) return absl::OkStatus();
      if (on_stack_.contains(c)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("lowering: the choice has a cycle through class %d", c));
      }
      absl::StatusOr<NodeIdx> n = Chosen(c);
      if (!n.ok()) return n.status();
      ENodeView v = g_.Node(*n);
      uint32_t deps = static_cast<uint32_t>(v.children.size());
      if (v.op == out_op_) {
        if (deps != 2) return absl::InvalidArgumentError("lowering: malformed $Out");
        deps = 1;
      }
      on_stack_.insert(c);
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
      on_stack_.erase(c);
      if (absl::Status s = Emit(c); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Emit(Id c) {
    NodeIdx n = *Chosen(c);
    ENodeView v = g_.Node(n);
    const TensorType& type = g_.TypeOf(c);
    if (v.op == out_op_) {
      Id multi = g_.Find(v.children[0]);
      const Dims& sel = g_.TypeOf(g_.Find(v.children[1])).dims;
      if (sel.empty()) return absl::InvalidArgumentError("lowering: $Out without a selector");
      ValueRef base = value_.at(multi);
      int64_t k = sel.back();
      if (k < 0 || k >= static_cast<int64_t>(out_.node(base.node).outputs.size())) {
        return absl::InvalidArgumentError(
            absl::StrFormat("lowering: $Out selects output %d of a node with %d outputs", k,
                            out_.node(base.node).outputs.size()));
      }
      value_[c] = ValueRef{base.node, static_cast<uint32_t>(k)};
      return absl::OkStatus();
    }
    Node node;
    node.op = std::string(v.op.str());
    static const std::string kNoName;
    const std::string* name = &kNoName;
    if (req_.names != nullptr) {
      if (auto it = req_.names->find(n); it != req_.names->end()) name = &it->second;
    }
    node.name = UniqueName(*name);
    if (v.op == const_op_) {
      node.constant = g_.ConstantOfPayload(v.payload);
      node.outputs.push_back(type);
    } else if (v.op == shape_op_) {
      node.outputs.push_back(type);
    } else {
      if (v.payload != kNoPayload && IsVolatileOp(node.op) == false) {
        node.attrs = g_.AttributesOf(v.payload);
      }
      for (Id ch : v.children) node.inputs.push_back(value_.at(g_.Find(ch)));
      if (type.dtype == DType::kMulti) {
        absl::StatusOr<std::vector<TensorType>> outs = MultiOutputTypes(g_, c);
        if (!outs.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("lowering: ", outs.status().message()));
        }
        for (TensorType& t : *outs) node.outputs.push_back(std::move(t));
      } else {
        node.outputs.push_back(type);
      }
    }
    NodeId id = out_.AddNode(std::move(node));
    if (out_.node(id).op == kInputOp) out_.mutable_inputs().push_back(id);
    value_[c] = ValueRef{id, 0};
    enode_.push_back(n);
    return absl::OkStatus();
  }

  const EGraph& g_;
  const LowerRequest& req_;
  LowerTrace* trace_;
  Graph out_;
  std::vector<NodeIdx> enode_;  // by NodeId of out_
  absl::flat_hash_map<Id, ValueRef> value_;
  absl::flat_hash_set<Id> on_stack_;
  absl::flat_hash_set<std::string> used_;
  int fresh_ = 0;
  Symbol out_op_ = Symbol::Intern(kOutOp);
  Symbol const_op_ = Symbol::Intern(kConstOp);
  Symbol shape_op_ = Symbol::Intern(kShapeOp);
};

}  // namespace

absl::StatusOr<Graph> LowerChoice(const EGraph& g, const LowerRequest& request, LowerTrace* trace) {
  return Lowerer(g, request, trace).Run();
}

}  // namespace egret
