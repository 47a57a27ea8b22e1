// The output types of a multi-output e-class.
//
// A node with several outputs (Split, TopK) is an e-node of type Multi whose
// outputs are read by "$Out"(multi, $Shape[0, 0, n, k]) nodes, one class per
// output (EGraph::AddOut). What the outputs are is known only from those
// readers; lowering (backend/lower.h) needs them to emit the node, and
// pricing (extract_egraph/egraph_problem.h) to price it as graph pricing
// prices the lowered node: with every output's bytes.
#ifndef EGRET_EGRAPH_MULTI_OUTPUTS_H_
#define EGRET_EGRAPH_MULTI_OUTPUTS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/tensor_type.h"

namespace egret {

// The types of outputs 0..n-1 of class `multi` (of dtype Multi), from its
// live "$Out" readers. Fails (kInvalidArgument) when it has none, or when an
// output below the highest one read has no reader. Readers with a malformed
// selector are skipped.
absl::StatusOr<std::vector<TensorType>> MultiOutputTypes(const EGraph& g, Id multi);

}  // namespace egret

#endif  // EGRET_EGRAPH_MULTI_OUTPUTS_H_
