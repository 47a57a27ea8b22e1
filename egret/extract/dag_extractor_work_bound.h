// Lower bounds on the work of the DAG extractor's cost-set pass
// (dag_extractor_cost_sets.h), so that the pass can tell, exactly and early,
// that it cannot finish within its work bound. Internal to the extract stage.
//
// The pass prices every node whose children all become computable and none
// of which is its own class (at least once), reading its children's sets;
// and makes at least one set for every computable class. So its work is at
// least, over those nodes, the sum of lower bounds on the sizes of their
// children's sets, plus, over computable classes, a lower bound on the size
// of their own set.
//
// A set of class c holds c and the union of its chosen node's children's
// sets, and never c again (a union holding c is a cycle, and the node is not
// taken). Two facts keep parts of a child's set out of the other children's:
// - a class d is *owned* by c when every node that has d among its children
//   is in c: a set holding d holds c, so d is in no other child's set of an
//   accepted node of c;
// - in the class graph (an edge from a class to its nodes' child classes,
//   entered at the classes without parents and the roots), the classes that
//   d dominates can be in another child a's set only through d; when c
//   immediately dominates d and does not dominate a, that path passes c too,
//   a cycle. For d owned by c, any other child a.
// With owned(d) a lower bound on how many of the classes d dominates a set
// of d holds (d, and owned(e) for the distinct children of its node that it
// immediately dominates, the least over its nodes), the size bound is
//   size(c) = 1 + min over c's nodes n of the largest, over n's children a,
//             of size(a) + the owned(d) of n's other distinct children d
//             that c owns, or immediately dominates when c does not
//             dominate a, plus 1 when another child of neither kind has a
//             bound at least size(a)'s (it is outside set(a), or set(a)
//             holds a set of it and more),
// the least solution (Knuth's generalisation of Dijkstra: a node's bound is
// more than any of its children's). On a chain of blocks whose parameters
// are private to a block this counts the parameters too, where the minimal
// height (the bound before) counted only the longest path: on the 100k-node
// ResNet chains of bench/scaling, 49.7M of the run's 78M, against 24.2M.
#ifndef EGRET_EXTRACT_DAG_EXTRACTOR_WORK_BOUND_H_
#define EGRET_EXTRACT_DAG_EXTRACTOR_WORK_BOUND_H_

#include <cstdint>
#include <vector>

#include "egret/extract/problem.h"

namespace egret::extract {

struct CostSetWorkBound {
  // Per class: a lower bound on the size of any set the pass makes for it;
  // 0 for a class that is not computable (the pass never makes one).
  std::vector<uint32_t> set_size;
  // A lower bound on the pass's whole work: the sum, over the nodes it
  // prices, of NodeWork, plus the sum of set_size.
  int64_t total = 0;

  // The lower bound a first pricing of node n adds to the work: the sum of
  // its children's set_size (once per occurrence). Only for nodes the pass
  // prices (all children computable, none of them n's class).
  int64_t NodeWork(const ExtractionProblem& p, ENodeId n) const {
    int64_t w = 0;
    for (ClassId ch : p.children(n)) w += set_size[ch];
    return w;
  }
};

// A cheaper, looser bound on the pass's whole work: over the nodes it prices,
// the sum of their children's minimal heights (a set holds at least one path
// down to a leaf). O(nodes + edges), breadth first.
int64_t CostSetWorkHeightBound(const ExtractionProblem& p);

// The bound above, for every class and in total. O((nodes + edges) log
// classes) time but for the dominator tree's iteration (Cooper, Harvey and
// Kennedy: near linear on these graphs), a few arrays of one entry per class
// or node.
CostSetWorkBound ComputeCostSetWorkBound(const ExtractionProblem& p);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_DAG_EXTRACTOR_WORK_BOUND_H_
