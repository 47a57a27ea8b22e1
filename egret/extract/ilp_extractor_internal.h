// Private to the extract stage: the ILP extractor's model builder, shared by
// its files (ilp_extractor.h describes the formulation):
//   - ilp_model.cc: pruning, collapsing, the columns and rows of the 0-1
//     program (roots, children, negative costs, necessary classes) and the
//     CBC model made of them;
//   - ilp_dominance.cc: dominance by necessary classes (pruning);
//   - ilp_maxcut_bound.cc: the eigenvalue bound of max-cut e-graphs;
//   - ilp_branching_rows.cc: the branching rows (a class whose terms all
//     need m classes has chosen nodes combining m branches below it);
//   - ilp_exclusive_rows.cc: the exclusive-user rows (a class needed by
//     columns that no choice takes together is paid for all of them);
//   - ilp_lp_loop.cc: the LP relaxation in Clp, adding the branching and
//     exclusive-user rows it violates;
//   - ilp_cycles.cc: acyclicity: the class graph's strongly connected parts,
//     the 2-cycle rows, which classes a solution computes without a cycle,
//     and the lazy cuts of the cycles it has;
//   - ilp_extractor.cc: solving: CBC in a child process by the deadline, the
//     rounds of solving and cutting, reading the solution, and ExtractIlp.
//   - ilp_neighbourhood.cc: the fix-and-optimize search run first on large
//     programs (ImproveByNeighbourhoods).
#ifndef EGRET_EXTRACT_ILP_EXTRACTOR_INTERNAL_H_
#define EGRET_EXTRACT_ILP_EXTRACTOR_INTERNAL_H_

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "Cbc_C_Interface.h"
#include "absl/status/statusor.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/tree_extractor.h"

