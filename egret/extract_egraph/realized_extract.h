// Extraction that pays for the epilogues it does not get.
//
// The extraction problem prices an elementwise node as the free epilogue of
// the matrix op it reads whenever its operand class *holds* such an op
// (EGraphProblem::epilogues). When the extractor then picks another node of
// that class, the epilogue is not there: the lowered graph pays the node's
// full time, and a choice that looked as cheap as another (an elementwise
// chain after a FullyConnected against the FullyConnected with the chain
// folded into its weights) turns out dearer. ExtractRealized corrects that
// lazily: it extracts, raises the cost of every chosen node whose epilogue
// the choice does not realize to its standalone cost, and extracts again,
// until the choice realizes every epilogue it counts on or the rounds run
// out; it returns the choice with the lowest realized cost.
#ifndef EGRET_EXTRACT_EGRAPH_REALIZED_EXTRACT_H_
#define EGRET_EXTRACT_EGRAPH_REALIZED_EXTRACT_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "egret/extract/choice.h"
#include "egret/extract/extractor.h"
#include "egret/extract_egraph/egraph_problem.h"

namespace egret::extract {

// How `choice` fares against p's epilogue assumptions, among the nodes it
// selects in classes reachable from the roots: an assumption holds when all
// of its operand classes are computed, in the choice, by one matrix op's
// class (whose chosen node is a matrix op of the op table, or an elementwise
// node whose data operands are all that one class), as graph pricing sees
// the lowered graph (cost/graph_cost.h).
struct EpilogueCheck {
  std::vector<size_t> unrealized;  // indices into p.epilogues
  // DagCost of the choice under p.problem's current costs, and with every
  // checked node at the cost it has in the lowered graph: its assumed cost
  // when realized, its standalone cost when not.
  double dag_cost = 0;
  double realized_cost = 0;
};
EpilogueCheck CheckEpilogues(const EGraphProblem& p, const Choice& choice);

struct RealizedExtraction {
  ExtractResult result;  // result.dag_cost is the realized cost
  int rounds = 0;        // extractions run
  size_t corrected = 0;  // nodes whose cost was raised
};

// Runs `extractor` on p.problem up to `max_rounds` times (at least once),
// raising the costs of unrealized epilogues between rounds (p.problem's
// costs change), and stops early when a choice realizes all its epilogues
// or options.deadline has passed. Fails like Extract.
absl::StatusOr<RealizedExtraction> ExtractRealized(EGraphProblem& p, const Extractor& extractor,
                                                   const ExtractOptions& options,
                                                   int max_rounds = 3);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_EGRAPH_REALIZED_EXTRACT_H_
