// The result of extraction: for each class, the chosen node (or none), and
// the two costs of a choice.
#ifndef EGRET_EXTRACT_CHOICE_H_
#define EGRET_EXTRACT_CHOICE_H_

#include <algorithm>
#include <cmath>
#include <vector>

#include "egret/extract/problem.h"

namespace egret::extract {

// node[c] is the chosen node of class c, or kNoENode. Extractors return
// choices that cover exactly the classes reachable from the roots.
struct Choice {
  std::vector<ENodeId> node;

  Choice() = default;
  explicit Choice(size_t num_classes) : node(num_classes, kNoENode) {}
  ENodeId operator[](ClassId c) const { return node[c]; }
  bool operator==(const Choice&) const = default;
};

// The classes reachable from the roots through chosen nodes, each once, in
// depth-first preorder. Stops at classes without a choice.
std::vector<ClassId> ReachableClasses(const ExtractionProblem& p, const Choice& choice);

// Sum of the costs of the chosen nodes of the reachable classes: each class
// is paid once however many users it has. Assumes the choice is valid.
double DagCost(const ExtractionProblem& p, const Choice& choice);

// Sum over the roots of the cost of the term each denotes, a class being paid
// at every use (children counted with multiplicity). Assumes an acyclic choice.
double TreeCost(const ExtractionProblem& p, const Choice& choice);

// How far a DAG cost may lie above a lower bound near `cost` and still count
// as meeting it, for a proof of optimality (1e-6 relative, 1e-6 absolute
// below 1): the ILP extractor and the critical-path search use this one.
inline double CostTolerance(double cost) { return 1e-6 * std::max(1.0, std::abs(cost)); }

// The same choice with every class unreachable from the roots set to kNoENode.
Choice RestrictToReachable(const ExtractionProblem& p, const Choice& choice);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_CHOICE_H_