namespace egret::extract::ilp_internal {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Cycle cuts added after one solve at most (the search stops there).
constexpr int kMaxCutsPerRound = 2000;
// Class cycles of at most this many classes are cut from the start, within
// this many steps of their enumeration.
constexpr size_t kMaxShortCycle = 5;
constexpr double kMaxShortCycleWork = 2e6;
// Necessary-class rows are computed for at most this many model classes (a
// bit set of them per class: 8 MB at the limit) and this many word
// operations.
constexpr size_t kMaxNecessaryClasses = 8192;
constexpr double kMaxNecessaryWork = 2e8;
// Dominance by necessary classes (ilp_dominance.cc) compares the nodes of
// classes of at most this many kept nodes.
constexpr size_t kMaxDominanceClassNodes = 512;

// The max-cut eigenvalue bound (ilp_maxcut_bound.cc) is computed for at
// most this many variables (a dense Jacobi eigenvalue solve, O(n^3) per
// sweep).
constexpr size_t kMaxCutBoundVariables = 400;

// The critical-path search (critical_path_search.h) runs before any program
// is built when the critical-path bound is within kPathSearchGap of the warm
// start's cost (and the bound computed its necessary classes), for at most
// this share of the time left and this many bounds (TENSAT resnet50: gap
// 0.23 %, 2,656 classes, optimal after 2,400 bounds in 2.8 s without a hint;
// docs/history/extraction-rounds.md, "Branch and bound on the critical-path bound").
constexpr double kPathSearchGap = 0.01;
constexpr double kPathSearchShare = 0.3;
constexpr int64_t kPathSearchMaxBounds = 20000;

// The LP loop (ilp_lp_loop.cc) runs on programs of at most
// kNeighbourhoodColumns columns, for at most this share of the time left.
constexpr double kLpLoopShare = 0.3;
// On larger programs (with non-negative costs), the plain relaxation is
// solved first, for at most this share of the time left, when that share is
// at least this many seconds (Clp took 1.2 s of CPU on TENSAT bert, 1.3 s
// on rover mcm_3_7_21 9 iterations; Clp checks its limit only now and then).
constexpr double kLargeRelaxationShare = 0.2;
constexpr double kLargeRelaxationMinSeconds = 1.0;
// With a memory budget, the LP relaxation (in this process) is solved only
// when this many bytes per matrix element, column and row fit the budget.
constexpr double kLpBytesPerElement = 256;
// The branching rows (ilp_branching_rows.cc) get at most this share of the
// time left, this many words of bit sets (necessary classes per class), this
// many word operations computing them, and this many classes summed over
// the rows' reachable sets.
constexpr double kBranchingShare = 0.15;
constexpr double kMaxBranchingWords = 4e6;
constexpr double kMaxBranchingWork = 2e8;
constexpr double kMaxBranchingEntries = 2e6;
// A leaf class used by more than a tenth of the columns of a program of at
// least this many columns is left out of the branching rows' sets.
constexpr int32_t kBranchingFrequentMinColumns = 200;

// Fix-and-optimize neighbourhoods (ilp_neighbourhood.cc) run first, for
// this share of the time, on programs of more than this many columns (where
// CBC's root alone can take longer than the time limit; 0.9 rather than
// 0.8: on TENSAT bert the full solve after the search returned nothing in
// any run, and the search's sub-problems are what improve it). A neighbourhood
// starts with classes of this many nodes in all and stays within [min,
// max]; each sub-problem's CBC stops after kNeighbourhoodNodes
// branch-and-bound nodes. The size grows by 1/4 after this many proofs in a
// row and shrinks by 1/3 after a sub-problem that its node limit stopped:
// every decision is by work, none by the clock, so the search is the same
// sequence of sub-problems on any machine and under any load, and the
// deadline only decides how far along it the result is. The cap of 10,000
// nodes keeps TENSAT bert's sub-problems at about 0.5-5 s of CPU each;
// 12,500 reached the same choice later, 8,000 stopped at a worse one
// (docs/history/extraction-rounds.md, "Neighbourhoods sized by work"). The same column
// count decides between the LP loop with the branching rows (at most this
// many columns) and the plain relaxation first (more). At 12,000 rather
// than 10,000, rover mcm_3_7_21 9 iterations (10,682 columns; its
// relaxation is its optimum, 1,050) and impress mul512 (10,275) take the
// smaller programs' path: under load (average 10-14) the plain
// relaxation's 20 % of the time was too short for Clp on mcm 9 iterations,
// which the LP loop's 30 % proves (docs/history/extraction-rounds.md, "Cyclic parts and
// the size of a large program"); TENSAT bert (20,210) is unchanged.
constexpr int32_t kNeighbourhoodColumns = 12000;
constexpr double kNeighbourhoodShare = 0.9;
constexpr size_t kNeighbourhoodStart = 2000;
constexpr size_t kNeighbourhoodMin = 50;
constexpr size_t kNeighbourhoodMax = 10000;
constexpr int kNeighbourhoodNodes = 20;
constexpr int kNeighbourhoodQuickSolves = 3;

using Clock = std::chrono::steady_clock;

inline double SecondsUntil(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

// Sorted distinct child classes of n.
std::vector<ClassId> ChildSet(const ExtractionProblem& p, ENodeId n);

// Classes reachable from the roots through nodes with keep[n].
std::vector<char> Reach(const ExtractionProblem& p, const std::vector<char>& keep);

// Strongly connected components of the class graph restricted to `in` classes
// and `keep` nodes (ComputeClassSccs, class_sccs.h), with each component's
// members. Components come out children first.
struct Sccs {
  std::vector<int32_t> id;  // per class, -1 if not in the graph
  std::vector<std::vector<ClassId>> members;
};

Sccs ComputeSccs(const ExtractionProblem& p, const std::vector<char>& in,
                 const std::vector<char>& keep);

struct Triplet {
  int32_t row, col;
  double value;
};

// Rows sum(coef * x) >= 0, row r over entries [start[r], start[r + 1]).
struct RowPool {
  std::vector<int64_t> start = {0};
  std::vector<int32_t> col;
  std::vector<double> coef;
  std::vector<char> used;  // per row: already in the model
};

struct LpLoopStats {
  int rounds = 0;  // LP solves that ended optimal
  // The relaxation's optimum at the first and the last of them.
  double relaxation_before = -kInf, relaxation_after = -kInf;
  int64_t rows_added = 0;      // pool rows added to the model
  int64_t exclusive_rows = 0;  // exclusive-user rows added to the model
};

// ilp_exclusive_rows.cc: what the exclusive-user rows' separation keeps
// between rounds of the LP loop.
struct ExclusiveRowState {
  size_t words = 0;              // of a bit set over the model's classes
  std::vector<int32_t> index;    // per class: its bit, -1 outside the model
  std::vector<ClassId> classes;  // per bit
  // Per binary column, its distinct model child classes:
  // child[child_begin[j], child_begin[j + 1]).
  std::vector<int32_t> child_begin;
  std::vector<ClassId> child;
  std::vector<uint64_t> need;  // per bit: its necessary classes (bits)
  // Per column, computed when first asked: the classes reachable from the
  // roots when its class is restricted to it; empty until then.
  std::vector<std::vector<uint64_t>> reach;
  double work = 0;         // class visits of those searches
  std::vector<char> skip;  // per class: a frequent leaf, left out
  // Per class, the columns that use it: parent[parent_begin[c],
  // parent_begin[c + 1]).
  std::vector<int32_t> parent_begin, parent;
  // Per class e, computed when first asked: facts (class c, columns S)
  // sorted by c, meaning "when e is active, c is active and chooses a column
  // of S": the facts that hold above every column using e (its own class
  // choosing it, and that class's facts), S the union over those columns.
  // forced_state: 0 not computed, 1 being computed (reads as no facts), 2
  // done.
  struct Fact {
    ClassId cls;
    std::vector<int32_t> cols;  // sorted
  };
  std::vector<char> forced_state;
  std::vector<std::vector<Fact>> forced;
  std::vector<int32_t> restrict;  // per class, scratch of the reach searches: -1
};

class IlpBuilder {
 public:
  IlpBuilder(const ExtractionProblem& p, const TreeCosts& tree) : p_(p), tree_(tree) {}

  // Solves until `deadline`, within `memory_budget_bytes` of solver memory
  // (0: unbounded); returns `warm` (not optimal) if no better is found by
  // then.
  // With `neighbourhoods`, a large program first gets
  // ImproveByNeighbourhoods for kNeighbourhoodShare of the time.
  absl::StatusOr<IlpResult> Run(Choice warm, Clock::time_point deadline,
                                int64_t memory_budget_bytes, bool neighbourhoods = true);
  // For the neighbourhood search's sub-problems: each CBC solve stops after
  // `max_nodes` branch-and-bound nodes (a limit in work, not time; -1: none)
  // and runs without CBC's preprocessing.
  void set_max_nodes(int max_nodes) { max_nodes_ = max_nodes; }
  // IlpOptions::critical_path_bound (on the whole program only).
  void set_critical_path_bound(bool on) { critical_path_bound_ = on; }

 private:
  // Prunes unreachable classes, nodes without an acyclic term and dominated
  // nodes (by subsets of child classes; with `necessary_dominance`, also by
  // necessary classes: ilp_dominance.cc).
  void Prune(bool necessary_dominance);
  // ilp_dominance.cc: marks not kept every node b dominated by a node a of
  // its class with cost(a) <= cost(b) whose child classes every acyclic
  // choice of b computes anyway (b's child classes and the classes
  // necessary for them), and sets dominator_[b] = a; only with non-negative
  // costs and at most kMaxNecessaryClasses `reach` classes. Returns how
  // many.
  int64_t PruneByNecessaryDominance(const std::vector<char>& reach);
  void Collapse();
  // See Run: the model's classes, columns and rows (roots, children,
  // negative costs, necessary classes, 2-cycles); sets in_model_, the
  // column maps and num_binaries_. The child rows are per class and child
  // class when `per_class_child_rows` and the program has at most
  // kNeighbourhoodColumns columns, otherwise per node (ilp_model.cc).
  void BuildModel(bool per_class_child_rows);
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
  // See BuildModel: rows sum(d) >= sum(c) for d immediately necessary for c.
  void AddNecessaryClassRows();
  // See BuildModel: rows for the short cycles of cyclic strongly connected
  // parts (ilp_cycles.cc).
  void AddShortCycleRows();
  // Adds x_n to `row` for every kept node n of class c that uses class d;
  // returns how many.
  size_t AddEdgeNodes(int32_t row, ClassId c, ClassId d);
  // Which classes the `chosen` nodes (per class) and `collapsed_chosen`
  // classes compute without a cycle (`ready`), and through which node
  // (`ready_node`; kNoENode for a collapsed class).
  void MarkReady(const std::vector<std::vector<ENodeId>>& chosen,
                 const std::vector<char>& collapsed_chosen, std::vector<char>& ready,
                 std::vector<ENodeId>& ready_node) const;
  // See Run: a cut for each cycle among the `chosen` nodes (per class) of
  // classes that are not `ready`; returns how many.
  int AddCycleCuts(const std::vector<std::vector<ENodeId>>& chosen, const std::vector<char>& ready);
  // ilp_branching_rows.cc: rows saying that a class whose every term needs
  // m classes, none of which reaches another, has chosen nodes below it
  // that combine m branches; made until `until` into `pool`, returns how
  // many.
  int64_t AddBranchingRows(Clock::time_point until, RowPool* pool);
  // ilp_exclusive_rows.cc: prepares the exclusive-user rows' separation
  // (necessary classes per class, the columns' child classes) for the model
  // built; false when the program is too large for it.
  bool PrepareExclusiveRows();
  // ilp_exclusive_rows.cc: appends to `fresh` exclusive-user rows (sum(nodes
  // of d) >= the x of pairwise exclusive columns that each need d) that the
  // LP solution `x` violates; returns how many. Nothing before
  // PrepareExclusiveRows.
  int64_t SeparateExclusiveRows(const double* x, Clock::time_point until, RowPool* fresh);
  // ilp_lp_loop.cc: rounds of the LP relaxation in Clp until `until`, until
  // none is violated or until its optimum reaches `stop_at`, each adding to
  // the model the rows of `pool` its solution violates or, when there are
  // none and with `exclusive_rows`, the exclusive-user rows it violates.
  LpLoopStats StrengthenByLp(Clock::time_point until, RowPool& pool, bool exclusive_rows = false,
                             double stop_at = kInf);
  // A CBC model of the columns, rows and entries so far (the caller deletes it).
  Cbc_Model* NewModel() const;
  // The entries so far in column-major form, as Clp and CBC load them:
  // column j's entries are index/value[start[j], start[j + 1]).
  struct ColumnMajor {
    std::vector<CoinBigIndex> start;
    std::vector<int> index;
    std::vector<double> value;
  };
  ColumnMajor EntriesByColumn() const;

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
  // The model (set by BuildModel): which classes it has, each class's
  // columns [begin, end) and each kept node's column (-1: none).
  std::vector<char> in_model_;
  std::vector<int32_t> class_col_begin_, class_col_end_, node_col_;
  // Per binary column: its node (kNoENode for a collapsed leaf) and class;
  // the binaries are the first num_binaries_ columns.
  std::vector<ENodeId> col_node_;
  std::vector<ClassId> col_class_;
  int32_t num_binaries_ = 0;
  int64_t necessary_rows_ = 0;
  int64_t branching_rows_ = 0;
  int64_t necessary_dominated_ = 0;
  int max_nodes_ = -1;
  bool critical_path_bound_ = true;
  std::unique_ptr<ExclusiveRowState> exclusive_;
};

// ilp_maxcut_bound.cc: an e-graph that encodes a weighted maximum cut (a
// root node over variable classes of two cost-0 nodes, and per pair of
// variables one clause class of cost w <= 0 per side, used by that side of
// both): its DAG cost is constant - (the cut of `weight`, by the sides the
// variables' nodes choose).
struct MaxCutShape {
  ENodeId root_node = kNoENode;
  std::vector<ClassId> vars;   // variable i's class; side 0 or 1 is its node
                               // class_begin + 0 or + 1
  std::vector<double> weight;  // n x n, row-major: the edges' weights >= 0
  double constant = 0;         // the root's cost + the sum of one side's clauses
};
std::optional<MaxCutShape> RecognizeMaxCut(const ExtractionProblem& p);

// A lower bound on the DAG cost of a max-cut e-graph from the largest
// eigenvalue of the cut's Laplacian; otherwise nullopt.
std::optional<double> MaxCutLowerBound(const ExtractionProblem& p);

// Restarts of the max-cut local search (below) after the one from the
// start: 1-flip climbs of at most n^2 steps each.
constexpr int kMaxCutRestarts = 300;

// For a max-cut e-graph, the best choice found by best-improvement 1-flip
// climbs from `start`'s sides and from kMaxCutRestarts pseudo-random sides
// (a fixed seed: deterministic, bounded by work); otherwise nullopt. The DAG
// heuristic's choice on extraction-gym's maxsat files cuts 460, 840 and 838
// edges where these climbs find 466, 856 and 863 (docs/history/extraction-rounds.md).
std::optional<Choice> MaxCutLocalSearch(const ExtractionProblem& p, const Choice& start);

struct NeighbourhoodStats {
  int solved = 0;     // sub-problems handed to the solver
  int improved = 0;   // of them, those that improved the incumbent
  int64_t nodes = 0;  // CBC's branch-and-bound nodes in them
  // A sub-problem's solver went past the memory budget (the search stopped).
  bool memory_limit_hit = false;
};

// Fix and optimize (ilp_neighbourhood.cc): solves sub-problems in which only
// the classes around one class of the incumbent are free (the others keep
// the incumbent's node or none) until no pass over the seeds changes
// anything or until `deadline`; returns the best choice found, never worse
// than `incumbent` (a valid choice). The sequence of sub-problems depends
// on the problem and `incumbent` only; the deadline stops it.
Choice ImproveByNeighbourhoods(const ExtractionProblem& p, Choice incumbent,
                               Clock::time_point deadline, int64_t memory_budget_bytes,
                               NeighbourhoodStats* stats);

}  // namespace egret::extract::ilp_internal

#endif  // EGRET_EXTRACT_ILP_EXTRACTOR_INTERNAL_H_
