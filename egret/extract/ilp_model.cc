// The ILP extractor's model (ilp_extractor_internal.h): what cannot matter
// is pruned (unreachable classes, nodes without an acyclic term, dominated
// nodes), cycle-free parts with a single user per class collapse into one
// column each, and the 0-1 program is built: a column per kept node, rows for
// the roots, the children, negative costs and necessary classes (the 2-cycle
// rows come from ilp_cycles.cc), and the CBC model made of them.
#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>
#include <vector>

#include "egret/extract/ilp_extractor_internal.h"

namespace egret::extract::ilp_internal {

// Sorted distinct child classes of n.
std::vector<ClassId> ChildSet(const ExtractionProblem& p, ENodeId n) {
  std::vector<ClassId> s(p.children(n).begin(), p.children(n).end());
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

// Classes reachable from the roots through nodes with keep[n].
std::vector<char> Reach(const ExtractionProblem& p, const std::vector<char>& keep) {
  std::vector<char> seen(p.num_classes(), 0);
  std::vector<ClassId> stack(p.roots().begin(), p.roots().end());
  while (!stack.empty()) {
    ClassId c = stack.back();
    stack.pop_back();
    if (seen[c]) continue;
    seen[c] = 1;
    for (ENodeId n = p.class_begin(c); n < p.class_end(c); ++n) {
      if (!keep[n]) continue;
      for (ClassId ch : p.children(n)) {
        if (!seen[ch]) stack.push_back(ch);
      }
    }
  }
  return seen;
}

void IlpBuilder::Prune(bool necessary_dominance) {
  const size_t nn = p_.num_nodes(), nc = p_.num_classes();
  keep_.assign(nn, 0);
  dominator_.assign(nn, kNoENode);
  for (ENodeId n = 0; n < nn; ++n) {
    bool ok = true;
    for (ClassId ch : p_.children(n)) {
      if (ch == p_.node_class(n) || std::isinf(tree_.cost[ch])) ok = false;
    }
    keep_[n] = ok;
  }
  std::vector<char> reach = Reach(p_, keep_);
  const bool subsets = !p_.has_negative_costs();
  std::vector<std::vector<ClassId>> sets;
  std::vector<ENodeId> nodes;
  for (ClassId c = 0; c < nc; ++c) {
    if (!reach[c] || p_.class_size(c) < 2) continue;
    nodes.clear();
    sets.clear();
    for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
      if (keep_[n]) {
        nodes.push_back(n);
        sets.push_back(ChildSet(p_, n));
      }
    }
    const size_t k = nodes.size();
    auto dominates = [&](size_t a, size_t b) {  // does nodes[a] dominate nodes[b]?
      const double ca = p_.cost(nodes[a]), cb = p_.cost(nodes[b]);
      if (ca > cb) return false;
      const bool equal = sets[a] == sets[b];
      if (!equal) {
        if (!subsets || sets[a].size() >= sets[b].size() ||
            !std::includes(sets[b].begin(), sets[b].end(), sets[a].begin(), sets[a].end())) {
          return false;
        }
        return true;
      }
      return ca < cb || nodes[a] < nodes[b];
    };
    if (k <= 128) {
      for (size_t b = 0; b < k; ++b) {
        for (size_t a = 0; a < k; ++a) {
          if (a != b && dominates(a, b)) {
            dominator_[nodes[b]] = nodes[a];
            break;
          }
        }
      }
    } else {  // large class: equal child sets only, by sorting
      std::vector<size_t> order(k);
      for (size_t i = 0; i < k; ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (sets[a] != sets[b]) return sets[a] < sets[b];
        if (p_.cost(nodes[a]) != p_.cost(nodes[b])) return p_.cost(nodes[a]) < p_.cost(nodes[b]);
        return nodes[a] < nodes[b];
      });
      for (size_t i = 1; i < k; ++i) {
        if (sets[order[i]] == sets[order[i - 1]]) dominator_[nodes[order[i]]] = nodes[order[i - 1]];
      }
    }
  }
  for (ENodeId n = 0; n < nn; ++n) {
    if (dominator_[n] != kNoENode) keep_[n] = 0;
  }
  if (necessary_dominance) necessary_dominated_ = PruneByNecessaryDominance(reach);
  live_ = Reach(p_, keep_);
  for (ENodeId n = 0; n < nn; ++n) {
    if (!live_[p_.node_class(n)]) keep_[n] = 0;
  }
}

