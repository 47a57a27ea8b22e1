// .npy encoding and decoding of tensors.
// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "egret/executor/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "egret/support/file_io.h"

namespace egret {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string TempPath(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

TEST(Npy, HeaderFollowsTheFormat) {
  Tensor t = Tensor::FromValues(TensorType(DType::kFloat32, {2, 3}), {1, 2, 3, 4, 5, 6});
  std::string bytes = EncodeNpy(t);
  ASSERT_GT(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  const size_t header_len =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_THAT(bytes.substr(10, header_len),
              HasSubstr("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
  EXPECT_EQ(bytes.size(), 10 + header_len + 24);
}

// Float64, UInt32, UInt64 and BFloat16 (as two-byte voids) write and read
// back with every bit.
TEST(Npy, NewElementTypesRoundTrip) {
  struct Case {
    DType dtype;
    std::string descr;
  };
  for (const Case& c : {Case{DType::kFloat64, "<f8"}, Case{DType::kUInt32, "<u4"},
                        Case{DType::kUInt64, "<u8"}, Case{DType::kBFloat16, "|V2"}}) {
    SCOPED_TRACE(c.descr);
    const TensorType type(c.dtype, {3});
    Tensor t(type);
    t.SetValue(0, 1.0 / 3.0);
    t.SetValue(1, 4294967295.0);
    t.SetValue(2, 7.0);
    if (c.dtype == DType::kUInt64) {
      const uint64_t big = (uint64_t{1} << 53) + 1;  // not a double
      std::memcpy(t.mutable_bytes().data(), &big, 8);
    }
    const std::string bytes = EncodeNpy(t);
    EXPECT_THAT(bytes, HasSubstr("'descr': '" + c.descr + "'"));
    const std::string path = TempPath("new_types.npy");
    ASSERT_TRUE(WriteFileAtomically(path, bytes).ok());
    absl::StatusOr<Tensor> back = ReadNpy(path, type);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, t);
  }
}

// A header with newlines and binary bytes is echoed on one line, escaped
// and cut short.
TEST(Npy, BadHeaderIsEchoedOnOneLineEscapedAndTruncated) {
  std::string header = "{'descr': '<i8',\n'fortran_order': False,\n'shape': (3,), }";
  header += std::string(200, '\x01');
  header += '\n';
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  bytes += header;
  const std::string path = TempPath("bad_header.npy");
  ASSERT_TRUE(WriteFileAtomically(path, bytes).ok());
  absl::StatusOr<Tensor> t = ReadNpy(path, TensorType(DType::kFloat32, {3}));
  ASSERT_FALSE(t.ok());
  const std::string msg(t.status().message());
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_THAT(msg, HasSubstr("(header: {'descr': '<i8',\\x0a'fortran_order'"));
  EXPECT_THAT(msg, HasSubstr("\\x01...)"));
  EXPECT_LT(msg.size(), path.size() + 300);
}

TEST(Npy, RoundTripsEveryStorageType) {
  for (TensorType type :
       {TensorType(DType::kFloat32, {3}), TensorType(DType::kFloat16, {1, 3}),
        TensorType(DType::kQUInt8, {3}, 128, 0.5f), TensorType(DType::kQInt16, {3, 1}),
        TensorType(DType::kInt64, {3}), TensorType(DType::kBool, {3})}) {
    Tensor t = Tensor::FromValues(type, {1, 0, 1});
    std::string path = TempPath("t.npy");
    ASSERT_TRUE(WriteFileAtomically(path, EncodeNpy(t)).ok());
    auto back = ReadNpy(path, type);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, t) << type.ToString();
  }
}

TEST(Npy, ScalarShape) {
  Tensor t = Tensor::FromValues(TensorType(DType::kInt32, {}), {7});
  EXPECT_THAT(EncodeNpy(t), HasSubstr("'shape': ()"));
  std::string path = TempPath("s.npy");
  ASSERT_TRUE(WriteFileAtomically(path, EncodeNpy(t)).ok());
  auto back = ReadNpy(path, t.type());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->GetValue(0), 7);
}

TEST(Npy, RejectsMismatchesWithTheFileName) {
  Tensor t(TensorType(DType::kFloat32, {2}));
  std::string path = TempPath("m.npy");
  ASSERT_TRUE(WriteFileAtomically(path, EncodeNpy(t)).ok());
  auto wrong_shape = ReadNpy(path, TensorType(DType::kFloat32, {3}));
  EXPECT_THAT(std::string(wrong_shape.status().message()),
              HasSubstr(path + ": error: shape (2,) does not match Float32[3]"));
  auto wrong_type = ReadNpy(path, TensorType(DType::kInt32, {2}));
  EXPECT_THAT(std::string(wrong_type.status().message()), HasSubstr("element type must be '<i4'"));
  // The header quoted in the error ends in '\n' in the file; the error is one line.
  EXPECT_THAT(std::string(wrong_type.status().message()), Not(HasSubstr("\n")));
  std::string junk = TempPath("junk.npy");
  ASSERT_TRUE(WriteFileAtomically(junk, "hello").ok());
  EXPECT_THAT(std::string(ReadNpy(junk, t.type()).status().message()),
              HasSubstr("not a .npy file"));
  EXPECT_EQ(ReadNpy(TempPath("missing.npy"), t.type()).status().code(),
            absl::StatusCode::kNotFound);
}

// DecodeNpy reads the bytes ReadNpy reads from a file, naming them as told.
TEST(Npy, DecodesBytesInMemory) {
  Tensor t = Tensor::FromValues(TensorType(DType::kFloat32, {2, 2}), {1, 2, 3, 4});
  absl::StatusOr<Tensor> back = DecodeNpy(EncodeNpy(t), t.type(), "input 'x'");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, t);
  absl::StatusOr<Tensor> wrong = DecodeNpy(EncodeNpy(t), TensorType(DType::kFloat32, {4}), "x");
  EXPECT_THAT(std::string(wrong.status().message()),
              HasSubstr("x: error: shape (2,2) does not match Float32[4]"));
}

}  // namespace
}  // namespace egret
