// Which of two nodes of one class has the smaller tree cost, when their tree
// costs as doubles are too close for the doubles to tell.
//
// A tree cost pays a shared class at every use, so on a chain of residual
// blocks it grows by a factor per block: on bench/scaling's transformer it
// passes 2^53 (where a double stops holding every integer) after a few
// blocks and reaches 1e93. Two nodes of a class whose trees differ by one
// small op above a shared input, FullyConnected with its bias against
// ElementWiseAdd over a FullyConnected over an input of tree cost 1e17, then
// round to the same double or to neighbours in either order, and which of
// them a bottom-up pass keeps is decided by rounding.
//
// TreeCostTies decides such a pair by what their trees do not share: it
// writes the difference of the two tree costs as a sum of signed classes
// plus the nodes' own costs, cancels the classes on both sides (their
// rounded costs are the same double, so they cancel exactly), and replaces
// the largest remaining class by its chosen node until the sum's rounding
// bound is smaller than the sum. Above, the shared input cancels and what
// is left is the bias FullyConnected's cost against the ElementWiseAdd's and
// the other FullyConnected's.
#ifndef EGRET_EXTRACT_TREE_COST_TIES_H_
#define EGRET_EXTRACT_TREE_COST_TIES_H_

#include <cstdint>
#include <vector>

#include "egret/extract/choice.h"
#include "egret/extract/problem.h"

namespace egret::extract {

class TreeCostTies {
 public:
  enum class Order { kLess, kEqual, kGreater, kUnknown };

  // Reads, without copying: `cost` and `choice` (a class's tree cost and
  // chosen node so far), `rounds` (how many roundings a class's cost went
  // through, at most: its relative error is at most rounds * 2^-53) and
  // `final` (nonzero for a class whose cost and choice will not change).
  TreeCostTies(const ExtractionProblem& p, const std::vector<double>& cost, const Choice& choice,
               const std::vector<uint32_t>& rounds, const std::vector<uint8_t>& final);

  // Whether node a's tree cost (its own cost plus its children's) is less
  // than, equal to or greater than node b's, within the rounding of the
  // costs that do not cancel. kUnknown when the difference needs a class
  // that is not final or a saturated cost, or more than a fixed number of
  // steps (a pair whose trees share nothing near the top), or once all the
  // calls together have spent a work budget linear in the problem's size.
  Order Compare(ENodeId a, ENodeId b);

  // Whether two tree costs, rounded `rounds_a` and `rounds_b` times, are
  // within their rounding of each other: only then is Compare needed.
  static bool Close(double a, uint32_t rounds_a, double b, uint32_t rounds_b);

 private:
  struct Term {
    ClassId c;
    int64_t times;  // signed: + on a's side, - on b's
  };
  // Sorted by class, without zeros.
  // Adds `times` to class c's term; a term that reaches zero is dropped
  // (the class is on both sides).
  void Add(ClassId c, int64_t times);

  const ExtractionProblem& p_;
  const std::vector<double>& cost_;
  const Choice& choice_;
  const std::vector<uint32_t>& rounds_;
  const std::vector<uint8_t>& final_;
  std::vector<Term> terms_;
  int64_t budget_;
};

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_TREE_COST_TIES_H_
