// The ILP extractor's exclusive-user rows (ilp_extractor_internal.h).
//
// For a class d, call "t needs d" for a column t when every term through
// t's node computes d: d is a child class of t or necessary for one (the
// necessary sets of ilp_model.cc, outside cyclic parts). Two columns t and u
// are exclusive when no valid choice chooses both: they are nodes of one
// class; or u's class is not reachable from the roots when t's class is
// restricted to t and each class that t forces (below) to its columns
// (every class of a choice is reachable from the roots through its chosen
// nodes), or the other way round; or choosing t and
// choosing u force one class to choose among disjoint sets of columns. What
// a class e forces (ClassFacts): e, if active and not a root, is used by a
// chosen column j, whose class then chooses j and is active in turn; what
// holds for every column using e holds for e, a class c that every one of
// them forces with the union of their column sets (a class used only by
// node a of class c forces c to choose a; a class used by b and by a class
// used only by b' forces c to choose b or b'). For a set K of
// pairwise exclusive columns that all need d, at most one is chosen and
// each chosen one makes d computed, so
//     sum(nodes of d) >= sum over t in K of x_t.
// With K the nodes of one class c that use d, this is c's child row; the
// rows here add the nodes of other classes that cannot be chosen together
// with them.
//
// Why: on rover's filters and diospyros' vector kernels the relaxation pays
// a class shared by many alternatives once at the largest of their
// fractions, although the alternatives exclude each other (a node of class
// 15 uses class 192, and so does a node of a class used only by another
// node of class 15): diospyros vector_2d_conv's relaxation was 6.18 against
// the optimum 13.51. The rows are separated in the LP loop
// (ilp_lp_loop.cc): for each class d, the columns needing d with x > 0,
// heaviest first, are taken greedily into K while they stay exclusive with
// those taken; the row joins the model when it is violated.
#include <algorithm>
#include <bit>
#include <iterator>
#include <memory>
#include <vector>

#include "egret/extract/ilp_extractor_internal.h"

