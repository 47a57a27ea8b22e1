// For a graph written to a file for other runtimes (OptimizeOptions::
// keep_quantized_weights, set by `egret optimize -o OUT.onnx`): constant
// folding turns a Dequantize of integer weights into floats, which the HVX
// cost model rightly prefers (the Dequantize no longer runs), but the file
// then holds four bytes per weight instead of one, and a runtime that fuses
// QDQ patterns no longer sees the integers. Where the final extraction chose
// such a folded floating-point constant and its e-class also holds a
// Dequantize of a quantized constant, the Dequantize (and that constant) is
// chosen instead. The output cost (computed on the lowered graph) then
// includes the Dequantize.
#ifndef EGRET_PIPELINE_KEEP_QUANTIZED_H_
#define EGRET_PIPELINE_KEEP_QUANTIZED_H_

#include "absl/container/flat_hash_map.h"
#include "egret/egraph/egraph.h"

namespace egret {

// Rewrites `choice` (canonical class -> chosen e-node of `g`) as above;
// returns the number of classes that now choose a Dequantize.
int PreferQuantizedConstants(const EGraph& g, absl::flat_hash_map<Id, NodeIdx>* choice);

}  // namespace egret

#endif  // EGRET_PIPELINE_KEEP_QUANTIZED_H_
