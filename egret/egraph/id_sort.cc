#include "egret/egraph/id_sort.h"

#include <algorithm>

namespace egret {

void SortUniqueIds(std::vector<Id>& ids, size_t universe, std::vector<uint64_t>& bits) {
  // The bitmap pays once k log k exceeds about one word read per 64 ids: a
  // list of a thousandth of the universe is past that for any k worth
  // sorting.
  if (ids.size() < 64 || ids.size() < universe / 1024) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return;
  }
  const size_t words = (universe + 63) / 64;
  if (bits.size() < words) bits.resize(words, 0);
  size_t lo = words, hi = 0;
  for (Id c : ids) {
    bits[c >> 6] |= uint64_t{1} << (c & 63);
    lo = std::min<size_t>(lo, c >> 6);
    hi = std::max<size_t>(hi, c >> 6);
  }
  ids.clear();
  for (size_t w = lo; w <= hi; ++w) {
    for (uint64_t b = bits[w]; b != 0; b &= b - 1) {
      ids.push_back(static_cast<Id>(w * 64 + __builtin_ctzll(b)));
    }
    bits[w] = 0;
  }
}

}  // namespace egret