namespace egret::extract::ilp_internal {

namespace {

// A row is violated when its activity is this far below 0 (as the pool's).
constexpr double kExclusiveViolation = 1e-3;
// Class visits spent on the lazy reach searches, over the whole loop.
constexpr double kMaxExclusiveReachWork = 5e7;
// Caps of the facts above a class (ClassFacts): classes per class, columns
// per fact, and the depth of the recursion over users.
constexpr size_t kMaxForcedFacts = 64;
constexpr size_t kMaxForcedColumns = 64;
constexpr int kMaxForcedDepth = 256;

}  // namespace

bool IlpBuilder::PrepareExclusiveRows() {
  const size_t nc = p_.num_classes();
  const int32_t nb = num_binaries_;
  auto s = std::make_unique<ExclusiveRowState>();
  s->index.assign(nc, -1);
  for (ClassId c = 0; c < nc; ++c) {
    if (!in_model_[c]) continue;
    s->index[c] = static_cast<int32_t>(s->classes.size());
    s->classes.push_back(c);
  }
  const size_t m = s->classes.size();
  s->words = (m + 63) / 64;
  if (m < 2 || static_cast<double>(s->words) * static_cast<double>(m) > kMaxBranchingWords) {
    return false;
  }
  s->child_begin.assign(nb + 1, 0);
  std::vector<int32_t> users(nc, 0);
  for (int32_t j = 0; j < nb; ++j) {
    if (col_node_[j] != kNoENode) {
      for (ClassId d : ChildSet(p_, col_node_[j])) {
        if (in_model_[d]) {
          s->child.push_back(d);
          ++users[d];
        }
      }
    }
    s->child_begin[j + 1] = static_cast<int32_t>(s->child.size());
  }
  // Leaf classes used by more than a tenth of the columns (bit widths,
  // shared parameters, as for the branching rows) are computed anyway and
  // would make every list long.
  s->skip.assign(nc, 0);
  for (ClassId c : s->classes) {
    bool leaf = true;
    for (int32_t j = class_col_begin_[c]; j < class_col_end_[c] && leaf; ++j)
      leaf = s->child_begin[j] == s->child_begin[j + 1];
    s->skip[c] = leaf && nb >= kBranchingFrequentMinColumns && users[c] > nb / 10;
  }
  // Necessary classes of the classes outside cyclic parts, children first.
  const size_t words = s->words;
  s->need.assign(m * words, 0);
  std::vector<uint64_t> acc(words);
  for (const std::vector<ClassId>& comp : sccs_.members) {
    if (comp.size() != 1) continue;
    const ClassId c = comp[0];
    if (s->index[c] < 0 || collapsible_[c]) continue;
    uint64_t* row = s->need.data() + static_cast<size_t>(s->index[c]) * words;
    bool first = true;
    for (int32_t j = class_col_begin_[c]; j < class_col_end_[c]; ++j) {
      std::fill(acc.begin(), acc.end(), 0);
      for (int32_t k = s->child_begin[j]; k < s->child_begin[j + 1]; ++k) {
        const int32_t b = s->index[s->child[k]];
        acc[b / 64] |= uint64_t{1} << (b % 64);
        const uint64_t* nd = s->need.data() + static_cast<size_t>(b) * words;
        for (size_t w = 0; w < words; ++w) acc[w] |= nd[w];
      }
      for (size_t w = 0; w < words; ++w) row[w] = first ? acc[w] : (row[w] & acc[w]);
      first = false;
    }
  }
  s->reach.resize(nb);
  s->parent_begin.assign(nc + 1, 0);
  for (ClassId d : s->child) ++s->parent_begin[d + 1];
  for (size_t c = 0; c < nc; ++c) s->parent_begin[c + 1] += s->parent_begin[c];
  s->parent.resize(s->child.size());
  {
    std::vector<int32_t> fill(s->parent_begin.begin(), s->parent_begin.end() - 1);
    for (int32_t j = 0; j < nb; ++j) {
      for (int32_t k = s->child_begin[j]; k < s->child_begin[j + 1]; ++k)
        s->parent[fill[s->child[k]]++] = j;
    }
  }
  s->forced_state.assign(nc, 0);
  s->forced.resize(nc);
  exclusive_ = std::move(s);
  return true;
}

static const std::vector<ExclusiveRowState::Fact>& ClassFacts(ExclusiveRowState& s,
                                                              const ExtractionProblem& p,
                                                              const std::vector<ClassId>& col_class,
                                                              ClassId e, int depth);

// R(t): the model classes reachable from the roots when t's class is
// restricted to t (and each class t forces, ClassFacts, to its columns); nullptr when the work
// budget is spent.
static const std::vector<uint64_t>* ReachWith(ExclusiveRowState& s, const ExtractionProblem& p,
                                              const std::vector<int32_t>& col_begin,
                                              const std::vector<int32_t>& col_end,
                                              const std::vector<ClassId>& col_class, int32_t t) {
  std::vector<uint64_t>& r = s.reach[t];
  if (!r.empty()) return &r;
  if (s.work > kMaxExclusiveReachWork) return nullptr;
  r.assign(s.words, 0);
  const ClassId own = col_class[t];
  const std::vector<ExclusiveRowState::Fact>& facts = ClassFacts(s, p, col_class, own, 0);
  s.restrict.resize(col_begin.size(), -1);
  for (size_t f = 0; f < facts.size(); ++f) s.restrict[facts[f].cls] = static_cast<int32_t>(f);
  std::vector<ClassId> stack;
  auto visit = [&](ClassId c) {
    const int32_t b = s.index[c];
    if (b < 0 || (r[b / 64] >> (b % 64) & 1) != 0) return;
    r[b / 64] |= uint64_t{1} << (b % 64);
    stack.push_back(c);
  };
  for (ClassId root : p.roots()) visit(root);
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    s.work += 1;
    auto follow = [&](int32_t j) {
      for (int32_t k = s.child_begin[j]; k < s.child_begin[j + 1]; ++k) visit(s.child[k]);
    };
    if (c == own) {
      follow(t);
    } else if (s.restrict[c] >= 0) {
      for (int32_t j : facts[s.restrict[c]].cols) follow(j);
    } else {
      for (int32_t j = col_begin[c]; j < col_end[c]; ++j) follow(j);
    }
  }
  for (const ExclusiveRowState::Fact& f : facts) s.restrict[f.cls] = -1;
  return &r;
}

