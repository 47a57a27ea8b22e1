// The ILP extractor's branching rows (ilp_extractor_internal.h).
//
// Let A be a set of classes that every term of class c needs (necessary
// classes), no one of which can reach another. In any acyclic choice that
// chooses c, the union of paths from c to the classes of A, cut at A, holds
// a spanning arborescence whose leaves are exactly A; a tree with |A| leaves
// has sum over internal vertices of (out-degree - 1) = |A| - 1. Its
// internal vertices are chosen nodes of classes that reach A (Up(A)), and a
// vertex's out-degree is at most the number k_A(n) of its node's distinct
// child classes in A or Up(A). So
//     sum over nodes n of Up(A) of max(k_A(n) - 1, 0) x_n >= (|A| - 1) sum(nodes of c)
// holds for every acyclic choice. The rows go to a pool, from which the LP
// loop (ilp_lp_loop.cc) takes those the relaxation violates. Two sets A per
// class: its necessary leaf
// classes (classes whose kept nodes have no child in the model, except
// those most columns use: bit widths, shared parameters), and its
// immediately necessary classes (necessary for c and for no other class
// necessary for c), without those that reach another one.
//
// Why: an e-graph of associativity and commutativity holds every
// bracketing of a sum, and the LP relaxation spreads a sum of m terms over
// many bracketings at a fraction each, paying a fraction of the m - 1
// operations every bracketing needs (egg math_associate_adds: 7 terms, the
// relaxation 9.2 against the optimum 13; rover's filters and diospyros'
// vector kernels, sums of products). With the row the relaxation pays all
// m - 1 of them.
#include <algorithm>
#include <bit>
#include <utility>
#include <vector>

#include "egret/extract/ilp_extractor_internal.h"

