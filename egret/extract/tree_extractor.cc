#include "egret/extract/tree_extractor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "egret/extract/class_error.h"
#include "egret/extract/tree_cost_ties.h"

namespace egret::extract {

absl::StatusOr<TreeCosts> ComputeTreeCosts(const ExtractionProblem& p) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  TreeCosts out{std::vector<double>(nc, kInf), Choice(nc)};
  std::vector<uint32_t> height(nc, 0);
  // How many roundings a class's cost went through, at most (tree_cost_ties.h).
  std::vector<uint32_t> rounds(nc, 0);
  std::vector<uint8_t> open(nc, 0), done(nc, 0);
  std::vector<char> queued(nn, 0);
  std::deque<ENodeId> queue;
  TreeCostTies ties(p, out.cost, out.choice, rounds, done);
  struct Price {
    double tree;
    uint32_t height, rounds;
  };
  // Node n's tree cost from its children's so far (infinite when one of them
  // is not computable).
  auto price = [&](ENodeId n) {
    const std::span<const ClassId> kids = p.children(n);
    Price v{p.cost(n), 0, 0};
    bool computable = true;
    for (ClassId ch : kids) {
      computable &= !std::isinf(out.cost[ch]);
      v.tree += out.cost[ch];
      v.height = std::max(v.height, height[ch]);
      v.rounds = std::max(v.rounds, rounds[ch]);
    }
    v.rounds = static_cast<uint32_t>(
        std::min<uint64_t>(uint64_t{v.rounds} + kids.size(), std::numeric_limits<uint32_t>::max()));
    // A tree cost can overflow where the DAG is small (a chain of residual
    // blocks doubles it per block): saturate, so that "infinite" keeps
    // meaning "not computable".
    if (computable && std::isinf(v.tree)) v.tree = std::numeric_limits<double>::max();
    if (!computable) v.tree = kInf;
    return v;
  };
  // Queues the nodes that read class c (once each until popped).
  auto queue_parents = [&](ClassId c) {
    for (ENodeId parent : p.parents(c)) {
      if (!queued[parent]) {
        queued[parent] = 1;
        queue.push_back(parent);
      }
    }
  };
  // Makes n class c's choice at price v. When `queue_users`, the class's
  // parents are queued. False when the class's height passes the number of
  // classes: a cycle of negative cost.
  auto set = [&](ClassId c, ENodeId n, const Price& v, bool queue_users) {
    out.cost[c] = v.tree;
    out.choice.node[c] = n;
    rounds[c] = v.rounds;
    height[c] = v.height + 1;
    if (height[c] > nc) return false;
    if (queue_users) queue_parents(c);
    return true;
  };
  auto cycle_error = [&](ENodeId n) {
    const ClassId c = p.node_class(n);
    return WithErrorClass(
        absl::InvalidArgumentError(absl::StrCat(
            "class '", p.class_name(c), "' is on a cycle of negative cost; no tree cost exists")),
        c);
  };
  // The classes are priced in depth-first post-order over the children of
  // all their nodes, so that a class's children are final when its nodes
  // are priced, except where the walk meets a class still open on its stack
  // (a cycle). Such a class is `late`: after the walk its users go on a
  // worklist, which runs until no cost drops (a fixpoint over parents).
  //
  // Of a class's nodes, the walk keeps the cheapest; of nodes that cost the
  // same, the first (the input's own node, where a rewrite found another of
  // the same cost). Where two nodes' costs are too close for their doubles
  // to tell, TreeCostTies decides from the parts of their trees they do not
  // share. The order the classes are numbered in does not matter to either.
  std::vector<char> late(nc, 0);
  struct Frame {
    ClassId c;
    const ClassId* next;  // the class's child edges not yet walked
    const ClassId* end;
  };
  std::vector<Frame> stack;
  auto enter = [&](ClassId c) {
    open[c] = 1;
    if (p.class_size(c) == 0) {
      stack.push_back({c, nullptr, nullptr});
      return;
    }
    // A class's nodes are contiguous, and so are their children.
    const std::span<const ClassId> last = p.children(p.class_end(c) - 1);
    stack.push_back({c, p.children(p.class_begin(c)).data(), last.data() + last.size()});
  };
  // Whether n is cheaper than best (priced best_v) as a tree.
  auto cheaper = [&](ENodeId n, const Price& v, ENodeId best, const Price& best_v) {
    if (!TreeCostTies::Close(v.tree, v.rounds, best_v.tree, best_v.rounds)) {
      return v.tree < best_v.tree;
    }
    switch (ties.Compare(n, best)) {
      case TreeCostTies::Order::kLess:
        return true;
      case TreeCostTies::Order::kUnknown:
        return v.tree < best_v.tree;
      default:
        return false;
    }
  };
  for (ClassId start = 0; start < nc; ++start) {
    if (open[start] || done[start]) continue;
    enter(start);
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next != f.end) {
        const ClassId ch = *f.next++;
        if (open[ch]) {
          late[ch] = 1;
        } else if (!done[ch]) {
          enter(ch);
        }
        continue;
      }
      const ClassId c = f.c;
      stack.pop_back();
      ENodeId best = kNoENode;
      Price best_v{kInf, 0, 0};
      for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) {
        const Price v = price(n);
        if (!(v.tree < kInf)) continue;  // also skips NaN
        if (best == kNoENode || cheaper(n, v, best, best_v)) {
          best = n;
          best_v = v;
        }
      }
      if (best != kNoENode && !set(c, best, best_v, /*queue_users=*/false)) {
        return cycle_error(best);
      }
      open[c] = 0;
      done[c] = 1;
    }
  }
  for (ClassId c = 0; c < nc; ++c) {
    if (late[c]) queue_parents(c);
  }
  // The worklist takes a node only when strictly cheaper (so that the
  // fixpoint ends).
  while (!queue.empty()) {
    const ENodeId n = queue.front();
    queue.pop_front();
    queued[n] = 0;
    const Price v = price(n);
    const ClassId c = p.node_class(n);
    if (!(v.tree < out.cost[c])) continue;  // also skips NaN/inf
    if (!set(c, n, v, /*queue_users=*/true)) return cycle_error(n);
  }
  return out;
}

