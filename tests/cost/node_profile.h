// Test helper: a NodeProfile of the few fields most cost tests set.
#ifndef EGRET_TESTS_COST_NODE_PROFILE_H_
#define EGRET_TESTS_COST_NODE_PROFILE_H_

#include <cstdint>

#include "egret/cost/hvx_cost_model.h"

namespace egret::cost::testing {

// A node of one output of dtype `d` and `out` bytes reading `in` bytes.
inline NodeProfile P(DType d, int64_t out, int64_t in = 0) {
  NodeProfile p;
  p.dtype = d;
  p.output_bytes = out;
  p.input_bytes = in;
  return p;
}

}  // namespace egret::cost::testing

#endif  // EGRET_TESTS_COST_NODE_PROFILE_H_
