#include "egret/extract/dag_extractor_work_bound.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <vector>

namespace egret::extract {
namespace {

constexpr ClassId kNoOwner = std::numeric_limits<ClassId>::max();

// owner[d]: the class every node having d among its children belongs to, if
// there is one such class other than d itself; else kNoOwner.
std::vector<ClassId> Owners(const ExtractionProblem& p) {
  std::vector<ClassId> owner(p.num_classes(), kNoOwner);
  for (ClassId d = 0; d < p.num_classes(); ++d) {
    const std::span<const ENodeId> parents = p.parents(d);
    if (parents.empty()) continue;
    const ClassId q = p.node_class(parents.front());
    bool one = q != d;
    for (ENodeId n : parents) one = one && p.node_class(n) == q;
    if (one) owner[d] = q;
  }
  return owner;
}

// owned(c) of the header, owned classes before their owner (Kahn's order on
// the ownership forest). A class on a cycle of owners (possible only where no
// root reaches: such classes have no other parents) keeps the trivial bound 1.
std::vector<uint32_t> OwnedBounds(const ExtractionProblem& p, const std::vector<ClassId>& owner) {
  const size_t nc = p.num_classes();
  std::vector<uint32_t> owned(nc, 1);
  std::vector<uint32_t> waiting(nc, 0);  // owned classes not yet bounded
  for (ClassId d = 0; d < nc; ++d) {
    if (owner[d] != kNoOwner) ++waiting[owner[d]];
  }
  std::vector<ClassId> ready;
  for (ClassId c = 0; c < nc; ++c) {
    if (waiting[c] == 0) ready.push_back(c);
  }
  std::vector<ENodeId> seen(nc, kNoENode);  // seen[d] == n: d counted for node n
  while (!ready.empty()) {
    const ClassId c = ready.back();
    ready.pop_back();
    uint64_t best = std::numeric_limits<uint64_t>::max();
    for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) {
      uint64_t sum = 0;
      for (ClassId d : p.children(n)) {
        if (owner[d] != c || seen[d] == n) continue;
        seen[d] = n;
        sum += owned[d];
      }
      best = std::min(best, sum);
    }
    if (best != std::numeric_limits<uint64_t>::max()) {
      owned[c] = static_cast<uint32_t>(std::min<uint64_t>(1 + best, nc));
    }
    if (owner[c] != kNoOwner && --waiting[owner[c]] == 0) ready.push_back(owner[c]);
  }
  return owned;
}

}  // namespace

CostSetWorkBound ComputeCostSetWorkBound(const ExtractionProblem& p) {
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  const std::vector<ClassId> owner = Owners(p);
  const std::vector<uint32_t> owned = OwnedBounds(p, owner);
  CostSetWorkBound out;
  std::vector<uint32_t>& size = out.set_size;
  size.assign(nc, 0);                 // 0: not settled
  std::vector<uint32_t> pending(nn);  // child occurrences not yet settled
  std::vector<ENodeId> seen(nc, kNoENode);
  // Candidates (bound << 32 | class), smallest first.
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> queue;
  for (ENodeId n = 0; n < nn; ++n) {
    pending[n] = static_cast<uint32_t>(p.children(n).size());
    if (pending[n] == 0) queue.push((uint64_t{1} << 32) | p.node_class(n));
  }
  // The node's bound, once all its children are settled (no child its own
  // class: such a node is never taken).
  auto node_bound = [&](ENodeId n, ClassId c) -> uint64_t {
    uint64_t sum = 0;  // owned(d) over the distinct children c owns
    for (ClassId d : p.children(n)) {
      if (owner[d] == c && seen[d] != n) {
        seen[d] = n;
        sum += owned[d];
      }
    }
    uint64_t best = 0;
    for (ClassId a : p.children(n)) {
      const uint64_t others = owner[a] == c ? sum - owned[a] : sum;
      best = std::max(best, size[a] + others);
    }
    return 1 + best;
  };
  while (!queue.empty()) {
    const uint64_t top = queue.top();
    queue.pop();
    const ClassId c = static_cast<ClassId>(top & 0xffffffffu);
    if (size[c] != 0) continue;
    size[c] = static_cast<uint32_t>(std::min<uint64_t>(top >> 32, nc));
    for (ENodeId parent : p.parents(c)) {
      if (--pending[parent] != 0) continue;
      const ClassId pc = p.node_class(parent);
      if (size[pc] != 0) continue;
      const std::span<const ClassId> children = p.children(parent);
      if (std::find(children.begin(), children.end(), pc) != children.end()) continue;
      queue.push((std::min<uint64_t>(node_bound(parent, pc), nc) << 32) | pc);
    }
  }
  int64_t total = 0;
  for (ClassId c = 0; c < nc; ++c) total += size[c];
  for (ENodeId n = 0; n < nn; ++n) {
    if (pending[n] != 0) continue;
    const ClassId c = p.node_class(n);
    const std::span<const ClassId> children = p.children(n);
    if (std::find(children.begin(), children.end(), c) != children.end()) continue;
    total += out.NodeWork(p, n);
  }
  out.total = total;
  return out;
}

}  // namespace egret::extract
