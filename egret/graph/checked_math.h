// Overflow-checked arithmetic for shapes, sizes, offsets and counts, and the
// one cap on a tensor's element count that every reader (JSON, ONNX, npy,
// egraph-serialize) and shape inference enforce.
//
// A shape is legal when it has rank <= kMaxRank, every dim is in
// [0, kMaxElements] and the product of its dims (0 when any dim is 0) is at
// most kMaxElements. Byte sizes of legal shapes stay far from int64 overflow
// for every dtype, so code past the readers may multiply element counts by
// element sizes freely. Arithmetic on values that come from a file (pads,
// strides, sizes, multiples, axes) goes through the Saturating* helpers, so it
// never overflows; a saturated result is then rejected by CheckShape.
#ifndef EGRET_GRAPH_CHECKED_MATH_H_
#define EGRET_GRAPH_CHECKED_MATH_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"

namespace egret {

// The largest element count (and dim) of any tensor: 2^56.
inline constexpr int64_t kMaxElements = int64_t{1} << 56;
inline constexpr char kMaxElementsText[] = "2^56";

// a * b, a + b, a - b clamped to [INT64_MIN, INT64_MAX] instead of wrapping.
inline int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) == (b < 0) ? std::numeric_limits<int64_t>::max()
                            : std::numeric_limits<int64_t>::min();
}
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}
inline int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// *out = a * b (or a + b); false, leaving *out unspecified, on overflow.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// The product of `dims`, saturated at INT64_MAX (0 when any dim is 0, 1 for
// no dims). The result means nothing when a dim is negative: check the
// shape (CheckShape) before trusting it.
inline int64_t SaturatingProduct(absl::Span<const int64_t> dims) {
  for (int64_t d : dims) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : dims) n = SaturatingMul(n, d);
  return n;
}

// The element count of `dims` when the shape is legal (see above), else
// nullopt.
inline std::optional<int64_t> ElementCount(absl::Span<const int64_t> dims) {
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxElements) return std::nullopt;
  }
  const int64_t n = SaturatingProduct(dims);
  if (n > kMaxElements) return std::nullopt;
  return n;
}

// OK when `dims` is a legal shape; else InvalidArgument with a message that
// names the shape: "shape [a,b] has a negative dim", "... has a dim above
// 2^56", "... has more than 2^56 elements".
inline absl::Status CheckShape(absl::Span<const int64_t> dims) {
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape [", absl::StrJoin(dims, ","), "] has a negative dim"));
    }
  }
  for (int64_t d : dims) {
    if (d > kMaxElements) {
      return absl::InvalidArgumentError(absl::StrCat("shape [", absl::StrJoin(dims, ","),
                                                     "] has a dim above ", kMaxElementsText));
    }
  }
  if (!ElementCount(dims).has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape [", absl::StrJoin(dims, ","), "] has more than ", kMaxElementsText, " elements"));
  }
  return absl::OkStatus();
}

// `v` converted to int64 when it is finite, integral or not, and within
// [lo, hi]; else nullopt (a float-to-int conversion out of range is
// undefined behaviour). Rounds toward zero.
inline std::optional<int64_t> DoubleToInt64(double v, int64_t lo = -kMaxElements,
                                            int64_t hi = kMaxElements) {
  if (!std::isfinite(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

}  // namespace egret

#endif  // EGRET_GRAPH_CHECKED_MATH_H_
