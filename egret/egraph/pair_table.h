// A hash table from a pair of class ids to a class id: the hash-cons of the
// binary e-nodes of one (op, payload) (EGraph keeps one per pair it has seen).
//
// Layout. Open addressing with linear probing over 12-byte slots that hold
// the key itself (the two operand ids) and the value (the class the node was
// added to), so that a probe reads one cache line or two and never the node
// store. A slot is empty when its value is kNoId. Erasing shifts the
// following entries of the run back (no tombstones), so probe lengths depend
// only on the entries present. The table doubles when it would be more than
// 3/4 full; it never shrinks.
//
// Contents are deterministic: they depend only on the sequence of calls.
#ifndef EGRET_EGRAPH_PAIR_TABLE_H_
#define EGRET_EGRAPH_PAIR_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "egret/egraph/id.h"

namespace egret {

class PairTable {
 public:
  struct Slot {
    Id a;
    Id b;
    Id value;  // kNoId: empty
  };

  // The value stored for (a, b), or kNoId. `value` must not be kNoId.
  Id Find(Id a, Id b) const {
    if (slots_.empty()) return kNoId;
    for (size_t i = Home(a, b);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kNoId) return kNoId;
      if (s.a == a && s.b == b) return s.value;
    }
  }
  // Stores (a, b) -> value unless (a, b) is present; returns the value
  // already stored, or kNoId when it inserted.
  Id Insert(Id a, Id b, Id value);
  // Removes (a, b); returns whether it was present.
  bool Erase(Id a, Id b);
  // Hints the processor to load the slot where (a, b) would be found.
  void Prefetch(Id a, Id b) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[Home(a, b)]);
  }

  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  size_t ApproxBytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  size_t Home(Id a, Id b) const {
    // Fibonacci hashing of the 64-bit key: the top bits of the product
    // depend on every bit of both ids.
    const uint64_t k = ((uint64_t{a} << 32) | b) * 0x9E3779B97F4A7C15ULL;
    return static_cast<size_t>(k >> shift_);
  }
  void Grow();

  std::vector<Slot> slots_;
  size_t size_ = 0;
  size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_PAIR_TABLE_H_
