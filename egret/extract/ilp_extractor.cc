#include "egret/extract/ilp_extractor.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "Cbc_C_Interface.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "egret/extract/dag_extractor.h"
#include "egret/extract/tree_extractor.h"
#include "egret/extract/validate.h"
#include "egret/support/process_memory.h"

namespace egret::extract {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Cycle cuts added after one solve at most (the search stops there).
constexpr int kMaxCutsPerRound = 2000;
// Necessary-class rows are computed for at most this many model classes (a
// bit set of them per class: 8 MB at the limit) and this many word
// operations.
constexpr size_t kMaxNecessaryClasses = 8192;
constexpr double kMaxNecessaryWork = 2e8;

using Clock = std::chrono::steady_clock;

double SecondsUntil(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

// What CBC returned.
struct SolveOutcome {
  bool finished = false;       // CBC returned before the deadline
  bool memory_killed = false;  // the child was killed past the memory budget
  bool proven = false;         // it proved its incumbent optimal
  double bound = -kInf;        // its best possible objective
  std::vector<double> best;    // its best solution's first columns (empty: none)
};

// Writes all of `data`; false on error.
bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Runs Cbc_solve and reads back the outcome (in-process).
SolveOutcome SolveHere(Cbc_Model* model, int32_t num_columns) {
  SolveOutcome out;
  Cbc_solve(model);
  out.finished = true;
  out.proven = Cbc_isProvenOptimal(model) != 0;
  out.bound = Cbc_getBestPossibleObjValue(model);
  if (const double* sol = Cbc_bestSolution(model); sol != nullptr) {
    out.best.assign(sol, sol + num_columns);
  }
  return out;
}

// Solves `model` and returns by `deadline` at the latest. CBC checks its own
// time limit only during branch and bound, not in its preprocessing and root
// processing, so it runs in a child process that is killed at the deadline;
// the child sends its outcome through a pipe. CBC's own limit is set a little
// before the deadline, so that it normally stops by itself with its best
// solution. If no process can be started, CBC runs here under its own limit.
// With a memory budget (> 0), the child's resident bytes above this
// process's are polled every 50 ms and the child is killed past the budget.
SolveOutcome SolveByDeadline(Cbc_Model* model, int32_t num_columns, Clock::time_point deadline,
                             int64_t memory_budget_bytes) {
  const double remaining = SecondsUntil(deadline);
  Cbc_setMaximumSeconds(model, std::max(0.01, remaining - std::min(0.5, 0.1 * remaining)));
  int fds[2];
  if (pipe(fds) != 0) return SolveHere(model, num_columns);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return SolveHere(model, num_columns);
  }
  if (pid == 0) {  // child: solve, send, exit without running any exit handler
    close(fds[0]);
    SolveOutcome o = SolveHere(model, num_columns);
    const double header[3] = {o.proven ? 1.0 : 0.0, o.bound, o.best.empty() ? 0.0 : 1.0};
    bool ok = WriteAll(fds[1], header, sizeof(header));
    if (ok && !o.best.empty()) ok = WriteAll(fds[1], o.best.data(), o.best.size() * sizeof(double));
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  std::string data;
  bool eof = false;
  bool memory_killed = false;
  const int64_t parent_bytes = memory_budget_bytes > 0 ? ResidentBytes() : 0;
  const double max_wait_ms = memory_budget_bytes > 0 ? 50.0 : 60000.0;
  while (!eof) {
    const double left = SecondsUntil(deadline);
    if (left <= 0) break;
    if (memory_budget_bytes > 0 && ResidentBytes(pid) - parent_bytes > memory_budget_bytes) {
      memory_killed = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int ready = poll(&pfd, 1, static_cast<int>(std::min(std::ceil(left * 1000), max_wait_ms)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char buf[65536];
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
    } else {
      data.append(buf, static_cast<size_t>(n));
    }
  }
  close(fds[0]);
  if (!eof) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  SolveOutcome out;
  out.memory_killed = memory_killed;
  const size_t header = 3 * sizeof(double);
  if (!eof || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.size() < header) return out;
  double h[3];
  std::memcpy(h, data.data(), header);
  const size_t want = h[2] != 0 ? static_cast<size_t>(num_columns) : 0;
  if (data.size() != header + want * sizeof(double)) return out;
  out.finished = true;
  out.proven = h[0] != 0;
  out.bound = h[1];
  out.best.resize(want);
  if (want > 0) std::memcpy(out.best.data(), data.data() + header, want * sizeof(double));
  return out;
}

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

// Strongly connected components of the class graph restricted to `in` classes
// and `keep` nodes (iterative Tarjan). Components come out children first.
struct Sccs {
  std::vector<int32_t> id;  // per class, -1 if not in the graph
  std::vector<std::vector<ClassId>> members;
};

Sccs ComputeSccs(const ExtractionProblem& p, const std::vector<char>& in,
                 const std::vector<char>& keep) {
  const size_t nc = p.num_classes();
  Sccs out{std::vector<int32_t>(nc, -1), {}};
  std::vector<int32_t> index(nc, -1), low(nc, 0);
  std::vector<char> on_stack(nc, 0);
  std::vector<ClassId> tstack;
  struct Frame {
    ClassId c;
    ENodeId n;
    uint32_t k;
  };
  std::vector<Frame> frames;
  int32_t next = 0;
  // Advances frame f to its next kept child edge; returns false at the end.
  auto next_child = [&](Frame& f, ClassId* child) {
    while (f.n < p.class_end(f.c)) {
      if (keep[f.n] && f.k < p.children(f.n).size()) {
        *child = p.children(f.n)[f.k++];
        return true;
      }
      ++f.n;
      f.k = 0;
    }
    return false;
  };
  for (ClassId s = 0; s < nc; ++s) {
    if (!in[s] || index[s] >= 0) continue;
    index[s] = low[s] = next++;
    tstack.push_back(s);
    on_stack[s] = 1;
    frames.push_back({s, p.class_begin(s), 0});
    while (!frames.empty()) {
      Frame& f = frames.back();
      ClassId ch;
      if (next_child(f, &ch)) {
        if (!in[ch]) continue;
        if (index[ch] < 0) {
          index[ch] = low[ch] = next++;
          tstack.push_back(ch);
          on_stack[ch] = 1;
          frames.push_back({ch, p.class_begin(ch), 0});
        } else if (on_stack[ch]) {
          low[f.c] = std::min(low[f.c], index[ch]);
        }
        continue;
      }
      ClassId c = f.c;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().c] = std::min(low[frames.back().c], low[c]);
      if (low[c] == index[c]) {
        std::vector<ClassId> comp;
        ClassId x;
        do {
          x = tstack.back();
          tstack.pop_back();
          on_stack[x] = 0;
          out.id[x] = static_cast<int32_t>(out.members.size());
          comp.push_back(x);
        } while (x != c);
        out.members.push_back(std::move(comp));
      }
    }
  }
  return out;
}

struct Triplet {
  int32_t row, col;
  double value;
};

class IlpBuilder {
 public:
  IlpBuilder(const ExtractionProblem& p, const TreeCosts& tree) : p_(p), tree_(tree) {}

  // Solves until `deadline`, within `memory_budget_bytes` of solver memory
  // (0: unbounded); returns `warm` (not optimal) if no better is found by
  // then.
  absl::StatusOr<IlpResult> Run(Choice warm, Clock::time_point deadline,
                                int64_t memory_budget_bytes);

 private:
  void Prune();
  void Collapse();
  int32_t AddColumn(double cost, double lb, double ub, bool integer) {
    obj_.push_back(cost);
    col_lb_.push_back(lb);
    col_ub_.push_back(ub);
    is_int_.push_back(integer);
    return static_cast<int32_t>(obj_.size() - 1);
  }
  int32_t AddRow(double lb, double ub) {
    row_lb_.push_back(lb);
    row_ub_.push_back(ub);
    return static_cast<int32_t>(row_lb_.size() - 1);
  }
  void Expand(ClassId c, Choice* out) const;  // collapsed subtree choices
  // Adds coef * (every column of class c) to `row`.
  void AddClassTerms(int32_t row, ClassId c, double coef) {
    for (int32_t j = class_col_begin_[c]; j < class_col_end_[c]; ++j)
      entries_.push_back({row, j, coef});
  }
  // See Run: rows sum(d) >= sum(c) for d immediately necessary for c.
  void AddNecessaryClassRows();
  // See Run: a cut for each cycle among the `chosen` nodes (per class) of
  // classes that are not `ready`; returns how many.
  int AddCycleCuts(const std::vector<std::vector<ENodeId>>& chosen, const std::vector<char>& ready);
  // A CBC model of the columns, rows and entries so far (the caller deletes it).
  Cbc_Model* NewModel() const;

  const ExtractionProblem& p_;
  const TreeCosts& tree_;
  std::vector<char> keep_;          // per node
  std::vector<ENodeId> dominator_;  // per node
  std::vector<char> live_;          // per class: reachable through kept nodes
  Sccs sccs_;
  std::vector<char> collapsible_;  // per class
  std::vector<double> val_;        // exact cost of a collapsible class
  std::vector<ENodeId> vchoice_;   // its best node
  std::vector<double> obj_, col_lb_, col_ub_, row_lb_, row_ub_;
  std::vector<char> is_int_;
  std::vector<Triplet> entries_;
  // The model (set by Run): which classes it has, each class's columns
  // [begin, end) and each kept node's column (-1: none).
  std::vector<char> in_model_;
  std::vector<int32_t> class_col_begin_, class_col_end_, node_col_;
  int64_t necessary_rows_ = 0;
};

void IlpBuilder::Prune() {
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
        for (size_t k = from; k < path.size(); ++k) {
          entries_.push_back({row, node_col_[chosen[path[k].c][path[k].node]], 1.0});
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

Cbc_Model* IlpBuilder::NewModel() const {
  const int32_t ncols = static_cast<int32_t>(obj_.size());
  std::vector<CoinBigIndex> start(ncols + 1, 0);
  for (const Triplet& t : entries_) ++start[t.col + 1];
  for (int32_t j = 0; j < ncols; ++j) start[j + 1] += start[j];
  std::vector<int> index(entries_.size());
  std::vector<double> value(entries_.size());
  std::vector<CoinBigIndex> fill(start.begin(), start.end() - 1);
  for (const Triplet& t : entries_) {
    index[fill[t.col]] = t.row;
    value[fill[t.col]++] = t.value;
  }
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

absl::StatusOr<IlpResult> IlpBuilder::Run(Choice warm, Clock::time_point deadline,
                                          int64_t memory_budget_bytes) {
  const size_t nc = p_.num_classes(), nn = p_.num_nodes();
  Prune();
  Collapse();
  IlpResult result;
  result.choice = warm;
  result.cost = DagCost(p_, warm);
  result.bound = -kInf;

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
  // Everything collapses: the roots' exact optimum needs no solver.
  bool all_collapsed = true;
  for (ClassId r : p_.roots()) all_collapsed = all_collapsed && collapsible_[r];
  if (all_collapsed) {
    Choice exact(nc);
    for (ClassId r : p_.roots()) Expand(r, &exact);
    exact = RestrictToReachable(p_, exact);
    double cost = DagCost(p_, exact);
    if (cost <= result.cost) {
      result.choice = std::move(exact);
      result.cost = cost;
    }
    result.bound = result.cost;
    result.optimal = true;
    return result;
  }

  // Columns.
  class_col_begin_.assign(nc, 0);
  class_col_end_.assign(nc, 0);
  node_col_.assign(nn, -1);
  std::vector<ENodeId> col_node;  // kNoENode for a collapsed leaf
  std::vector<ClassId> col_class;
  for (ClassId c = 0; c < nc; ++c) {
    class_col_begin_[c] = static_cast<int32_t>(obj_.size());
    if (in_model_[c]) {
      if (collapsible_[c]) {
        AddColumn(val_[c], 0, 1, true);
        col_node.push_back(kNoENode);
        col_class.push_back(c);
      } else {
        for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
          if (!keep_[n]) continue;
          node_col_[n] = AddColumn(p_.cost(n), 0, 1, true);
          col_node.push_back(n);
          col_class.push_back(c);
        }
      }
    }
    class_col_end_[c] = static_cast<int32_t>(obj_.size());
  }
  const int32_t num_binaries = static_cast<int32_t>(obj_.size());
  // Roots.
  for (ClassId r : p_.roots()) AddClassTerms(AddRow(1, kInf), r, 1.0);
  // Children.
  for (ENodeId n = 0; n < nn; ++n) {
    if (node_col_[n] < 0) continue;
    for (ClassId d : ChildSet(p_, n)) {
      int32_t row = AddRow(-kInf, 0);
      entries_.push_back({row, node_col_[n], 1.0});
      AddClassTerms(row, d, -1.0);
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

  // Acyclicity, on cyclic strongly connected parts of the class graph only:
  // a chosen node and a chosen node of its child class that uses it back
  // cannot both be chosen (2-cycles, here); longer cycles are cut lazily
  // below, when a solution has one.
  for (const std::vector<ClassId>& comp : sccs_.members) {
    if (comp.size() < 2) continue;
    for (ClassId c : comp) {
      for (ENodeId n = p_.class_begin(c); n < p_.class_end(c); ++n) {
        if (node_col_[n] < 0) continue;
        for (ClassId d : ChildSet(p_, n)) {
          if (d <= c || sccs_.id[d] != sccs_.id[c]) continue;  // each pair of classes once
          for (ENodeId m = p_.class_begin(d); m < p_.class_end(d); ++m) {
            if (node_col_[m] < 0) continue;
            const auto back = p_.children(m);
            if (std::find(back.begin(), back.end(), c) == back.end()) continue;
            int32_t row = AddRow(-kInf, 1);
            entries_.push_back({row, node_col_[n], 1.0});
            entries_.push_back({row, node_col_[m], 1.0});
          }
        }
      }
    }
  }

  // Warm start: the warm choice with dominated nodes replaced by their dominators.
  Choice repaired(nc);
  for (ClassId c : ReachableClasses(p_, warm)) {
    ENodeId n = warm.node[c];
    while (n != kNoENode && !keep_[n] && dominator_[n] != kNoENode) n = dominator_[n];
    repaired.node[c] = n;
  }
  repaired = RestrictToReachable(p_, repaired);
  // The columns of an acyclic choice (it satisfies every cycle cut), or empty
  // when the model cannot express it.
  auto columns_of = [&](const Choice& choice) {
    std::vector<double> values(num_binaries, 0.0);
    if (!ValidateChoice(p_, choice).ok()) return std::vector<double>();
    for (ClassId c : ReachableClasses(p_, choice)) {
      if (!in_model_[c]) continue;
      if (collapsible_[c]) {
        values[class_col_begin_[c]] = 1.0;
      } else if (node_col_[choice.node[c]] >= 0) {
        values[node_col_[choice.node[c]]] = 1.0;
      } else {
        return std::vector<double>();
      }
    }
    return values;
  };
  std::vector<double> start_values = columns_of(repaired);

  // Rounds: solve; a solution whose chosen nodes compute the roots without a
  // cycle is optimal when CBC proved it; otherwise every cycle among its chosen
  // nodes becomes a cut (not all of a cycle's nodes can be chosen) and the
  // model is solved again, from the best acyclic choice so far. Each round's
  // proven optimum (or CBC's bound) is a lower bound: the cuts only remove
  // cyclic solutions.
  std::vector<char> ready(nc, 0);
  std::vector<ENodeId> ready_node(nc, kNoENode);
  while (true) {
    if (SecondsUntil(deadline) <= 0) break;  // pruning, building and earlier rounds count too
    Cbc_Model* model = NewModel();
    Cbc_setLogLevel(model, 0);
    Cbc_setParameter(model, "timeMode", "elapsed");
    Cbc_setAllowableGap(model, 1e-7);
    Cbc_setAllowableFractionGap(model, 0.0);
    // No Gomory cuts: measured on the 99 extraction-gym files at 10 s
    // (docs/extraction.md, "CBC's cut generators"), 76 are proven without
    // them instead of 73, none is lost and no cost changes. Turning off
    // every cut, or probing, clique or zero-half cuts instead, proved fewer
    // files or lost some.
    Cbc_setParameter(model, "gomoryCuts", "off");
    if (!start_values.empty()) {
      std::vector<int> idx(num_binaries);
      for (int32_t j = 0; j < num_binaries; ++j) idx[j] = j;
      Cbc_setMIPStartI(model, num_binaries, idx.data(), start_values.data());
    }
    const SolveOutcome solved = SolveByDeadline(model, num_binaries, deadline, memory_budget_bytes);
    Cbc_deleteModel(model);
    result.solver_used = true;
    ++result.rounds;
    result.memory_limit_hit = solved.memory_killed;
    const bool proven = solved.finished && solved.proven;
    if (std::isfinite(solved.bound) && solved.bound > -1e29) {
      result.bound = std::max(result.bound, std::min(solved.bound, result.cost));
    }
    if (solved.best.empty()) break;
    const double* sol = solved.best.data();
    double objective = 0;  // of the relaxation's solution
    for (int32_t j = 0; j < num_binaries; ++j) objective += sol[j] > 0.5 ? obj_[j] : 0.0;
    // The chosen nodes, and which classes they compute without a cycle.
    std::vector<std::vector<ENodeId>> chosen(nc);
    std::vector<char> collapsed_chosen(nc, 0);
    for (int32_t j = 0; j < num_binaries; ++j) {
      if (sol[j] <= 0.5) continue;
      if (col_node[j] == kNoENode) {
        collapsed_chosen[col_class[j]] = 1;
      } else {
        chosen[col_class[j]].push_back(col_node[j]);
      }
    }
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
    bool roots_ready = true;
    for (ClassId r : p_.roots()) roots_ready = roots_ready && ready[r];
    if (roots_ready) {
      Choice found(nc);
      std::vector<ClassId> stack(p_.roots().begin(), p_.roots().end());
      while (!stack.empty()) {
        const ClassId c = stack.back();
        stack.pop_back();
        if (found.node[c] != kNoENode) continue;
        if (ready_node[c] == kNoENode) {
          Expand(c, &found);
          continue;
        }
        found.node[c] = ready_node[c];
        for (ClassId ch : p_.children(ready_node[c])) stack.push_back(ch);
      }
      found = RestrictToReachable(p_, found);
      if (ValidateChoice(p_, found).ok()) {
        const double cost = DagCost(p_, found);
        if (cost < result.cost) {
          result.choice = std::move(found);
          result.cost = cost;
          start_values = columns_of(result.choice);
        }
      }
      if (proven) {
        // An acyclic choice within the optimum of a relaxation: optimal (up
        // to rounding; with negative costs it may drop a chosen node).
        const double tol = 1e-6 * std::max(1.0, std::abs(result.cost));
        result.bound = std::min(result.cost, std::max(result.bound, objective));
        result.optimal = result.cost <= objective + tol;
        if (result.optimal) result.bound = std::max(result.bound, result.cost - tol);
      }
      if (result.optimal || !proven) break;
    }
    const int cuts = AddCycleCuts(chosen, ready);
    result.cycle_cuts += cuts;
    if (cuts == 0) break;  // nothing to cut: keep the best so far
  }
  result.model_columns = static_cast<int64_t>(obj_.size());
  result.model_rows = static_cast<int64_t>(row_lb_.size());
  result.necessary_rows = necessary_rows_;
  // Without a proof, the result is the best acyclic choice found, at most
  // its cost above the bound.
  const double tol = 1e-6 * std::max(1.0, std::abs(result.cost));
  if (!result.optimal && result.cost <= result.bound + tol) result.optimal = true;
  result.time_limit_hit = !result.optimal && !result.memory_limit_hit;
  return result;
}

}  // namespace

absl::StatusOr<IlpResult> ExtractIlp(const ExtractionProblem& p, const IlpOptions& options) {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                         std::clamp(options.time_limit_seconds, 0.0, 1e9)));
  absl::StatusOr<TreeCosts> tree = ComputeTreeCosts(p);
  if (!tree.ok()) return tree.status();
  for (ClassId r : p.roots()) {
    if (std::isinf(tree->cost[r])) return UncomputableRootError(p, tree->cost, r);
  }
  Choice warm;
  DagOptions::Report warm_report;
  if (options.warm_start.has_value() && ValidateChoice(p, *options.warm_start).ok()) {
    warm = RestrictToReachable(p, *options.warm_start);
  } else {
    DagOptions dag_options;
    dag_options.deadline = deadline;  // the warm start is paid from the time limit too
    dag_options.memory_budget_bytes = options.memory_budget_bytes;
    dag_options.report = &warm_report;
    absl::StatusOr<Choice> dag = ExtractDag(p, dag_options);
    if (!dag.ok()) return dag.status();
    warm = *std::move(dag);
  }
  IlpBuilder builder(p, *tree);
  absl::StatusOr<IlpResult> result =
      builder.Run(std::move(warm), deadline, options.memory_budget_bytes);
  if (result.ok()) {
    result->memory_limit_hit |= warm_report.memory_limit_hit;
    result->time_limit_hit |= warm_report.time_limit_hit;
    if (absl::Status s = ValidateChoice(p, result->choice); !s.ok()) {
      return absl::InternalError(
          absl::StrCat("ILP extractor produced an invalid choice: ", std::string(s.message())));
    }
  }
  return result;
}

}  // namespace egret::extract
