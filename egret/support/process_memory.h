// How much memory a process holds, read from Linux's /proc (0 elsewhere or
// when it cannot be read). Used to honour memory limits at the points where
// the work that can grow (saturation, extraction, the ILP solver's child
// process) checks them.
#ifndef EGRET_SUPPORT_PROCESS_MEMORY_H_
#define EGRET_SUPPORT_PROCESS_MEMORY_H_

#include <sys/types.h>

#include <cstdint>

namespace egret {

// Resident set size of process `pid` (0: this process), in bytes.
int64_t ResidentBytes(pid_t pid = 0);

// The most this process has had resident (Linux's VmHWM), in bytes.
int64_t PeakResidentBytes();

// The memory an extra allocation may use under `limit_bytes` (0: no limit):
// the limit less this process's resident bytes now, at least 1 when the
// limit is already reached (so a caller's "0 = unlimited" cannot be hit by
// accident); 0 when there is no limit.
int64_t MemoryHeadroom(int64_t limit_bytes);

}  // namespace egret

#endif  // EGRET_SUPPORT_PROCESS_MEMORY_H_
