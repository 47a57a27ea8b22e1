// The heap of the programs that run the whole pipeline: the egret command,
// bench/scaling and bench/model_results (egret_use_program_allocator in
// cmake/EgretTargets.cmake links this file into each).
//
// Linked with tcmalloc (EGRET_TCMALLOC), such a program grows its heap into
// one contiguous range of address space reserved at start and advised for
// transparent huge pages (MADV_HUGEPAGE), and tcmalloc never hands freed
// spans back to the kernel (its release rate is 0): handing them back is an
// madvise(MADV_DONTNEED) that splits the huge pages under them. A 2 MiB
// page is one fault where 4 KiB pages are 512, and one TLB entry for tables
// read in no order the TLB can follow: side by side, the 1M transformer ran
// 6-21 % faster in seven pairs out of seven, most of it in first touches
// (docs/history/million-node-graphs.md, twelfth round). The range is reserved, not
// committed: PROT_NONE until tcmalloc takes a piece of it, so neither the
// resident set nor the kernel's commit charge grows with its size.
//
// It is the program's choice, never the library's: the egret library links
// no allocator and calls nothing here.
//
// Switched off by the environment variable EGRET_HUGE_PAGES=0 (the heap is
// then tcmalloc's own). Where the reservation cannot be made (an address
// space limit, strict overcommit) or is used up, tcmalloc's own system
// allocator serves the rest.
#ifndef EGRET_CLI_PROGRAM_HEAP_H_
#define EGRET_CLI_PROGRAM_HEAP_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

namespace egret {

// A range of address space reserved with no access, handed out from its
// start, each piece made readable and writable as it is taken. Never
// returned to the kernel before the object is destroyed. Thread-safe.
class AddressReservation {
 public:
  // Reserves `bytes` rounded up to `alignment` (a power of two), starting at
  // a multiple of `alignment`. ok() is false when the kernel refused.
  AddressReservation(size_t bytes, size_t alignment);
  ~AddressReservation();
  AddressReservation(const AddressReservation&) = delete;
  AddressReservation& operator=(const AddressReservation&) = delete;

  bool ok() const { return begin_ != 0; }
  uintptr_t begin() const { return begin_; }
  uintptr_t end() const { return end_; }
  size_t size() const { return end_ - begin_; }
  // Bytes handed out so far, alignment gaps included.
  size_t used() const;

  // Asks the kernel for huge pages over the whole range (MADV_HUGEPAGE).
  // False where the kernel has none; the range works the same either way.
  bool AdviseHugePages();

  // The next `bytes` (rounded up to the system page) at a multiple of
  // `alignment` (a power of two; at least the system page is used), readable
  // and writable; the rounded size in *actual when it is not null. nullptr
  // when the rest of the range is too small or the kernel refuses access;
  // the range is then as it was.
  void* Take(size_t bytes, size_t alignment, size_t* actual);

 private:
  uintptr_t mapping_ = 0;  // what mmap returned (begin_ less the alignment slack)
  size_t mapping_bytes_ = 0;
  uintptr_t begin_ = 0;
  uintptr_t end_ = 0;
  mutable std::mutex mu_;
  uintptr_t next_ = 0;  // guarded by mu_
};

// The reservation this program's heap grows into, or nullptr: not linked
// with tcmalloc, switched off by EGRET_HUGE_PAGES=0, or refused by the
// kernel.
const AddressReservation* ProgramHeapReservation();

// One line for the programs' reports: which allocator, and the reservation
// when there is one ("tcmalloc, heap in a 24.0 GiB reservation advised for
// huge pages": advised, since a kernel with THP off takes the advice and
// ignores it).
std::string ProgramHeapDescription();

}  // namespace egret

#endif  // EGRET_CLI_PROGRAM_HEAP_H_
