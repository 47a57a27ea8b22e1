// Strongly connected components of an extraction problem's class graph: a
// class's edges go to the child classes of its nodes. The DAG extractor's
// local search bounds its cycle checks with them (a class reaches only
// classes of its own component or of earlier ones), and the ILP extractor
// forbids cycles on its cyclic components only.
#ifndef EGRET_EXTRACT_CLASS_SCCS_H_
#define EGRET_EXTRACT_CLASS_SCCS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "egret/extract/problem.h"

namespace egret::extract {

struct ClassSccs {
  // Per class: its component, -1 for a class outside the graph. Components
  // are numbered in the order Tarjan's algorithm completes them, children
  // first: a class reaches only classes of its own component or of lower
  // numbers.
  std::vector<int32_t> id;
  // The classes in the graph, component by component from 0, each
  // component's classes in the order the algorithm pops them off its stack.
  std::vector<ClassId> order;
};

// The components of the graph whose vertices are the classes c with in[c]
// and whose edges go from a class to the child classes of its nodes n with
// keep[n]; an empty `in` (`keep`) takes every class (node). Iterative, for
// deep chains; O(nodes + edges). Deterministic: classes are started in
// ascending order, nodes and children walked in the problem's order.
ClassSccs ComputeClassSccs(const ExtractionProblem& p, std::span<const char> in = {},
                           std::span<const char> keep = {});

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_CLASS_SCCS_H_
