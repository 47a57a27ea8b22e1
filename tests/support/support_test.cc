#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

TEST(Diagnostic, LocationsAndFormat) {
  std::string_view text = "ab\ncd\n\nx";
  EXPECT_EQ(LocationOf("f", text, 0).ToString(), "f:1:1");
  EXPECT_EQ(LocationOf("f", text, 4).ToString(), "f:2:2");
  EXPECT_EQ(LocationOf("f", text, 7).ToString(), "f:4:1");
  EXPECT_EQ(LocationOf("f", text, 99).ToString(), "f:4:2");  // clamped past the end
  EXPECT_EQ((SourceLocation{"g", 3, 0}).ToString(), "g:3");
  EXPECT_EQ((SourceLocation{"", 0, 0}).ToString(), "<input>");
  absl::Status s = BadInput(SourceLocation{"r.rules", 2, 5}, "unknown op");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "r.rules:2:5: error: unknown op");
}

TEST(Diagnostic, ListCountsAndPrintsNotes) {
  DiagnosticList list;
  list.Warning({"a", 1, 1}, "w");
  EXPECT_FALSE(list.has_errors());
  list.Add(Diagnostic{Severity::kError, {"a", 2, 3}, "e", {{{"b", 4, 0}, "defined here"}}});
  EXPECT_EQ(list.error_count(), 1);
  EXPECT_EQ(list.warning_count(), 1);
  EXPECT_EQ(list.ToString(), "a:1:1: warning: w\na:2:3: error: e\nb:4: note: defined here\n");
}

TEST(Diagnostic, ExitCodes) {
  EXPECT_EQ(ExitCodeFor(absl::OkStatus()), kExitOk);
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("x")), kExitBadInput);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("x")), kExitBadInput);
  EXPECT_EQ(ExitCodeFor(absl::ResourceExhaustedError("x")), kExitBadInput);
  EXPECT_EQ(ExitCodeFor(absl::UnimplementedError("x")), kExitBadInput);
  EXPECT_EQ(ExitCodeFor(absl::FailedPreconditionError("x")), kExitCheckFailed);
}

TEST(Diagnostic, EscapeControlCharsKeepsAMessageOnOneLine) {
  EXPECT_EQ(EscapeControlChars("graph input 'x\n\r\t' is not a tensor"),
            "graph input 'x\\n\\r\\t' is not a tensor");
  EXPECT_EQ(EscapeControlChars(std::string("a\0b\x7f\x01", 5)), "a\\x00b\\x7f\\x01");
  EXPECT_EQ(EscapeControlChars("caf\xc3\xa9 'q'"), "caf\xc3\xa9 'q'");  // UTF-8 and quotes kept
}

