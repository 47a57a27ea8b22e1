// A constant tensor of one repeated value is its scalar under broadcasting:
// op(x, C) = op(x, c) for a binary elementwise op, where C is a Float32
// "$Const" of more than one element all equal to c, x has the result's dims
// (so C broadcasts into x without adding or growing a dim) and c is a
// "$Const" of C's rank with every dim 1. The rules of the shipped library
// match constants as single-element operands (IS_SCALAR), so a GELU or a
// LayerNorm an exporter wrote with full tensors of 0.5 or 1e-5 matches them
// too. The same for C as operand 0. Ops: Add, Subtract, Multiply, Divide,
// Maximum, Minimum, Power.
//
// Not when x is a constant too (constant folding computes op(x, C)). Bounded:
// the new constant is single-element, so the rewrite never applies to what
// it builds.
#ifndef EGRET_PIPELINE_UNIFORM_CONSTANT_H_
#define EGRET_PIPELINE_UNIFORM_CONSTANT_H_

#include <string_view>
#include <vector>

#include "egret/egraph/rewrite.h"

namespace egret {

inline constexpr std::string_view kUniformConstantRule = "uniform-constant";

// One rewrite per op (for either operand), each named kUniformConstantRule.
std::vector<Rewrite> UniformConstantRewrites();

}  // namespace egret

#endif  // EGRET_PIPELINE_UNIFORM_CONSTANT_H_
