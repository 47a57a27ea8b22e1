// Constant folding as an e-graph rewrite: a class computed by a pure op whose
// inputs are all constants ("$Const" data or "$Shape" values) gets a "$Const"
// node holding the value, computed by the reference executor's kernel for
// that op (backend/executor.h). Since "$Const" is free, extraction then
// prefers the folded value.
//
// Bounded: results with more than `max_elements` elements are not folded
// (they would bloat the e-graph and the output), nor are ops reading a
// constant of more than `max_elements` elements (the executor copies each
// input whole, so folding the slices of a huge weight would take minutes),
// ops without a reference kernel, volatile ops, multi-output ops or "$Out".
#ifndef EGRET_PIPELINE_CONSTANT_FOLD_H_
#define EGRET_PIPELINE_CONSTANT_FOLD_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "egret/egraph/rewrite.h"

namespace egret {

// Large enough for the weights of real convolutions (a [3,3,512,512] filter
// is 2.4M elements), which is what folding a Batchnorm into a Conv2d needs.
inline constexpr int64_t kDefaultFoldMaxElements = int64_t{1} << 23;

// The rewrite "constant-fold" (a variable-rooted pattern: every class).
absl::StatusOr<Rewrite> ConstantFoldRewrite(int64_t max_elements = kDefaultFoldMaxElements);

}  // namespace egret

#endif  // EGRET_PIPELINE_CONSTANT_FOLD_H_
