// The graph JSON's binary sidecar: missing, short, corrupt, out-of-range and
// misnamed sidecars, links and FIFOs refused, and rewriting the pair.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "egret/graph/graph_json.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"
#include "tests/graph/graph_json_test_util.h"

namespace egret {
namespace {

// Sidecar problems: write a good graph with a sidecar, then break it.
class SidecarTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestDir();
    path_ = dir_ + "/g.json";
    ASSERT_TRUE(WriteGraphJson(FullGraph(), path_).ok());
    text_ = *ReadFile(path_);
    sidecar_ = SidecarPath(path_);
    ASSERT_FALSE(sidecar_.empty());
    sidecar_name_ = fs::path(sidecar_).filename().string();
  }
  absl::Status ReadBack() { return ReadGraphJson(path_).status(); }
  std::string At(std::string_view marker) {
    size_t offset = text_.find(marker);
    EXPECT_NE(offset, std::string::npos) << marker;
    return LocationOf(path_, text_, offset).ToString();
  }
  std::string dir_, path_, text_, sidecar_, sidecar_name_;
};

TEST_F(SidecarTest, MissingSidecar) {
  fs::remove(sidecar_);
  absl::Status s = ReadBack();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At(absl::StrCat("\"", sidecar_name_, "\"")),
                         ": error: at /sidecar/file: cannot read sidecar '", sidecar_,
                         "': cannot open: No such file or directory"));
}

TEST_F(SidecarTest, ShortSidecar) {
  std::string data = *ReadFile(sidecar_);
  WriteText(sidecar_, data.substr(0, data.size() - 10));
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At("24608"), ": error: at /sidecar/bytes: sidecar '", sidecar_,
                         "' has 24598 bytes, expected 24608"));
}

TEST_F(SidecarTest, CorruptSidecar) {
  std::string data = *ReadFile(sidecar_);
  data[100] ^= 1;
  WriteText(sidecar_, data);
  absl::Status s = ReadBack();
  EXPECT_THAT(std::string(s.message()),
              StartsWith(LocationOf(path_, text_, text_.find("\"fnv1a64\": ") + 11).ToString()));
  EXPECT_THAT(std::string(s.message()), HasSubstr("(stale or corrupt sidecar)"));
}

TEST_F(SidecarTest, RangePastTheEnd) {
  // Keep size and checksum consistent, but point one tensor past the end.
  std::string broken = absl::StrReplaceAll(text_, {{"\"offset\": 4608", "\"offset\": 4609"}});
  ASSERT_NE(broken, text_);
  WriteText(path_, broken);
  text_ = broken;
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At("{\"offset\": 4609"),
                         ": error: at /nodes/15/data: bytes [4609, 24609) are past "
                         "the end of the sidecar (24608 bytes)"));
}

TEST_F(SidecarTest, LengthMismatch) {
  std::string broken = absl::StrReplaceAll(text_, {{"\"length\": 20000", "\"length\": 19996"}});
  ASSERT_NE(broken, text_);
  WriteText(path_, broken);
  text_ = broken;
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At("19996"),
                         ": error: at /nodes/15/data/length: data length 19996 "
                         "bytes, type QInt32[5000](z=0,s=1) needs 20000"));
}

TEST_F(SidecarTest, SidecarMustBeAPlainFileName) {
  std::string broken =
      absl::StrReplaceAll(text_, {{absl::StrCat("\"", sidecar_name_, "\""), "\"../g.json.bin\""}});
  WriteText(path_, broken);
  text_ = broken;
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At("\"../g.json.bin\""),
                         ": error: at /sidecar/file: sidecar '../g.json.bin' must be a plain file "
                         "name (it lives beside the graph file)"));
}

// A sidecar that is a symbolic link is refused unread, even when it points to
// a good copy of itself (here outside the graph's folder), and the message
// tells nothing about the target.
TEST_F(SidecarTest, SymlinkedSidecarIsRefused) {
  const std::string outside = dir_ + "_outside";
  fs::remove_all(outside);
  fs::create_directories(outside);
  fs::rename(sidecar_, outside + "/secret.bin");
  fs::create_symlink(outside + "/secret.bin", sidecar_);
  absl::Status s = ReadBack();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("is a symbolic link"));
  EXPECT_THAT(std::string(s.message()), ::testing::Not(HasSubstr("secret")));
  EXPECT_THAT(std::string(s.message()), ::testing::Not(HasSubstr("24608 bytes")));
  fs::remove_all(outside);
}

// A FIFO in the sidecar's place fails at once instead of blocking.
TEST_F(SidecarTest, FifoSidecarFailsFast) {
  fs::remove(sidecar_);
  ASSERT_EQ(mkfifo(sidecar_.c_str(), 0600), 0);
  absl::Status s = ReadBack();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("is not a regular file"));
}

// Rewriting a graph replaces the pair: the new content-named sidecar, then
// the JSON, then the old sidecar is removed. The state in between (the old
// JSON with both sidecars present) still reads as the old graph.
TEST_F(SidecarTest, RewriteReplacesThePairAndTheMidpointReadsOld) {
  Graph other = FullGraph();
  {
    Node& b = other.mutable_node(other.FindNode("b"));
    Tensor t = *b.constant;
    t.SetValue(0, 42);  // different sidecar contents, so a different sidecar name
    b.constant = std::make_shared<const Tensor>(std::move(t));
    b.name = "b_renamed";
  }
  const std::string other_dir = dir_ + "_other";
  fs::remove_all(other_dir);
  fs::create_directories(other_dir);
  ASSERT_TRUE(WriteGraphJson(other, other_dir + "/g.json").ok());
  // Midpoint: the new sidecar is in place, the JSON is still the old one.
  const std::string new_sidecar = SidecarPath(other_dir + "/g.json");
  ASSERT_NE(fs::path(new_sidecar).filename().string(), sidecar_name_);
  fs::copy_file(new_sidecar, dir_ + "/" + fs::path(new_sidecar).filename().string());
  EXPECT_TRUE(ReadBack().ok()) << ReadBack();
  // The full rewrite: one sidecar left, and it is the one the JSON names.
  ASSERT_TRUE(WriteGraphJson(other, path_).ok());
  int sidecars = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().extension() == ".bin") ++sidecars;
  }
  EXPECT_EQ(sidecars, 1);
  absl::StatusOr<Graph> back = ReadGraphJson(path_);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_NE(back->FindNode("b_renamed"), kNoNode);
  fs::remove_all(other_dir);
}

// A NUL escaped in the name would cut the path the file system sees short
// (reading "g.json.bin" for "g.json.bin\u0000x"): an error, not a truncation.
TEST_F(SidecarTest, SidecarNameWithNulIsAnError) {
  std::string broken = absl::StrReplaceAll(
      text_,
      {{absl::StrCat("\"", sidecar_name_, "\""), absl::StrCat("\"", sidecar_name_, "\\u0000x\"")}});
  WriteText(path_, broken);
  text_ = broken;
  absl::Status s = ReadBack();
  EXPECT_EQ(std::string(s.message()),
            absl::StrCat(At(absl::StrCat("\"", sidecar_name_, "\\u0000x\"")),
                         ": error: at /sidecar/file: sidecar '", sidecar_name_,
                         "\\x00x' must be a plain file name (it lives beside the graph file)"));
}

}  // namespace
}  // namespace egret
