#include "egret/executor/npy.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"

namespace egret {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

// NumPy's dtype string for the storage of t, or "" when it has none.
std::string_view Descr(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat16:
      return "<f2";
    case DType::kInt32:
    case DType::kQInt32:
      return "<i4";
    case DType::kInt64:
      return "<i8";
    case DType::kQUInt8:
    case DType::kQUInt4:
      return "|u1";
    case DType::kQInt8:
    case DType::kQInt4:
      return "|i1";
    case DType::kQUInt16:
      return "<u2";
    case DType::kQInt16:
      return "<i2";
    case DType::kBool:
      return "|b1";
    case DType::kFloat64:
      return "<f8";
    case DType::kUInt32:
      return "<u4";
    case DType::kUInt64:
      return "<u8";
    case DType::kBFloat16:
      // NumPy has no bfloat16: the 16-bit patterns as two-byte voids, which
      // is how NumPy saves ml_dtypes' bfloat16 ('<V2' is accepted too).
      return "|V2";
    default:
      return "";
  }
}

std::string ShapeText(const Dims& d) {
  if (d.size() == 1) return absl::StrCat("(", d[0], ",)");
  return absl::StrCat("(", absl::StrJoin(d, ", "), ")");
}

}  // namespace

std::string EncodeNpy(const Tensor& t) {
  std::string header = absl::StrFormat("{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                                       Descr(t.type().dtype), ShapeText(t.type().dims));
  // Pad with spaces so that magic + 2 version + 2 length + header + \n is a
  // multiple of 64.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, 6);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(t.bytes().data()), t.bytes().size());
  return out;
}

namespace {

// Header text for an error message: one line, control and non-ASCII bytes
// escaped (\xNN), at most 80 characters of it, "..." when cut.
std::string HeaderExcerpt(std::string_view text) {
  constexpr size_t kMaxShown = 80;
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, absl::StrFormat("\\x%02x", c));
    }
  }
  if (text.size() > kMaxShown) out += "...";
  return out;
}

}  // namespace

absl::StatusOr<Tensor> ReadNpy(const std::string& path, const TensorType& type) {
  absl::StatusOr<std::string> data = ReadFile(path);
  if (!data.ok()) return data.status();
  return DecodeNpy(*data, type, path);
}

absl::StatusOr<Tensor> DecodeNpy(std::string_view s, const TensorType& type,
                                 std::string_view name) {
  auto bad = [&](std::string_view msg) {
    return BadInput(SourceLocation{std::string(name), 0, 0}, msg);
  };
  if (s.size() < 10 || s.compare(0, 6, kMagic, 6) != 0) return bad("not a .npy file");
  const int major = static_cast<unsigned char>(s[6]);
  size_t header_len, start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(s[8]) | (static_cast<unsigned char>(s[9]) << 8);
    start = 10;
  } else if ((major == 2 || major == 3) && s.size() >= 12) {
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= size_t{static_cast<unsigned char>(s[8 + i])} << (8 * i);
    start = 12;
  } else {
    return bad(absl::StrCat("unsupported .npy version ", major));
  }
  if (s.size() < start + header_len) return bad("truncated header");
  const std::string header(s.substr(start, header_len));
  const std::string want_descr = absl::StrCat("'", std::string(Descr(type.dtype)), "'");
  // Accept '<' or '|' for one-byte types, and '=' for native little-endian.
  auto has_descr = [&](std::string_view d) {
    return header.find(absl::StrCat("'descr': ", std::string(d))) != std::string::npos;
  };
  std::string alt = want_descr;
  if (alt.size() > 1 && (alt[1] == '<' || alt[1] == '|')) alt[1] = alt[1] == '<' ? '=' : '<';
  if (!has_descr(want_descr) && !has_descr(alt)) {
    return bad(absl::StrFormat("element type must be %s for %s (header: %s)", want_descr,
                               type.ToString(), HeaderExcerpt(header)));
  }
  if (header.find("'fortran_order': False") == std::string::npos) {
    return bad("fortran_order arrays are not supported");
  }
  const size_t sh = header.find("'shape': ");
  const size_t close = header.find(')', sh);
  if (sh == std::string::npos || close == std::string::npos) return bad("header has no shape");
  std::string shape = header.substr(sh + 9, close - sh - 8);
  std::string want_shape = ShapeText(type.dims);
  shape.erase(std::remove(shape.begin(), shape.end(), ' '), shape.end());
  want_shape.erase(std::remove(want_shape.begin(), want_shape.end(), ' '), want_shape.end());
  if (shape != want_shape) {
    return bad(
        absl::StrFormat("shape %s does not match %s", HeaderExcerpt(shape), type.ToString()));
  }
  const size_t body = start + header_len;
  const absl::Span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(s.data()) + body,
                                        s.size() - body);
  if (static_cast<int64_t>(bytes.size()) != type.byte_size()) {
    return bad(absl::StrFormat("holds %d data bytes, %s needs %d", bytes.size(), type.ToString(),
                               type.byte_size()));
  }
  return Tensor::FromBytes(type, bytes);
}

}  // namespace egret
