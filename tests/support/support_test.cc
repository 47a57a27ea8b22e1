#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
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
  // A write into a missing directory fails and leaves nothing behind.
  std::string bad = (dir / "missing" / "f").string();
  EXPECT_FALSE(WriteFileAtomically(bad, "x").ok());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace egret
