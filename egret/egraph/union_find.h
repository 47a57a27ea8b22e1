// Union-find over dense ids with path halving. The caller decides which root
// survives a union (the e-graph links the smaller class under the larger).
#ifndef EGRET_EGRAPH_UNION_FIND_H_
#define EGRET_EGRAPH_UNION_FIND_H_

#include <cstddef>
#include <vector>

#include "egret/egraph/id.h"

namespace egret {

class UnionFind {
 public:
  // Adds a singleton set and returns its id (= the number of sets made before).
  Id MakeSet() {
    Id id = static_cast<Id>(parent_.size());
    parent_.push_back(id);
    return id;
  }
  size_t size() const { return parent_.size(); }
  // Makes room for n sets in all (no reallocation until then).
  void Reserve(size_t n) { parent_.reserve(n); }

  // The root of `id`'s set, halving the path on the way (logically const).
  Id Find(Id id) const {
    while (parent_[id] != id) {
      parent_[id] = parent_[parent_[id]];
      id = parent_[id];
    }
    return id;
  }
  bool IsRoot(Id id) const { return parent_[id] == id; }

  // Makes `root` the parent of `child`. Both must be roots.
  void Link(Id child, Id root) { parent_[child] = root; }

  size_t ApproxBytes() const { return parent_.capacity() * sizeof(Id); }

 private:
  mutable std::vector<Id> parent_;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_UNION_FIND_H_
