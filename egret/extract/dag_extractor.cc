#include "egret/extract/dag_extractor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "egret/extract/class_sccs.h"
#include "egret/extract/dag_extractor_cost_sets.h"
#include "egret/extract/tree_extractor.h"
#include "egret/extract/validate.h"

namespace egret::extract {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Step 3: local search over a full choice (one node for every class that has
// an acyclic term), kept acyclic everywhere. refs[c] counts the uses of c by
// active chosen nodes plus root occurrences; c is active iff refs[c] > 0.
class LocalSearch {
 public:
  // `rank` is ComputeClassSccs(p).id.
  LocalSearch(const ExtractionProblem& p, Choice full, const std::vector<int32_t>& rank,
              int64_t budget, std::optional<std::chrono::steady_clock::time_point> deadline)
      : p_(p),
        choice_(std::move(full)),
        refs_(p.num_classes(), 0),
        mark_(p.num_classes(), 0),
        rank_(rank),
        budget_(budget),
        deadline_(deadline) {
    for (ClassId r : p_.roots()) cost_ += Inc(r);
  }

  void Run() {
    bool improved = true;
    while (improved && HasBudget()) {
      improved = false;
      // Shared-class moves: make an unused class s available and let every
      // active user that can use s switch to it; keep all or nothing.
      for (ClassId s = 0; s < p_.num_classes() && HasBudget(); ++s) {
        if (refs_[s] == 0 && choice_.node[s] != kNoENode && TryIntroduce(s)) improved = true;
      }
      // Single switches.
      for (ClassId c = 0; c < p_.num_classes() && HasBudget(); ++c) {
        if (refs_[c] == 0 || p_.class_size(c) < 2) continue;
        for (ENodeId alt = p_.class_begin(c); alt < p_.class_end(c) && HasBudget(); ++alt) {
          const ENodeId cur = choice_.node[c];
          if (alt == cur || !Usable(c, alt)) continue;
          double delta = Switch(c, alt);
          if (delta < -1e-9 * std::max(1.0, std::abs(cost_))) {
            cost_ += delta;
            improved = true;
          } else {
            Switch(c, cur);  // exact undo
          }
        }
      }
    }
  }

  const Choice& choice() const { return choice_; }
  // Whether Run stopped at the deadline rather than at a local optimum or
  // the work budget.
  bool deadline_hit() const { return deadline_hit_; }

 private:
  bool TryIntroduce(ClassId s) {
    // Needs users in at least two active classes, else a single switch
    // suffices.
    int users = 0;
    ClassId first = kNoENode;
    for (ENodeId n : p_.parents(s)) {
      ClassId c = p_.node_class(n);
      if (refs_[c] > 0 && choice_.node[c] != n && c != first) {
        if (first == kNoENode) first = c;
        if (++users >= 2) break;
      }
    }
    if (users < 2) return false;
    double total = Inc(s);  // pinned: s costs nothing more to the users below
    undo_.clear();
    ENodeId last = kNoENode;
    for (ENodeId alt : p_.parents(s)) {
      if (alt == last) continue;  // s twice among alt's children
      last = alt;
      ClassId c = p_.node_class(alt);
      const ENodeId cur = choice_.node[c];
      if (refs_[c] == 0 || cur == alt || !Usable(c, alt)) continue;
      double d = Switch(c, alt);
      if (d < 0) {
        total += d;
        undo_.push_back({c, cur});
      } else {
        Switch(c, cur);
      }
    }
    total -= Dec(s);
    if (!undo_.empty() && total < -1e-9 * std::max(1.0, std::abs(cost_))) {
      cost_ += total;
      return true;
    }
    for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) Switch(it->first, it->second);
    return false;
  }

  // Activates c (one more use); returns the cost added.
  double Inc(ClassId c) {
    double added = 0;
    stack_.clear();
    stack_.push_back(c);
    while (!stack_.empty()) {
      ClassId d = stack_.back();
      stack_.pop_back();
      --budget_;
      if (refs_[d]++ > 0) continue;
      ENodeId n = choice_.node[d];
      added += p_.cost(n);
      for (ClassId ch : p_.children(n)) stack_.push_back(ch);
    }
    return added;
  }
  double Dec(ClassId c) {
    double removed = 0;
    stack_.clear();
    stack_.push_back(c);
    while (!stack_.empty()) {
      ClassId d = stack_.back();
      stack_.pop_back();
      --budget_;
      if (--refs_[d] > 0) continue;
      ENodeId n = choice_.node[d];
      removed += p_.cost(n);
      for (ClassId ch : p_.children(n)) stack_.push_back(ch);
    }
    return removed;
  }
  // Switches active class c to node `to`; returns the change in DAG cost.
  double Switch(ClassId c, ENodeId to) {
    ENodeId from = choice_.node[c];
    choice_.node[c] = to;
    double delta = p_.cost(to) - p_.cost(from);
    for (ClassId ch : p_.children(to)) delta += Inc(ch);
    for (ClassId ch : p_.children(from)) delta -= Dec(ch);
    return delta;
  }
  // Whether c may choose `alt`: all its children have a choice and none of
  // them reaches c through the current choice (which would close a cycle).
  // The walk does not go below a class of a lower rank than c's
  // (its strongly connected component, class_sccs.h, comes earlier):
  // nothing under it can reach c through any choice. Each
  // class taken off the walk's stack costs one step of the budget.
  bool Usable(ClassId c, ENodeId alt) {
    for (ClassId ch : p_.children(alt)) {
      if (ch == c || choice_.node[ch] == kNoENode) return false;
    }
    if (++now_ == 0) {
      std::fill(mark_.begin(), mark_.end(), 0);
      now_ = 1;
    }
    stack_.clear();
    for (ClassId ch : p_.children(alt)) stack_.push_back(ch);
    while (!stack_.empty()) {
      ClassId d = stack_.back();
      stack_.pop_back();
      --budget_;
      if (d == c) return false;
      if (mark_[d] == now_) continue;
      mark_[d] = now_;
      if (rank_[d] < rank_[c]) continue;
      for (ClassId ch : p_.children(choice_.node[d])) stack_.push_back(ch);
    }
    return true;
  }

  const ExtractionProblem& p_;
  Choice choice_;
  std::vector<uint32_t> refs_;
  std::vector<uint32_t> mark_;
  const std::vector<int32_t>& rank_;  // ComputeClassSccs(p).id
  uint32_t now_ = 0;
  std::vector<ClassId> stack_;
  double cost_ = 0;
  int64_t budget_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  uint32_t ticks_ = 0;

  bool deadline_hit_ = false;

  // False once the work budget is spent or the deadline (checked every 256
  // calls) has passed.
  bool HasBudget() {
    if (budget_ <= 0) return false;
    if (deadline_ && (++ticks_ & 255) == 0 && std::chrono::steady_clock::now() >= *deadline_) {
      budget_ = 0;
      deadline_hit_ = true;
    }
    return budget_ > 0;
  }
  std::vector<std::pair<ClassId, ENodeId>> undo_;
};

// `reachable` (a valid choice) completed with `fill` (an acyclic choice for
// every computable class) outside its reachable part. Acyclic: the reachable
// part is closed under children, so no edge leads out of it.
Choice Complete(const ExtractionProblem& p, const Choice& reachable, const Choice& fill) {
  Choice full = fill;
  for (ClassId c : ReachableClasses(p, reachable)) full.node[c] = reachable.node[c];
  return full;
}

}  // namespace

