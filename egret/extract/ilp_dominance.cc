// The ILP extractor's dominance by necessary classes (ilp_extractor_internal.h).
//
// N(d), the classes every acyclic term of class d contains, is the least
// fixpoint of N(d) = intersection over d's nodes of the union over their
// child classes e of {e} and N(e) (children first; on a cycle iterated from
// the empty set, and every iterate is a subset of it, so stopping early is
// safe). For a node b let Need(b) = children(b) plus N(e) for each child e.
// A node a of the same class dominates b when cost(a) <= cost(b) and every
// child class of a is in Need(b): in an acyclic choice that picks b, each
// child class of a is computed inside the term of one of b's children,
// which does not contain b's class, so switching to a keeps the choice
// acyclic; it pays cost(a) <= cost(b) and adds no class (all of a's children
// are already in the DAG) but may free some, so with non-negative costs it
// is never worse. Following the switches to a node that nothing dominates
// turns every optimal choice into one without dominated nodes, so they are
// pruned. Subset dominance (Prune) is the case N = {}. A child class of a
// may also be one that every valid choice computes (the roots and the
// classes necessary for them) and that cannot reach b's class.
//
// Why: in an e-graph of sums and products (rover's filters, diospyros'
// vector kernels) a bracketing that combines terms already computed below
// another bracketing's operands is cheaper and needs nothing new, and
// subset dominance cannot see it because the child classes differ: on
// diospyros vector_2d_conv this prunes 873 of 1,795 nodes in classes of
// two or more nodes against 137 by subsets (docs/history/extraction-rounds.md,
// "Dominance by necessary classes").
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "egret/extract/ilp_extractor_internal.h"

namespace egret::extract::ilp_internal {

int64_t IlpBuilder::PruneByNecessaryDominance(const std::vector<char>& reach) {
  if (p_.has_negative_costs()) return 0;
  const size_t nc = p_.num_classes();
  std::vector<int32_t> index(nc, -1);
  size_t m = 0;
  for (ClassId c = 0; c < nc; ++c) {
    if (reach[c]) index[c] = static_cast<int32_t>(m++);
  }
  if (m < 2 || m > kMaxNecessaryClasses) return 0;
  const size_t words = (m + 63) / 64;
  std::vector<uint64_t> need(m * words, 0), acc(words), next(words);
  auto row_of = [&](ClassId c) { return need.data() + static_cast<size_t>(index[c]) * words; };
  auto set_bit = [&](uint64_t* bits, ClassId c) {
    const int32_t k = index[c];
    bits[k / 64] |= uint64_t{1} << (k % 64);
  };
  auto has_bit = [&](const uint64_t* bits, ClassId c) {
    const int32_t k = index[c];
    return (bits[k / 64] >> (k % 64)) & 1;
  };
  // need(b): b's child classes and their necessary classes, into `out`.
  auto node_need = [&](ENodeId n, uint64_t* out) {
    std::fill(out, out + words, 0);
    for (ClassId e : p_.children(n)) {
      if (index[e] < 0) continue;
      set_bit(out, e);
      const uint64_t* ne = row_of(e);
      for (size_t w = 0; w < words; ++w) out[w] |= ne[w];
    }
  };
  double work = 0;
  const Sccs sccs = ComputeSccs(p_, reach, keep_);
  for (const std::vector<ClassId>& comp : sccs.members) {  // children first
    for (int pass = 0; pass < 64; ++pass) {
      bool changed = false;
      for (ClassId c : comp) {
        if (index[c] < 0) continue;
        bool first = true;
        for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
          if (!keep_[n]) continue;
          node_need(n, acc.data());
          for (size_t w = 0; w < words; ++w) next[w] = first ? acc[w] : (next[w] & acc[w]);
          first = false;
          work += static_cast<double>(words) * static_cast<double>(p_.children(n).size() + 1);
        }
        if (first) continue;  // no kept node: N(c) stays empty (a subset)
        uint64_t* c_row = row_of(c);
        if (!std::equal(next.begin(), next.end(), c_row)) {
          std::copy(next.begin(), next.end(), c_row);
          changed = true;
        }
      }
      if (!changed || comp.size() == 1) break;
      if (work > kMaxNecessaryWork) return 0;  // nothing pruned yet: no harm
    }
    if (work > kMaxNecessaryWork) return 0;
  }

  // G: the roots and the classes necessary for them, which every valid
  // choice computes. A class e of G that cannot reach c (its component comes
  // out before c's, children first) is computed without c, so a node of c
  // may use it as well as b's needs.
  std::vector<uint64_t> roots_need(words, 0);
  for (ClassId r : p_.roots()) {
    if (index[r] < 0) continue;
    set_bit(roots_need.data(), r);
    const uint64_t* nr = row_of(r);
    for (size_t w = 0; w < words; ++w) roots_need[w] |= nr[w];
  }
  auto usable = [&](const uint64_t* need_b, ClassId e, ClassId c) {
    if (index[e] < 0) return false;
    if (has_bit(need_b, e)) return true;
    return has_bit(roots_need.data(), e) && sccs.id[e] >= 0 && sccs.id[e] < sccs.id[c];
  };
  // Per class: a node b is pruned when a node a that is still kept
  // dominates it, so every chain of dominators ends at a kept node (each
  // dominator was kept when it was taken, after the node it dominates).
  int64_t pruned = 0;
  std::vector<ENodeId> nodes;
  std::vector<uint64_t> nb(words);
  for (ClassId c = 0; c < nc; ++c) {
    if (index[c] < 0) continue;
    nodes.clear();
    for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
      if (keep_[n]) nodes.push_back(n);
    }
    if (nodes.size() < 2 || nodes.size() > kMaxDominanceClassNodes) continue;
    // Costliest first (ties: the later node first), each compared with the
    // cheaper or equal nodes still kept.
    std::sort(nodes.begin(), nodes.end(), [&](ENodeId a, ENodeId b) {
      if (p_.cost(a) != p_.cost(b)) return p_.cost(a) > p_.cost(b);
      return a > b;
    });
    for (size_t j = 0; j < nodes.size(); ++j) {
      const ENodeId b = nodes[j];
      node_need(b, nb.data());
      work += static_cast<double>(words);
      for (size_t i = 0; i < nodes.size(); ++i) {
        const ENodeId a = nodes[i];
        if (i == j || !keep_[a] || p_.cost(a) > p_.cost(b)) continue;
        bool all = true;
        for (ClassId e : p_.children(a)) {
          if (!usable(nb.data(), e, c)) {
            all = false;
            break;
          }
        }
        work += static_cast<double>(p_.children(a).size());
        if (all) {
          dominator_[b] = a;
          keep_[b] = 0;
          ++pruned;
          break;
        }
      }
      if (work > 2 * kMaxNecessaryWork) return pruned;  // each prune is valid alone
    }
  }
  return pruned;
}

}  // namespace egret::extract::ilp_internal
