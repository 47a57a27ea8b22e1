#include "egret/extract/dag_extractor.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "egret/extract/class_sccs.h"
#include "egret/extract/tree_extractor.h"
#include "egret/extract/validate.h"

namespace egret::extract {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Step 1: cost sets. set[c] lists the node chosen, when the set was made, for
// every class of c's best known sub-DAG, c included (4 bytes an entry: the
// class and cost are read from the problem); total[c] is their sum. A node is
// priced by walking its children's sets once with a stamp array (no
// allocation); the set is only materialised when the node becomes its class's
// best.
//
// Sets grow with the depth of the DAG, so on a long chain the pass is
// quadratic in time and memory. The limits bound the set entries read and
// written, the bytes the sets hold and the time; past one the pass gives up
// (nullopt) and says which in `report`.
struct CostSetLimits {
  int64_t max_work = std::numeric_limits<int64_t>::max();
  int64_t max_bytes = 0;  // 0: none
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// A lower bound on the work GreedyCostSets does when it runs to the end: the
// sum, over every node it prices (every node whose children are all
// computable and none is its own class), of its children's minimal heights.
// A child's set is always a whole sub-DAG below it, so it holds at least the
// classes of one path down to a leaf, and no path is shorter than the
// class's minimal height (1 + the smallest, over its nodes, of the largest
// child height; 1 for a leaf). O(nodes + edges): classes settle by height,
// breadth first.
double CostSetWorkLowerBound(const ExtractionProblem& p) {
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  std::vector<uint32_t> height(nc, 0);  // 0: not settled
  std::vector<uint32_t> pending(nn);    // child occurrences not yet settled
  std::vector<ClassId> order;           // settled classes, by height
  order.reserve(nc);
  for (ENodeId n = 0; n < nn; ++n) {
    pending[n] = static_cast<uint32_t>(p.children(n).size());
    const ClassId c = p.node_class(n);
    if (pending[n] == 0 && height[c] == 0) {
      height[c] = 1;
      order.push_back(c);
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const ClassId ch = order[i];
    for (ENodeId parent : p.parents(ch)) {
      if (--pending[parent] != 0) continue;
      // ch is the parent's last child to settle, so the highest.
      const ClassId c = p.node_class(parent);
      if (height[c] == 0) {
        height[c] = height[ch] + 1;
        order.push_back(c);
      }
    }
  }
  double bound = 0;
  for (ENodeId n = 0; n < nn; ++n) {
    if (pending[n] != 0) continue;
    const ClassId c = p.node_class(n);
    uint64_t sum = 0;
    bool own = false;
    for (ClassId ch : p.children(n)) {
      own |= ch == c;
      sum += height[ch];
    }
    if (!own) bound += static_cast<double>(sum);
  }
  return bound;
}

std::optional<Choice> GreedyCostSets(const ExtractionProblem& p, const CostSetLimits& limits = {},
                                     DagOptions::Report* report = nullptr) {
  using Entry = ENodeId;
  int64_t work = 0;
  int64_t set_bytes = 0;  // capacity of every set, in bytes
  int64_t evaluated = 0;  // nodes priced
  uint32_t ticks = 0;
  auto give_up = [&](bool memory, bool time) -> std::optional<Choice> {
    if (report != nullptr) {
      report->cost_sets_gave_up = true;
      report->memory_limit_hit |= memory;
      report->time_limit_hit |= time;
    }
    return std::nullopt;
  };
  // Known to pass the work bound (deep DAGs: a chain's sets grow with its
  // depth): give up before holding any set. Same result as giving up at the
  // bound.
  if (limits.max_work < std::numeric_limits<int64_t>::max() &&
      CostSetWorkLowerBound(p) > static_cast<double>(limits.max_work)) {
    return give_up(false, false);
  }
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  std::vector<std::vector<Entry>> set(nc);
  std::vector<Entry> merged;  // the set being made, reused
  std::vector<double> total(nc, kInf);
  Choice choice(nc);
  std::vector<uint32_t> stamp(nc, 0);
  uint32_t now = 0;
  // Nodes are evaluated cheapest-first (keyed by the total of the class that
  // last changed under them), which settles most classes once, like
  // Dijkstra; a FIFO order can re-price long chains quadratically often.
  using Keyed = std::pair<double, ENodeId>;
  std::priority_queue<Keyed, std::vector<Keyed>, std::greater<Keyed>> queue;
  std::vector<double> queued_key(nn, kInf);
  for (ENodeId n = 0; n < nn; ++n) {
    if (p.children(n).empty()) {
      queued_key[n] = p.cost(n);
      queue.push({p.cost(n), n});
    }
  }
  auto next_stamp = [&] {
    if (++now == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      now = 1;
    }
    return now;
  };
  while (!queue.empty()) {
    auto [key, n] = queue.top();
    queue.pop();
    if (key != queued_key[n]) continue;  // stale duplicate
    queued_key[n] = kInf;
    if (limits.deadline && (++ticks & 1023) == 0 &&
        std::chrono::steady_clock::now() >= *limits.deadline) {
      return give_up(/*memory=*/false, /*time=*/true);
    }
    const ClassId c = p.node_class(n);
    bool ok = true;
    for (ClassId ch : p.children(n)) {
      if (ch == c || total[ch] == kInf) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    const uint32_t s = next_stamp();
    stamp[c] = s;  // a child set containing c means a cycle
    double value = p.cost(n);
    for (ClassId ch : p.children(n)) work += static_cast<int64_t>(set[ch].size());
    // Projected: once a sixteenth as many nodes as the problem has are
    // priced, the work so far scaled to all of them passes the bound (every
    // node whose children are computable is priced at least once, and sets
    // grow with depth): give up now rather than at the bound.
    ++evaluated;
    if ((evaluated & 1023) == 0 && evaluated * 16 >= static_cast<int64_t>(nn) &&
        static_cast<double>(work) * static_cast<double>(nn) >
            static_cast<double>(limits.max_work) * static_cast<double>(evaluated)) {
      return give_up(false, false);
    }
    for (ClassId ch : p.children(n)) {
      for (const ENodeId e : set[ch]) {
        const ClassId d = p.node_class(e);
        if (stamp[d] == s) {
          if (d == c) ok = false;
          continue;
        }
        stamp[d] = s;
        value += p.cost(e);
      }
      if (!ok) break;
    }
    if (!ok || !(value < total[c])) continue;
    // Materialise the new set.
    const uint32_t s2 = next_stamp();
    merged.clear();
    merged.push_back(n);
    stamp[c] = s2;
    for (ClassId ch : p.children(n)) {
      for (const ENodeId e : set[ch]) {
        const ClassId d = p.node_class(e);
        if (stamp[d] != s2) {
          stamp[d] = s2;
          merged.push_back(e);
        }
      }
    }
    work += static_cast<int64_t>(merged.size());
    set_bytes += (static_cast<int64_t>(merged.size()) - static_cast<int64_t>(set[c].capacity())) *
                 static_cast<int64_t>(sizeof(Entry));
    if (limits.max_bytes > 0 && set_bytes > limits.max_bytes) return give_up(true, false);
    set[c] = std::vector<Entry>(merged.begin(), merged.end());  // exact size
    total[c] = value;
    choice.node[c] = n;
    for (ENodeId parent : p.parents(c)) {
      if (value < queued_key[parent]) {
        queued_key[parent] = value;
        queue.push({value, parent});
      }
    }
  }
  return choice;
}

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
    double cost = DagCost(p, result);
    if (cost < best_cost) {
      best_cost = cost;
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
