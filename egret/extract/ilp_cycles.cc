// The ILP extractor's acyclicity (ilp_extractor_internal.h): the strongly
// connected components of the class graph (only cyclic ones need
// constraints), the 2-cycle rows added with the model, which classes a
// solution's chosen nodes compute without a cycle, and the lazy cuts of the
// cycles among the rest, added between solves.
#include <algorithm>
#include <utility>
#include <vector>

#include "egret/extract/class_sccs.h"
#include "egret/extract/ilp_extractor_internal.h"

namespace egret::extract::ilp_internal {

Sccs ComputeSccs(const ExtractionProblem& p, const std::vector<char>& in,
                 const std::vector<char>& keep) {
  ClassSccs c = ComputeClassSccs(p, in, keep);
  Sccs out{std::move(c.id), {}};
  for (ClassId x : c.order) {
    const size_t k = static_cast<size_t>(out.id[x]);
    if (k == out.members.size()) out.members.emplace_back();
    out.members[k].push_back(x);
  }
  return out;
}

// Acyclicity, on cyclic strongly connected parts of the class graph only.
// Every cycle constraint is lifted to classes: a cycle of classes c_1 -> c_2
// -> ... -> c_k -> c_1 is closed by any choice whose node of each c_i is one
// of the nodes of c_i that use c_(i+1) (the "edge nodes" E_i), so
// sum_i sum(x over E_i) <= k - 1 holds for every valid choice (it has one
// node per class) and forbids every node combination that realises the cycle
// at once, not only the one a solution happened to use. Here: every cycle of
// at most kMaxShortCycle classes, from the start (e-graphs of rewrites such
// as split(concat(a, b)) = a are full of 2- and 3-cycles, and cutting them
// one solve at a time took many rounds); longer cycles are cut lazily
// (AddCycleCuts), when a solution has one.
void IlpBuilder::AddShortCycleRows() {
  const size_t nc = p_.num_classes();
  // The class graph inside cyclic parts: sorted distinct children per class.
  std::vector<std::vector<ClassId>> adj(nc);
  for (const std::vector<ClassId>& comp : sccs_.members) {
    if (comp.size() < 2) continue;
    for (ClassId c : comp) {
      for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
        if (node_col_[n] < 0) continue;
        for (ClassId d : p_.children(n)) {
          if (sccs_.id[d] == sccs_.id[c]) adj[c].push_back(d);
        }
      }
      std::sort(adj[c].begin(), adj[c].end());
      adj[c].erase(std::unique(adj[c].begin(), adj[c].end()), adj[c].end());
    }
  }
  // Each directed cycle once: from its smallest class, through larger ones
  // only, along simple paths of at most kMaxShortCycle classes.
  std::vector<ClassId> path;
  std::vector<char> on_path(nc, 0);
  double work = 0;
  auto add_cycle = [&]() {
    const int32_t row = AddRow(-kInf, static_cast<double>(path.size()) - 1);
    for (size_t k = 0; k < path.size(); ++k) {
      AddEdgeNodes(row, path[k], path[(k + 1) % path.size()]);
    }
  };
  // Depth-first extension of `path` (its first class is the smallest).
  auto extend = [&](auto&& self) -> void {
    const ClassId last = path.back();
    for (ClassId d : adj[last]) {
      if (++work > kMaxShortCycleWork) return;
      if (d == path.front()) {
        if (path.size() >= 2) add_cycle();
        continue;
      }
      if (d < path.front() || on_path[d] || path.size() >= kMaxShortCycle) continue;
      path.push_back(d);
      on_path[d] = 1;
      self(self);
      on_path[d] = 0;
      path.pop_back();
    }
  };
  for (ClassId c = 0; c < nc && work <= kMaxShortCycleWork; ++c) {
    if (adj[c].empty()) continue;
    path.assign(1, c);
    on_path[c] = 1;
    extend(extend);
    on_path[c] = 0;
  }
}

size_t IlpBuilder::AddEdgeNodes(int32_t row, ClassId c, ClassId d) {
  size_t added = 0;
  for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
    if (node_col_[n] < 0) continue;
    const auto kids = p_.children(n);
    if (std::find(kids.begin(), kids.end(), d) == kids.end()) continue;
    entries_.push_back({row, node_col_[n], 1.0});
    ++added;
  }
  return added;
}

void IlpBuilder::MarkReady(const std::vector<std::vector<ENodeId>>& chosen,
                           const std::vector<char>& collapsed_chosen, std::vector<char>& ready,
                           std::vector<ENodeId>& ready_node) const {
  std::fill(ready.begin(), ready.end(), 0);
  std::fill(ready_node.begin(), ready_node.end(), kNoENode);
  // Children first (Tarjan's order), so one visit settles a class outside a
  // cycle; a cyclic component is visited until nothing changes.
  for (const std::vector<ClassId>& comp : sccs_.members) {
    for (bool changed = true; changed;) {
      changed = false;
      for (ClassId c : comp) {
        if (ready[c]) continue;
        if (collapsed_chosen[c]) {
          ready[c] = 1;
          changed = true;
          continue;
        }
        for (ENodeId n : chosen[c]) {
          bool all = true;
          for (ClassId ch : p_.children(n)) all = all && ready[ch];
          if (all) {
            ready[c] = 1;
            ready_node[c] = n;
            changed = true;
            break;
          }
        }
      }
      if (comp.size() == 1) break;
    }
  }
}

int IlpBuilder::AddCycleCuts(const std::vector<std::vector<ENodeId>>& chosen,
                             const std::vector<char>& ready) {
  // A depth-first search over the chosen nodes' edges into classes that are
  // not ready (each such class has a chosen node, and each of its chosen
  // nodes a child that is not ready); each back edge closes a cycle.
  const size_t nc = p_.num_classes();
  std::vector<int32_t> on_path(nc, -1);  // position on the path, or -1
  std::vector<char> done(nc, 0);
  struct Frame {
    ClassId c;
    size_t node = 0;   // chosen[c][node] is the node being followed
    size_t child = 0;  // its next child
  };
  std::vector<Frame> path;
  int cuts = 0;
  for (ClassId start = 0; start < nc && cuts < kMaxCutsPerRound; ++start) {
    if (ready[start] || done[start] || chosen[start].empty()) continue;
    path.push_back({start});
    on_path[start] = 0;
    while (!path.empty() && cuts < kMaxCutsPerRound) {
      Frame& f = path.back();
      if (f.node >= chosen[f.c].size()) {
        on_path[f.c] = -1;
        done[f.c] = 1;
        path.pop_back();
        continue;
      }
      const auto kids = p_.children(chosen[f.c][f.node]);
      if (f.child >= kids.size()) {
        ++f.node;
        f.child = 0;
        continue;
      }
      const ClassId d = kids[f.child++];
      if (ready[d] || done[d] || chosen[d].empty()) continue;
      if (on_path[d] >= 0) {  // a cycle: the nodes followed from path[on_path[d]] on
        const size_t from = static_cast<size_t>(on_path[d]);
        const int32_t row = AddRow(-kInf, static_cast<double>(path.size() - from) - 1);
        for (size_t k = from; k < path.size(); ++k) {  // lifted to classes (AddShortCycleRows)
          AddEdgeNodes(row, path[k].c, k + 1 < path.size() ? path[k + 1].c : d);
        }
        ++cuts;
        continue;
      }
      on_path[d] = static_cast<int32_t>(path.size());
      path.push_back({d});
    }
    for (const Frame& f : path) on_path[f.c] = -1;
    path.clear();
  }
  return cuts;
}

}  // namespace egret::extract::ilp_internal
