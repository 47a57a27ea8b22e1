#include "egret/graph/graph.h"

#include <algorithm>
#include <queue>

#include "absl/strings/str_cat.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/repeated_names.h"

namespace egret {

Provenance::Provenance(std::vector<std::string> from, std::vector<std::string> rules) {
  if (!from.empty() || !rules.empty()) {
    lists_ = std::make_unique<Both>(Both{std::move(from), std::move(rules)});
  }
}

Provenance::Provenance(const Provenance& other) {
  if (!other.empty()) lists_ = std::make_unique<Both>(*other.lists_);
}

Provenance& Provenance::operator=(const Provenance& other) {
  if (this != &other) lists_ = other.empty() ? nullptr : std::make_unique<Both>(*other.lists_);
  return *this;
}

namespace {
// What an empty provenance's lists read as.
const std::vector<std::string>& NoStrings() {
  static const auto* const kNone = new std::vector<std::string>();
  return *kNone;
}
}  // namespace

const std::vector<std::string>& Provenance::from() const {
  return lists_ ? lists_->from : NoStrings();
}

const std::vector<std::string>& Provenance::rules() const {
  return lists_ ? lists_->rules : NoStrings();
}

Provenance::Both& Provenance::Lists() {
  if (!lists_) lists_ = std::make_unique<Both>();
  return *lists_;
}

bool IsRewritten(const Node& n) {
  const std::vector<std::string>& from = n.provenance.from();
  return !n.provenance.rules().empty() || from.size() > 1 ||
         (from.size() == 1 && from[0] != n.name);
}

NodeId Graph::AddNode(Node node) {
  nodes_.push_back(std::move(node));
  return static_cast<NodeId>(nodes_.size() - 1);
}

NodeId Graph::AddInput(std::string name, TensorType type) {
  Node n;
  n.op = std::string(kInputOp);
  n.name = std::move(name);
  n.outputs.push_back(std::move(type));
  NodeId id = AddNode(std::move(n));
  inputs_.push_back(id);
  return id;
}

NodeId Graph::AddConstant(std::string name, ConstTensorPtr value) {
  Node n;
  n.op = std::string(kConstOp);
  n.name = std::move(name);
  n.outputs.push_back(value->type());
  n.constant = std::move(value);
  return AddNode(std::move(n));
}

void Graph::AddOutput(ValueRef value, std::string name) {
  outputs_.push_back({value, std::move(name)});
}

std::string Graph::NodeLabel(NodeId id) const {
  if (id < nodes_.size() && !nodes_[id].name.empty()) {
    return absl::StrCat("'", nodes_[id].name, "' (#", id, ")");
  }
  return absl::StrCat("#", id);
}

NodeId Graph::FindNode(std::string_view name) const {
  for (NodeId i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].name == name) return i;
  }
  return kNoNode;
}

absl::Status Graph::Validate(NodeId* culprit) const {
  if (culprit != nullptr) *culprit = kNoNode;
  auto fail = [&](NodeId id, std::string_view what) {
    if (culprit != nullptr) *culprit = id;
    return absl::InvalidArgumentError(
        absl::StrCat("node ", NodeLabel(id), ": ", std::string(what)));
  };
  // The first node whose name an earlier node has: reported where the
  // checks of the nodes in id order reach it.
  const std::optional<NameRepeat> repeat = FirstRepeatedName(
      nodes_.size(), [this](size_t i) { return std::string_view(nodes_[i].name); });
  // Whether every input comes from a smaller id: then there is no cycle, and
  // the topological sort below (another pass over every node) is not needed.
  bool ascending = true;
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    if (n.op.empty()) return fail(id, "empty op");
    if (repeat && repeat->index == id) {
      return fail(id, absl::StrCat("name also used by node #", repeat->first));
    }
    if (n.outputs.empty()) return fail(id, "has no outputs");
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const TensorType& t = n.outputs[k];
      if (t.rank() > kMaxRank) {
        return fail(id,
                    absl::StrCat("output ", k, " has rank ", t.rank(), " (max ", kMaxRank, ")"));
      }
      if (t.dtype == DType::kUnknown) return fail(id, absl::StrCat("output ", k, " has no dtype"));
      if (absl::Status st = CheckShape(t.dims); !st.ok()) {
        return fail(id, absl::StrCat("output ", k, ": ", st.message()));
      }
      if (!t.is_tensor() && (!t.dims.empty() || t.per_axis || t.zero_offset != 0 ||
                             t.stepsize != 1.0f || !IsConcrete(t.dtype))) {
        return fail(id, absl::StrCat("output ", k, " is a ", t.ToString(),
                                     " with dims or an encoding (a container has neither)"));
      }
    }
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ValueRef& in = n.inputs[i];
      if (in.node >= nodes_.size()) {
        return fail(id, absl::StrCat("input ", i, " refers to missing node #", in.node));
      }
      if (in.output >= nodes_[in.node].outputs.size()) {
        return fail(
            id, absl::StrCat("input ", i, " refers to output ", in.output, " of node ",
                             NodeLabel(in.node), ", which has ", nodes_[in.node].outputs.size()));
      }
      ascending = ascending && in.node < id;
    }
    if (n.op == kInputOp && !n.inputs.empty()) return fail(id, "*Input node has inputs");
    if (IsConstantOp(n.op)) {
      if (!n.constant) return fail(id, absl::StrCat(n.op, " node has no data"));
      if (n.outputs.size() != 1 || n.constant->type() != n.outputs[0]) {
        return fail(id, absl::StrCat("constant data of type ", n.constant->type().ToString(),
                                     " does not match output type ", n.outputs[0].ToString()));
      }
    } else if (n.constant) {
      return fail(id, absl::StrCat("op ", n.op, " carries constant data"));
    }
  }
  for (NodeId id : inputs_) {
    if (id >= nodes_.size() || nodes_[id].op != kInputOp) {
      if (culprit != nullptr && id < nodes_.size()) *culprit = id;
      return absl::InvalidArgumentError(
          absl::StrCat("graph input ", NodeLabel(id), " is not an *Input node"));
    }
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const ValueRef& v = outputs_[i].value;
    if (v.node >= nodes_.size() || v.output >= nodes_[v.node].outputs.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph output ", i, " refers to missing value #", v.node, ":", v.output));
    }
  }
  return ascending ? absl::OkStatus() : TopologicalOrder(culprit).status();
}