void IlpBuilder::Collapse() {
  const size_t nc = p_.num_classes();
  sccs_ = ComputeSccs(p_, live_, keep_);
  std::vector<uint32_t> uses(nc, 0);
  for (ClassId r : p_.roots()) uses[r] += 2;  // a root is never absorbed
  for (ENodeId n = 0; n < p_.num_nodes(); ++n) {
    if (keep_[n]) {
      for (ClassId ch : p_.children(n)) ++uses[ch];
    }
  }
  collapsible_.assign(nc, 0);
  val_.assign(nc, kInf);
  vchoice_.assign(nc, kNoENode);
  for (const std::vector<ClassId>& comp : sccs_.members) {  // children first
    if (comp.size() != 1) continue;
    ClassId c = comp[0];
    bool ok = true;
    double best = kInf;
    ENodeId best_node = kNoENode;
    for (ENodeId n = p_.class_begin(c); n < p_.class_end(c) && ok; ++n) {
      if (!keep_[n]) continue;
      double v = p_.cost(n);
      for (ClassId ch : p_.children(n)) {
        if (!collapsible_[ch] || uses[ch] != 1) {
          ok = false;
          break;
        }
        v += val_[ch];
      }
      if (v < best) {
        best = v;
        best_node = n;
      }
    }
    if (ok && best_node != kNoENode) {
      collapsible_[c] = 1;
      val_[c] = best;
      vchoice_[c] = best_node;
    }
  }
}

