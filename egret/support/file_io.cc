#include "egret/support/file_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "egret/support/diagnostic.h"

namespace egret {

absl::StatusOr<std::string> ReadFile(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::NotFoundError(absl::StrCat(path, ": error: is a directory"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": error: cannot open: ", std::strerror(errno)));
  }
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) {
    return absl::NotFoundError(absl::StrCat(path, ": error: cannot determine the file's size"));
  }
  if (static_cast<uint64_t>(size) > max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": error: file is ", size,
                                                     " bytes, over the limit of ", max_bytes));
  }
  in.seekg(0, std::ios::beg);
  std::string data(static_cast<size_t>(size), '\0');
  if (size > 0 && !in.read(data.data(), size)) {
    return absl::NotFoundError(absl::StrCat(path, ": error: read failed"));
  }
  return data;
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  std::string tmp = absl::StrCat(path, ".tmp.", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": error: cannot write: ", std::strerror(errno)));
    }
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      return absl::DataLossError(absl::StrCat(path, ": error: write failed"));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": error: cannot replace: ", std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace egret
