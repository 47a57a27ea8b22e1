// One op on known inputs, without a graph: constant folding's path
// (pipeline/constant_fold.h), which folds hundreds of thousands of small
// constants on a large network. Execute() of a one-node graph computes the
// same value but first validates and schedules the graph, plans its
// read-through and memory, and gathers statistics: more than the kernel's
// own work on a small tensor.
#ifndef EGRET_EXECUTOR_EVALUATE_OP_H_
#define EGRET_EXECUTOR_EVALUATE_OP_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/graph.h"
#include "egret/graph/shape_inference.h"
#include "egret/graph/tensor.h"

namespace egret {

// The value of `op` (an op of the op table: FindOpDef(op) is not null; else
// kInvalidArgument) with attributes `attrs` on `inputs` (each a value, or a
// "$Shape" for a parameter), of type `output`: what Execute() returns for a
// graph of that one node, on every core (ExecuteOptions::threads = 0).
// Errors as Execute()'s, without a node's name: kInvalidArgument when the
// shape function disagrees with `output`'s dims or an input is missing its
// value, kUnimplemented when the op has no kernel (or none for String
// tensors), and the kernel's own.
absl::StatusOr<Tensor> EvaluateOp(std::string_view op, const Attributes& attrs,
                                  absl::Span<const OperandInfo> inputs, const TensorType& output);

}  // namespace egret

#endif  // EGRET_EXECUTOR_EVALUATE_OP_H_