void IlpBuilder::BuildModel(bool per_class_child_rows) {
  const size_t nc = p_.num_classes(), nn = p_.num_nodes();
  // Model classes: not absorbed into a collapsed parent.
  in_model_.assign(nc, 0);
  for (ClassId c = 0; c < nc; ++c) {
    if (live_[c] && !collapsible_[c]) in_model_[c] = 1;
  }
  for (ClassId r : p_.roots()) in_model_[r] = 1;
  for (ENodeId n = 0; n < nn; ++n) {
    if (keep_[n] && !collapsible_[p_.node_class(n)]) {
      for (ClassId ch : p_.children(n)) in_model_[ch] = 1;
    }
  }

  // Columns.
  class_col_begin_.assign(nc, 0);
  class_col_end_.assign(nc, 0);
  node_col_.assign(nn, -1);
  for (ClassId c = 0; c < nc; ++c) {
    class_col_begin_[c] = static_cast<int32_t>(obj_.size());
    if (in_model_[c]) {
      if (collapsible_[c]) {
        AddColumn(val_[c], 0, 1, true);
        col_node_.push_back(kNoENode);
        col_class_.push_back(c);
      } else {
        for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
          if (!keep_[n]) continue;
          node_col_[n] = AddColumn(p_.cost(n), 0, 1, true);
          col_node_.push_back(n);
          col_class_.push_back(c);
        }
      }
    }
    class_col_end_[c] = static_cast<int32_t>(obj_.size());
  }
  num_binaries_ = static_cast<int32_t>(obj_.size());
  // Roots.
  for (ClassId r : p_.roots()) AddClassTerms(AddRow(1, kInf), r, 1.0);
  // Children, one row per class c and child class d of its nodes:
  // sum(nodes of c that use d) <= sum(nodes of d). An acyclic choice has one
  // node per class, so the row holds for it; summed over c's nodes, it is
  // stronger in the relaxation than a row per node (x_n <= sum(nodes of d)),
  // where alternatives of c at a fraction each needed d at the largest of
  // their fractions only. Side by side at 10 s (docs/history/extraction-rounds.md, "Child
  // rows per class"): rover box_filter_3's relaxation 608 -> 727 and CBC's
  // bound 660 -> 982, box_filter_5's 680 -> 863 and 939 -> 1158, with about
  // half as many rows. On the programs above kNeighbourhoodColumns (TENSAT
  // bert) and in the neighbourhood search's sub-problems the rows stay per
  // node: bert at 60 s was not measurably different under load, and its
  // 0.704720 on a quiet machine was measured with them.
  const bool per_class = per_class_child_rows && num_binaries_ <= kNeighbourhoodColumns;
  {
    std::vector<int32_t> row_of(nc, -1);  // per child class, for the node or class at hand
    std::vector<ClassId> touched;
    for (ClassId c = 0; c < nc; ++c) {
      if (!in_model_[c] || collapsible_[c]) continue;
      for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
        if (node_col_[n] < 0) continue;
        for (ClassId d : ChildSet(p_, n)) {
          if (row_of[d] < 0) {
            row_of[d] = AddRow(-kInf, 0);
            AddClassTerms(row_of[d], d, -1.0);
            touched.push_back(d);
          }
          entries_.push_back({row_of[d], node_col_[n], 1.0});
        }
        if (!per_class) {
          for (ClassId d : touched) row_of[d] = -1;
          touched.clear();
        }
      }
      for (ClassId d : touched) row_of[d] = -1;
      touched.clear();
    }
  }
  // Negative costs: at most one node per class, and a class is only paid for
  // when something uses it.
  if (p_.has_negative_costs()) {
    std::vector<char> is_root(nc, 0);
    for (ClassId r : p_.roots()) is_root[r] = 1;
    for (ClassId c = 0; c < nc; ++c) {
      if (!in_model_[c]) continue;
      AddClassTerms(AddRow(-kInf, 1), c, 1.0);
      if (is_root[c]) continue;
      int32_t row = AddRow(-kInf, 0);
      AddClassTerms(row, c, 1.0);
      for (ENodeId parent : p_.parents(c)) {
        if (node_col_[parent] >= 0) entries_.push_back({row, node_col_[parent], -1.0});
      }
    }
  }
  // Necessary classes: when every way to compute class c (each of its kept
  // nodes, through its children, outside cyclic parts) computes class d,
  // then sum(nodes of d) >= sum(nodes of c). Without these rows the LP
  // relaxation halves the cost of whatever two alternatives share (both at
  // 1/2, each needing their common descendants at 1/2 only), once per layer
  // of alternatives: on PP-OCR's direction classifier its optimum was 1/90 of
  // the best extraction, and CBC could not close that gap in 10 s. Only the
  // immediate relations are added (d necessary for c and for no other class
  // necessary for c); the rest follow by transitivity.
  AddNecessaryClassRows();

  // Acyclicity (ilp_cycles.cc): the short-cycle rows.
  AddShortCycleRows();
}

