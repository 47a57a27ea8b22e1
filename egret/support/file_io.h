// Whole-file reads with a size limit, and writes that never leave a
// half-written file behind.
#ifndef EGRET_SUPPORT_FILE_IO_H_
#define EGRET_SUPPORT_FILE_IO_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace egret {

// Default cap on what a reader loads into memory (1 GiB).
inline constexpr uint64_t kDefaultMaxFileBytes = uint64_t{1} << 30;

// Reads `path` whole. A missing or unreadable file is kNotFound, a file larger
// than max_bytes is kResourceExhausted; both messages start with the path.
absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     uint64_t max_bytes = kDefaultMaxFileBytes);

// Writes `contents` to a temporary file beside `path`, then renames it over
// `path`: readers see the old file or the whole new one, never a part. On
// failure the temporary is removed and `path` is untouched.
absl::Status WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace egret

#endif  // EGRET_SUPPORT_FILE_IO_H_
