// Bottom-up extraction that is optimal for tree cost (a class paid at every
// use): one depth-first post-order pass, then a worklist fixpoint over
// parents for the classes on cycles.
#ifndef EGRET_EXTRACT_TREE_EXTRACTOR_H_
#define EGRET_EXTRACT_TREE_EXTRACTOR_H_

#include <vector>

#include "absl/status/statusor.h"
#include "egret/extract/choice.h"
#include "egret/extract/problem.h"

namespace egret::extract {

// Best tree cost of every class (infinity when no acyclic term exists; the
// largest double when the sum overflows) and a
// choice for every class with a finite cost (not only the reachable ones).
struct TreeCosts {
  std::vector<double> cost;
  Choice choice;
};

// Computes TreeCosts. Fails (kInvalidArgument) only when negative costs form
// a cycle whose tree cost decreases without bound; the error carries a class
// on it (class_error.h).
absl::StatusOr<TreeCosts> ComputeTreeCosts(const ExtractionProblem& p);

// The tree-optimal choice, restricted to the classes reachable from the
// roots. Fails (kInvalidArgument) when a root has no acyclic term; the message
// names the root and a class that blocks it.
absl::StatusOr<Choice> ExtractTree(const ExtractionProblem& p);

// The error ExtractTree returns for a root class whose tree cost is infinite;
// it carries the class on the cycle that blocks it (class_error.h).
absl::Status UncomputableRootError(const ExtractionProblem& p, const std::vector<double>& cost,
                                   ClassId root);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_TREE_EXTRACTOR_H_