void IlpBuilder::AddNecessaryClassRows() {
  const size_t nc = p_.num_classes();
  // Compact indices of the model's classes; bit sets over them.
  std::vector<int32_t> index(nc, -1);
  std::vector<ClassId> classes;
  for (ClassId c = 0; c < nc; ++c) {
    if (in_model_[c]) {
      index[c] = static_cast<int32_t>(classes.size());
      classes.push_back(c);
    }
  }
  const size_t m = classes.size(), words = (m + 63) / 64;
  if (m < 2 || m > kMaxNecessaryClasses) return;
  std::vector<uint64_t> need(m * words, 0), acc(words), all(words);
  auto row_of = [&](size_t k) { return need.data() + k * words; };
  std::vector<char> known(m, 0);
  // Children first (Tarjan's order); classes on a cycle, and collapsed ones
  // (their column stands for their whole subtree), need nothing known.
  for (const std::vector<ClassId>& comp : sccs_.members) {
    if (comp.size() != 1) continue;
    const ClassId c = comp[0];
    if (index[c] < 0 || collapsible_[c]) continue;
    bool first = true;
    for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
      if (node_col_[n] < 0) continue;
      std::fill(acc.begin(), acc.end(), 0);
      for (ClassId d : p_.children(n)) {
        const int32_t k = index[d];
        if (k < 0) continue;
        acc[k / 64] |= uint64_t{1} << (k % 64);
        if (known[k]) {
          const uint64_t* nd = row_of(k);
          for (size_t w = 0; w < words; ++w) acc[w] |= nd[w];
        }
      }
      uint64_t* nc_row = row_of(index[c]);
      for (size_t w = 0; w < words; ++w) nc_row[w] = first ? acc[w] : (nc_row[w] & acc[w]);
      first = false;
    }
    known[index[c]] = !first;
  }
  // Immediate ones: d in N(c) but in no N(e) for e in N(c).
  double work = 0;
  for (size_t k = 0; k < m; ++k) {
    if (!known[k]) continue;
    const uint64_t* nk = row_of(k);
    std::fill(all.begin(), all.end(), 0);
    for (size_t w = 0; w < words; ++w) {
      for (uint64_t bits = nk[w]; bits != 0; bits &= bits - 1) {
        const size_t e = w * 64 + static_cast<size_t>(std::countr_zero(bits));
        if (!known[e]) continue;
        const uint64_t* ne = row_of(e);
        for (size_t v = 0; v < words; ++v) all[v] |= ne[v];
        work += static_cast<double>(words);
      }
    }
    if (work > kMaxNecessaryWork) return;  // rows so far stay: each is valid
    const ClassId c = classes[k];
    // A class of one node needs its immediate classes through its children
    // (no other class necessary for it computes them, so they are its direct
    // children), which its child rows already say.
    int kept = 0;
    for (ENodeId n = p_.class_begin(c); n < p_.class_end(c) && kept < 2; ++n)
      kept += node_col_[n] >= 0;
    if (kept < 2) continue;
    for (size_t w = 0; w < words; ++w) {
      for (uint64_t bits = nk[w] & ~all[w]; bits != 0; bits &= bits - 1) {
        const ClassId d = classes[w * 64 + static_cast<size_t>(std::countr_zero(bits))];
        const int32_t row = AddRow(0, kInf);
        AddClassTerms(row, d, 1.0);
        AddClassTerms(row, c, -1.0);
        ++necessary_rows_;
      }
    }
  }
}

IlpBuilder::ColumnMajor IlpBuilder::EntriesByColumn() const {
  const int32_t ncols = static_cast<int32_t>(obj_.size());
  ColumnMajor m{std::vector<CoinBigIndex>(ncols + 1, 0), std::vector<int>(entries_.size()),
                std::vector<double>(entries_.size())};
  for (const Triplet& t : entries_) ++m.start[t.col + 1];
  for (int32_t j = 0; j < ncols; ++j) m.start[j + 1] += m.start[j];
  std::vector<CoinBigIndex> fill(m.start.begin(), m.start.end() - 1);
  for (const Triplet& t : entries_) {
    m.index[fill[t.col]] = t.row;
    m.value[fill[t.col]++] = t.value;
  }
  return m;
}

Cbc_Model* IlpBuilder::NewModel() const {
  const int32_t ncols = static_cast<int32_t>(obj_.size());
  const ColumnMajor cm = EntriesByColumn();
  const std::vector<CoinBigIndex>& start = cm.start;
  const std::vector<int>& index = cm.index;
  const std::vector<double>& value = cm.value;
  // CBC's infinity is 1e30.
  const double big = 1e30;
  std::vector<double> col_ub(col_ub_), row_lb(row_lb_), row_ub(row_ub_);
  for (double& v : col_ub) v = std::min(v, big);
  for (double& v : row_lb) v = std::max(v, -big);
  for (double& v : row_ub) v = std::min(v, big);
  Cbc_Model* model = Cbc_newModel();
  Cbc_loadProblem(model, ncols, static_cast<int>(row_lb.size()), start.data(), index.data(),
                  value.data(), col_lb_.data(), col_ub.data(), obj_.data(), row_lb.data(),
                  row_ub.data());
  for (int32_t j = 0; j < ncols; ++j) {
    if (is_int_[j]) Cbc_setInteger(model, j);
  }
  return model;
}

void IlpBuilder::Expand(ClassId c, Choice* out) const {
  std::vector<ClassId> stack = {c};
  while (!stack.empty()) {
    ClassId d = stack.back();
    stack.pop_back();
    out->node[d] = vchoice_[d];
    for (ClassId ch : p_.children(vchoice_[d])) stack.push_back(ch);
  }
}

}  // namespace egret::extract::ilp_internal
