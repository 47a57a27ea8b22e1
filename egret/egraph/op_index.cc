#include "egret/egraph/op_index.h"

#include <algorithm>

namespace egret {

void OpIndex::Update() {
  for (Symbol op : noted_) {
    List& entry = lists_.find(op)->second;
    std::vector<Id>& list = entry.ids;
    std::vector<Id>& added = entry.added;
    std::vector<Id>& removed = entry.removed;
    // Drop the removed classes: one pass from the first of them, both sides
    // ascending.
    if (!removed.empty()) {
      std::sort(removed.begin(), removed.end());
      auto out = std::lower_bound(list.begin(), list.end(), removed.front());
      size_t k = 0;
      for (auto in = out; in != list.end(); ++in) {
        while (k < removed.size() && removed[k] < *in) ++k;
        if (k < removed.size() && removed[k] == *in) continue;
        *out++ = *in;
      }
      list.erase(out, list.end());
      removed.clear();
    }
    if (added.empty()) continue;
    if (!std::is_sorted(added.begin(), added.end())) std::sort(added.begin(), added.end());
    // Merge in the added classes not listed yet.
    const size_t old = list.size();
    Id last = 0;
    for (size_t i = 0; i < added.size(); ++i) {
      const Id c = added[i];
      if (i > 0 && c == last) continue;
      last = c;
      if (!std::binary_search(list.begin(), list.begin() + old, c)) list.push_back(c);
    }
    added.clear();
    if (list.size() > old && old > 0 && list[old] < list[old - 1]) {
      // Usually few classes join a long list: merge from where they start.
      const size_t first =
          std::upper_bound(list.begin(), list.begin() + old, list[old]) - list.begin();
      scratch_.assign(list.begin() + first, list.begin() + old);
      size_t i = 0, j = old, o = first;
      while (i < scratch_.size()) {
        list[o++] = j < list.size() && list[j] < scratch_[i] ? list[j++] : scratch_[i++];
      }
    }
  }
  noted_.clear();
}

}  // namespace egret
