// Private to the onnx stage: the memory limit the reader and the writer honour
// (OnnxImportOptions::memory_limit_bytes, OnnxWriteOptions::memory_limit_bytes),
// checked against this process's resident set at the points where their work
// grows: the external data read, each node imported, each large constant
// written.
#ifndef EGRET_ONNX_MEMORY_LIMIT_INTERNAL_H_
#define EGRET_ONNX_MEMORY_LIMIT_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/support/process_memory.h"

namespace egret::onnx_internal {

// kResourceExhausted when this process holds more than `limit_bytes`
// resident (0: no limit), or would with `more_bytes` more allocated, saying
// the figures, then `hint` in parentheses when given; the caller prefixes
// the file.
inline absl::Status CheckMemoryLimit(int64_t limit_bytes, int64_t more_bytes = 0,
                                     std::string_view hint = {}) {
  if (limit_bytes <= 0) return absl::OkStatus();
  const int64_t resident = ResidentBytes();
  if (resident + more_bytes <= limit_bytes) return absl::OkStatus();
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return absl::ResourceExhaustedError(
      absl::StrFormat("over the memory limit: %.2f GiB resident%s, the limit is %.2f GiB%s",
                      static_cast<double>(resident) / kGiB,
                      more_bytes > 0 ? absl::StrFormat(" and %.2f GiB more to serialize",
                                                       static_cast<double>(more_bytes) / kGiB)
                                     : std::string(),
                      static_cast<double>(limit_bytes) / kGiB,
                      hint.empty() ? std::string() : absl::StrCat(" (", std::string(hint), ")")));
}

// The reader's check: its limit and hint.
inline absl::Status CheckMemoryLimit(const OnnxImportOptions& options) {
  return CheckMemoryLimit(options.memory_limit_bytes, 0, options.memory_limit_hint);
}

}  // namespace egret::onnx_internal

#endif  // EGRET_ONNX_MEMORY_LIMIT_INTERNAL_H_
