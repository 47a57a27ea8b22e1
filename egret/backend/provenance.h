// Provenance of a lowered graph: for each node, the input-graph nodes it came
// from and the rules that built it (Node::provenance), as MLIR's fused
// locations record for a rewritten op.
//
// A lowered node computes one e-class through one chosen e-node. Its
// provenance is the union of:
//   1. derivation: following the chosen e-node's derivation (the rule and the
//      matched e-nodes, egraph/derivation_log.h) back, transitively, to
//      imported e-nodes ("sources"): their provenance, plus every rule met on
//      the way;
//   2. identity: every source whose class the node computes (a rewrite that
//      only merged two classes, as x+0 -> x, stores no node, so leaves no
//      derivation; the source's value is still computed here), with the rules
//      on the union path between the source's class id and the chosen node's
//      (DerivationLog::MergeRules);
//   3. absorption: a source neither 1 nor 2 places anywhere (its value exists
//      in no lowered node) is attributed to the lowered nodes that 2 places
//      its nearest consumers at, in the source graph.
// Only computing sources count in `from` ("*Input", "$Const" and "$Shape" do
// not); a source's provenance is its node's name, or the provenance an
// earlier lowering recorded on it (so provenance composes across re-seeding).
// Congruence (a merge a rebuild found) is not expanded into the merges of the
// operands that caused it.
#ifndef EGRET_BACKEND_PROVENANCE_H_
#define EGRET_BACKEND_PROVENANCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "egret/backend/lower.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/graph.h"

namespace egret {

// One node of the source (input) graph as imported into the e-graph.
struct ProvenanceSource {
  Id cls = kNoId;                        // the class of its output 0
  NodeIdx enode = LowerTrace::kNoENode;  // its imported e-node, if known
  bool computing = false;                // not "*Input", "$Const" or "$Shape"
  Provenance provenance;                 // what it stands for
  std::vector<uint32_t> consumers;       // sources that read it (indices)
};

// The sources of `graph`, by NodeId: `classes` gives the class of each node's
// output 0 (kNoId for none), `enodes` its imported e-node (kNoENode when not
// known).
std::vector<ProvenanceSource> ProvenanceSources(const Graph& graph, absl::Span<const Id> classes,
                                                absl::Span<const NodeIdx> enodes);

// Sets Node::provenance of every computing node of `lowered` (lowered from
// `g` with `trace`) from `sources`.
void AttachProvenance(const EGraph& g, absl::Span<const ProvenanceSource> sources,
                      const LowerTrace& trace, Graph* lowered);

// Case 1 alone for one e-node: the provenance its derivation reaches.
Provenance DerivationProvenance(const EGraph& g, absl::Span<const ProvenanceSource> sources,
                                NodeIdx enode);

// "from input node(s) 'a', 'b' by rule(s) 'r'" (at most 3 of each), or "" for
// an empty provenance.
std::string DescribeProvenance(const Provenance& p);

}  // namespace egret

#endif  // EGRET_BACKEND_PROVENANCE_H_
