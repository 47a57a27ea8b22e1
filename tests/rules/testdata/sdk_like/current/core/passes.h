// egret test data: an SDK-like header (written for egret's tests). Pass
// positions are plain numbers with trailing comments, the op-package helper
// is a C++ call, and the rest is ordinary C++ that the rule reader skips.
#pragma once
#include <vector>
#include <string>
#include <cstdint>

#define PASS_BASE_ 1000 /* base of the translate range */
#define CLEANUP_GRAPH 100  // first range
#define TRANSLATE 2000
#define ANALYSIS 3000
#define TILING 11000
#define GRAPH_CLEANUP 50 // (CLEANUP_GRAPH - 50)
#define QNN 2050         // (TRANSLATE + 50)
#define EARLY 3050       // (ANALYSIS + 50)
#define LATE 21050       // (TCM_MIGRATION + 50)

namespace pkg_detail {
template <typename T, int N>
class Registry {
 public:
  static std::vector<T>& all() {
    static std::vector<T> v;
    return v;
  }
  int count() const { return N; }
};
inline std::string prefixed(const char* name) { return std::string("pkg::") + name; }
}  // namespace pkg_detail

#define FROM_DEFAULT_PACKAGE(OP) pkg_detail::prefixed(OP).c_str()

#include "helpers.h"
