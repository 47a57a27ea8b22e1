// Integer-list parameters in the form rules match.
//
// A graph may give an integer-list parameter (a reduction's axes, Reshape's
// shape, a Transpose's permutation, ...) as a "$Shape" or as a "$Const" of
// integers: shape inference and the kernels read both (ReadIntParam). The
// rule library binds such lists as Op("$Shape") and compares axes as numbers
// in [0, rank), so a LayerNorm decomposed with an Int32 "$Const" of axes {-1}
// would not be recognized. CanonicalizeParams rewrites those operands to the
// one form before a graph is seeded into an e-graph (pipeline/seed.cc), so
// greedy rewriting and equality saturation both see it.
#ifndef EGRET_GRAPH_CANONICAL_PARAMS_H_
#define EGRET_GRAPH_CANONICAL_PARAMS_H_

#include <cstdint>
#include <vector>

#include "egret/graph/graph.h"

namespace egret {

// Rewrites `g` in place so that every parameter operand whose form
// (OperandDef::form, op_table.h) is kInts or kAxes reads a "$Shape" where its
// value allows one:
//   - kInts: a "$Const" of integers of rank <= 1 whose values form a legal
//     shape (checked_math.h: rank <= 8, every value >= 0, the product at most
//     2^56) becomes a "$Shape" of those values;
//   - kAxes: a "$Const" or "$Shape" of axes of operand 0 becomes a "$Shape"
//     of the same axes counted from 0 and ascending, when they are distinct
//     and within the rank (otherwise it is left for shape inference to
//     report).
// Operands of ops egret does not know, scalar parameters (keep_dims, an
// epsilon, which rules read as "$Const" data) and data operands are left
// alone. New "$Shape" nodes are appended, one per distinct value; existing
// node ids keep their meaning, and a "$Const" no longer read stays (lowering
// drops dead nodes). Returns how many operands were rewritten.
int CanonicalizeParams(Graph* g);

// CanonicalizeParams in two steps, so that a caller holding a const graph
// copies it only when something is to change (pipeline/seed.cc).
struct ParamRewrite {
  NodeId node;
  int operand;
  std::vector<int64_t> value;  // of the "$Shape" the operand is to read
};
// The operands CanonicalizeParams would rewrite, in its order; empty when
// every parameter is already in the one form.
std::vector<ParamRewrite> PlanCanonicalParams(const Graph& g);
// Applies a plan made on `*g` (unchanged since) and returns its size: the
// same graph CanonicalizeParams makes.
int ApplyCanonicalParams(const std::vector<ParamRewrite>& plan, Graph* g);

}  // namespace egret

#endif  // EGRET_GRAPH_CANONICAL_PARAMS_H_
