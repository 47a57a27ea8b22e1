// Extraction errors about one class (a class every path to which is cyclic, a
// cycle of negative cost) carry that class as a status payload, so that a
// caller holding the input's source positions (egraph_serialize.h's
// EgraphSourceMap) can say where in the file it is. The message is unchanged.
#ifndef EGRET_EXTRACT_CLASS_ERROR_H_
#define EGRET_EXTRACT_CLASS_ERROR_H_

#include <optional>

#include "absl/status/status.h"
#include "egret/extract/problem.h"

namespace egret::extract {

// `status` with `c` attached (an OK status is returned as is).
absl::Status WithErrorClass(absl::Status status, ClassId c);

// The class attached by WithErrorClass, or nullopt.
std::optional<ClassId> ErrorClass(const absl::Status& status);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_CLASS_ERROR_H_
