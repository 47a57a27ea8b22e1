// A debug check of the e-graph's invariants, for tests (run after every
// rebuild) and for debugging rules. Linear in the size of the e-graph.
#ifndef EGRET_EGRAPH_INVARIANTS_H_
#define EGRET_EGRAPH_INVARIANTS_H_

#include "absl/status/status.h"
#include "egret/egraph/egraph.h"

namespace egret {

// Checks, on a clean e-graph (after Rebuild()):
//  - only canonical classes list nodes; every listed node is live, belongs to
//    that class, has canonical operands, and the list is sorted by op;
//  - ClassNodesWithOp(c, op) is op's range of c's list, empty when c has no
//    node of op;
//  - the hash-cons is canonical: every hashed node is found by Lookup() in its
//    own class, and the hash-cons holds exactly the hashed live nodes (so no
//    two live hashed nodes are equal: congruence is closed);
//  - parents are consistent: every node is listed among its operands' parents;
//  - num_nodes() and num_classes() match the lists;
//  - a class holding a "$Const" node records its constant;
//  - no node is stamped after its class's ClassChangeEpoch, and no node's
//    content stamp is after its stamp (semi-naive matching relies on both).
// Returns the first violation found (kInternal) or OK.
absl::Status CheckInvariants(const EGraph& g);

}  // namespace egret

#endif  // EGRET_EGRAPH_INVARIANTS_H_
