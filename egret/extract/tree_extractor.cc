#include "egret/extract/tree_extractor.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "egret/extract/class_error.h"

namespace egret::extract {

absl::StatusOr<TreeCosts> ComputeTreeCosts(const ExtractionProblem& p) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  TreeCosts out{std::vector<double>(nc, kInf), Choice(nc)};
  std::vector<uint32_t> height(nc, 0);
  std::vector<char> queued(nn, 0);
  std::deque<ENodeId> queue;
  // Prices node n from its children's costs so far. When that lowers its
  // class's cost, the class's parents are queued, except those below
  // `swept_to` (the sweep below prices them later anyway). False when the
  // class's height passes the number of classes: a cycle of negative cost.
  auto relax = [&](ENodeId n, ENodeId swept_to) {
    double value = p.cost(n);
    uint32_t h = 0;
    bool computable = true;
    for (ClassId ch : p.children(n)) {
      computable &= !std::isinf(out.cost[ch]);
      value += out.cost[ch];
      h = std::max(h, height[ch]);
    }
    // A tree cost can overflow where the DAG is small (a chain of residual
    // blocks doubles it per block): saturate, so that "infinite" keeps
    // meaning "not computable".
    if (computable && std::isinf(value)) value = std::numeric_limits<double>::max();
    const ClassId c = p.node_class(n);
    if (!(value < out.cost[c])) return true;  // also skips NaN/inf
    out.cost[c] = value;
    out.choice.node[c] = n;
    height[c] = h + 1;
    if (height[c] > nc) return false;
    for (ENodeId parent : p.parents(c)) {
      if (parent >= swept_to && !queued[parent]) {
        queued[parent] = 1;
        queue.push_back(parent);
      }
    }
    return true;
  };
  auto cycle_error = [&](ENodeId n) {
    const ClassId c = p.node_class(n);
    return WithErrorClass(
        absl::InvalidArgumentError(absl::StrCat(
            "class '", p.class_name(c), "' is on a cycle of negative cost; no tree cost exists")),
        c);
  };
  // One sweep from the last class to the first, then a worklist until no
  // cost drops (a fixpoint over parents, which handles cycles). Children
  // mostly come after their users in a problem's numbering (BuildProblem
  // numbers classes depth-first), so the sweep prices most nodes once, with
  // their children final; the worklist is left with the users that come
  // after a child they read. A class's nodes are swept in order and a node
  // must be strictly cheaper to replace the choice, so of nodes priced equal
  // the first is kept: the input's own node, where a rewrite found another
  // of the same cost. (A worklist seeded with the leaves priced a class's
  // nodes in the order their children were reached, and kept whichever of
  // two equal nodes that order put first: on the bundled example, a
  // ReluMinMax with two more constants for the input's Relu.)
  for (ClassId c = static_cast<ClassId>(nc); c-- > 0;) {
    for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) {
      if (!relax(n, p.class_begin(c))) return cycle_error(n);
    }
  }
  while (!queue.empty()) {
    const ENodeId n = queue.front();
    queue.pop_front();
    queued[n] = 0;
    if (!relax(n, 0)) return cycle_error(n);
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
