#include "egret/egraph/matcher.h"

#include <algorithm>

namespace egret {
namespace {

// How many candidate nodes ahead of the one matched Run prefetches the
// operands of; it prefetches the records of those twice as far ahead (a
// record says where the operands are).
constexpr size_t kPrefetchAhead = 4;
// How far ahead it prefetches the class record of the operand the next Bind
// reads (the candidate's operands must have arrived by then).
constexpr size_t kChildAhead = 2;
// How many of a root's nodes PrefetchRoot and PrefetchRootOperand hint: the
// first ones Run binds, before its own prefetches reach ahead. Two covers
// both nodes of a commuted binary op.
constexpr size_t kRootNodes = 2;

}  // namespace

Matcher::Matcher(const CompiledPattern& pattern)
    : pattern_(pattern),
      regs_(pattern.num_regs(), kNoId),
      nodes_(pattern.num_nodes(), 0),
      subst_(pattern.vars().size(), kNoId) {
  const std::vector<MatchInstr>& prog = pattern.program();
  next_child_.assign(prog.size(), -1);
  for (size_t pc = 0; pc < prog.size(); ++pc) {
    if (prog[pc].kind != MatchInstr::kBind) continue;
    last_bind_ = pc;
    size_t next = pc + 1;
    while (next < prog.size() && prog[next].kind != MatchInstr::kBind) ++next;
    if (next < prog.size() && prog[next].in >= prog[pc].out &&
        prog[next].in < prog[pc].out + prog[pc].arity) {
      next_child_[pc] = static_cast<int16_t>(prog[next].in - prog[pc].out);
    }
  }
}

inline bool Matcher::Emit() {
  if (filter_ && fresh_ == 0) return true;
  const std::vector<uint16_t>& vr = pattern_.var_regs();
  for (size_t i = 0; i < vr.size(); ++i) subst_[i] = regs_[vr[i]];
  return (*cb_)(MatchView{regs_[0], subst_, nodes_});
}

bool Matcher::Run(size_t pc) {
  const std::vector<MatchInstr>& prog = pattern_.program();
  // Straight-line Compares are handled in a loop; Binds recurse.
  while (pc < prog.size() && prog[pc].kind == MatchInstr::kCompare) {
    if (regs_[prog[pc].in] != regs_[prog[pc].out]) return true;
    ++pc;
  }
  if (pc == prog.size()) return Emit();
  const MatchInstr& in = prog[pc];
  // Whether a candidate's freshness is tested, and whether a stale one can be
  // skipped here (no fresh node bound so far, and no later Bind to bind one).
  const bool filter = filter_;
  const bool skip_stale = filter && fresh_ == 0 && pc == last_bind_;
  const bool content = in.slot == 0 && !pattern_.root_is_var();
  const bool last = pc + 1 == prog.size();
  const int child = next_child_[pc];
  absl::Span<const NodeIdx> candidates = g_->ClassNodesWithOp(regs_[in.in], in.op);
  if (candidates.empty()) return true;
  // A stale candidate would be skipped, and every node of a class unchanged
  // since min_stamp_ is stale: skip the class without reading its records.
  // (Tested after the op: most classes of a large e-graph lack it, and then
  // the per-class epoch would be one more random load.)
  if (skip_stale && g_->ClassChangeEpoch(regs_[in.in]) < min_stamp_) return true;
  // The loop prefetches 2 * kPrefetchAhead candidates ahead: the first ones
  // are prefetched here, all at once.
  const size_t head = std::min(candidates.size(), 2 * kPrefetchAhead);
  for (size_t i = 0; i < head; ++i) g_->PrefetchNode(candidates[i]);
  for (size_t i = 0; i < candidates.size(); ++i) {
    // Node records are read in list order, scattered over the store.
    if (i + 2 * kPrefetchAhead < candidates.size()) {
      g_->PrefetchNode(candidates[i + 2 * kPrefetchAhead]);
    }
    if (i + kPrefetchAhead < candidates.size())
      g_->PrefetchOperands(candidates[i + kPrefetchAhead]);
    if (child >= 0 && i + kChildAhead < candidates.size()) {
      ENodeView w = g_->Node(candidates[i + kChildAhead]);
      if (static_cast<size_t>(child) < w.children.size()) g_->PrefetchClass(w.children[child]);
    }
    const NodeIdx n = candidates[i];
    ENodeView v = g_->Node(n);
    if (in.variadic ? v.children.size() < in.arity : v.children.size() != in.arity) continue;
    if (in.check_payload && v.payload != in.payload) continue;
    const int fresh =
        filter && (content ? g_->NodeContentStamp(n) : g_->NodeStamp(n)) >= min_stamp_ ? 1 : 0;
    if (skip_stale && fresh == 0) continue;
    for (uint16_t k = 0; k < in.arity; ++k) regs_[in.out + k] = v.children[k];
    nodes_[in.slot] = n;
    fresh_ += fresh;
    // The last instruction's matches are reported without another call.
    const bool more = last ? Emit() : Run(pc + 1);
    fresh_ -= fresh;
    if (!more) return false;
  }
  return true;
}

void Matcher::PrefetchRoot(const EGraph& g, Id root) const {
  const std::vector<MatchInstr>& prog = pattern_.program();
  if (prog.empty() || prog[0].kind != MatchInstr::kBind) return;
  absl::Span<const NodeIdx> nodes = g.ClassNodesWithOp(root, prog[0].op);
  for (size_t i = 0; i < std::min<size_t>(nodes.size(), kRootNodes); ++i) g.PrefetchNode(nodes[i]);
}

void Matcher::PrefetchRootOperand(const EGraph& g, Id root) const {
  const std::vector<MatchInstr>& prog = pattern_.program();
  if (prog.empty() || prog[0].kind != MatchInstr::kBind || next_child_[0] < 0) return;
  const size_t child = static_cast<size_t>(next_child_[0]);
  // The nodes PrefetchRoot hinted; Run prefetches the operands of the rest
  // itself, some candidates ahead.
  absl::Span<const NodeIdx> nodes = g.ClassNodesWithOp(root, prog[0].op);
  for (size_t i = 0; i < std::min<size_t>(nodes.size(), kRootNodes); ++i) {
    const ENodeView v = g.Node(nodes[i]);
    if (child < v.children.size()) g.PrefetchClass(v.children[child]);
  }
}

bool Matcher::MatchClass(const EGraph& g, Id root, MatchCallback cb) {
  g_ = &g;
  cb_ = &cb;
  regs_[0] = root;
  return Run(0);
}

bool Matcher::MatchAll(const EGraph& g, MatchCallback cb) {
  if (pattern_.root_is_var()) {
    std::vector<Id> roots = g.Classes();
    for (Id c : roots) {
      if (!MatchClass(g, c, cb)) return false;
    }
    return true;
  }
  // A copy: the callback may change the e-graph, which invalidates the index.
  absl::Span<const Id> with_op = g.ClassesWithOp(pattern_.root_op());
  std::vector<Id> roots(with_op.begin(), with_op.end());
  for (Id c : roots) {
    if (!MatchClass(g, c, cb)) return false;
  }
  return true;
}

size_t Matcher::CountAll(const EGraph& g) {
  size_t n = 0;
  MatchAll(g, [&](const MatchView&) {
    ++n;
    return true;
  });
  return n;
}

}  // namespace egret
