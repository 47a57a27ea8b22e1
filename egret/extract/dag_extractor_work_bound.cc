#include "egret/extract/dag_extractor_work_bound.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <utility>
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

// The dominator tree of the class graph (an edge from a class to each child
// class of its nodes), from a virtual entry with an edge to every class
// without parents and every root (Cooper, Harvey and Kennedy's iteration
// over a reverse postorder). Classes the entry does not reach have none.
struct Dominators {
  std::vector<ClassId> idom;  // kNoOwner: unreachable, or the entry
  std::vector<ClassId> rpo;   // reachable classes, reverse postorder
  // Preorder interval of each class's subtree in the tree (pre == kNoOwner:
  // unreachable).
  std::vector<uint32_t> pre, last;
  // Whether a dominates b (a reflexive relation), both reachable.
  bool Dominates(ClassId a, ClassId b) const {
    return pre[a] != kNoOwner && pre[b] != kNoOwner && pre[a] <= pre[b] && pre[b] <= last[a];
  }
};

Dominators ComputeDominators(const ExtractionProblem& p) {
  const size_t nc = p.num_classes();
  const ClassId entry = static_cast<ClassId>(nc);
  std::vector<uint8_t> from_entry(nc, 0);
  for (ClassId c = 0; c < nc; ++c) from_entry[c] = p.parents(c).empty();
  for (ClassId r : p.roots()) from_entry[r] = 1;
  // Postorder numbers by an iterative DFS over (class, node, child) cursors.
  std::vector<uint32_t> post(nc + 1, kNoOwner);
  std::vector<uint8_t> visited(nc, 0);
  Dominators d;
  std::vector<ClassId> order;  // postorder
  order.reserve(nc);
  struct Frame {
    ClassId c;
    ENodeId n;
    uint32_t i;
  };
  std::vector<Frame> stack;
  for (ClassId s = 0; s < nc; ++s) {
    if (!from_entry[s] || visited[s]) continue;
    visited[s] = 1;
    stack.push_back({s, p.class_begin(s), 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.n == p.class_end(f.c)) {
        post[f.c] = static_cast<uint32_t>(order.size());
        order.push_back(f.c);
        stack.pop_back();
        continue;
      }
      const std::span<const ClassId> children = p.children(f.n);
      if (f.i == children.size()) {
        ++f.n;
        f.i = 0;
        continue;
      }
      const ClassId ch = children[f.i++];
      if (!visited[ch]) {
        visited[ch] = 1;
        stack.push_back({ch, p.class_begin(ch), 0});
      }
    }
  }
  post[entry] = static_cast<uint32_t>(nc);
  d.rpo.assign(order.rbegin(), order.rend());
  std::vector<ClassId> idom(nc + 1, kNoOwner);
  idom[entry] = entry;
  auto intersect = [&](ClassId a, ClassId b) {
    while (a != b) {
      while (post[a] < post[b]) a = idom[a];
      while (post[b] < post[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (ClassId c : d.rpo) {
      ClassId best = from_entry[c] ? entry : kNoOwner;
      // Stops at the entry, which dominates everything: a class shared by
      // many chains (a shape, a constant) would otherwise walk each of its
      // parents' dominator chains up to it.
      for (ENodeId n : p.parents(c)) {
        if (best == entry) break;
        const ClassId q = p.node_class(n);
        if (idom[q] == kNoOwner) continue;
        best = best == kNoOwner ? q : intersect(q, best);
      }
      if (idom[c] != best) {
        idom[c] = best;
        changed = true;
      }
    }
  }
  // The tree's preorder intervals: children lists by counting, then a DFS.
  d.idom.assign(nc, kNoOwner);
  std::vector<uint32_t> first(nc + 2, 0);
  for (ClassId c : d.rpo) {
    if (idom[c] != entry) d.idom[c] = idom[c];
    ++first[idom[c] + 1];
  }
  for (size_t i = 1; i < first.size(); ++i) first[i] += first[i - 1];
  std::vector<ClassId> kids(d.rpo.size());
  std::vector<uint32_t> fill(first.begin(), first.end() - 1);
  for (ClassId c : d.rpo) kids[fill[idom[c]]++] = c;
  d.pre.assign(nc, kNoOwner);
  d.last.assign(nc, kNoOwner);
  uint32_t next = 0;
  std::vector<std::pair<ClassId, uint32_t>> dfs = {{entry, first[entry]}};
  while (!dfs.empty()) {
    auto& [c, i] = dfs.back();
    if (i == first[c + 1]) {
      if (c != entry) d.last[c] = next - 1;
      dfs.pop_back();
      continue;
    }
    const ClassId k = kids[i++];
    d.pre[k] = next++;
    dfs.push_back({k, first[k]});
  }
  return d;
}

// owned(c) of the header, over the dominator tree: the classes c dominates
// that a set of c holds, at least. Children of the tree before their parent
// (reverse of the reverse postorder); unreachable classes keep 1.
std::vector<uint32_t> OwnedBounds(const ExtractionProblem& p, const Dominators& dom) {
  const size_t nc = p.num_classes();
  std::vector<uint32_t> owned(nc, 1);
  std::vector<ENodeId> seen(nc, kNoENode);  // seen[d] == n: d counted for node n
  for (auto it = dom.rpo.rbegin(); it != dom.rpo.rend(); ++it) {
    const ClassId c = *it;
    uint64_t best = std::numeric_limits<uint64_t>::max();
    for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) {
      uint64_t sum = 0;
      for (ClassId e : p.children(n)) {
        if (dom.idom[e] != c || seen[e] == n) continue;
        seen[e] = n;
        sum += owned[e];
      }
      best = std::min(best, sum);
    }
    owned[c] = static_cast<uint32_t>(std::min<uint64_t>(1 + best, nc));
  }
  return owned;
}

}  // namespace

// Classes settle by height, breadth first: a class's minimal height is 1 +
// the smallest, over its nodes, of the largest child height (1 for a leaf).
int64_t CostSetWorkHeightBound(const ExtractionProblem& p) {
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
  int64_t bound = 0;
  for (ENodeId n = 0; n < nn; ++n) {
    if (pending[n] != 0) continue;
    const ClassId c = p.node_class(n);
    uint64_t sum = 0;
    bool own = false;
    for (ClassId ch : p.children(n)) {
      own |= ch == c;
      sum += height[ch];
    }
    if (!own) bound += static_cast<int64_t>(sum);
  }
  return bound;
}

CostSetWorkBound ComputeCostSetWorkBound(const ExtractionProblem& p) {
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  const std::vector<ClassId> owner = Owners(p);
  const Dominators dom = ComputeDominators(p);
  const std::vector<uint32_t> owned = OwnedBounds(p, dom);
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
  // class: such a node is never taken). `own`: over the distinct children
  // c owns, owned(d) (1 where c is unreachable or d dominates c); `dominated`:
  // over the other distinct children c immediately dominates, owned(d).
  // Those parts are in no other child's set, except that the second may be
  // in the set of a child c dominates.
  auto node_bound = [&](ENodeId n, ClassId c) -> uint64_t {
    const bool reach = dom.pre[c] != kNoOwner;
    auto owned_part = [&](ClassId d) -> uint64_t {
      return reach && !dom.Dominates(d, c) ? owned[d] : 1;
    };
    uint64_t own = 0, dominated = 0;
    // The largest set bound among the other children (neither owned nor
    // immediately dominated), and the class having it; the second largest
    // of another class.
    uint64_t top1 = 0, top2 = 0;
    ClassId top1_class = kNoOwner;
    for (ClassId d : p.children(n)) {
      if (owner[d] == c) {
        if (seen[d] != n) own += owned_part(d);
        seen[d] = n;
      } else if (reach && dom.idom[d] == c) {
        if (seen[d] != n) dominated += owned[d];
        seen[d] = n;
      } else if (size[d] > top1 && d != top1_class) {
        top2 = top1;
        top1 = size[d];
        top1_class = d;
      } else if (d != top1_class) {
        top2 = std::max<uint64_t>(top2, size[d]);
      }
    }
    uint64_t best = own + dominated;
    for (ClassId a : p.children(n)) {
      // Another such child b at least as large: b is in set(a), which then
      // holds a set of b and a, or it is not; either way one more class.
      const uint64_t rival = a == top1_class ? top2 : top1;
      const uint64_t tie = rival >= size[a] ? 1 : 0;
      uint64_t others;
      if (owner[a] == c) {
        others = own - owned_part(a);
      } else if (!reach || dom.Dominates(c, a)) {
        others = own;
      } else {
        others = own + dominated;
      }
      best = std::max(best, size[a] + others + tie);
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
