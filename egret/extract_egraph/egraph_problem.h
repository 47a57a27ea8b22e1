// The extraction problem of an e-graph: the bridge from the e-graph
// (egraph/) and the HVX cost model (cost/) to the generic extractors, which
// know neither. Its own stage (extract_egraph), so that the extractors of
// extract/ stay usable on any problem (egraph-serialize JSON, tests).
#ifndef EGRET_EXTRACT_EGRAPH_EGRAPH_PROBLEM_H_
#define EGRET_EXTRACT_EGRAPH_EGRAPH_PROBLEM_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/egraph/egraph.h"
#include "egret/extract/problem.h"

namespace egret::extract {

// An extraction problem over e-classes of an e-graph, with the maps back to
// the e-graph: the problem's class i is e-class class_of[i], its node n is
// e-node node_of[n].
struct EGraphProblem {
  ExtractionProblem problem;
  std::vector<Id> class_of;      // problem class -> e-class
  std::vector<NodeIdx> node_of;  // problem node -> e-node

  // Pricing an elementwise node as the epilogue of the matrix op it reads
  // (free under the latency model, cost/graph_cost.h) assumes that its data
  // operands' class is computed by that matrix op, or by an elementwise node
  // of it alone; BuildProblem sees only that the class *can* be. Each node
  // priced on that assumption, with the data operand classes it rests on,
  // its cost as an epilogue, and what it costs standing alone (more).
  // CheckEpilogues (realized_extract.h) checks them against a choice.
  struct EpilogueAssumption {
    ENodeId node;
    std::vector<ClassId> operands;
    double assumed_cost;
    double standalone_cost;
  };
  std::vector<EpilogueAssumption> epilogues;
  // Per problem class: whether it is a parameter to the ops that read it (a
  // "$Shape" value or a constant, folded weights included), which an
  // epilogue's data operands leave aside.
  std::vector<bool> param_class;
};

// The extraction problem of the classes of `g` reachable from `roots`, each
// live e-node priced by cost::NodeCostOf (its class's type as output; the
// types of its child classes as inputs, except classes holding a "$Shape").
// Nodes alike (one op, output type and inputs as pricing sees them) are
// priced by one call: a network of repeated blocks has a few hundred kinds
// of e-node among millions. Nodes whose op has no implementation, and nodes
// that need a class that cannot be computed, are left out. When a root cannot be computed at all,
// fails with kInvalidArgument naming the root class and an op that blocks it,
// and with `describe` (given that op's e-node), where that node came from.
// The problem's classes are numbered in depth-first preorder from the roots
// (each class's nodes, and their children, in order), so that the
// extractors' walks from the roots read the problem in the order it lies in
// memory; a class's nodes keep the e-graph's order.
absl::StatusOr<EGraphProblem> BuildProblem(
    const EGraph& g, const cost::HvxCostModel& model, const std::vector<Id>& roots,
    const std::function<std::string(NodeIdx)>& describe = nullptr);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_EGRAPH_EGRAPH_PROBLEM_H_
