#include "egret/extract/dag_extractor_cost_sets.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "egret/extract/dag_extractor_work_bound.h"

namespace egret::extract {
namespace {

constexpr double kUnreachable = std::numeric_limits<double>::infinity();
constexpr uint32_t kNoSet = std::numeric_limits<uint32_t>::max();

// The persistent sets. Set r is the list head(r) ++ set base(r) ++ extras(r)
// (no base: head ++ extras); by unrolling the bases, head(r), head(b1), ...,
// head(bk), extras(bk), ..., extras(b1), extras(r). A record keeps its
// head's class and cost (most entries of a chain's sets are heads, read
// without a lookup in the problem); the extras of every set are back to back
// in one pool, never reclaimed (a few entries a set). Sets are reference
// counted (one count per class holding it and per set built on it) and
// their records reused once free; freeing walks down the bases iteratively.
class SetStore {
 public:
  explicit SetStore(const ExtractionProblem& p) : p_(p) {}

  // A new set (no reference yet) with base `base` (kNoSet: none, else a live
  // set, which gains a reference).
  uint32_t Make(ENodeId head, uint32_t base, std::span<const ENodeId> extras) {
    uint32_t r;
    if (!free_.empty()) {
      r = free_.back();
      free_.pop_back();
    } else {
      r = static_cast<uint32_t>(recs_.size());
      recs_.emplace_back();
    }
    Rec& x = recs_[r];
    x.head = head;
    x.head_class = p_.node_class(head);
    x.head_cost = p_.cost(head);
    x.base = base;
    x.refs = 0;
    x.stamp = 0;
    x.size = 1 + static_cast<uint32_t>(extras.size());
    x.num_extras = static_cast<uint32_t>(extras.size());
    x.extras_begin = pool_.size();
    pool_.insert(pool_.end(), extras.begin(), extras.end());
    if (base != kNoSet) {
      ++recs_[base].refs;
      x.size += recs_[base].size;
    }
    ++live_;
    return r;
  }
  void Ref(uint32_t r) { ++recs_[r].refs; }
  void Unref(uint32_t r) {
    while (r != kNoSet && --recs_[r].refs == 0) {
      --live_;
      free_.push_back(r);
      r = recs_[r].base;
    }
  }
  uint32_t size(uint32_t r) const { return recs_[r].size; }
  // Bytes held: the live records and every set's extras (the pool).
  int64_t bytes() const {
    return static_cast<int64_t>(live_ * sizeof(Rec) + pool_.size() * sizeof(ENodeId));
  }
  void ClearStamps() {
    for (Rec& x : recs_) x.stamp = 0;
  }

  // Calls visit(class, cost, node) on the entries of set r in list order,
  // except that it does not descend into a set already stamped `s` (all of
  // whose entries a walk with stamp s has visited) and stamps the others.
  // Stops, returning false, when visit does.
  template <typename Visit>
  bool Walk(uint32_t r, uint32_t s, Visit&& visit) {
    path_.clear();
    for (uint32_t x = r; x != kNoSet && recs_[x].stamp != s; x = recs_[x].base) {
      Rec& rec = recs_[x];
      rec.stamp = s;
      path_.push_back(x);
      if (!visit(rec.head_class, rec.head_cost, rec.head)) return false;
    }
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      const Rec& rec = recs_[*it];
      const ENodeId* e = pool_.data() + rec.extras_begin;
      for (uint32_t i = 0; i < rec.num_extras; ++i) {
        if (!visit(p_.node_class(e[i]), p_.cost(e[i]), e[i])) return false;
      }
    }
    return true;
  }

 private:
  struct Rec {
    double head_cost = 0;
    ENodeId head = kNoENode;
    ClassId head_class = 0;
    uint32_t base = kNoSet;
    uint32_t refs = 0;
    uint32_t stamp = 0;
    uint32_t size = 0;  // entries of the whole list
    uint64_t extras_begin = 0;
    uint32_t num_extras = 0;
  };
  const ExtractionProblem& p_;
  std::vector<Rec> recs_;
  std::vector<uint32_t> free_;
  std::vector<ENodeId> pool_;   // every set's extras
  std::vector<uint32_t> path_;  // Walk's bases, reused
  size_t live_ = 0;             // live records
};

}  // namespace