absl::StatusOr<Choice> ExtractGreedyDag(const ExtractionProblem& p) {
  absl::StatusOr<TreeCosts> tree = ComputeTreeCosts(p);
  if (!tree.ok()) return tree.status();
  for (ClassId r : p.roots()) {
    if (std::isinf(tree->cost[r])) return UncomputableRootError(p, tree->cost, r);
  }
  std::optional<Choice> sets = GreedyCostSets(p);
  Choice greedy = RestrictToReachable(p, *sets);
  if (!ValidateChoice(p, greedy).ok()) return RestrictToReachable(p, tree->choice);
  return greedy;
}

absl::StatusOr<Choice> ExtractDag(const ExtractionProblem& p, const DagOptions& options) {
  absl::StatusOr<TreeCosts> tree = ComputeTreeCosts(p);
  if (!tree.ok()) return tree.status();
  for (ClassId r : p.roots()) {
    if (std::isinf(tree->cost[r])) return UncomputableRootError(p, tree->cost, r);
  }
  int64_t edges = 0;
  for (ClassId c = 0; c < p.num_classes(); ++c) edges += static_cast<int64_t>(p.parents(c).size());
  std::vector<Choice> candidates;
  CostSetLimits limits;
  limits.max_work =
      options.cost_set_work_factor * (static_cast<int64_t>(p.num_nodes()) + edges) + (1 << 20);
  limits.max_bytes = options.memory_budget_bytes;
  limits.deadline = options.deadline;
  std::optional<Choice> sets = GreedyCostSets(p, limits, options.report);
  if (sets) {
    Choice greedy = RestrictToReachable(p, *sets);
    if (ValidateChoice(p, greedy).ok()) candidates.push_back(std::move(greedy));
  }
  candidates.push_back(RestrictToReachable(p, tree->choice));

  const int64_t budget =
      options.work_factor * (static_cast<int64_t>(p.num_nodes()) + edges) + 10000;

  Choice best;
  double best_cost = kInf;
  size_t best_size = 0;
  std::vector<int32_t> rank;  // ComputeClassSccs(p).id, made for the first search
  for (Choice& cand : candidates) {
    Choice result = cand;
    if (options.local_search) {
      if (rank.empty()) rank = ComputeClassSccs(p).id;
      LocalSearch search(p, Complete(p, cand, tree->choice), rank, budget, options.deadline);
      search.Run();
      if (search.deadline_hit() && options.report != nullptr) options.report->time_limit_hit = true;
      result = RestrictToReachable(p, search.choice());
    }
    // The cheaper candidate, or of two that cost the same (to within
    // LocalSearch's margin: the sums run in the order each choice is walked,
    // so equal costs can differ in the last bits) the one of fewer classes,
    // then the first. Which of two equal choices the cost sets or the tree
    // pass finds depends on how the problem is numbered; fewer classes does
    // not (a recognized op that needs two more constants at the same cost
    // is not taken). Every candidate is restricted to what the roots reach,
    // so its chosen classes are its classes.
    const double cost = DagCost(p, result);
    const size_t size = static_cast<size_t>(std::count_if(result.node.begin(), result.node.end(),
                                                          [](ENodeId n) { return n != kNoENode; }));
    const double margin = 1e-9 * std::max(1.0, std::abs(best_cost));
    if (std::isinf(best_cost) || cost < best_cost - margin ||
        (cost <= best_cost + margin && size < best_size)) {
      best_cost = cost;
      best_size = size;
      best = std::move(result);
    }
  }
  if (absl::Status s = ValidateChoice(p, best); !s.ok()) {
    return absl::InternalError(std::string("DAG extractor produced an invalid choice: ") +
                               std::string(s.message()));
  }
  return best;
}

}  // namespace egret::extract
