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

void ExtractionProblem::RaiseCost(ENodeId n, double cost) {
  if (std::isfinite(cost) && cost > costs_[n]) costs_[n] = cost;
}

ClassId ExtractionProblemBuilder::AddClass(std::string name) {
  class_ids_.push_back(std::move(name));
  class_node_count_.push_back(0);
  return static_cast<ClassId>(class_ids_.size() - 1);
}

void ExtractionProblemBuilder::AddNode(ClassId c, std::string op, double cost,
                                       std::span<const ClassId> children, std::string name) {
  uint32_t begin = static_cast<uint32_t>(children_.size());
  children_.insert(children_.end(), children.begin(), children.end());
  nodes_.push_back(PendingNode{c, std::move(op), std::move(name), cost, begin,
                               static_cast<uint32_t>(children_.size())});
}

void ExtractionProblemBuilder::AddRoot(ClassId c) { roots_.push_back(c); }

absl::StatusOr<ExtractionProblem> ExtractionProblemBuilder::Build() && {
  const size_t nc = class_ids_.size();
  for (const PendingNode& n : nodes_) {
    if (n.cls >= nc) {
      return absl::InvalidArgumentError(absl::StrCat("node '", n.name, "' names class index ",
                                                     n.cls, " but there are ", nc, " classes"));
    }
    if (!std::isfinite(n.cost)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", n.name, "' in class '", class_ids_[n.cls], "' has a cost that is not finite"));
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

  p.node_ids_.resize(nn);
  p.ops_.resize(nn);
  p.costs_.resize(nn);
  p.node_class_.resize(nn);
  p.child_begin_.resize(nn + 1);
  p.children_.reserve(children_.size());
  std::vector<uint32_t> parent_count(nc + 1, 0);
  for (ENodeId n = 0; n < nn; ++n) {
    PendingNode& src = nodes_[order[n]];
    p.node_class_[n] = src.cls;
    p.costs_[n] = src.cost;
    if (src.cost < 0) p.has_negative_costs_ = true;
    p.ops_[n] = std::move(src.op);
    p.node_ids_[n] = src.name.empty()
                         ? absl::StrCat(class_ids_[src.cls], ".", n - p.class_nodes_[src.cls])
                         : std::move(src.name);
    p.child_begin_[n] = static_cast<uint32_t>(p.children_.size());
    for (uint32_t k = src.child_begin; k < src.child_end; ++k) {
      p.children_.push_back(children_[k]);
      ++parent_count[children_[k]];
    }
  }
  p.child_begin_[nn] = static_cast<uint32_t>(p.children_.size());
  p.parent_begin_.assign(nc + 1, 0);
  for (size_t c = 0; c < nc; ++c) p.parent_begin_[c + 1] = p.parent_begin_[c] + parent_count[c];
  p.parents_.resize(p.children_.size());
  for (size_t c = 0; c < nc; ++c) slot[c] = p.parent_begin_[c];
  for (ENodeId n = 0; n < nn; ++n) {
    for (ClassId ch : p.children(n)) p.parents_[slot[ch]++] = n;
  }
  p.class_ids_ = std::move(class_ids_);
  p.roots_ = std::move(roots_);
  return p;
}

}  // namespace egret::extract
