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

}  // namespace egret

#endif  // EGRET_EGRAPH_PREFETCH_H_
