// Integer handles used throughout the e-graph.
#ifndef EGRET_EGRAPH_ID_H_
#define EGRET_EGRAPH_ID_H_

#include <cstdint>

namespace egret {

// An e-class id. Ids are dense (0, 1, 2, ...) in creation order; after unions
// several ids denote one class, and EGraph::Find gives the canonical one.
using Id = uint32_t;
inline constexpr Id kNoId = ~Id{0};

// The index of one e-node in the e-graph's node store. E-nodes are never
// freed; an e-node that became a duplicate of another is "dead" and is no
// longer listed in any class.
using NodeIdx = uint32_t;
inline constexpr NodeIdx kNoNodeIdx = ~NodeIdx{0};

// An interned TensorType (see TypeTable).
using TypeId = uint32_t;

}  // namespace egret

#endif  // EGRET_EGRAPH_ID_H_
