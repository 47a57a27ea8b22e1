// The ILP extractor's primal heuristic for large programs
// (ilp_extractor_internal.h, ImproveByNeighbourhoods): fix and optimize.
// A neighbourhood is a set W of classes around a seed class of the
// incumbent (breadth first over the class graph, children and users alike).
// The sub-problem keeps every node of the classes in W, only the incumbent's
// node of the other classes it uses, and no node of the rest; it is an
// extraction problem of its own, solved exactly (or until its share of the
// time) by the same ILP extractor: pruning removes the nodes that need a
// class without nodes, so the program has columns for little more than W and
// the incumbent. The incumbent is a solution of every sub-problem (the warm
// start), so a sub-solution is never worse; it replaces the incumbent when
// it is better. Seeds are taken costliest chosen node first, skipping
// classes a neighbourhood already covered; the neighbourhood grows after a
// few sub-problems proven in a row and shrinks after one that CBC's node
// limit stopped. Sizes and limits are counted in work (nodes of the
// e-graph, CBC's branch-and-bound nodes), never in time, so the sequence of
// sub-problems is the same on any machine and under any load; the deadline
// only decides where it stops.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/extract/choice.h"
#include "egret/extract/ilp_extractor_internal.h"
#include "egret/extract/validate.h"

namespace egret::extract::ilp_internal {
namespace {

// The classes of the neighbourhood of `seed`, breadth first over the
// children of every node and the users that `incumbent` chooses (the unused
// users of a class shared by many would flood it), until they hold `size`
// nodes; `*exhausted` says whether it ran out of classes first.
std::vector<ClassId> Neighbourhood(const ExtractionProblem& p, const Choice& incumbent,
                                   ClassId seed, size_t size, std::vector<int32_t>& stamp,
                                   int32_t mark, bool* exhausted) {
  std::vector<ClassId> out;
  std::deque<ClassId> queue = {seed};
  stamp[seed] = mark;
  auto visit = [&](ClassId d) {
    if (stamp[d] == mark) return;
    stamp[d] = mark;
    queue.push_back(d);
  };
  size_t nodes = 0;
  while (!queue.empty() && nodes < size) {
    const ClassId c = queue.front();
    queue.pop_front();
    out.push_back(c);
    nodes += p.class_size(c);
    for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) {
      for (ClassId d : p.children(n)) visit(d);
    }
    for (ENodeId n : p.parents(c)) {
      if (incumbent.node[p.node_class(n)] != kNoENode) visit(p.node_class(n));
    }
  }
  *exhausted = queue.empty();
  return out;
}

// The sub-problem of `p` for the neighbourhood `in_w` around `incumbent`;
// `node_of[k]` is the node of `p` that its node k stands for.
absl::StatusOr<ExtractionProblem> SubProblem(const ExtractionProblem& p, const Choice& incumbent,
                                             const std::vector<char>& in_w,
                                             std::vector<ENodeId>& node_of) {
  ExtractionProblemBuilder b;
  const size_t nc = p.num_classes();
  for (ClassId c = 0; c < nc; ++c) b.AddClass(p.class_name(c));
  node_of.clear();
  auto add = [&](ENodeId n) {
    b.AddNode(p.node_class(n), p.op(n), p.cost(n), p.children(n), p.node_name(n));
    node_of.push_back(n);
  };
  for (ClassId c = 0; c < nc; ++c) {
    if (in_w[c]) {
      for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) add(n);
    } else if (incumbent.node[c] != kNoENode) {
      add(incumbent.node[c]);
    }
  }
  for (ClassId r : p.roots()) b.AddRoot(r);
  return std::move(b).Build();
}

}  // namespace

