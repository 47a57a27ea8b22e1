// The op index behind EGraph::ClassesWithOp: for each op, the classes that
// hold a node of that op, ascending.
//
// The e-graph keeps it up to date incrementally, in O(changes) bookkeeping
// plus one sequential pass over each list that changed, instead of
// rescanning every class's nodes in every epoch: between two updates it
// notes the classes merged away (with the ops their lists held: a class's op
// set only grows until it is merged away) and, at the update, the classes
// whose node lists grew (with their ops). Update() then drops the former
// from the lists and merges the latter in, keeping each list ascending and
// free of repeats.
//
// Not thread-safe.
#ifndef EGRET_EGRAPH_OP_INDEX_H_
#define EGRET_EGRAPH_OP_INDEX_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "egret/egraph/id.h"
#include "egret/egraph/symbol.h"

namespace egret {

class OpIndex {
 public:
  // The classes listed for `op`, ascending.
  absl::Span<const Id> Get(Symbol op) const {
    auto it = lists_.find(op);
    if (it == lists_.end()) return {};
    return it->second;
  }
  // Appends class c to op's list; c must exceed every class listed for op.
  void Append(Symbol op, Id c) { lists_[op].push_back(c); }
  // Notes that class c may hold a node of `op` now (listed at the next
  // Update() unless it is already).
  void NoteAdded(Symbol op, Id c) { added_.emplace_back(op.id(), c); }
  // Notes that class c, whose nodes may have had op `op`, is no longer a
  // class (dropped from op's list at the next Update()). A class noted here
  // must not be noted as added in the same update.
  void NoteRemoved(Symbol op, Id c) { removed_.emplace_back(op.id(), c); }
  // Applies the notes taken since the last update.
  void Update();

 private:
  absl::flat_hash_map<Symbol, std::vector<Id>> lists_;
  std::vector<std::pair<uint32_t, Id>> added_;    // (symbol id, class)
  std::vector<std::pair<uint32_t, Id>> removed_;  // (symbol id, class)
  std::vector<Id> scratch_;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_OP_INDEX_H_
