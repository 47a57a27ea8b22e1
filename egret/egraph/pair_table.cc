#include "egret/egraph/pair_table.h"

#include <utility>

namespace egret {

Id PairTable::Insert(Id a, Id b, Id value) {
  if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
  for (size_t i = Home(a, b);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.value == kNoId) {
      s = Slot{a, b, value};
      ++size_;
      return kNoId;
    }
    if (s.a == a && s.b == b) return s.value;
  }
}

bool PairTable::Erase(Id a, Id b) {
  if (slots_.empty()) return false;
  size_t i = Home(a, b);
  for (;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.value == kNoId) return false;
    if (s.a == a && s.b == b) break;
  }
  // Backward-shift deletion: move each later entry of the run into the hole
  // when the hole lies on its probe path (between its home and its slot).
  size_t hole = i;
  for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
    Slot& s = slots_[j];
    if (s.value == kNoId) break;
    const size_t home = Home(s.a, s.b);
    if (((j - home) & mask_) >= ((j - hole) & mask_)) {
      slots_[hole] = s;
      hole = j;
    }
  }
  slots_[hole].value = kNoId;
  --size_;
  return true;
}

void PairTable::Grow() {
  std::vector<Slot> old = std::move(slots_);
  const size_t cap = old.empty() ? 16 : old.size() * 2;
  slots_.assign(cap, Slot{0, 0, kNoId});
  mask_ = cap - 1;
  shift_ = 64 - __builtin_ctzll(cap);
  for (const Slot& s : old) {
    if (s.value == kNoId) continue;
    size_t i = Home(s.a, s.b);
    while (slots_[i].value != kNoId) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace egret
