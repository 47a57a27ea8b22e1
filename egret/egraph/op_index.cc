#include "egret/egraph/op_index.h"

#include <algorithm>

namespace egret {

void OpIndex::Update() {
  std::sort(added_.begin(), added_.end());
  added_.erase(std::unique(added_.begin(), added_.end()), added_.end());
  std::sort(removed_.begin(), removed_.end());
  removed_.erase(std::unique(removed_.begin(), removed_.end()), removed_.end());
  size_t a = 0, r = 0;
  while (a < added_.size() || r < removed_.size()) {
    uint32_t op = a < added_.size() ? added_[a].first : removed_[r].first;
    if (r < removed_.size()) op = std::min(op, removed_[r].first);
    size_t a_end = a, r_end = r;
    while (a_end < added_.size() && added_[a_end].first == op) ++a_end;
    while (r_end < removed_.size() && removed_[r_end].first == op) ++r_end;
    auto it = lists_.find(Symbol::FromId(op));
    if (it == lists_.end() && a_end > a) it = lists_.try_emplace(Symbol::FromId(op)).first;
    if (it != lists_.end()) {
      std::vector<Id>& list = it->second;
      // Drop the removed classes: one pass from the first of them, both
      // sides ascending.
      if (r_end > r) {
        auto out = std::lower_bound(list.begin(), list.end(), removed_[r].second);
        size_t k = r;
        for (auto in = out; in != list.end(); ++in) {
          while (k < r_end && removed_[k].second < *in) ++k;
          if (k < r_end && removed_[k].second == *in) continue;
          *out++ = *in;
        }
        list.erase(out, list.end());
      }
      // Merge in the added classes not listed yet.
      const size_t old = list.size();
      for (size_t i = a; i < a_end; ++i) {
        const Id c = added_[i].second;
        if (!std::binary_search(list.begin(), list.begin() + old, c)) list.push_back(c);
      }
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
    a = a_end;
    r = r_end;
  }
  added_.clear();
  removed_.clear();
}

}  // namespace egret
