#include "egret/support/file_io.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"

namespace egret {
namespace {

// Closes a descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&&) = delete;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  // Gives up ownership.
  int release() { return std::exchange(fd_, -1); }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now; false (errno set) when close fails.
  bool Close() {
    int fd = fd_;
    fd_ = -1;
    return fd < 0 || ::close(fd) == 0;
  }

 private:
  int fd_;
};

std::string Err(std::string_view path, std::string_view what) {
  return absl::StrCat(std::string(path), ": error: ", std::string(what));
}

// The size of the open `fd`, or an error unless it is a regular file;
// `shown` names it in messages.
absl::StatusOr<uint64_t> RegularFileSize(int fd, std::string_view shown) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return absl::NotFoundError(Err(shown, absl::StrCat("cannot stat: ", std::strerror(errno))));
  }
  if (S_ISDIR(st.st_mode)) return absl::InvalidArgumentError(Err(shown, "is a directory"));
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        Err(shown, "is not a regular file (a FIFO, device or socket cannot be read)"));
  }
  return static_cast<uint64_t>(st.st_size);
}

// Reads the already-open `fd` (opened with O_NONBLOCK) whole, after checking
// that it is a regular file; `shown` names it in messages.
absl::StatusOr<std::string> ReadOpenFile(int fd, std::string_view shown, uint64_t max_bytes) {
  absl::StatusOr<uint64_t> file_size = RegularFileSize(fd, shown);
  if (!file_size.ok()) return file_size.status();
  // A regular file: blocking reads from here on.
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return absl::NotFoundError(Err(shown, absl::StrCat("cannot read: ", std::strerror(errno))));
  }
  const uint64_t size = *file_size;
  if (size > max_bytes) {
    return absl::ResourceExhaustedError(
        Err(shown, absl::StrCat("file is ", size, " bytes, over the limit of ", max_bytes)));
  }
  std::string data;
  data.resize(static_cast<size_t>(size));
  size_t have = 0;
  for (;;) {
    if (have == data.size()) {
      // The file may have grown since fstat: read on, within the limit.
      if (data.size() >= max_bytes) {
        char probe;
        ssize_t n = ::read(fd, &probe, 1);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          return absl::NotFoundError(
              Err(shown, absl::StrCat("read failed: ", std::strerror(errno))));
        }
        return absl::ResourceExhaustedError(
            Err(shown, absl::StrCat("file is over the limit of ", max_bytes, " bytes")));
      }
      data.resize(std::min<uint64_t>(max_bytes, data.size() + 65536));
    }
    ssize_t n = ::read(fd, data.data() + have, data.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::NotFoundError(Err(shown, absl::StrCat("read failed: ", std::strerror(errno))));
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  data.resize(have);
  return data;
}

// Writes all of `contents` to `fd`; false (errno set) on failure.
bool WriteAll(int fd, std::string_view contents) {
  while (!contents.empty()) {
    ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

mode_t CurrentUmask() {
  mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path, uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once (instead of
  // waiting for one), so that the check below can refuse it.
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == EISDIR) return absl::InvalidArgumentError(Err(path, "is a directory"));
    return absl::NotFoundError(Err(path, absl::StrCat("cannot open: ", std::strerror(errno))));
  }
  return ReadOpenFile(fd.get(), path, max_bytes);
}

namespace {

// Opens `name` in `dir` (O_NONBLOCK; refusing symbolic links), or the error
// ReadFileInDir gives; `shown` is set to the name shown in messages.
absl::StatusOr<Fd> OpenInDir(const std::string& dir, const std::string& name,
                             std::string* shown_out) {
  const std::string shown = dir.empty() ? name : absl::StrCat(dir, "/", name);
  *shown_out = shown;
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(Err(shown, "not a plain file name"));
  }
  Fd dfd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() < 0) {
    return absl::NotFoundError(
        Err(shown, absl::StrCat("cannot open its directory: ", std::strerror(errno))));
  }
  Fd fd(
      ::openat(dfd.get(), name.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ELOOP) {
      return absl::InvalidArgumentError(
          Err(shown, "is a symbolic link (refused: it must be a regular file in the directory)"));
    }
    if (errno == EISDIR) return absl::InvalidArgumentError(Err(shown, "is a directory"));
    return absl::NotFoundError(Err(shown, absl::StrCat("cannot open: ", std::strerror(errno))));
  }
  return fd;
}

}  // namespace

absl::StatusOr<std::string> ReadFileInDir(const std::string& dir, const std::string& name,
                                          uint64_t max_bytes) {
  std::string shown;
  absl::StatusOr<Fd> fd = OpenInDir(dir, name, &shown);
  if (!fd.ok()) return fd.status();
  return ReadOpenFile(fd->get(), shown, max_bytes);
}

