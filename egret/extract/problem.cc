#include "egret/extract/problem.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace egret::extract {

int64_t ExtractionProblem::FindClass(std::string_view name) const {
  for (size_t c = 0; c < num_classes(); ++c) {
    if (ClassNameView(static_cast<ClassId>(c)) == name) return static_cast<int64_t>(c);
  }
  return -1;
}

std::string ExtractionProblem::node_name(ENodeId n) const {
  if (name_begin_.empty() || name_begin_[n] == name_begin_[n + 1]) {
    return absl::StrCat(class_name(node_class_[n]), ".", n - class_nodes_[node_class_[n]]);
  }
  return node_names_.substr(name_begin_[n], name_begin_[n + 1] - name_begin_[n]);
}

void ExtractionProblem::RaiseCost(ENodeId n, double cost) {
  if (std::isfinite(cost) && cost > costs_[n]) costs_[n] = cost;
}

ClassId ExtractionProblemBuilder::AddClass(std::string_view name) {
  class_name_begin_.push_back(class_names_.size());
  class_names_ += name;
  class_node_count_.push_back(0);
  return static_cast<ClassId>(class_name_begin_.size() - 1);
}

void ExtractionProblemBuilder::AddNode(ClassId c, std::string_view op, double cost,
                                       std::span<const ClassId> children, std::string_view name) {
  child_begin_.push_back(static_cast<uint32_t>(children_.size()));
  children_.insert(children_.end(), children.begin(), children.end());
  // (Debian's absl::string_view is not std::string_view.)
  auto it = op_index_.find(absl::string_view(op.data(), op.size()));
  if (it == op_index_.end()) {
    it = op_index_.emplace(std::string(op), static_cast<uint32_t>(op_names_.size())).first;
    op_names_.emplace_back(op);
  }
  // The first explicit name gives every node before it an empty one.
  if (!name.empty() && !named_) {
    name_begin_.assign(node_class_.size(), 0);
    named_ = true;
  }
  if (named_) name_begin_.push_back(names_.size());
  names_ += name;
  node_class_.push_back(c);
  op_of_.push_back(it->second);
  costs_.push_back(cost);
}

void ExtractionProblemBuilder::AddRoot(ClassId c) { roots_.push_back(c); }

void ExtractionProblemBuilder::Reserve(size_t classes, size_t nodes, size_t children) {
  class_name_begin_.reserve(classes + 1);
  class_node_count_.reserve(classes);
  child_begin_.reserve(nodes);
  node_class_.reserve(nodes);
  op_of_.reserve(nodes);
  costs_.reserve(nodes);
  children_.reserve(children);
}

namespace {

// Moves `from` into `to` without much spare capacity: shrinking copies the
// whole array, which pays only when more than a sixteenth of it is spare
// (not after a Reserve that was about right).
template <typename T>
void MoveTight(T& from, T& to) {
  if (from.capacity() - from.size() > from.capacity() / 16) from.shrink_to_fit();
  to = std::move(from);
  from = T();
}

}  // namespace

absl::StatusOr<ExtractionProblem> ExtractionProblemBuilder::Build() && {
  const size_t nc = class_name_begin_.size(), nn = node_class_.size();
  bool grouped = true;  // nodes already in class order
  for (size_t n = 0; n < nn; ++n) {
    const ClassId c = node_class_[n];
    if (c >= nc) {
      return absl::InvalidArgumentError(absl::StrCat("node '", std::string(PendingName(n)),
                                                     "' names class index ", c, " but there are ",
                                                     nc, " classes"));
    }
    if (!std::isfinite(costs_[n])) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", std::string(PendingName(n)), "' in class '",
                       std::string(PendingClassName(c)), "' has a cost that is not finite"));
    }
    ++class_node_count_[c];
    grouped = grouped && (n == 0 || node_class_[n - 1] <= c);
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
          absl::StrCat("root class '", std::string(PendingClassName(r)), "' has no nodes"));
    }
  }

  ExtractionProblem p;
  p.class_nodes_.assign(nc + 1, 0);
  for (size_t c = 0; c < nc; ++c) p.class_nodes_[c + 1] = p.class_nodes_[c] + class_node_count_[c];
  std::vector<uint32_t> slot(nc);
  for (ClassId c : children_) ++slot[c];  // parents per class
  p.parent_begin_.assign(nc + 1, 0);
  for (size_t c = 0; c < nc; ++c) p.parent_begin_[c + 1] = p.parent_begin_[c] + slot[c];
  for (double cost : costs_) p.has_negative_costs_ = p.has_negative_costs_ || cost < 0;
  child_begin_.push_back(static_cast<uint32_t>(children_.size()));
  if (named_) name_begin_.push_back(names_.size());
  if (grouped) {
    // Already the problem's layout.
    MoveTight(node_class_, p.node_class_);
    MoveTight(op_of_, p.op_of_);
    MoveTight(costs_, p.costs_);
    MoveTight(child_begin_, p.child_begin_);
    MoveTight(children_, p.children_);
    MoveTight(name_begin_, p.name_begin_);
    MoveTight(names_, p.node_names_);
  } else {
    // Stable counting sort of the nodes by class.
    for (size_t c = 0; c < nc; ++c) slot[c] = p.class_nodes_[c];
    std::vector<ENodeId> order(nn);  // order[new index] = pending index
    for (size_t i = 0; i < nn; ++i) order[slot[node_class_[i]]++] = static_cast<ENodeId>(i);
    if (named_) p.name_begin_.resize(nn + 1);
    p.op_of_.resize(nn);
    p.costs_.resize(nn);
    p.node_class_.resize(nn);
    p.child_begin_.resize(nn + 1);
    p.children_.reserve(children_.size());
    p.node_names_.reserve(names_.size());
    for (ENodeId n = 0; n < nn; ++n) {
      const ENodeId src = order[n];
      p.node_class_[n] = node_class_[src];
      p.costs_[n] = costs_[src];
      p.op_of_[n] = op_of_[src];
      if (named_) {
        p.name_begin_[n] = p.node_names_.size();
        p.node_names_ += PendingName(src);
      }
      p.child_begin_[n] = static_cast<uint32_t>(p.children_.size());
      p.children_.insert(p.children_.end(), children_.begin() + child_begin_[src],
                         children_.begin() + child_begin_[src + 1]);
    }
    p.child_begin_[nn] = static_cast<uint32_t>(p.children_.size());
    if (named_) p.name_begin_[nn] = p.node_names_.size();
    // The pending nodes are copied: free them before the parents are built.
    node_class_ = {};
    op_of_ = {};
    costs_ = {};
    child_begin_ = {};
    children_ = {};
    name_begin_ = {};
    names_ = {};
  }
  p.parents_.resize(p.children_.size());
  for (size_t c = 0; c < nc; ++c) slot[c] = p.parent_begin_[c];
  for (ENodeId n = 0; n < nn; ++n) {
    for (ClassId ch : p.children(n)) p.parents_[slot[ch]++] = n;
  }
  class_name_begin_.push_back(class_names_.size());
  MoveTight(class_name_begin_, p.class_name_begin_);
  MoveTight(class_names_, p.class_names_);
  p.op_names_ = std::move(op_names_);
  p.roots_ = std::move(roots_);
  return p;
}

}  // namespace egret::extract
