// What an optimization did to a graph, in ops, for people: the summary line
// "changes: fused Batchnorm into Conv2d x20, recognized HardSwish x9 (from
// ElementWiseAdd, ElementWiseMultiply, ReluMinMax), ..." and the report's
// "changes" array (docs/rewrite-semantics.md).
//
// Each node of the result that stands for input nodes (its provenance,
// pipeline/optimize_result.h ProvenanceSummary) is described by the
// computing ops of those input nodes (constants, shape parameters and graph
// inputs do not count):
//   - fused:      they include its own op and others ("fused Relu into Conv2d");
//   - recognized: none of them is its op ("recognized HardSwish from ...");
//   - folded:     it is a constant that constant folding made ("folded
//     Dequantize into constants"; constants a rule built are not counted);
//   - rewrote:    they are all of its own op (a parameter changed, duplicates
//     merged);
//   - tiled:      a rule of a device-lowering pass built it (rules/
//     pass_groups.h: the pieces and joins of a tiling), whatever its op
//     ("tiled Conv2d into pieces"; `op` is "" and `from_ops` all the ops).
// Shape parameters ("$Shape") are not described.
// Nodes described alike are counted together. Provenance follows e-class
// merges, so a node may name an input node it shares a class with rather
// than one it replaced: the description is of what the result stands for.
#ifndef EGRET_PIPELINE_CHANGES_H_
#define EGRET_PIPELINE_CHANGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "egret/graph/graph.h"
#include "egret/pipeline/optimize_result.h"

namespace egret {

// OpChange (pipeline/optimize_result.h): "fused", "recognized", "folded",
// "rewrote".
std::string_view OpChangeKindName(OpChange::Kind k);

// The changes of `prov` (the provenance of a result of optimizing `input`),
// most frequent first (then by kind, op and input ops).
std::vector<OpChange> DescribeChanges(const Graph& input, const ProvenanceSummary& prov);

// "fused Relu into Conv2d x7, recognized HardSwish x9 (from ElementWiseAdd,
// ReluMinMax), folded Dequantize into constants x84", at most `max_items`
// of them and then "and N more"; "none" when empty.
std::string ChangesText(const std::vector<OpChange>& changes, size_t max_items = 6);

}  // namespace egret

#endif  // EGRET_PIPELINE_CHANGES_H_
