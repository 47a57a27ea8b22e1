// Whole-file reads with a size limit that accept regular files only, and
// writes that never leave a half-written file behind: through unique
// temporaries beside the target, committed by rename, one file or a set of
// files together (FileTransaction).
#ifndef EGRET_SUPPORT_FILE_IO_H_
#define EGRET_SUPPORT_FILE_IO_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace egret {

// Default cap on what a reader loads into memory (1 GiB).
inline constexpr uint64_t kDefaultMaxFileBytes = uint64_t{1} << 30;
// Default cap on the external data (weights) a model reader loads (64 GiB: an
// 8B-parameter LLM in float; memory limits bound what is done with them).
inline constexpr uint64_t kDefaultMaxExternalBytes = uint64_t{64} << 30;

// Reads `path` whole. The file is opened without blocking and must be a
// regular file (symlinks to one are followed): a FIFO, device, socket or
// directory fails at once with kInvalidArgument ("is not a regular file",
// "is a directory"). A missing or unreadable file is kNotFound, a file larger
// than max_bytes is kResourceExhausted; every message starts with the path.
absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     uint64_t max_bytes = kDefaultMaxFileBytes);

// Reads the file `name` in directory `dir` ("" = the current directory) like
// ReadFile, confined to that directory: `name` must be a plain file name
// (no '/', not "." or ".."), and a symbolic link is refused without being
// followed (kInvalidArgument, "is a symbolic link"), so nothing about what it
// points to is read or reported. Messages start with dir/name.
absl::StatusOr<std::string> ReadFileInDir(const std::string& dir, const std::string& name,
                                          uint64_t max_bytes = kDefaultMaxFileBytes);

// A regular file in a directory, opened as ReadFileInDir opens it (a plain
// name, no symbolic link, no FIFO or device), from which byte ranges are
// read without loading the rest: the external data of a model whose weights
// are larger than what one would read whole.
class FileInDir {
 public:
  static absl::StatusOr<FileInDir> Open(const std::string& dir, const std::string& name);
  FileInDir(FileInDir&& other) noexcept;
  FileInDir& operator=(FileInDir&& other) noexcept;
  FileInDir(const FileInDir&) = delete;
  FileInDir& operator=(const FileInDir&) = delete;
  ~FileInDir();

  uint64_t size() const { return size_; }
  // Bytes [offset, offset + length), which must lie inside the file
  // (kInvalidArgument otherwise; kNotFound when the read fails).
  absl::StatusOr<std::string> Read(uint64_t offset, uint64_t length) const;

 private:
  FileInDir(int fd, uint64_t size, std::string shown)
      : fd_(fd), size_(size), shown_(std::move(shown)) {}
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string shown_;
};

// Files written together: Stage writes each file's contents to a new temporary
// beside its target (created exclusively, never through a symlink, then
// fsynced); Commit renames the temporaries over their targets in the order
// staged, then removes the files passed to RemoveAfterCommit. Until Commit
// nothing visible changes, and a transaction destroyed without Commit removes
// its temporaries. A target that exists and is not a regular file or a
// symbolic link (a device, FIFO, socket or directory) is refused by Stage with
// kInvalidArgument. Stage errors: kInvalidArgument as above, kPermissionDenied
// when the temporary cannot be created, kDataLoss when writing it fails.
class FileTransaction {
 public:
  FileTransaction() = default;
  FileTransaction(const FileTransaction&) = delete;
  FileTransaction& operator=(const FileTransaction&) = delete;
  ~FileTransaction();

  absl::Status Stage(const std::string& path, std::string_view contents);
  // Removed (best effort, errors ignored) after a successful Commit.
  void RemoveAfterCommit(const std::string& path);
  // kPermissionDenied when a rename fails; the targets renamed before it
  // keep their new contents, the others their old.
  absl::Status Commit();
  bool committed() const { return committed_; }
  // The targets staged so far, in order.
  std::vector<std::string> targets() const;

 private:
  struct Staged {
    std::string path;
    std::string tmp;
  };
  std::vector<Staged> staged_;
  std::vector<std::string> remove_after_;
  bool committed_ = false;
};

// Writes `contents` to `path` through a one-file FileTransaction: readers see
// the old file or the whole new one, never a part. On failure `path` is
// untouched and no temporary is left.
absl::Status WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace egret

#endif  // EGRET_SUPPORT_FILE_IO_H_
