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
    return it->second.ids;
  }
  // Appends class c to op's list; c must exceed every class listed for op.
  void Append(Symbol op, Id c) { lists_[op].ids.push_back(c); }
  // Notes that class c may hold a node of `op` now (listed at the next
  // Update() unless it is already). Update() is fastest when the classes
  // are noted in ascending order, as the e-graph does.
  void NoteAdded(Symbol op, Id c) { Notes(op).added.push_back(c); }
  // Notes that class c, whose nodes may have had op `op`, is no longer a
  // class (dropped from op's list at the next Update()). A class noted here
  // must not be noted as added in the same update.
  void NoteRemoved(Symbol op, Id c) { Notes(op).removed.push_back(c); }
  // Applies the notes taken since the last update.
  void Update();

 private:
  struct List {
    std::vector<Id> ids;
    // The notes since the last update.
    std::vector<Id> added;
    std::vector<Id> removed;
  };
  List& Notes(Symbol op) {
    List& list = lists_[op];
    if (list.added.empty() && list.removed.empty()) noted_.push_back(op);
    return list;
  }
  // One entry per op (rather than one sorted (op, class) table) keeps each
  // op's notes apart without a sort by op.
  absl::flat_hash_map<Symbol, List> lists_;
  std::vector<Symbol> noted_;  // the ops with notes
  std::vector<Id> scratch_;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_OP_INDEX_H_
