#include "egret/egraph/pair_table.h"

#include <utility>

namespace egret {

Id PairTable::Insert(Id a, Id b, Id value) {
  if (!wide_ && (a >= kNarrowLimit || b >= kNarrowLimit || value >= kNarrowLimit)) Widen();
  if ((size_ + 1) * 4 > capacity() * 3) Grow();
  return wide_ ? InsertIn(wide_slots_, a, b, value) : InsertIn(narrow_slots_, a, b, value);
}

bool PairTable::Erase(Id a, Id b) {
  if (wide_) return EraseIn(wide_slots_, a, b);
  if (a >= kNarrowLimit || b >= kNarrowLimit) return false;
  return EraseIn(narrow_slots_, a, b);
}

template <typename S>
Id PairTable::InsertIn(std::vector<S>& slots, Id a, Id b, Id value) {
  for (size_t i = Home(a, b);; i = (i + 1) & mask_) {
    S& s = slots[i];
    if (s.empty()) {
      s = S::Make(a, b, value);
      ++size_;
      return kNoId;
    }
    if (s.Is(a, b)) return s.value();
  }
}

template <typename S>
bool PairTable::EraseIn(std::vector<S>& slots, Id a, Id b) {
  if (slots.empty()) return false;
  size_t i = Home(a, b);
  for (;; i = (i + 1) & mask_) {
    const S& s = slots[i];
    if (s.empty()) return false;
    if (s.Is(a, b)) break;
  }
  // Backward-shift deletion: move each later entry of the run into the hole
  // when the hole lies on its probe path (between its home and its slot).
  size_t hole = i;
  for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
    S& s = slots[j];
    if (s.empty()) break;
    const size_t home = Home(s.A(), s.B());
    if (((j - home) & mask_) >= ((j - hole) & mask_)) {
      slots[hole] = s;
      hole = j;
    }
  }
  slots[hole] = S::Empty();
  --size_;
  return true;
}

template <typename S, typename T>
void PairTable::Rehash(std::vector<S>& from, std::vector<T>& to, size_t cap) {
  std::vector<S> old = std::move(from);
  from = std::vector<S>();
  to.assign(cap, T::Empty());
  mask_ = cap - 1;
  shift_ = 64 - __builtin_ctzll(cap);
  for (const S& s : old) {
    if (s.empty()) continue;
    size_t i = Home(s.A(), s.B());
    while (!to[i].empty()) i = (i + 1) & mask_;
    to[i] = T::Make(s.A(), s.B(), s.value());
  }
}

void PairTable::Grow() {
  const size_t cap = capacity() == 0 ? 16 : capacity() * 2;
  if (wide_) {
    Rehash(wide_slots_, wide_slots_, cap);
  } else {
    Rehash(narrow_slots_, narrow_slots_, cap);
  }
}

void PairTable::Widen() {
  const size_t cap = capacity() == 0 ? 16 : capacity();
  Rehash(narrow_slots_, wide_slots_, cap);
  wide_ = true;
}

}  // namespace egret
