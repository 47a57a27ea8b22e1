// Executes compiled patterns (pattern.h) on an e-graph.
//
// Matching reads the classes' node lists and the nodes' operands as they were
// at the last Rebuild(); it never calls Find(). Since the e-graph leaves those
// lists alone until the next rebuild (new nodes go to new classes, unions are
// deferred), the callback may add nodes and union classes while matching runs
// (the runner applies rules that way), and the matches are exactly those of
// the e-graph at the last rebuild.
#ifndef EGRET_EGRAPH_MATCHER_H_
#define EGRET_EGRAPH_MATCHER_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/pattern.h"

namespace egret {

// One match: the root class, the class bound to each variable (in
// CompiledPattern::vars() order), and the e-node matched by each op of the
// pattern (pre-order). Valid only during the callback.
struct MatchView {
  Id root = kNoId;
  absl::Span<const Id> subst;
  absl::Span<const NodeIdx> nodes;

  Id operator[](int var) const { return subst[var]; }
};

// Return false to stop matching.
using MatchCallback = absl::FunctionRef<bool(const MatchView&)>;

class Matcher {
 public:
  // `pattern` must outlive the matcher.
  explicit Matcher(const CompiledPattern& pattern);

  // Calls `cb` for every match rooted at canonical class `root`. Returns false
  // when `cb` stopped it. The e-graph must have been rebuilt since the last
  // union (clean) when matching starts.
  bool MatchClass(const EGraph& g, Id root, MatchCallback cb);
  // Every match in the e-graph: roots are the classes that contain the root op
  // (from the e-graph's op index), or every class for a variable pattern.
  bool MatchAll(const EGraph& g, MatchCallback cb);
  // Number of matches in the whole e-graph.
  size_t CountAll(const EGraph& g);
  // Hints the processor to load the records of the first nodes that
  // MatchClass(g, root) binds at the root (none for a variable pattern).
  // Reads root's class record and node list: for software pipelining over a
  // list of roots, some time after EGraph::PrefetchClassNodes(root).
  void PrefetchRoot(const EGraph& g, Id root) const;
  // The pipeline's next step: hints the processor to load the class record
  // of the operand that the pattern's second Bind reads (what its
  // ClassNodesWithOp reads first), for the nodes PrefetchRoot hinted. Reads
  // their records: call it some time after PrefetchRoot(g, root). Nothing
  // for a pattern whose second Bind reads no operand of the root's node.
  void PrefetchRootOperand(const EGraph& g, Id root) const;

  // Semi-naive matching: from now on, report only matches with a node
  // stamped at or after `epoch`: the root node (when the root is an op) by
  // EGraph::NodeContentStamp, every other node by EGraph::NodeStamp. The last
  // node bound is tested before its match is built, so stale matches cost
  // little. Until it is called, every match is reported.
  void set_min_stamp(uint64_t epoch) {
    filter_ = true;
    min_stamp_ = epoch;
  }

 private:
  bool Run(size_t pc);
  // Reports the match in the registers (unless the semi-naive filter drops
  // it); false when the callback stopped matching.
  bool Emit();

  const CompiledPattern& pattern_;
  std::vector<Id> regs_;
  std::vector<NodeIdx> nodes_;
  std::vector<Id> subst_;
  const EGraph* g_ = nullptr;
  const MatchCallback* cb_ = nullptr;
  bool filter_ = false;
  uint64_t min_stamp_ = 0;
  size_t last_bind_ = 0;  // program index of the last Bind
  // By program index of a Bind: the operand of its node that the next Bind
  // reads the class of, or -1 (none, or not an operand of this Bind).
  std::vector<int16_t> next_child_;
  int fresh_ = 0;  // nodes bound now that pass min_stamp_
};

}  // namespace egret

#endif  // EGRET_EGRAPH_MATCHER_H_