// The facts of class e (ExclusiveRowState::forced), from those of the
// classes of its users. Sound whatever is cut: a fact dropped (past the caps,
// or through a class still being computed, which reads as none) only weakens
// the rows.
static const std::vector<ExclusiveRowState::Fact>& ClassFacts(ExclusiveRowState& s,
                                                              const ExtractionProblem& p,
                                                              const std::vector<ClassId>& col_class,
                                                              ClassId e, int depth) {
  using Fact = ExclusiveRowState::Fact;
  std::vector<Fact>& out = s.forced[e];
  if (s.forced_state[e] != 0) return out;   // done, or being computed: none yet
  if (depth > kMaxForcedDepth) return out;  // not marked: may be computed later
  s.forced_state[e] = 1;
  const int32_t pb = s.parent_begin[e], pe = s.parent_begin[e + 1];
  const bool root = std::find(p.roots().begin(), p.roots().end(), e) != p.roots().end();
  std::vector<Fact> acc, mine, next;
  bool first = true;
  for (int32_t k = pb; k < pe && !root; ++k) {
    const int32_t j = s.parent[k];
    const ClassId c = col_class[j];
    // The facts above column j: c chooses j, and c's facts.
    const std::vector<Fact>& above = ClassFacts(s, p, col_class, c, depth + 1);
    mine.clear();
    bool placed = false;
    for (const Fact& f : above) {
      if (!placed && c < f.cls) {
        mine.push_back({c, {j}});
        placed = true;
      }
      if (f.cls == c) {  // c on a cycle through e: keep the tighter one
        mine.push_back({c, {j}});
        placed = true;
        continue;
      }
      mine.push_back(f);
    }
    if (!placed) mine.push_back({c, {j}});
    if (first) {
      acc.swap(mine);
      first = false;
    } else {  // meet: the classes in both, the union of their columns
      next.clear();
      size_t a = 0, b = 0;
      while (a < acc.size() && b < mine.size()) {
        if (acc[a].cls < mine[b].cls) {
          ++a;
        } else if (mine[b].cls < acc[a].cls) {
          ++b;
        } else {
          Fact f{acc[a].cls, {}};
          std::set_union(acc[a].cols.begin(), acc[a].cols.end(), mine[b].cols.begin(),
                         mine[b].cols.end(), std::back_inserter(f.cols));
          if (f.cols.size() <= kMaxForcedColumns) next.push_back(std::move(f));
          ++a;
          ++b;
        }
      }
      acc.swap(next);
    }
    if (acc.empty()) break;
  }
  if (acc.size() > kMaxForcedFacts) acc.resize(kMaxForcedFacts);
  out = std::move(acc);
  s.forced_state[e] = 2;
  return out;
}

// Does every valid choice that chooses t leave u unchosen because some class
// must choose from disjoint columns for each (t's class chooses t, u's
// chooses u, and the facts above them)?
static bool ForcedApart(ExclusiveRowState& s, const ExtractionProblem& p,
                        const std::vector<ClassId>& col_class, int32_t t, int32_t u) {
  using Fact = ExclusiveRowState::Fact;
  const ClassId ct = col_class[t], cu = col_class[u];
  const std::vector<Fact> own_t = {{ct, {t}}}, own_u = {{cu, {u}}};
  const std::vector<Fact>* ft[2] = {&own_t, &ClassFacts(s, p, col_class, ct, 0)};
  const std::vector<Fact>* fu[2] = {&own_u, &ClassFacts(s, p, col_class, cu, 0)};
  for (const std::vector<Fact>* x : ft) {
    for (const std::vector<Fact>* y : fu) {
      size_t a = 0, b = 0;
      while (a < x->size() && b < y->size()) {
        const Fact& fa = (*x)[a];
        const Fact& fb = (*y)[b];
        if (fa.cls < fb.cls) {
          ++a;
        } else if (fb.cls < fa.cls) {
          ++b;
        } else {
          std::vector<int32_t>::const_iterator i = fa.cols.begin(), j = fb.cols.begin();
          bool meet = false;
          while (i != fa.cols.end() && j != fb.cols.end() && !meet) {
            meet = *i == *j;
            if (*i < *j) {
              ++i;
            } else {
              ++j;
            }
          }
          if (!meet) return true;
          ++a;
          ++b;
        }
      }
    }
  }
  return false;
}

