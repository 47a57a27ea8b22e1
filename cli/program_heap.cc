#include "cli/program_heap.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "absl/strings/str_format.h"

#if EGRET_WITH_TCMALLOC
#include <gperftools/malloc_extension.h>
#endif

namespace egret {
namespace {

size_t SystemPage() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

uintptr_t AlignUp(uintptr_t x, size_t alignment) { return (x + alignment - 1) & ~(alignment - 1); }

}  // namespace

AddressReservation::AddressReservation(size_t bytes, size_t alignment) {
  alignment = std::max(alignment, SystemPage());
  if ((alignment & (alignment - 1)) != 0 || bytes == 0 ||
      bytes > std::numeric_limits<size_t>::max() - 2 * alignment) {
    return;
  }
  const size_t want = AlignUp(bytes, alignment);
  // MAP_NORESERVE and PROT_NONE: address space only, no commit charge.
  void* p = mmap(nullptr, want + alignment, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) return;
  mapping_ = reinterpret_cast<uintptr_t>(p);
  mapping_bytes_ = want + alignment;
  begin_ = AlignUp(mapping_, alignment);
  end_ = begin_ + want;
  next_ = begin_;
}

AddressReservation::~AddressReservation() {
  if (mapping_ != 0) munmap(reinterpret_cast<void*>(mapping_), mapping_bytes_);
}

size_t AddressReservation::used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_ - begin_;
}

bool AddressReservation::AdviseHugePages() {
#ifdef MADV_HUGEPAGE
  return ok() && madvise(reinterpret_cast<void*>(begin_), size(), MADV_HUGEPAGE) == 0;
#else
  return false;
#endif
}

void* AddressReservation::Take(size_t bytes, size_t alignment, size_t* actual) {
  if (!ok() || bytes == 0) return nullptr;
  alignment = std::max(alignment, SystemPage());
  if ((alignment & (alignment - 1)) != 0) return nullptr;
  const size_t rounded = AlignUp(bytes, SystemPage());
  if (rounded < bytes) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  const uintptr_t at = AlignUp(next_, alignment);
  if (at < next_ || at > end_ || end_ - at < rounded) return nullptr;
  if (mprotect(reinterpret_cast<void*>(at), rounded, PROT_READ | PROT_WRITE) != 0) return nullptr;
  next_ = at + rounded;
  if (actual != nullptr) *actual = rounded;
  return reinterpret_cast<void*>(at);
}

namespace {

// The program's reservation, never destroyed: the heap in it outlives every
// static destructor.
AddressReservation* reservation = nullptr;

#if EGRET_WITH_TCMALLOC

bool huge_pages = false;  // madvise(MADV_HUGEPAGE) succeeded (THP may still be off)

constexpr size_t kHugePage = size_t{2} << 20;

// As much address space as the machine has memory, or half the address
// space limit when that is smaller (the rest stays for the program's other
// mappings and for tcmalloc's own allocator once this is used up).
size_t ReservationBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  if (pages <= 0) return 0;
  size_t bytes = static_cast<size_t>(pages) * SystemPage();
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    bytes = std::min(bytes, static_cast<size_t>(limit.rlim_cur / 2));
  }
  return bytes;
}

// tcmalloc's source of memory: the reservation first, then the allocator
// tcmalloc had (sbrk, then mmap). tcmalloc calls it under its own lock.
class ReservedSysAllocator : public SysAllocator {
 public:
  ReservedSysAllocator(AddressReservation* range, SysAllocator* fallback)
      : range_(range), fallback_(fallback) {}
  void* Alloc(size_t size, size_t* actual, size_t alignment) override {
    if (void* p = range_->Take(size, alignment, actual)) return p;
    return fallback_ == nullptr ? nullptr : fallback_->Alloc(size, actual, alignment);
  }

 private:
  AddressReservation* range_;
  SysAllocator* fallback_;
};

bool SwitchedOff() {
  const char* v = std::getenv("EGRET_HUGE_PAGES");
  return v != nullptr && std::strcmp(v, "0") == 0;
}

// Storage that is never destroyed; constructing into it allocates nothing,
// so the install below does not re-enter tcmalloc's growth.
alignas(AddressReservation) unsigned char reservation_storage[sizeof(AddressReservation)];
alignas(ReservedSysAllocator) unsigned char allocator_storage[sizeof(ReservedSysAllocator)];

struct Install {
  Install() {
    if (SwitchedOff()) return;
    const size_t bytes = ReservationBytes();
    if (bytes == 0) return;
    auto* range = new (reservation_storage) AddressReservation(bytes, kHugePage);
    if (!range->ok()) return;
    huge_pages = range->AdviseHugePages();
    MallocExtension* ext = MallocExtension::instance();
    ext->SetSystemAllocator(new (allocator_storage)
                                ReservedSysAllocator(range, ext->GetSystemAllocator()));
    ext->SetMemoryReleaseRate(0);
    reservation = range;
  }
};
const Install install;

#endif  // EGRET_WITH_TCMALLOC

}  // namespace

const AddressReservation* ProgramHeapReservation() { return reservation; }

std::string ProgramHeapDescription() {
#if EGRET_WITH_TCMALLOC
  if (reservation == nullptr) return "tcmalloc";
  return absl::StrFormat("tcmalloc, heap in a %.1f GiB reservation%s",
                         static_cast<double>(reservation->size()) / (1 << 30),
                         huge_pages ? " advised for huge pages" : "");
#else
  return "system malloc";
#endif
}

}  // namespace egret
