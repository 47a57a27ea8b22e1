// Early returns on absl::Status / absl::StatusOr errors: the one definition
// every stage uses (instead of a local copy per file).
//
//   EGRET_RETURN_IF_ERROR(WriteThing(x));
//     evaluates the absl::Status expression once and returns it from the
//     enclosing function if it is not OK.
//   EGRET_ASSIGN_OR_RETURN(auto v, ComputeThing(x));
//   EGRET_ASSIGN_OR_RETURN(existing, ComputeThing(x));
//     evaluates the absl::StatusOr<T> expression once; on error returns its
//     status, otherwise moves the value into `lhs`, which is a declaration
//     (`auto v`, `const Dims& d`) or an assignable expression. `lhs` must not
//     contain an unparenthesized comma. The temporary's name is unique per
//     line, so several uses may share a scope.
//
// The enclosing function returns absl::Status or absl::StatusOr<U> (either is
// constructible from a non-OK absl::Status).
#ifndef EGRET_SUPPORT_STATUS_MACROS_H_
#define EGRET_SUPPORT_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define EGRET_RETURN_IF_ERROR(expr)                                   \
  do {                                                                \
    if (::absl::Status egret_status_ = (expr); !egret_status_.ok()) { \
      return egret_status_;                                           \
    }                                                                 \
  } while (0)

#define EGRET_ASSIGN_OR_RETURN(lhs, expr) \
  EGRET_ASSIGN_OR_RETURN_IMPL_(EGRET_STATUS_MACROS_CONCAT_(egret_status_or_, __LINE__), lhs, expr)

// Implementation details of the macros above.
#define EGRET_STATUS_MACROS_CONCAT_INNER_(a, b) a##b
#define EGRET_STATUS_MACROS_CONCAT_(a, b) EGRET_STATUS_MACROS_CONCAT_INNER_(a, b)
#define EGRET_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return std::move(tmp).status();     \
  lhs = *std::move(tmp)

#endif  // EGRET_SUPPORT_STATUS_MACROS_H_