absl::StatusOr<FileInDir> FileInDir::Open(const std::string& dir, const std::string& name) {
  std::string shown;
  absl::StatusOr<Fd> fd = OpenInDir(dir, name, &shown);
  if (!fd.ok()) return fd.status();
  absl::StatusOr<uint64_t> size = RegularFileSize(fd->get(), shown);
  if (!size.ok()) return size.status();
  return FileInDir(fd->release(), *size, std::move(shown));
}

FileInDir::FileInDir(FileInDir&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), shown_(std::move(other.shown_)) {}

FileInDir& FileInDir::operator=(FileInDir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    shown_ = std::move(other.shown_);
  }
  return *this;
}

FileInDir::~FileInDir() {
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<std::string> FileInDir::Read(uint64_t offset, uint64_t length) const {
  if (offset > size_ || length > size_ - offset) {
    return absl::InvalidArgumentError(Err(
        shown_,
        absl::StrCat("bytes ", offset, " + ", length, " are past its end (", size_, " bytes)")));
  }
  std::string data(static_cast<size_t>(length), '\0');
  size_t have = 0;
  while (have < data.size()) {
    ssize_t n =
        ::pread(fd_, data.data() + have, data.size() - have, static_cast<off_t>(offset + have));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::NotFoundError(
          Err(shown_, n == 0 ? "the file shrank while read"
                             : absl::StrCat("read failed: ", std::strerror(errno))));
    }
    have += static_cast<size_t>(n);
  }
  return data;
}

FileTransaction::~FileTransaction() {
  if (committed_) return;
  for (const Staged& s : staged_) ::unlink(s.tmp.c_str());
}

absl::Status FileTransaction::Stage(const std::string& path, std::string_view contents) {
  if (committed_) return absl::FailedPreconditionError(Err(path, "transaction already committed"));
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
    return absl::InvalidArgumentError(
        Err(path, S_ISDIR(st.st_mode) ? "is a directory"
                                      : "is not a regular file (a device, FIFO or socket "
                                        "cannot be an output)"));
  }
  const std::filesystem::path p(path);
  std::string dir = p.parent_path().string();
  std::string base = p.filename().string();
  if (base.empty()) return absl::InvalidArgumentError(Err(path, "is a directory"));
  // mkstemp: a unique name, created with O_CREAT|O_EXCL, so neither an
  // existing file nor a symlink planted at the name is ever written through.
  std::string tmp = absl::StrCat(dir.empty() ? "" : dir + "/", ".", base, ".tmp.XXXXXX");
  Fd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (fd.get() < 0) {
    return absl::PermissionDeniedError(
        Err(path, absl::StrCat("cannot write: ", std::strerror(errno))));
  }
  staged_.push_back({path, tmp});  // removed by the destructor unless committed
  static const mode_t umask_bits = CurrentUmask();
  if (::fchmod(fd.get(), 0666 & ~umask_bits) != 0 || !WriteAll(fd.get(), contents) ||
      ::fsync(fd.get()) != 0 || !fd.Close()) {
    return absl::DataLossError(Err(path, absl::StrCat("write failed: ", std::strerror(errno))));
  }
  return absl::OkStatus();
}

void FileTransaction::RemoveAfterCommit(const std::string& path) { remove_after_.push_back(path); }

absl::Status FileTransaction::Commit() {
  if (committed_) return absl::OkStatus();
  committed_ = true;
  for (size_t i = 0; i < staged_.size(); ++i) {
    if (::rename(staged_[i].tmp.c_str(), staged_[i].path.c_str()) != 0) {
      int err = errno;
      for (size_t j = i; j < staged_.size(); ++j) ::unlink(staged_[j].tmp.c_str());
      return absl::PermissionDeniedError(
          Err(staged_[i].path, absl::StrCat("cannot replace: ", std::strerror(err))));
    }
  }
  // Make the renames durable: sync each target's directory (best effort).
  for (const Staged& s : staged_) {
    std::string dir = std::filesystem::path(s.path).parent_path().string();
    Fd dfd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd.get() >= 0) ::fsync(dfd.get());
  }
  for (const std::string& r : remove_after_) ::unlink(r.c_str());
  return absl::OkStatus();
}

std::vector<std::string> FileTransaction::targets() const {
  std::vector<std::string> out;
  for (const Staged& s : staged_) out.push_back(s.path);
  return out;
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  FileTransaction txn;
  if (absl::Status s = txn.Stage(path, contents); !s.ok()) return s;
  return txn.Commit();
}

}  // namespace egret
