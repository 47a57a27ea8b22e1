// The op vocabulary of egret: for each op, how many inputs it takes and which
// of them are parameters. docs/ops.md describes every op in full.
//
// Data inputs come first and parameters after them, except for the variadic
// Concat, whose parameter (the axis) is input 0. A parameter input is produced
// by a "$Shape" node (its Int32 output dims are the value) or a "$Const" node
// (its data are the value); see ReadIntParam in shape_inference.h.
//
// An op name with a dotted implementation suffix ("Relu.fp16", "Conv2d.opt.x")
// names an implementation of its base op and has the base op's signature.
#ifndef EGRET_GRAPH_OP_SIGNATURE_H_
#define EGRET_GRAPH_OP_SIGNATURE_H_

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"

namespace egret {

inline constexpr int kVariadic = -1;

struct OpSignature {
  std::string_view name;
  int min_inputs = 0;
  int max_inputs = 0;  // kVariadic: no upper bound
  // Bit i set: input i is a parameter. Inputs past bit 31 are data inputs.
  uint32_t param_mask = 0;
  // Space-separated input names, in order (the last name repeats for a
  // variadic op), used in error messages and docs.
  std::string_view input_names;
  // The number of outputs, or kVariadic when the parameters decide (Split).
  int num_outputs = 1;

  bool IsParam(int input) const { return input < 32 && ((param_mask >> input) & 1u) != 0; }
  bool AcceptsInputCount(int n) const {
    return n >= min_inputs && (max_inputs == kVariadic || n <= max_inputs);
  }
  // The name of input i ("in", "filter", ...), or "" past the end.
  std::string_view InputName(int input) const;
};

// The op without a dotted implementation suffix: "Relu.fp16" -> "Relu". Names
// starting with '$' or '*' are returned unchanged.
std::string_view BaseOpName(std::string_view op);

// The signature of `op` (after BaseOpName), or nullptr for an op egret does
// not know (an opaque imported op). Covers the special ops "$Const", "$Shape",
// "$Out" and "*Input".
const OpSignature* FindOpSignature(std::string_view op);

// FindOpSignature(op) != nullptr.
bool IsKnownOp(std::string_view op);

// Every known op, in the order of docs/ops.md.
absl::Span<const OpSignature> AllOpSignatures();

}  // namespace egret

#endif  // EGRET_GRAPH_OP_SIGNATURE_H_