int64_t IlpBuilder::SeparateExclusiveRows(const double* x, Clock::time_point until,
                                          RowPool* fresh) {
  if (!exclusive_) return 0;
  ExclusiveRowState& s = *exclusive_;
  const size_t words = s.words, m = s.classes.size();
  const int32_t nb = num_binaries_;
  // Per class bit, the columns with x > 0 that need it.
  std::vector<std::vector<int32_t>> needers(m);
  std::vector<uint64_t> acc(words);
  for (int32_t t = 0; t < nb; ++t) {
    if (x[t] <= 1e-6) continue;
    std::fill(acc.begin(), acc.end(), 0);
    for (int32_t k = s.child_begin[t]; k < s.child_begin[t + 1]; ++k) {
      const int32_t b = s.index[s.child[k]];
      acc[b / 64] |= uint64_t{1} << (b % 64);
      const uint64_t* nd = s.need.data() + static_cast<size_t>(b) * words;
      for (size_t w = 0; w < words; ++w) acc[w] |= nd[w];
    }
    for (size_t w = 0; w < words; ++w) {
      for (uint64_t bits = acc[w]; bits != 0; bits &= bits - 1) {
        needers[w * 64 + static_cast<size_t>(std::countr_zero(bits))].push_back(t);
      }
    }
  }
  auto in = [](const std::vector<uint64_t>& r, int32_t b) {
    return (r[b / 64] >> (b % 64) & 1) != 0;
  };
  // Are columns t and u exclusive? (false when the budget is spent)
  auto exclusive = [&](int32_t t, int32_t u) {
    const ClassId ct = col_class_[t], cu = col_class_[u];
    if (ct == cu) return true;
    if (ForcedApart(s, p_, col_class_, t, u)) return true;
    const std::vector<uint64_t>* rt =
        ReachWith(s, p_, class_col_begin_, class_col_end_, col_class_, t);
    if (rt != nullptr && !in(*rt, s.index[cu])) return true;
    const std::vector<uint64_t>* ru =
        ReachWith(s, p_, class_col_begin_, class_col_end_, col_class_, u);
    return ru != nullptr && !in(*ru, s.index[ct]);
  };
  int64_t added = 0;
  std::vector<int32_t> clique;
  for (size_t b = 0; b < m; ++b) {
    std::vector<int32_t>& cand = needers[b];
    const ClassId d = s.classes[b];
    if (cand.size() < 2 || s.skip[d]) continue;
    double act = 0, total = 0;
    for (int32_t j = class_col_begin_[d]; j < class_col_end_[d]; ++j) act += x[j];
    for (int32_t t : cand) total += x[t];
    if (total <= act + kExclusiveViolation) continue;
    if (Clock::now() > until) break;
    std::stable_sort(cand.begin(), cand.end(), [&](int32_t a, int32_t c) { return x[a] > x[c]; });
    clique.clear();
    double sum = 0;
    for (int32_t t : cand) {
      bool ok = true;
      for (int32_t u : clique) {
        if (!exclusive(t, u)) {
          ok = false;
          break;
        }
      }
      if (ok) {
        clique.push_back(t);
        sum += x[t];
      }
    }
    if (clique.size() < 2 || sum <= act + kExclusiveViolation) continue;
    // sum(nodes of d) - sum(K) >= 0
    for (int32_t j = class_col_begin_[d]; j < class_col_end_[d]; ++j) {
      fresh->col.push_back(j);
      fresh->coef.push_back(1.0);
    }
    for (int32_t t : clique) {
      fresh->col.push_back(t);
      fresh->coef.push_back(-1.0);
    }
    fresh->start.push_back(static_cast<int64_t>(fresh->col.size()));
    ++added;
  }
  return added;
}

}  // namespace egret::extract::ilp_internal
