// Names made unique, in order: the first of equal names keeps it, a later
// one, and an empty one, gets a fresh name.
//
// Lowering names every node of its graph: a million names, most of them the
// input graph's own and distinct. Asking a hash set of names about each one
// as it was emitted cost a cache miss per node (the set outgrows the caches)
// and a string per fresh name in a deque besides; here the names are hashed
// in one pass, the set holds 32-bit indices into them with their lookups
// prefetched ahead (a probe compares a stored hash before any text), and the
// fresh names are made in a second pass, their lookups prefetched from a
// prediction of the number each will get.
#ifndef EGRET_BACKEND_UNIQUE_NAMES_H_
#define EGRET_BACKEND_UNIQUE_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"

namespace egret {

// The name of each of `wanted`, in order: wanted[i] itself when it is not
// empty and no earlier name (wanted or fresh) is the same, else a fresh name
// not taken by an earlier one, "<wanted[i]>_<k>" or, for an empty one,
// "n<k>", where k counts the fresh names tried so far (one that is taken
// costs a k too). A wanted name that an earlier fresh name took gives way
// and gets a fresh name in turn.
std::vector<std::string> UniqueNames(absl::Span<const std::string_view> wanted);

}  // namespace egret

#endif  // EGRET_BACKEND_UNIQUE_NAMES_H_
