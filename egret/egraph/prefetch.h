// A software prefetch that the compiler keeps.
//
// GCC treats __builtin_prefetch as free of side effects: a function whose
// only effect is a prefetch is classed `const` (IPA pure-const) and calls to
// it are deleted when it is not inlined early (GCC 12 did that to
// PairTable::Prefetch: no prefetch instruction was emitted). The empty
// volatile asm that takes the address counts as a side effect, so the
// prefetch and its address computation stay; it clobbers nothing.
#ifndef EGRET_EGRAPH_PREFETCH_H_
#define EGRET_EGRAPH_PREFETCH_H_

namespace egret {

// Hints the processor to load the cache line holding `p` for reading, into
// every cache level. A hint only: `p` need not be dereferenceable.
[[gnu::always_inline]] inline void PrefetchForRead(const void* p) {
  __builtin_prefetch(p);
  asm volatile("" : : "r"(p));
}

// set.prefetch(key) for an Abseil hash set or map: hints the loads that a
// lookup of `key` makes first (its control group and slot). Abseil's
// prefetch is a function whose only effect is the hint, which GCC 12 deletes
// as above unless it was inlined early (AddGraph's and ConstantPool's calls
// emitted nothing): `flatten` inlines it, and what it calls, into this
// function, whose volatile asm keeps it (and a caller whose only work is
// this call) from being classed `const` in turn.
template <typename Set, typename Key>
[[gnu::flatten]] inline void PrefetchLookup(const Set& set, const Key& key) {
  set.prefetch(key);
  asm volatile("");
}

}  // namespace egret

#endif  // EGRET_EGRAPH_PREFETCH_H_
