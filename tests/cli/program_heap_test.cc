#include "cli/program_heap.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "egret/support/process_memory.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

size_t Page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

TEST(AddressReservationTest, HandsOutAlignedWritablePiecesFromItsStart) {
  AddressReservation r(64 * kMiB, 2 * kMiB);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.begin() % (2 * kMiB), 0u);
  EXPECT_EQ(r.size(), 64 * kMiB);
  EXPECT_EQ(r.used(), 0u);

  size_t actual = 0;
  auto* a = static_cast<char*>(r.Take(1000, 1, &actual));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a), r.begin());
  EXPECT_EQ(actual, Page());  // rounded up to the system page
  std::memset(a, 0x5a, actual);

  auto* b = static_cast<char*>(r.Take(3 * Page(), 16 * Page(), &actual));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % (16 * Page()), 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b), r.begin() + 16 * Page());
  EXPECT_EQ(actual, 3 * Page());
  std::memset(b, 0xa5, actual);
  EXPECT_EQ(a[Page() - 1], 0x5a);
  EXPECT_EQ(r.used(), 19 * Page());  // the alignment gap counts
}

TEST(AddressReservationTest, RefusesWhatDoesNotFitAndStaysAsItWas) {
  AddressReservation r(4 * kMiB, 2 * kMiB);
  ASSERT_TRUE(r.ok());
  ASSERT_NE(r.Take(kMiB, 1, nullptr), nullptr);
  EXPECT_EQ(r.Take(3 * kMiB + 1, 1, nullptr), nullptr);
  EXPECT_EQ(r.used(), kMiB);
  EXPECT_EQ(r.Take(kMiB, 3 * Page(), nullptr), nullptr) << "alignment not a power of two";
  EXPECT_EQ(r.Take(0, 1, nullptr), nullptr);
  size_t actual = 0;
  auto* rest = static_cast<char*>(r.Take(3 * kMiB, 1, &actual));
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(actual, 3 * kMiB);
  rest[actual - 1] = 1;  // the last byte of the range is writable
  EXPECT_EQ(r.used(), 4 * kMiB);
  EXPECT_EQ(r.Take(1, 1, nullptr), nullptr);
}

TEST(AddressReservationTest, ReservingCommitsNoMemory) {
  const int64_t before = ResidentBytes();
  if (before == 0) GTEST_SKIP() << "no /proc here to read the resident set from";
  AddressReservation r(size_t{4} << 30, 2 * kMiB);
  ASSERT_TRUE(r.ok());
  // Taking a piece makes it writable; only what is written becomes resident.
  auto* p = static_cast<char*>(r.Take(size_t{1} << 30, 1, nullptr));
  ASSERT_NE(p, nullptr);
  p[0] = 1;
  EXPECT_LT(ResidentBytes() - before, static_cast<int64_t>(64 * kMiB));
}

TEST(AddressReservationTest, AnImpossibleReservationIsNotOk) {
  for (size_t bytes : {~size_t{0}, ~size_t{0} - kMiB, size_t{1} << 62, size_t{0}}) {
    AddressReservation r(bytes, 2 * kMiB);
    EXPECT_FALSE(r.ok()) << bytes;
    EXPECT_EQ(r.size(), 0u);
    EXPECT_EQ(r.Take(1, 1, nullptr), nullptr);
  }
  AddressReservation odd(kMiB, 3 * Page());  // alignment not a power of two
  EXPECT_FALSE(odd.ok());
}

#if EGRET_WITH_TCMALLOC
TEST(ProgramHeapTest, TheHeapGrowsInsideTheReservation) {
  const char* off = std::getenv("EGRET_HUGE_PAGES");
  if (off != nullptr && std::strcmp(off, "0") == 0) {
    EXPECT_EQ(ProgramHeapReservation(), nullptr);
    EXPECT_EQ(ProgramHeapDescription(), "tcmalloc");
    GTEST_SKIP() << "EGRET_HUGE_PAGES=0: the heap is tcmalloc's own";
  }
  const AddressReservation* r = ProgramHeapReservation();
  ASSERT_NE(r, nullptr) << "the kernel refused the reservation";
  const size_t used = r->used();
  // Larger than anything tcmalloc holds yet: it must grow its heap.
  std::unique_ptr<char[]> big(new char[256 * kMiB]);
  const auto at = reinterpret_cast<uintptr_t>(big.get());
  EXPECT_GE(at, r->begin());
  EXPECT_LE(at + 256 * kMiB, r->end());
  EXPECT_GE(r->used(), used + 256 * kMiB);
  big[256 * kMiB - 1] = 1;
  EXPECT_NE(ProgramHeapDescription().find("reservation"), std::string::npos);
}
#else
TEST(ProgramHeapTest, WithoutTcmallocThereIsNoReservation) {
  EXPECT_EQ(ProgramHeapReservation(), nullptr);
  EXPECT_EQ(ProgramHeapDescription(), "system malloc");
}
#endif

}  // namespace
}  // namespace egret
