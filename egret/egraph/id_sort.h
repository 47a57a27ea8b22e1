// Sorting a list of class ids into ascending order without repeats, the form
// the rebuild and the op index keep their change sets in.
//
// A list that is long next to its universe (the ids below `universe`) is
// sorted through a bitmap: one bit set per entry and one pass over the words
// that hold them, O(k + universe / 64) against std::sort's O(k log k), and a
// sequential scan instead of log k passes over the list. A short list is
// sorted with std::sort. The result is the same either way.
#ifndef EGRET_EGRAPH_ID_SORT_H_
#define EGRET_EGRAPH_ID_SORT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "egret/egraph/id.h"

namespace egret {

// Sorts `ids` ascending and drops repeats. Every id must be below
// `universe`. `bits` is scratch: it is all zero before and after the call
// (grown as needed), so one vector can serve every call.
void SortUniqueIds(std::vector<Id>& ids, size_t universe, std::vector<uint64_t>& bits);

}  // namespace egret

#endif  // EGRET_EGRAPH_ID_SORT_H_