absl::Status UncomputableRootError(const ExtractionProblem& p, const std::vector<double>& cost,
                                   ClassId root) {
  // Walk down through uncomputable classes to one that explains why.
  std::vector<char> seen(p.num_classes(), 0);
  ClassId c = root;
  std::string why;
  while (true) {
    if (p.class_size(c) == 0) {
      why = absl::StrCat("class '", p.class_name(c), "' has no nodes");
      break;
    }
    if (seen[c]) {
      why = absl::StrCat("every path is cyclic through class '", p.class_name(c), "'");
      break;
    }
    seen[c] = 1;
    ClassId next = c;
    for (ClassId ch : p.children(p.class_begin(c))) {
      if (std::isinf(cost[ch])) {
        next = ch;
        break;
      }
    }
    c = next;
  }
  // Points at the class that blocks the root (on a cycle), when it has nodes.
  return WithErrorClass(
      absl::InvalidArgumentError(
          absl::StrCat("root class '", p.class_name(root),
                       "' cannot be extracted: no node of it has an acyclic term (", why, ")")),
      p.class_size(c) == 0 ? root : c);
}

absl::StatusOr<Choice> ExtractTree(const ExtractionProblem& p) {
  absl::StatusOr<TreeCosts> t = ComputeTreeCosts(p);
  if (!t.ok()) return t.status();
  for (ClassId r : p.roots()) {
    if (std::isinf(t->cost[r])) return UncomputableRootError(p, t->cost, r);
  }
  return RestrictToReachable(p, t->choice);
}

}  // namespace egret::extract