namespace egret::extract::ilp_internal {

int64_t IlpBuilder::AddBranchingRows(Clock::time_point until, RowPool* pool) {
  const size_t nc = p_.num_classes();
  const int32_t nb = num_binaries_;
  // Distinct model child classes per binary column (none for a collapsed
  // class, whose column stands for its whole subtree), and the columns that
  // use each class.
  std::vector<int32_t> child_begin(nb + 1, 0);
  std::vector<ClassId> child;
  for (int32_t j = 0; j < nb; ++j) {
    if (col_node_[j] != kNoENode) {
      for (ClassId d : ChildSet(p_, col_node_[j])) {
        if (in_model_[d]) child.push_back(d);
      }
    }
    child_begin[j + 1] = static_cast<int32_t>(child.size());
  }
  std::vector<int32_t> parent_begin(nc + 1, 0);
  for (ClassId d : child) ++parent_begin[d + 1];
  for (size_t c = 0; c < nc; ++c) parent_begin[c + 1] += parent_begin[c];
  std::vector<int32_t> parent(child.size());
  {
    std::vector<int32_t> fill(parent_begin.begin(), parent_begin.end() - 1);
    for (int32_t j = 0; j < nb; ++j) {
      for (int32_t k = child_begin[j]; k < child_begin[j + 1]; ++k) parent[fill[child[k]]++] = j;
    }
  }
  // Model classes, numbered; leaf classes; frequent leaves (used by more
  // than a tenth of the columns of a program that is not tiny) are left out
  // of every necessary set.
  std::vector<int32_t> index(nc, -1);
  std::vector<ClassId> classes;
  std::vector<char> leaf(nc, 0), skip(nc, 0);
  for (ClassId c = 0; c < nc; ++c) {
    if (!in_model_[c] || class_col_begin_[c] == class_col_end_[c]) continue;
    bool is_leaf = true;
    for (int32_t j = class_col_begin_[c]; j < class_col_end_[c] && is_leaf; ++j) {
      is_leaf = child_begin[j] == child_begin[j + 1];
    }
    leaf[c] = is_leaf;
    skip[c] = is_leaf && nb >= kBranchingFrequentMinColumns &&
              parent_begin[c + 1] - parent_begin[c] > nb / 10;
    if (skip[c]) continue;
    index[c] = static_cast<int32_t>(classes.size());
    classes.push_back(c);
  }
  const size_t m = classes.size(), words = (m + 63) / 64;
  if (m < 3 || static_cast<double>(words) * static_cast<double>(m) > kMaxBranchingWords) return 0;
  // Necessary classes per class: N(c) = intersection over c's columns of the
  // union over their children d of {d} and N(d); children first (Tarjan's
  // order), and on a cycle the least fixpoint iterated from the empty set
  // (every iterate is a subset of what each acyclic term needs, so stopping
  // early is safe).
  std::vector<uint64_t> need(m * words, 0), acc(words), next(words);
  auto row_of = [&](ClassId c) { return need.data() + static_cast<size_t>(index[c]) * words; };
  auto set_bit = [](uint64_t* bits, int32_t k) { bits[k / 64] |= uint64_t{1} << (k % 64); };
  double work = 0;
  for (const std::vector<ClassId>& comp : sccs_.members) {
    for (int pass = 0; pass < 64; ++pass) {
      bool changed = false;
      for (ClassId c : comp) {
        if (index[c] < 0 || leaf[c]) continue;
        bool first = true;
        for (int32_t j = class_col_begin_[c]; j < class_col_end_[c]; ++j) {
          std::fill(acc.begin(), acc.end(), 0);
          for (int32_t k = child_begin[j]; k < child_begin[j + 1]; ++k) {
            const ClassId d = child[k];
            if (index[d] < 0) continue;
            set_bit(acc.data(), index[d]);
            const uint64_t* nd = row_of(d);
            for (size_t w = 0; w < words; ++w) acc[w] |= nd[w];
          }
          for (size_t w = 0; w < words; ++w) next[w] = first ? acc[w] : (next[w] & acc[w]);
          first = false;
          work += static_cast<double>(words) * (child_begin[j + 1] - child_begin[j] + 1);
        }
        uint64_t* c_row = row_of(c);
        if (!std::equal(next.begin(), next.end(), c_row)) {
          std::copy(next.begin(), next.end(), c_row);
          changed = true;
        }
      }
      if (!changed || comp.size() == 1 || work > kMaxBranchingWork) break;
      if (Clock::now() > until) return 0;
    }
  }

  // One row for class c and atoms A (see the top of the file).
  std::vector<char> in_reach(nc, 0), is_atom(nc, 0), up(nc, 0);
  std::vector<ClassId> reach, queue;
  std::vector<std::pair<int32_t, double>> terms;
  double entries = 0;
  int64_t added = 0;
  auto add_row = [&](ClassId c, std::vector<ClassId>& atoms) {
    // R(c), then Up(A) by a reverse search from A inside R(c); an atom
    // reached from another atom is dropped (and belongs to Up).
    reach.assign(1, c);
    in_reach[c] = 1;
    for (size_t i = 0; i < reach.size(); ++i) {
      const ClassId e = reach[i];
      for (int32_t j = class_col_begin_[e]; j < class_col_end_[e]; ++j) {
        for (int32_t k = child_begin[j]; k < child_begin[j + 1]; ++k) {
          if (!in_reach[child[k]]) {
            in_reach[child[k]] = 1;
            reach.push_back(child[k]);
          }
        }
      }
    }
    entries += static_cast<double>(reach.size());
    for (ClassId a : atoms) is_atom[a] = 1;
    queue = atoms;
    for (size_t i = 0; i < queue.size(); ++i) {
      const ClassId d = queue[i];
      for (int32_t k = parent_begin[d]; k < parent_begin[d + 1]; ++k) {
        const ClassId e = col_class_[parent[k]];
        if (!in_reach[e] || up[e]) continue;
        up[e] = 1;  // an atom marked here reaches another atom: dropped
        if (!is_atom[e]) queue.push_back(e);
      }
    }
    size_t kept = 0;
    for (ClassId a : atoms) kept += !up[a];
    if (kept >= 2 && up[c]) {
      terms.clear();
      bool binding = false;  // without a negative term, x >= 0 implies the row
      for (ClassId e : reach) {
        if (!up[e]) continue;
        for (int32_t j = class_col_begin_[e]; j < class_col_end_[e]; ++j) {
          int32_t k_a = 0;
          for (int32_t k = child_begin[j]; k < child_begin[j + 1]; ++k) {
            const ClassId d = child[k];
            k_a += up[d] || is_atom[d];
          }
          double coef = std::max(k_a - 1, 0);
          if (e == c) coef -= static_cast<double>(kept) - 1;
          if (coef != 0) terms.push_back({j, coef});
          binding = binding || coef < 0;
        }
      }
      if (binding) {
        for (const auto& [j, coef] : terms) {
          pool->col.push_back(j);
          pool->coef.push_back(coef);
        }
        pool->start.push_back(static_cast<int64_t>(pool->col.size()));
        ++added;
      }
    }
    for (ClassId e : reach) in_reach[e] = up[e] = 0;
    for (ClassId a : atoms) is_atom[a] = up[a] = 0;
  };

  std::vector<ClassId> atoms;
  std::vector<uint64_t> others(words);
  for (ClassId c : classes) {
    if (leaf[c]) continue;
    if (entries > kMaxBranchingEntries || Clock::now() > until) break;
    const uint64_t* nc_row = row_of(c);
    // Leaf atoms.
    atoms.clear();
    for (size_t w = 0; w < words; ++w) {
      for (uint64_t bits = nc_row[w]; bits != 0; bits &= bits - 1) {
        const ClassId d = classes[w * 64 + static_cast<size_t>(std::countr_zero(bits))];
        if (leaf[d]) atoms.push_back(d);
      }
    }
    if (atoms.size() >= 2) add_row(c, atoms);
    // Immediately necessary atoms (not all leaves).
    std::fill(others.begin(), others.end(), 0);
    for (size_t w = 0; w < words; ++w) {
      for (uint64_t bits = nc_row[w]; bits != 0; bits &= bits - 1) {
        const ClassId e = classes[w * 64 + static_cast<size_t>(std::countr_zero(bits))];
        const uint64_t* ne = row_of(e);
        for (size_t v = 0; v < words; ++v) others[v] |= ne[v];
      }
    }
    atoms.clear();
    bool all_leaves = true;
    for (size_t w = 0; w < words; ++w) {
      for (uint64_t bits = nc_row[w] & ~others[w]; bits != 0; bits &= bits - 1) {
        const ClassId d = classes[w * 64 + static_cast<size_t>(std::countr_zero(bits))];
        atoms.push_back(d);
        all_leaves = all_leaves && leaf[d];
      }
    }
    if (atoms.size() >= 2 && !all_leaves) add_row(c, atoms);
  }
  return added;
}

}  // namespace egret::extract::ilp_internal
