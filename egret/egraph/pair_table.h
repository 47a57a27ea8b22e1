// A hash table from a pair of class ids to a class id: the hash-cons of the
// binary e-nodes of one (op, payload) (EGraph keeps one per pair it has seen).
//
// Layout. Open addressing with linear probing over slots that hold the key
// itself (the two operand ids) and the value (the class the node was added
// to), so that a probe reads one cache line or two and never the node store.
// While every id stored is below kNarrowLimit (2^21 - 1) a slot is one 64-bit
// word (21 bits each for the two operands and the value; two thirds of the
// bytes of the wide form, so more of the table stays in cache); the first
// insert of a larger id converts the table to 12-byte slots of three full
// ids, for good. Erasing shifts the following entries of the run back (no
// tombstones), so probe lengths depend only on the entries present.
//
// Growth. A small table is one array that doubles when it would be more than
// 3/4 full. Once it would grow past kSplitSlots slots it is split into
// kShards shards (chosen by the top bits of the key's hash, the same hash
// that places a key inside its shard), each doubling on its own: a growth
// step copies one shard, not the table, so the table never holds an old and
// a new copy of all its slots at once, and its capacity rises in steps of a
// sixteenth. It never shrinks.
//
// Contents are deterministic: they depend only on the sequence of calls (the
// slot form and the shard layout do not change what Find returns).
#ifndef EGRET_EGRAPH_PAIR_TABLE_H_
#define EGRET_EGRAPH_PAIR_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "egret/egraph/id.h"
#include "egret/egraph/prefetch.h"

namespace egret {

class PairTable {
 public:
  // Ids below this fit a narrow slot (the all-ones 21-bit value marks an
  // empty one).
  static constexpr Id kNarrowLimit = (Id{1} << 21) - 1;
  // A table that would grow past this many slots is split into kShards.
  static constexpr size_t kSplitSlots = size_t{1} << 14;
  static constexpr int kShardBits = 4;
  static constexpr size_t kShards = size_t{1} << kShardBits;

  PairTable() : shards_(1) {}

  // The value stored for (a, b), or kNoId. `value` must not be kNoId.
  Id Find(Id a, Id b) const {
    const uint64_t k = Hash(a, b);
    const Shard& s = shards_[ShardOf(k)];
    if (wide_) return FindIn(s, s.wide, k, a, b);
    if (a >= kNarrowLimit || b >= kNarrowLimit) return kNoId;
    return FindIn(s, s.narrow, k, a, b);
  }
  // Stores (a, b) -> value unless (a, b) is present; returns the value
  // already stored, or kNoId when it inserted.
  Id Insert(Id a, Id b, Id value);
  // Removes (a, b); returns whether it was present.
  bool Erase(Id a, Id b);
  // Hints the processor to load the slot where (a, b) would be found.
  void Prefetch(Id a, Id b) const {
    const uint64_t k = Hash(a, b);
    const Shard& s = shards_[ShardOf(k)];
    if (wide_) {
      if (!s.wide.empty()) PrefetchForRead(&s.wide[Home(s, k)]);
    } else if (!s.narrow.empty()) {
      PrefetchForRead(&s.narrow[Home(s, k)]);
    }
  }

  size_t size() const { return size_; }
  // Slots over all shards.
  size_t capacity() const { return capacity_; }
  // O(1): kept up to date by every growth.
  size_t ApproxBytes() const {
    return capacity_ * (wide_ ? sizeof(WideSlot) : sizeof(NarrowSlot)) +
           shards_.capacity() * sizeof(Shard);
  }
  // Whether the slots are the 12-byte form (some id reached kNarrowLimit).
  bool wide() const { return wide_; }
  // Whether the table has been split into kShards shards.
  bool sharded() const { return shard_bits_ != 0; }

 private:
  struct WideSlot {
    Id a;
    Id b;
    Id v;  // kNoId: empty
    static WideSlot Empty() { return WideSlot{0, 0, kNoId}; }
    static WideSlot Make(Id a, Id b, Id v) { return WideSlot{a, b, v}; }
    bool empty() const { return v == kNoId; }
    bool Is(Id x, Id y) const { return a == x && b == y; }
    Id A() const { return a; }
    Id B() const { return b; }
    Id value() const { return v; }
  };
  struct NarrowSlot {
    uint64_t bits;  // a | b << 21 | value << 42; all ones: empty
    static constexpr uint64_t kMask = (uint64_t{1} << 21) - 1;
    static NarrowSlot Empty() { return NarrowSlot{~uint64_t{0}}; }
    static NarrowSlot Make(Id a, Id b, Id v) {
      return NarrowSlot{uint64_t{a} | (uint64_t{b} << 21) | (uint64_t{v} << 42)};
    }
    bool empty() const { return bits == ~uint64_t{0}; }
    bool Is(Id x, Id y) const {
      return (bits & ((uint64_t{1} << 42) - 1)) == (uint64_t{x} | (uint64_t{y} << 21));
    }
    Id A() const { return static_cast<Id>(bits & kMask); }
    Id B() const { return static_cast<Id>((bits >> 21) & kMask); }
    Id value() const { return static_cast<Id>((bits >> 42) & kMask); }
  };
  // One shard: slots of the current form (the other vector is empty).
  struct Shard {
    std::vector<NarrowSlot> narrow;
    std::vector<WideSlot> wide;
    size_t size = 0;  // entries
    size_t cap = 0;   // slots: 0 or a power of two
    size_t mask = 0;  // cap - 1
    int shift = 64;   // 64 - log2(cap)
  };

  // Fibonacci hashing of the 64-bit key: the top bits of the product depend
  // on every bit of both ids. The top shard_bits_ choose the shard, the next
  // ones the home slot in it.
  static uint64_t Hash(Id a, Id b) { return ((uint64_t{a} << 32) | b) * 0x9E3779B97F4A7C15ULL; }
  size_t ShardOf(uint64_t k) const {
    return shard_bits_ == 0 ? 0 : static_cast<size_t>(k >> (64 - shard_bits_));
  }
  // The home slot of hash k in shard s (which has slots).
  size_t Home(const Shard& s, uint64_t k) const {
    return static_cast<size_t>((k << shard_bits_) >> s.shift);
  }
  template <typename S>
  Id FindIn(const Shard& sh, const std::vector<S>& slots, uint64_t k, Id a, Id b) const {
    if (slots.empty()) return kNoId;
    for (size_t i = Home(sh, k);; i = (i + 1) & sh.mask) {
      const S& s = slots[i];
      if (s.empty()) return kNoId;
      if (s.Is(a, b)) return s.value();
    }
  }
  template <typename S>
  Id InsertIn(Shard& sh, std::vector<S>& slots, uint64_t k, Id a, Id b, Id value);
  template <typename S>
  bool EraseIn(Shard& sh, std::vector<S>& slots, uint64_t k, Id a, Id b);
  // Gives shard `sh` `cap` empty slots of the form of `slots` (one of its
  // two vectors), its size 0.
  template <typename T>
  void Reset(Shard& sh, std::vector<T>& slots, size_t cap);
  // Enters every entry of `from` (slots of any form) into the shards' slots
  // of form T (the vectors `to` names), which have room and lack them all.
  template <typename S, typename T>
  void Reinsert(const std::vector<S>& from, std::vector<T> Shard::*to);
  // Doubles shard `s`, or splits the table when it is one shard about to
  // pass kSplitSlots.
  template <typename S>
  void Grow(size_t s, std::vector<S> Shard::*slots);
  void Widen();

  std::vector<Shard> shards_;
  int shard_bits_ = 0;
  bool wide_ = false;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_PAIR_TABLE_H_