TEST(FileIo, ReadWriteAndLimits) {
  fs::path dir = fs::path(::testing::TempDir()) / "egret_support_file_io";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = (dir / "f.bin").string();
  std::string data("a\0b\xff", 4);
  ASSERT_TRUE(WriteFileAtomically(path, data).ok());
  EXPECT_EQ(*ReadFile(path), data);
  ASSERT_TRUE(WriteFileAtomically(path, "new").ok());  // replaces
  EXPECT_EQ(*ReadFile(path), "new");
  absl::StatusOr<std::string> limited = ReadFile(path, 2);
  EXPECT_EQ(limited.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(limited.status().message(),
            absl::StrCat(path, ": error: file is 3 bytes, over the limit of 2"));
  EXPECT_EQ(ReadFile((dir / "none").string()).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ReadFile(dir.string()).status().message(),
            absl::StrCat(dir.string(), ": error: is a directory"));
  EXPECT_EQ(ReadFile(dir.string()).status().code(), absl::StatusCode::kInvalidArgument);
  // A write into a missing directory fails and leaves nothing behind.
  std::string bad = (dir / "missing" / "f").string();
  EXPECT_FALSE(WriteFileAtomically(bad, "x").ok());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

fs::path FreshDir(const std::string& name) {
  fs::path dir =
      fs::path(::testing::TempDir()) / absl::StrCat("egret_file_io_", name, "_", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

size_t Entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// A FIFO with no writer is refused at once (a plain open would wait for a
// writer forever), by ReadFile and ReadFileInDir alike; so is a device.
TEST(FileIo, SpecialFilesAreRefusedWithoutBlocking) {
  fs::path dir = FreshDir("special");
  std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::string> r = ReadFile(fifo);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            absl::StrCat(fifo,
                         ": error: is not a regular file (a FIFO, device or socket cannot "
                         "be read)"));
  EXPECT_EQ(ReadFileInDir(dir.string(), "pipe").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadFile("/dev/zero").status().code(), absl::StatusCode::kInvalidArgument);
  // A symlink to a regular file is followed by ReadFile.
  std::string real = (dir / "real").string();
  ASSERT_TRUE(WriteFileAtomically(real, "abc").ok());
  fs::create_symlink(real, dir / "link");
  EXPECT_EQ(*ReadFile((dir / "link").string()), "abc");
  fs::remove_all(dir);
}

// ReadFileInDir stays in its directory: a symlink is refused unread (even to
// a regular file), and the message says nothing about its target.
TEST(FileIo, ReadFileInDirRefusesSymlinksAndPaths) {
  fs::path dir = FreshDir("indir");
  fs::path outside = FreshDir("indir_outside");
  ASSERT_TRUE(WriteFileAtomically((outside / "secret").string(), "0123456789").ok());
  ASSERT_TRUE(WriteFileAtomically((dir / "ok").string(), "fine").ok());
  fs::create_symlink(outside / "secret", dir / "link");
  EXPECT_EQ(*ReadFileInDir(dir.string(), "ok"), "fine");
  absl::StatusOr<std::string> r = ReadFileInDir(dir.string(), "link");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("is a symbolic link"));
  // Nothing about the target (its name, its 10-byte size) leaks; the
  // directory's own path is taken out first, as it holds the pid's digits.
  std::string said = absl::StrReplaceAll(r.status().message(), {{dir.string(), "DIR"}});
  EXPECT_THAT(said, ::testing::Not(::testing::HasSubstr("secret")));
  EXPECT_THAT(said, ::testing::Not(::testing::HasSubstr("10")));
  EXPECT_FALSE(ReadFileInDir(dir.string(), "../indir_outside/secret").ok());
  EXPECT_FALSE(ReadFileInDir(dir.string(), "..").ok());
  EXPECT_EQ(ReadFileInDir(dir.string(), "none").status().code(), absl::StatusCode::kNotFound);
  fs::remove_all(dir);
  fs::remove_all(outside);
}

// A symlink planted where the old writer put its temporary ("OUT.tmp.<pid>")
// or at the target itself is never written through.
TEST(FileIo, PlantedSymlinksDoNotRedirectWrites) {
  fs::path dir = FreshDir("planted");
  std::string victim = (dir / "victim").string();
  ASSERT_TRUE(WriteFileAtomically(victim, "untouched").ok());
  std::string out = (dir / "out.json").string();
  fs::create_symlink(victim, absl::StrCat(out, ".tmp.", getpid()));
  ASSERT_TRUE(WriteFileAtomically(out, "new").ok());
  EXPECT_EQ(*ReadFile(victim), "untouched");
  EXPECT_EQ(*ReadFile(out), "new");
  // The target a symlink: the link is replaced, its target left alone.
  std::string linked = (dir / "linked.json").string();
  fs::create_symlink(victim, linked);
  ASSERT_TRUE(WriteFileAtomically(linked, "replaced").ok());
  EXPECT_FALSE(fs::is_symlink(linked));
  EXPECT_EQ(*ReadFile(linked), "replaced");
  EXPECT_EQ(*ReadFile(victim), "untouched");
  // victim, out.json, the planted link, linked.json; no temporaries.
  EXPECT_EQ(Entries(dir), 4u);
  fs::remove_all(dir);
}

// A device, FIFO or directory as the target is refused and left as it was.
TEST(FileIo, SpecialTargetsAreRefused) {
  fs::path dir = FreshDir("targets");
  std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::Status s = WriteFileAtomically(fifo, "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("is not a regular file"));
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(WriteFileAtomically(dir.string(), "x").code(), absl::StatusCode::kInvalidArgument);
  if (geteuid() == 0) {  // a character device (a copy of /dev/null's numbers)
    std::string dev = (dir / "null").string();
    ASSERT_EQ(mknod(dev.c_str(), S_IFCHR | 0600, makedev(1, 3)), 0);
    EXPECT_EQ(WriteFileAtomically(dev, "x").code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(fs::is_character_file(dev));
  }
  EXPECT_EQ(Entries(dir), geteuid() == 0 ? 2u : 1u);  // no temporaries left
  fs::remove_all(dir);
}

// A transaction changes nothing until Commit, and removes its temporaries
// when dropped; Commit replaces every target and then the files to remove.
TEST(FileIo, TransactionIsAllOrNothing) {
  fs::path dir = FreshDir("txn");
  std::string a = (dir / "a").string(), b = (dir / "b").string(), old = (dir / "old").string();
  ASSERT_TRUE(WriteFileAtomically(a, "a0").ok());
  ASSERT_TRUE(WriteFileAtomically(old, "stale").ok());
  {
    FileTransaction txn;
    ASSERT_TRUE(txn.Stage(a, "a1").ok());
    ASSERT_TRUE(txn.Stage(b, "b1").ok());
    // A later stage fails (its directory is missing): the caller drops it all.
    EXPECT_FALSE(txn.Stage((dir / "missing" / "c").string(), "c1").ok());
  }
  EXPECT_EQ(*ReadFile(a), "a0");
  EXPECT_FALSE(fs::exists(b));
  EXPECT_EQ(Entries(dir), 2u);
  {
    FileTransaction txn;
    ASSERT_TRUE(txn.Stage(a, "a1").ok());
    ASSERT_TRUE(txn.Stage(b, "b1").ok());
    txn.RemoveAfterCommit(old);
    EXPECT_EQ(*ReadFile(a), "a0");
    ASSERT_TRUE(txn.Commit().ok());
  }
  EXPECT_EQ(*ReadFile(a), "a1");
  EXPECT_EQ(*ReadFile(b), "b1");
  EXPECT_FALSE(fs::exists(old));
  EXPECT_EQ(Entries(dir), 2u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace egret
