// Branch and bound on the critical-path bound (critical_path_search.h).
#include "egret/extract/critical_path_search.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "egret/extract/critical_path_bound.h"

namespace egret::extract {
namespace {

class Search {
 public:
  Search(const ExtractionProblem& p, const Choice* hint, double incumbent,
         const CriticalPathSearchOptions& options)
      : p_(p), hint_(hint), best_(incumbent), options_(options), allowed_(p.num_nodes(), 1) {}

  CriticalPathSearchResult Run() {
    result_.complete = Visit();
    return std::move(result_);
  }

 private:
  // The ILP's tolerance around the best cost known (none while there is none).
  double Tolerance() const { return std::isfinite(best_) ? CostTolerance(best_) : 0.0; }

  // Searches below the current allowed set; false when stopped by a limit.
  bool Visit() {
    if (result_.bounds >= options_.max_bounds ||
        std::chrono::steady_clock::now() >= options_.deadline) {
      return false;
    }
    ++result_.bounds;
    std::optional<CriticalPathDetail> d = ComputeCriticalPathDetail(p_, allowed_);
    if (!d.has_value()) return true;         // no valid choice is left
    if (d->necessary.empty()) return false;  // over the bound's own limits: cannot branch
    if (d->bound.bound >= best_ - Tolerance()) return true;
    // The necessary class with the fewest nodes left to choose from.
    ClassId branch = 0;
    size_t options = 0;
    for (ClassId c = 0; c < p_.num_classes(); ++c) {
      if (!d->necessary[c]) continue;
      size_t k = 0;
      for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) k += d->acyclic[n];
      if (k > 1 && (options == 0 || k < options)) {
        options = k;
        branch = c;
      }
    }
    if (options == 0) {
      Leaf(*d);
      return true;
    }
    std::vector<ENodeId> order;
    for (ENodeId n = p_.class_begin(branch); n < p_.class_end(branch); ++n) {
      if (d->acyclic[n]) order.push_back(n);
    }
    if (hint_ != nullptr) {
      std::stable_partition(order.begin(), order.end(),
                            [&](ENodeId n) { return hint_->node[branch] == n; });
    }
    d.reset();  // not held across the children: depth x (nodes + classes) bytes
    // The class's flags as they were, restored after its children.
    const ENodeId begin = p_.class_begin(branch), end = p_.class_end(branch);
    const std::vector<char> saved(allowed_.begin() + begin, allowed_.begin() + end);
    bool finished = true;
    for (ENodeId n : order) {
      for (ENodeId m = begin; m < end; ++m) allowed_[m] = m == n;
      if (!Visit()) {
        finished = false;
        break;
      }
    }
    std::copy(saved.begin(), saved.end(), allowed_.begin() + begin);
    return finished;
  }

  // Every necessary class is down to one node: that choice, if cheaper.
  void Leaf(const CriticalPathDetail& d) {
    Choice c(p_.num_classes());
    for (ClassId k = 0; k < p_.num_classes(); ++k) {
      if (!d.necessary[k]) continue;
      for (ENodeId n = p_.class_begin(k); n < p_.class_end(k); ++n) {
        if (d.acyclic[n]) c.node[k] = n;
      }
    }
    const double cost = DagCost(p_, c);
    if (cost < best_ - Tolerance()) {
      best_ = cost;
      result_.cost = cost;
      result_.choice = std::move(c);
    }
  }

  const ExtractionProblem& p_;
  const Choice* hint_;
  double best_;
  const CriticalPathSearchOptions& options_;
  std::vector<char> allowed_;
  CriticalPathSearchResult result_;
};

}  // namespace

CriticalPathSearchResult SearchByCriticalPath(const ExtractionProblem& p, const Choice* hint,
                                              double incumbent,
                                              const CriticalPathSearchOptions& options) {
  if (p.has_negative_costs() || p.roots().empty()) return {};
  return Search(p, hint, incumbent, options).Run();
}

}  // namespace egret::extract
