// Sums of sizes as egret prints them. Byte sizes of legal shapes fit int64
// (checked_math.h), but a sum of many of them may not: such sums go through
// SaturatingAdd and stop at INT64_MAX instead of wrapping negative.
#ifndef EGRET_GRAPH_SATURATED_COUNT_H_
#define EGRET_GRAPH_SATURATED_COUNT_H_

#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"

namespace egret {

// A byte count (or another sum of sizes) as the CLI prints it: the number,
// or ">= 9223372036854775807" when it is INT64_MAX, the value a saturated sum
// takes (it went past 2^63 - 1). The JSON report keeps INT64_MAX as the
// number, which then means "at least".
inline std::string SaturatedCountText(int64_t v) {
  return v == std::numeric_limits<int64_t>::max() ? absl::StrCat(">= ", v) : absl::StrCat(v);
}

}  // namespace egret

#endif  // EGRET_GRAPH_SATURATED_COUNT_H_
