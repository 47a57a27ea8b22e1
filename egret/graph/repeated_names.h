// The first repeated name of a list, found without a hash table as large as
// the list.
//
// Graph::Validate checks that node names are unique. A hash map of every
// name is one cache miss per name once it outgrows the cache (a million-node
// graph's map is tens of MiB), so this works on 64-bit hashes instead: they
// are computed in one pass over the names (in order), partitioned by their top
// bits (stably, so each partition keeps the list's order), and each partition
// is checked with a map of its own that stays in cache. Two names of equal
// hash are compared as strings; if two different names ever share a hash,
// the answer is computed again with a map of the names themselves, so the
// result never depends on the hash.
#ifndef EGRET_GRAPH_REPEATED_NAMES_H_
#define EGRET_GRAPH_REPEATED_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace egret {

// names[index] == names[first], first < index: the repeat of smallest index,
// with the name's first occurrence.
struct NameRepeat {
  size_t index = 0;
  size_t first = 0;
  friend bool operator==(const NameRepeat&, const NameRepeat&) = default;
};

using NameHash = absl::FunctionRef<uint64_t(std::string_view)>;

// Among the names name_of(0), ..., name_of(n - 1), empty ones excepted, the
// first that repeats an earlier one, or nullopt when the non-empty names are
// distinct. `hash` is the hash used (tests give a weak one to exercise the
// collision path); the default overload uses absl::Hash.
std::optional<NameRepeat> FirstRepeatedName(size_t n,
                                            absl::FunctionRef<std::string_view(size_t)> name_of,
                                            NameHash hash);
std::optional<NameRepeat> FirstRepeatedName(size_t n,
                                            absl::FunctionRef<std::string_view(size_t)> name_of);

}  // namespace egret

#endif  // EGRET_GRAPH_REPEATED_NAMES_H_