Choice ImproveByNeighbourhoods(const ExtractionProblem& p, Choice incumbent,
                               Clock::time_point deadline, int64_t memory_budget_bytes,
                               NeighbourhoodStats* stats) {
  const size_t nc = p.num_classes();
  double best = DagCost(p, incumbent);
  std::vector<int32_t> stamp(nc, -1);
  std::vector<char> covered(nc, 0), in_w(nc, 0);
  std::vector<ENodeId> node_of;
  size_t size = kNeighbourhoodStart;
  int quick = 0;
  int32_t mark = 0;
  // Passes over the seeds until one neither improves the incumbent nor grows
  // the neighbourhoods (the next would repeat it).
  for (bool changed = true; changed && SecondsUntil(deadline) > 0;) {
    changed = false;
    const size_t size_before = size;
    std::fill(covered.begin(), covered.end(), 0);
    // Seeds: the incumbent's classes, costliest chosen node first.
    std::vector<ClassId> seeds = ReachableClasses(p, incumbent);
    std::stable_sort(seeds.begin(), seeds.end(), [&](ClassId a, ClassId b) {
      return p.cost(incumbent.node[a]) > p.cost(incumbent.node[b]);
    });
    for (ClassId seed : seeds) {
      if (SecondsUntil(deadline) <= 0) break;
      if (covered[seed] || incumbent.node[seed] == kNoENode) continue;
      bool exhausted = false;
      const std::vector<ClassId> w =
          Neighbourhood(p, incumbent, seed, size, stamp, mark++, &exhausted);
      for (ClassId c : w) in_w[c] = 1;
      // Only the classes near the seed count as covered, so that
      // neighbourhoods overlap; all of them when the search ran out of
      // classes (a neighbourhood from any of them would be the same).
      const size_t near = exhausted ? w.size() : w.size() / 2 + 1;
      for (size_t k = 0; k < near; ++k) covered[w[k]] = 1;
      absl::StatusOr<ExtractionProblem> sub = SubProblem(p, incumbent, in_w, node_of);
      for (ClassId c : w) in_w[c] = 0;
      if (!sub.ok()) continue;
      absl::StatusOr<TreeCosts> tree = ComputeTreeCosts(*sub);
      if (!tree.ok()) continue;
      // The sub-problem's warm start: the incumbent in its numbering.
      Choice warm(nc);
      for (size_t k = 0; k < node_of.size(); ++k) {
        const ClassId c = p.node_class(node_of[k]);
        if (incumbent.node[c] == node_of[k]) warm.node[c] = static_cast<ENodeId>(k);
      }
      // No time limit of its own: the node limit and the size bound its
      // work, and a sub-problem the deadline stops is the search's last.
      IlpBuilder builder(*sub, *tree);
      builder.set_max_nodes(kNeighbourhoodNodes);
      absl::StatusOr<IlpResult> r =
          builder.Run(warm, deadline, memory_budget_bytes, /*neighbourhoods=*/false);
      if (stats != nullptr) ++stats->solved;
      if (!r.ok()) continue;
      if (stats != nullptr) stats->nodes += r->cbc_nodes;
      if (r->memory_limit_hit) {  // the budget is for the whole extraction: stop
        if (stats != nullptr) stats->memory_limit_hit = true;
        return incumbent;
      }
      // Grow after kNeighbourhoodQuickSolves proofs in a row, shrink after a
      // sub-problem that the node limit stopped.
      if (r->optimal) {
        if (++quick >= kNeighbourhoodQuickSolves) {
          size = std::min({size * 5 / 4, kNeighbourhoodMax, p.num_nodes()});
          quick = 0;
        }
      } else {
        size = std::max(size * 2 / 3, kNeighbourhoodMin);
        quick = 0;
      }
      if (r->cost >= best - 1e-9 * std::max(1.0, std::abs(best))) continue;
      Choice mapped(nc);
      for (ClassId c = 0; c < nc; ++c) {
        if (r->choice.node[c] != kNoENode) mapped.node[c] = node_of[r->choice.node[c]];
      }
      mapped = RestrictToReachable(p, mapped);
      if (!ValidateChoice(p, mapped).ok()) continue;
      const double cost = DagCost(p, mapped);
      if (cost >= best) continue;
      best = cost;
      incumbent = std::move(mapped);
      changed = true;
      if (stats != nullptr) ++stats->improved;
    }
    changed = changed || size > size_before;
  }
  return incumbent;
}

}  // namespace egret::extract::ilp_internal
