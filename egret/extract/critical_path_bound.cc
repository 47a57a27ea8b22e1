// The critical-path lower bound (critical_path_bound.h).
#include "egret/extract/critical_path_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "egret/extract/class_sccs.h"

namespace egret::extract {
namespace {

// +inf: a class with no acyclic term (yet). Named apart from the other
// files' constants: the unity builds put this file beside them.
constexpr double kNoPath = std::numeric_limits<double>::infinity();

// L(c) for every class (+inf: no acyclic term), with node costs `cost`,
// over the nodes n with allowed[n] (or all of them when `allowed` is empty).
std::vector<double> HeaviestPaths(const ExtractionProblem& p, const std::vector<double>& cost,
                                  std::span<const char> allowed) {
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  std::vector<double> l(nc, kNoPath);
  std::vector<uint32_t> pending(nn);
  std::vector<double> below(nn, 0);  // max L over the children settled so far
  using Entry = std::pair<double, ClassId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  for (ENodeId n = 0; n < nn; ++n) {
    // A node taken out waits for more children than it has: never ready.
    const bool in = allowed.empty() || allowed[n];
    pending[n] = static_cast<uint32_t>(p.children(n).size()) + (in ? 0 : 1);
    if (pending[n] == 0) queue.push({cost[n], p.node_class(n)});
  }
  while (!queue.empty()) {
    const auto [value, c] = queue.top();
    queue.pop();
    if (l[c] != kNoPath) continue;  // settled by a cheaper node
    l[c] = value;
    for (ENodeId n : p.parents(c)) {  // once per occurrence, like pending
      below[n] = std::max(below[n], value);
      if (--pending[n] == 0 && l[p.node_class(n)] == kNoPath) {
        queue.push({cost[n] + below[n], p.node_class(n)});
      }
    }
  }
  return l;
}

// N(roots) as a membership vector, or empty when over the limits.
std::vector<char> RootsNecessaryClasses(const ExtractionProblem& p, const std::vector<char>& ok) {
  const size_t nc = p.num_classes();
  if (nc > kCriticalPathMaxNecessaryClasses) return {};
  const size_t words = (nc + 63) / 64;
  std::vector<uint64_t> need(nc * words, ~uint64_t{0});  // top until computed
  std::vector<uint64_t> acc(words), next(words);
  auto row = [&](ClassId c) { return need.data() + static_cast<size_t>(c) * words; };
  double work = 0;
  // The union over n's child classes d of N(d) (each N(d) holds d).
  auto node_need = [&](ENodeId n, uint64_t* out) {
    std::fill(out, out + words, 0);
    for (ClassId d : p.children(n)) {
      const uint64_t* nd = row(d);
      for (size_t w = 0; w < words; ++w) out[w] |= nd[w];
    }
    work += static_cast<double>(words) * static_cast<double>(p.children(n).size() + 1);
  };
  // Children first; a cyclic component is iterated down from the top until
  // nothing changes (every iterate contains the greatest fixpoint, so only
  // the end may be used).
  const ClassSccs sccs = ComputeClassSccs(p, {}, ok);
  std::vector<ClassId> comp;
  for (size_t i = 0; i < sccs.order.size();) {
    comp.clear();
    const int32_t id = sccs.id[sccs.order[i]];
    while (i < sccs.order.size() && sccs.id[sccs.order[i]] == id) comp.push_back(sccs.order[i++]);
    for (bool changed = true; changed;) {
      changed = false;
      for (ClassId c : comp) {
        bool any = false;
        for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) {
          if (!ok[n]) continue;
          node_need(n, acc.data());
          for (size_t w = 0; w < words; ++w) next[w] = any ? (next[w] & acc[w]) : acc[w];
          any = true;
        }
        if (!any) continue;  // no acyclic term: never in a choice, stays top
        next[c / 64] |= uint64_t{1} << (c % 64);
        uint64_t* c_row = row(c);
        if (!std::equal(next.begin(), next.end(), c_row)) {
          std::copy(next.begin(), next.end(), c_row);
          changed = true;
        }
      }
      if (work > kCriticalPathMaxNecessaryWork) return {};
      if (comp.size() == 1) break;  // a lone class: one pass is its fixpoint
    }
  }
  std::fill(acc.begin(), acc.end(), 0);
  for (ClassId r : p.roots()) {
    const uint64_t* nr = row(r);
    for (size_t w = 0; w < words; ++w) acc[w] |= nr[w];
  }
  std::vector<char> in(nc, 0);
  for (ClassId c = 0; c < nc; ++c) in[c] = (acc[c / 64] >> (c % 64)) & 1;
  return in;
}

}  // namespace

std::optional<CriticalPathDetail> ComputeCriticalPathDetail(const ExtractionProblem& p,
                                                            std::span<const char> allowed) {
  if (p.has_negative_costs() || p.roots().empty()) return std::nullopt;
  const size_t nc = p.num_classes(), nn = p.num_nodes();
  std::vector<double> cost(nn);
  for (ENodeId n = 0; n < nn; ++n) cost[n] = p.cost(n);
  const std::vector<double> l = HeaviestPaths(p, cost, allowed);
  CriticalPathDetail out;
  CriticalPathBound& bound = out.bound;
  for (ClassId r : p.roots()) {
    if (!std::isfinite(l[r])) return std::nullopt;
    bound.plain_path = std::max(bound.plain_path, l[r]);
  }
  bound.bound = bound.plain_path;

  // Nodes with an acyclic term: all their child classes have one.
  out.acyclic.assign(nn, 0);
  std::vector<double> cheapest(nc, kNoPath);
  for (ENodeId n = 0; n < nn; ++n) {
    bool all = allowed.empty() || allowed[n];
    for (ClassId d : p.children(n)) all = all && std::isfinite(l[d]);
    out.acyclic[n] = all;
    if (all) cheapest[p.node_class(n)] = std::min(cheapest[p.node_class(n)], cost[n]);
  }
  out.necessary = RootsNecessaryClasses(p, out.acyclic);
  if (out.necessary.empty()) return out;
  for (ClassId c = 0; c < nc; ++c) {
    if (!out.necessary[c]) continue;
    ++bound.necessary_classes;
    bound.necessary_cost += cheapest[c];
  }
  for (ENodeId n = 0; n < nn; ++n) {
    if (out.necessary[p.node_class(n)] && out.acyclic[n]) cost[n] -= cheapest[p.node_class(n)];
  }
  const std::vector<double> reduced = HeaviestPaths(p, cost, out.acyclic);
  for (ClassId r : p.roots()) bound.path = std::max(bound.path, reduced[r]);
  bound.bound = std::max(bound.bound, bound.necessary_cost + bound.path);
  return out;
}

std::optional<CriticalPathBound> ComputeCriticalPathBound(const ExtractionProblem& p) {
  std::optional<CriticalPathDetail> d = ComputeCriticalPathDetail(p, {});
  if (!d.has_value()) return std::nullopt;
  return d->bound;
}

}  // namespace egret::extract
