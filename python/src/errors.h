// egret's errors as Python exceptions: an absl::Status becomes an instance of
// a class of egret/_errors.py chosen by its code (egret.InvalidArgumentError,
// egret.NotFoundError, ...), whose message is egret's own one-line
// "file:line:col: error: ..." text.
#ifndef EGRET_PYTHON_SRC_ERRORS_H_
#define EGRET_PYTHON_SRC_ERRORS_H_

#include <pybind11/pybind11.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace egret::python {

// Raises `status` (not OK) as its Python exception. Needs the GIL.
[[noreturn]] void ThrowStatus(const absl::Status& status);

// The value of `v`, or its status raised as above. Needs the GIL.
template <typename T>
T ValueOrThrow(absl::StatusOr<T> v) {
  if (!v.ok()) ThrowStatus(v.status());
  return *std::move(v);
}

}  // namespace egret::python

#endif  // EGRET_PYTHON_SRC_ERRORS_H_
