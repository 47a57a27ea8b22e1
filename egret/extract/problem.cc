#include "egret/extract/problem.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace egret::extract {

int64_t ExtractionProblem::FindClass(std::string_view name) const {
  for (size_t c = 0; c < class_ids_.size(); ++c) {
    if (class_ids_[c] == name) return static_cast<int64_t>(c);
  }
  return -1;
}

std::string ExtractionProblem::node_name(ENodeId n) const {
  if (name_begin_[n] == name_begin_[n + 1]) {
    return absl::StrCat(class_ids_[node_class_[n]], ".", n - class_nodes_[node_class_[n]]);
  }
  return node_names_.substr(name_begin_[n], name_begin_[n + 1] - name_begin_[n]);
}

void ExtractionProblem::RaiseCost(ENodeId n, double cost) {
  if (std::isfinite(cost) && cost > costs_[n]) costs_[n] = cost;
}

ClassId ExtractionProblemBuilder::AddClass(std::string name) {
  class_ids_.push_back(std::move(name));
  class_node_count_.push_back(0);
  return static_cast<ClassId>(class_ids_.size() - 1);
}

void ExtractionProblemBuilder::AddNode(ClassId c, std::string_view op, double cost,
                                       std::span<const ClassId> children, std::string_view name) {
  uint32_t begin = static_cast<uint32_t>(children_.size());
  children_.insert(children_.end(), children.begin(), children.end());
  // (Debian's absl::string_view is not std::string_view.)
  auto it = op_index_.find(absl::string_view(op.data(), op.size()));
  if (it == op_index_.end()) {
    it = op_index_.emplace(std::string(op), static_cast<uint32_t>(op_names_.size())).first;
    op_names_.emplace_back(op);
  }
  const uint64_t name_begin = names_.size();
  names_ += name;
  nodes_.push_back(PendingNode{c, it->second, cost, begin, static_cast<uint32_t>(children_.size()),
                               name_begin, static_cast<uint32_t>(name.size())});
}

void ExtractionProblemBuilder::AddRoot(ClassId c) { roots_.push_back(c); }

absl::StatusOr<ExtractionProblem> ExtractionProblemBuilder::Build() && {
  const size_t nc = class_ids_.size();
  for (const PendingNode& n : nodes_) {
    if (n.cls >= nc) {
      return absl::InvalidArgumentError(absl::StrCat("node '", std::string(PendingName(n)),
                                                     "' names class index ", n.cls,
                                                     " but there are ", nc, " classes"));
    }
    if (!std::isfinite(n.cost)) {
      return absl::InvalidArgumentError(absl::StrCat("node '", std::string(PendingName(n)),
                                                     "' in class '", class_ids_[n.cls],
                                                     "' has a cost that is not finite"));
    }
    ++class_node_count_[n.cls];
  }
  for (ClassId ch : children_) {
    if (ch >= nc)
      return absl::InvalidArgumentError(absl::StrCat("child class index ", ch, " out of range"));
  }
  if (roots_.empty()) return absl::InvalidArgumentError("the e-graph has no root classes");
  for (ClassId r : roots_) {
    if (r >= nc)
      return absl::InvalidArgumentError(absl::StrCat("root class index ", r, " out of range"));
    if (class_node_count_[r] == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("root class '", class_ids_[r], "' has no nodes"));
    }
  }

  ExtractionProblem p;
  const size_t nn = nodes_.size();
  p.class_nodes_.assign(nc + 1, 0);
  for (size_t c = 0; c < nc; ++c) p.class_nodes_[c + 1] = p.class_nodes_[c] + class_node_count_[c];
  // Stable counting sort of the nodes by class.
  std::vector<ENodeId> slot(nc);
  for (size_t c = 0; c < nc; ++c) slot[c] = p.class_nodes_[c];
  std::vector<ENodeId> order(nn);  // order[new index] = pending index
  for (size_t i = 0; i < nn; ++i) order[slot[nodes_[i].cls]++] = static_cast<ENodeId>(i);

  p.name_begin_.resize(nn + 1);
  p.op_of_.resize(nn);
  p.costs_.resize(nn);
  p.node_class_.resize(nn);
  p.child_begin_.resize(nn + 1);
  p.children_.reserve(children_.size());
  p.node_names_.reserve(names_.size());
  std::vector<uint32_t> parent_count(nc + 1, 0);
  for (ENodeId n = 0; n < nn; ++n) {
    PendingNode& src = nodes_[order[n]];
    p.node_class_[n] = src.cls;
    p.costs_[n] = src.cost;
    if (src.cost < 0) p.has_negative_costs_ = true;
    p.op_of_[n] = src.op;
    p.name_begin_[n] = p.node_names_.size();
    p.node_names_ += PendingName(src);
    p.child_begin_[n] = static_cast<uint32_t>(p.children_.size());
    for (uint32_t k = src.child_begin; k < src.child_end; ++k) {
      p.children_.push_back(children_[k]);
      ++parent_count[children_[k]];
    }
  }
  p.child_begin_[nn] = static_cast<uint32_t>(p.children_.size());
  p.name_begin_[nn] = p.node_names_.size();
  // The pending nodes are copied: free them before the parents are built.
  std::vector<PendingNode>().swap(nodes_);
  std::vector<ClassId>().swap(children_);
  std::string().swap(names_);
  p.parent_begin_.assign(nc + 1, 0);
  for (size_t c = 0; c < nc; ++c) p.parent_begin_[c + 1] = p.parent_begin_[c] + parent_count[c];
  p.parents_.resize(p.children_.size());
  for (size_t c = 0; c < nc; ++c) slot[c] = p.parent_begin_[c];
  for (ENodeId n = 0; n < nn; ++n) {
    for (ClassId ch : p.children(n)) p.parents_[slot[ch]++] = n;
  }
  p.class_ids_ = std::move(class_ids_);
  p.op_names_ = std::move(op_names_);
  p.roots_ = std::move(roots_);
  return p;
}

}  // namespace egret::extract
