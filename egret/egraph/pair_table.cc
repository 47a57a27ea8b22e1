#include "egret/egraph/pair_table.h"

#include <utility>

namespace egret {

Id PairTable::Insert(Id a, Id b, Id value) {
  if (!wide_ && (a >= kNarrowLimit || b >= kNarrowLimit || value >= kNarrowLimit)) Widen();
  const uint64_t k = Hash(a, b);
  size_t s = ShardOf(k);
  if ((shards_[s].size + 1) * 4 > shards_[s].cap * 3) {
    if (wide_) {
      Grow(s, &Shard::wide);
    } else {
      Grow(s, &Shard::narrow);
    }
    s = ShardOf(k);  // a split moves it
  }
  Shard& sh = shards_[s];
  return wide_ ? InsertIn(sh, sh.wide, k, a, b, value) : InsertIn(sh, sh.narrow, k, a, b, value);
}

bool PairTable::Erase(Id a, Id b) {
  const uint64_t k = Hash(a, b);
  Shard& sh = shards_[ShardOf(k)];
  if (wide_) return EraseIn(sh, sh.wide, k, a, b);
  if (a >= kNarrowLimit || b >= kNarrowLimit) return false;
  return EraseIn(sh, sh.narrow, k, a, b);
}

template <typename S>
Id PairTable::InsertIn(Shard& sh, std::vector<S>& slots, uint64_t k, Id a, Id b, Id value) {
  for (size_t i = Home(sh, k);; i = (i + 1) & sh.mask) {
    S& s = slots[i];
    if (s.empty()) {
      s = S::Make(a, b, value);
      ++sh.size;
      ++size_;
      return kNoId;
    }
    if (s.Is(a, b)) return s.value();
  }
}

template <typename S>
bool PairTable::EraseIn(Shard& sh, std::vector<S>& slots, uint64_t k, Id a, Id b) {
  if (slots.empty()) return false;
  size_t i = Home(sh, k);
  for (;; i = (i + 1) & sh.mask) {
    const S& s = slots[i];
    if (s.empty()) return false;
    if (s.Is(a, b)) break;
  }
  // Backward-shift deletion: move each later entry of the run into the hole
  // when the hole lies on its probe path (between its home and its slot).
  size_t hole = i;
  for (size_t j = (i + 1) & sh.mask;; j = (j + 1) & sh.mask) {
    S& s = slots[j];
    if (s.empty()) break;
    const size_t home = Home(sh, Hash(s.A(), s.B()));
    if (((j - home) & sh.mask) >= ((j - hole) & sh.mask)) {
      slots[hole] = s;
      hole = j;
    }
  }
  slots[hole] = S::Empty();
  --sh.size;
  --size_;
  return true;
}

template <typename T>
void PairTable::Reset(Shard& sh, std::vector<T>& slots, size_t cap) {
  capacity_ += cap - sh.cap;
  slots.assign(cap, T::Empty());
  sh.size = 0;
  sh.cap = cap;
  sh.mask = cap - 1;
  sh.shift = 64 - __builtin_ctzll(cap);
}

template <typename S, typename T>
void PairTable::Reinsert(const std::vector<S>& from, std::vector<T> Shard::*to) {
  for (const S& s : from) {
    if (s.empty()) continue;
    const uint64_t k = Hash(s.A(), s.B());
    Shard& sh = shards_[ShardOf(k)];
    std::vector<T>& slots = sh.*to;
    size_t i = Home(sh, k);
    while (!slots[i].empty()) i = (i + 1) & sh.mask;
    slots[i] = T::Make(s.A(), s.B(), s.value());
    ++sh.size;
  }
}

template <typename S>
void PairTable::Grow(size_t s, std::vector<S> Shard::*slots) {
  const size_t cap = shards_[s].cap == 0 ? 16 : shards_[s].cap * 2;
  std::vector<S> old = std::move(shards_[s].*slots);
  if (shard_bits_ == 0 && cap > kSplitSlots) {
    // Split: the top kShardBits of the hash now choose the shard.
    shard_bits_ = kShardBits;
    capacity_ = 0;
    shards_.assign(kShards, Shard());
    for (Shard& sh : shards_) Reset(sh, sh.*slots, cap / kShards);
  } else {
    Reset(shards_[s], shards_[s].*slots, cap);
  }
  Reinsert(old, slots);
}

void PairTable::Widen() {
  for (Shard& sh : shards_) {
    std::vector<NarrowSlot> old = std::move(sh.narrow);
    sh.narrow = std::vector<NarrowSlot>();
    Reset(sh, sh.wide, sh.cap == 0 ? 16 : sh.cap);
    Reinsert(old, &Shard::wide);
  }
  wide_ = true;
}

}  // namespace egret
