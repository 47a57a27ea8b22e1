#include "egret/support/process_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace egret {

int64_t ResidentBytes(pid_t pid) {
  const std::string path =
      pid == 0 ? "/proc/self/statm" : "/proc/" + std::to_string(pid) + "/statm";
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return static_cast<int64_t>(resident) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

int64_t PeakResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  long long kb = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmHWM: %lld kB", &kb) == 1) break;
  }
  std::fclose(f);
  return static_cast<int64_t>(kb) * 1024;
}

int64_t MemoryHeadroom(int64_t limit_bytes) {
  if (limit_bytes <= 0) return 0;
  return std::max<int64_t>(1, limit_bytes - ResidentBytes());
}

}  // namespace egret
