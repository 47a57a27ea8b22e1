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
// tombstones), so probe lengths depend only on the entries present. The
// table doubles when it would be more than 3/4 full; it never shrinks.
//
// Contents are deterministic: they depend only on the sequence of calls (the
// slot form does not change what Find returns).
#ifndef EGRET_EGRAPH_PAIR_TABLE_H_
#define EGRET_EGRAPH_PAIR_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "egret/egraph/id.h"

namespace egret {

class PairTable {
 public:
  // Ids below this fit a narrow slot (the all-ones 21-bit value marks an
  // empty one).
  static constexpr Id kNarrowLimit = (Id{1} << 21) - 1;

  // The value stored for (a, b), or kNoId. `value` must not be kNoId.
  Id Find(Id a, Id b) const {
    if (wide_) return FindIn(wide_slots_, a, b);
    if (a >= kNarrowLimit || b >= kNarrowLimit) return kNoId;
    return FindIn(narrow_slots_, a, b);
  }
  // Stores (a, b) -> value unless (a, b) is present; returns the value
  // already stored, or kNoId when it inserted.
  Id Insert(Id a, Id b, Id value);
  // Removes (a, b); returns whether it was present.
  bool Erase(Id a, Id b);
  // Hints the processor to load the slot where (a, b) would be found.
  void Prefetch(Id a, Id b) const {
    if (wide_) {
      if (!wide_slots_.empty()) __builtin_prefetch(&wide_slots_[Home(a, b)]);
    } else if (!narrow_slots_.empty()) {
      __builtin_prefetch(&narrow_slots_[Home(a, b)]);
    }
  }

  size_t size() const { return size_; }
  size_t capacity() const { return wide_ ? wide_slots_.size() : narrow_slots_.size(); }
  size_t ApproxBytes() const {
    return wide_slots_.capacity() * sizeof(WideSlot) +
           narrow_slots_.capacity() * sizeof(NarrowSlot);
  }
  // Whether the slots are the 12-byte form (some id reached kNarrowLimit).
  bool wide() const { return wide_; }

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

  size_t Home(Id a, Id b) const {
    // Fibonacci hashing of the 64-bit key: the top bits of the product
    // depend on every bit of both ids.
    const uint64_t k = ((uint64_t{a} << 32) | b) * 0x9E3779B97F4A7C15ULL;
    return static_cast<size_t>(k >> shift_);
  }
  template <typename S>
  Id FindIn(const std::vector<S>& slots, Id a, Id b) const {
    if (slots.empty()) return kNoId;
    for (size_t i = Home(a, b);; i = (i + 1) & mask_) {
      const S& s = slots[i];
      if (s.empty()) return kNoId;
      if (s.Is(a, b)) return s.value();
    }
  }
  template <typename S>
  Id InsertIn(std::vector<S>& slots, Id a, Id b, Id value);
  template <typename S>
  bool EraseIn(std::vector<S>& slots, Id a, Id b);
  // Rehashes every entry into `cap` slots of form T (from form S).
  template <typename S, typename T>
  void Rehash(std::vector<S>& from, std::vector<T>& to, size_t cap);
  void Grow();
  void Widen();

  std::vector<NarrowSlot> narrow_slots_;
  std::vector<WideSlot> wide_slots_;
  bool wide_ = false;
  size_t size_ = 0;
  size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_PAIR_TABLE_H_
