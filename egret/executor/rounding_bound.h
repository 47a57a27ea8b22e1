// How far a rewritten quantized graph may honestly differ from its input: an
// interval bound, per graph output, on |candidate - reference| that follows
// from where the candidate rounds differently from the reference. Behind
// --verify's default tolerance for quantized networks (backend/verify.h).
//
// A node rounds when it stores a computed real value in a quantized encoding
// (a Quantize, or any op with a quantized result), except an op that only
// moves or selects elements of inputs already in its output's encoding
// (Reshape, Transpose, Concat, MaxPool, Relu, ...: exact on the grid). The
// two graphs round differently where the candidate fuses an island:
// Conv -> Quantize(s1) -> Dequantize -> Relu -> Quantize(s2) becomes one
// quantized Conv+Relu that rounds once, at s2. The candidate's node says
// which reference nodes it took over (Provenance::from, filled by lowering);
// a rounding point among them other than the one the node's own result
// corresponds to is a *removed* rounding: the reference's value there was off
// by at most s1/2 from the real value the candidate keeps.
//
// The bound is carried forward through the candidate in topological order:
//   - a removed rounding of step s contributes s/2, carried through the
//     reference ops between it and the taken-over node's result;
//   - each op carries its operands' bounds by its Lipschitz constant in the
//     max norm: 1 for ops that move, select or average elements and for
//     Relu-like clamps, the operands' sum for Add/Subtract, max_o sum |w| over
//     a constant filter's taps for convolutions and matrix products, |k| for
//     a product with a constant k, 1/4 for Sigmoid, ...; an op with no known
//     constant (or a non-constant filter) makes the bound infinite;
//   - a node that rounds where the reference rounded to the same encoding
//     turns a bound e > 0 into s * (floor(e / s) + 1) (rounding two values
//     e apart gives grid points at most that far apart) and keeps e = 0 at 0;
//     a node that rounds where the reference did not adds s / 2.
// With no removed or added rounding the bound is 0 everywhere: the graphs
// round at the same places, and --verify's quant_steps allowance (one step at
// the output, for ties broken differently by a different order of float
// operations) is all that is given. The bound is a worst case over every
// element at once; it does not model ties broken differently upstream.
#ifndef EGRET_EXECUTOR_ROUNDING_BOUND_H_
#define EGRET_EXECUTOR_ROUNDING_BOUND_H_

#include <string>
#include <vector>

#include "egret/graph/graph.h"

namespace egret {

struct RoundingBound {
  // The bound on |candidate - reference| over the output's real values
  // (dequantized when the output is quantized); +inf when an op on the way
  // has no known Lipschitz constant (then `unbounded_at` names it); 0 when
  // the graphs round at the same places on the way to this output.
  double bound = 0;
  // Reference rounding points the candidate removed, and rounding points it
  // added, on the way to this output.
  int removed_roundings = 0;
  int added_roundings = 0;
  std::string unbounded_at;  // "node 'x' (Exp)" when bound is +inf, else ""
};

// One bound per output of `candidate` (which has as many outputs as
// `reference`). Nodes of `candidate` whose Provenance::from names no node of
// `reference` are taken to round where the reference does.
std::vector<RoundingBound> DeriveRoundingBounds(const Graph& reference, const Graph& candidate);

}  // namespace egret

#endif  // EGRET_EXECUTOR_ROUNDING_BOUND_H_