absl::StatusOr<std::vector<NodeId>> Graph::TopologicalOrder(NodeId* culprit) const {
  const size_t n = nodes_.size();
  // Every input from a smaller id (how graphs are built and read): the
  // smallest-id-first order is the ids themselves. The executor asks for
  // the order on every run.
  bool ascending = true;
  size_t edges = 0;
  for (NodeId id = 0; id < n; ++id) {
    for (const ValueRef& in : nodes_[id].inputs) {
      if (in.node >= n) {
        if (culprit != nullptr) *culprit = id;
        return absl::InvalidArgumentError(
            absl::StrCat("node ", NodeLabel(id), ": input refers to missing node #", in.node));
      }
      ascending = ascending && in.node < id;
      ++edges;
    }
  }
  std::vector<NodeId> order;
  order.reserve(n);
  if (ascending) {
    for (NodeId id = 0; id < n; ++id) order.push_back(id);
    return order;
  }
  // Kahn's algorithm, smallest ready id first, over the users of each node
  // in one array (users of node v at user_at[first_user[v]...first_user[v+1])).
  std::vector<uint32_t> pending(n, 0);
  std::vector<size_t> first_user(n + 1, 0);
  for (NodeId id = 0; id < n; ++id) {
    pending[id] = static_cast<uint32_t>(nodes_[id].inputs.size());
    for (const ValueRef& in : nodes_[id].inputs) ++first_user[in.node + 1];
  }
  for (size_t v = 0; v < n; ++v) first_user[v + 1] += first_user[v];
  std::vector<NodeId> user_at(edges);
  std::vector<size_t> fill(first_user.begin(), first_user.end() - 1);
  for (NodeId id = 0; id < n; ++id) {
    for (const ValueRef& in : nodes_[id].inputs) user_at[fill[in.node]++] = id;
  }
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (NodeId id = 0; id < n; ++id) {
    if (pending[id] == 0) ready.push(id);
  }
  while (!ready.empty()) {
    NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (size_t k = first_user[id]; k < first_user[id + 1]; ++k) {
      if (--pending[user_at[k]] == 0) ready.push(user_at[k]);
    }
  }
  if (order.size() == n) return order;

  // Every node left has an input whose producer is also left, so walking from
  // any of them to such a producer must come back to a node already seen: that
  // node is on a cycle. Report the cycle starting from its smallest id.
  NodeId start = 0;
  while (pending[start] == 0) ++start;
  std::vector<uint32_t> seen_at(n, 0);  // 1 + step at which the walk reached the node
  std::vector<NodeId> walk;
  NodeId cur = start;
  while (seen_at[cur] == 0) {
    seen_at[cur] = static_cast<uint32_t>(walk.size()) + 1;
    walk.push_back(cur);
    NodeId next = kNoNode;
    for (const ValueRef& in : nodes_[cur].inputs) {
      if (pending[in.node] != 0) {
        next = in.node;
        break;
      }
    }
    cur = next;  // never kNoNode: see above
  }
  // The cycle is walk[seen_at[cur]-1 ...], listed consumer -> producer; print
  // it producer -> consumer, starting at its smallest id.
  std::vector<NodeId> cycle(walk.begin() + (seen_at[cur] - 1), walk.end());
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::string path;
  constexpr size_t kMaxShown = 8;
  for (size_t i = 0; i < cycle.size() && i < kMaxShown; ++i) {
    absl::StrAppend(&path, NodeLabel(cycle[i]), " -> ");
  }
  if (cycle.size() > kMaxShown) absl::StrAppend(&path, "... -> ");
  absl::StrAppend(&path, NodeLabel(cycle[0]));
  if (culprit != nullptr) *culprit = cycle[0];
  return absl::InvalidArgumentError(
      absl::StrCat("node ", NodeLabel(cycle[0]), ": is on a cycle: ", path));
}

}  // namespace egret