std::optional<Choice> GreedyCostSets(const ExtractionProblem& p, const CostSetLimits& limits,
                                     DagOptions::Report* report) {
  int64_t work = 0;
  int64_t remaining = 0;
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
  // `remaining`: a lower bound on the work still to come
  // (dag_extractor_work_bound.h), less each node's share once it is priced
  // and each class's once its first set is made; work + remaining never
  // decreases and never passes the whole run's work. Once it passes the
  // bound, the pass gives up: exactly the runs that would pass the bound
  // stop, the deepest before making any set (a chain's sets grow with its
  // depth). The tight bound is computed only where the cheap one (minimal
  // heights) is at least a quarter of the limit: elsewhere the pass is far
  // from it, and `remaining` stays 0 (the test is then work > max_work).
  const bool bounded = limits.max_work < std::numeric_limits<int64_t>::max();
  bool tight = false;
  CostSetWorkBound bound;
  if (bounded) {
    const int64_t cheap = CostSetWorkHeightBound(p);
    if (cheap > limits.max_work) return give_up(false, false);
    if (cheap > limits.max_work / 4) {
      tight = true;
      bound = ComputeCostSetWorkBound(p);
      remaining = bound.total;
      if (remaining > limits.max_work) return give_up(false, false);
    }
  }
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  std::vector<bool> priced(tight ? nn : 0, false);
  SetStore store(p);
  std::vector<uint32_t> set(nc, kNoSet);
  std::vector<ENodeId> extras;  // the entries the set being priced adds to its first child's
  std::vector<double> total(nc, kUnreachable);
  Choice choice(nc);
  std::vector<uint32_t> stamp(nc, 0);
  uint32_t now = 0;
  // Nodes are evaluated cheapest-first (keyed by the total of the class that
  // last changed under them), which settles most classes once, like
  // Dijkstra; a FIFO order can re-price long chains quadratically often.
  using Keyed = std::pair<double, ENodeId>;
  std::priority_queue<Keyed, std::vector<Keyed>, std::greater<Keyed>> queue;
  std::vector<double> queued_key(nn, kUnreachable);
  for (ENodeId n = 0; n < nn; ++n) {
    if (p.children(n).empty()) {
      queued_key[n] = p.cost(n);
      queue.push({p.cost(n), n});
    }
  }
  auto next_stamp = [&] {
    if (++now == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      store.ClearStamps();
      now = 1;
    }
    return now;
  };
  while (!queue.empty()) {
    auto [key, n] = queue.top();
    queue.pop();
    if (key != queued_key[n]) continue;  // stale duplicate
    queued_key[n] = kUnreachable;
    if (limits.deadline && (++ticks & 1023) == 0 &&
        std::chrono::steady_clock::now() >= *limits.deadline) {
      return give_up(/*memory=*/false, /*time=*/true);
    }
    const ClassId c = p.node_class(n);
    const std::span<const ClassId> children = p.children(n);
    bool ok = true;
    for (ClassId ch : children) {
      if (ch == c || total[ch] == kUnreachable) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    const uint32_t s = next_stamp();
    stamp[c] = s;  // a child set containing c means a cycle
    double value = p.cost(n);
    for (ClassId ch : children) work += static_cast<int64_t>(store.size(set[ch]));
    if (bounded) {
      if (tight && !priced[n]) {
        priced[n] = true;
        remaining -= bound.NodeWork(p, n);
      }
      if (work + remaining > limits.max_work) return give_up(false, false);
    }
    // Projected: once a sixteenth as many nodes as the problem has are
    // priced, the work so far scaled to all of them passes the bound (every
    // node whose children are computable is priced at least once, and sets
    // grow with depth): give up now. A guess (later nodes may be cheaper),
    // kept so that the pass gives up wherever it did before the exact test
    // above; that test now stops it first on the deep DAGs it was made for.
    ++evaluated;
    if ((evaluated & 1023) == 0 && evaluated * 16 >= static_cast<int64_t>(nn) &&
        static_cast<double>(work) * static_cast<double>(nn) >
            static_cast<double>(limits.max_work) * static_cast<double>(evaluated)) {
      return give_up(false, false);
    }
    // The union of the children's sets in list order: the first child's whole
    // set, then what the others add to it (collected in `extras`).
    extras.clear();
    bool collect = false;
    auto visit = [&](ClassId d, double cost, ENodeId e) {
      if (stamp[d] == s) return d != c;  // seen, or c itself: a cycle
      stamp[d] = s;
      value += cost;
      if (collect) extras.push_back(e);
      return true;
    };
    for (ClassId ch : children) {
      if (!store.Walk(set[ch], s, visit)) {
        ok = false;
        break;
      }
      collect = true;
    }
    if (!ok || !(value < total[c])) continue;
    const uint32_t made = store.Make(n, children.empty() ? kNoSet : set[children[0]], extras);
    work += static_cast<int64_t>(store.size(made));
    if (bounded) {
      if (tight && set[c] == kNoSet) remaining -= bound.set_size[c];
      if (work + remaining > limits.max_work) return give_up(false, false);
    }
    store.Ref(made);
    if (set[c] != kNoSet) store.Unref(set[c]);
    set[c] = made;
    if (limits.max_bytes > 0 && store.bytes() > limits.max_bytes) {
      return give_up(true, false);
    }
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

}  // namespace egret::extract
