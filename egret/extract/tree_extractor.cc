#include "egret/extract/tree_extractor.h"

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
  for (ENodeId n = 0; n < nn; ++n) {
    if (p.children(n).empty()) {
      queue.push_back(n);
      queued[n] = 1;
    }
  }
  while (!queue.empty()) {
    ENodeId n = queue.front();
    queue.pop_front();
    queued[n] = 0;
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
    ClassId c = p.node_class(n);
    if (!(value < out.cost[c])) continue;  // also skips NaN/inf
    out.cost[c] = value;
    out.choice.node[c] = n;
    height[c] = h + 1;
    if (height[c] > nc) {
      return WithErrorClass(
          absl::InvalidArgumentError(absl::StrCat(
              "class '", p.class_name(c), "' is on a cycle of negative cost; no tree cost exists")),
          c);
    }
    for (ENodeId parent : p.parents(c)) {
      if (!queued[parent]) {
        queued[parent] = 1;
        queue.push_back(parent);
      }
    }
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
