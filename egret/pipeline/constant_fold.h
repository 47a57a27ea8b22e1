// Constant folding as an e-graph rewrite: a class computed by a pure op whose
// inputs are all constants ("$Const" data or "$Shape" values) gets a "$Const"
// node holding the value, computed by the reference executor's kernel for
// that op (executor/evaluate_op.h; executor/executor.h for ops outside the
// op table). Since "$Const" is free, extraction then prefers the folded value.
//
// Bounded: results with more than `max_elements` elements are not folded
// (they would bloat the e-graph and the output), nor are ops reading a
// constant of more than `max_elements` elements (the executor copies each
// input whole, so folding the slices of a huge weight would take minutes),
// ops without a reference kernel, volatile ops, multi-output ops or "$Out",
// nor a Dequantize of a 4-bit weight (the HTP reads it quantized).
//
// The op flags of the loaded implementations (DEF_PACKAGE_OP_AND_COST_AND_
// FLAGS; rules/op_registry.h) act as in the HTP's constant propagation, for
// an op whose implementations carry them (an op "X.suffix" with no
// implementations of its own has those of "X", as in the cost model):
//   - INHIBIT_CONST_PROP on any implementation: the op is never folded, even
//     when every input is a constant (the package author says its output
//     must be computed when the graph runs: e.g. it reads state, or its
//     kernel's rounding differs from the reference's).
//   - IS_CONST on every implementation: the op's output never changes (the
//     HTP computes such ops once, while preparing the graph, and never
//     serializes them for the run). egret folds it like any op with constant
//     inputs, and also when it has no inputs at all (an op with no inputs is
//     otherwise volatile) and whatever the sizes of its output and inputs
//     (it cannot be left for the run, so max_elements does not apply). An
//     IS_CONST op egret cannot fold (no
//     reference kernel, or inputs egret does not know) stays a node, priced
//     FREE by the cost model (cost/hvx_cost_model.h): a constant producer
//     whose value the HTP computes before the graph runs.
#ifndef EGRET_PIPELINE_CONSTANT_FOLD_H_
#define EGRET_PIPELINE_CONSTANT_FOLD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "egret/egraph/rewrite.h"
#include "egret/rules/op_registry.h"

namespace egret {

// Large enough for the weights of real convolutions (a [3,3,512,512] filter
// is 2.4M elements), which is what folding a Batchnorm into a Conv2d needs.
inline constexpr int64_t kDefaultFoldMaxElements = int64_t{1} << 23;

// What folding may do, op by op.
struct FoldPolicy {
  int64_t max_elements = kDefaultFoldMaxElements;
  // Registered op name -> its constant-propagation flags. Only ops with a
  // flag are present, and an unflagged "X.suffix" whose base "X" has one
  // (mapped to {}: its own implementations decide).
  struct OpFlags {
    bool inhibit = false;   // some implementation has INHIBIT_CONST_PROP
    bool is_const = false;  // every implementation has IS_CONST
  };
  absl::flat_hash_map<std::string, OpFlags> ops;

  // The flags of `op` (see the file comment for "X.suffix").
  OpFlags FlagsOf(std::string_view op) const;
};

// The policy of the implementations in `registry`.
FoldPolicy FoldPolicyFor(const rules::OpRegistry& registry,
                         int64_t max_elements = kDefaultFoldMaxElements);

// The name of the constant-folding rewrite, as provenance records it.
inline constexpr std::string_view kConstantFoldRule = "constant-fold";

// The rewrite "constant-fold" (a variable-rooted pattern: every class).
absl::StatusOr<Rewrite> ConstantFoldRewrite(FoldPolicy policy);
// The same with no op flags.
absl::StatusOr<Rewrite> ConstantFoldRewrite(int64_t max_elements = kDefaultFoldMaxElements);

}  // namespace egret

#endif  // EGRET_PIPELINE_CONSTANT_FOLD_H_
