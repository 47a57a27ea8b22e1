#include "egret/graph/repeated_names.h"

#include <algorithm>
#include <bit>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace egret {
namespace {

// Entries per partition, about: a map of this many fits in the L2 cache.
constexpr size_t kPartitionEntries = size_t{1} << 14;

struct Keyed {
  uint64_t hash;
  uint32_t index;
};

// The answer with a map of the names themselves (the fallback after a hash
// collision between different names).
std::optional<NameRepeat> ByNames(size_t n, absl::FunctionRef<std::string_view(size_t)> name_of) {
  absl::flat_hash_map<std::string_view, size_t> seen;
  seen.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view name = name_of(i);
    if (name.empty()) continue;
    auto [it, inserted] = seen.emplace(name, i);
    if (!inserted) return NameRepeat{i, it->second};
  }
  return std::nullopt;
}

}  // namespace

std::optional<NameRepeat> FirstRepeatedName(size_t n,
                                            absl::FunctionRef<std::string_view(size_t)> name_of,
                                            NameHash hash) {
  // Indices are kept in 32 bits (node ids are); a longer list takes the map.
  if (n > UINT32_MAX) return ByNames(n, name_of);
  std::vector<Keyed> keyed;
  keyed.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view name = name_of(i);
    if (!name.empty()) keyed.push_back({hash(name), static_cast<uint32_t>(i)});
  }
  // Partitions by the hash's top bits, in list order within each.
  const size_t parts = std::bit_ceil(std::max<size_t>(keyed.size() / kPartitionEntries, 1));
  const int bits = std::countr_zero(parts);
  auto part_of = [&](uint64_t h) {
    return bits == 0 ? size_t{0} : static_cast<size_t>(h >> (64 - bits));
  };
  std::vector<size_t> begin(parts + 1, 0);
  for (const Keyed& k : keyed) ++begin[part_of(k.hash) + 1];
  for (size_t p = 0; p < parts; ++p) begin[p + 1] += begin[p];
  std::vector<Keyed> sorted;
  if (parts == 1) {
    sorted = std::move(keyed);
  } else {
    sorted.resize(keyed.size());
    std::vector<size_t> at(begin.begin(), begin.end() - 1);
    for (const Keyed& k : keyed) sorted[at[part_of(k.hash)]++] = k;
    keyed = std::vector<Keyed>();
  }
  std::optional<NameRepeat> best;
  absl::flat_hash_map<uint64_t, uint32_t> first;  // hash -> its first index
  for (size_t p = 0; p < parts; ++p) {
    first.clear();
    first.reserve(begin[p + 1] - begin[p]);
    for (size_t e = begin[p]; e < begin[p + 1]; ++e) {
      const Keyed& k = sorted[e];
      auto [it, inserted] = first.emplace(k.hash, k.index);
      if (inserted) continue;
      if (name_of(it->second) != name_of(k.index)) return ByNames(n, name_of);  // a collision
      if (!best || k.index < best->index) best = NameRepeat{k.index, it->second};
      break;  // the partition's later entries come later in the list
    }
  }
  return best;
}

std::optional<NameRepeat> FirstRepeatedName(size_t n,
                                            absl::FunctionRef<std::string_view(size_t)> name_of) {
  return FirstRepeatedName(n, name_of,
                           [](std::string_view s) { return absl::Hash<std::string_view>{}(s); });
}

}  // namespace egret
