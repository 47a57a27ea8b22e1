// Checks that a choice is a usable extraction.
#ifndef EGRET_EXTRACT_VALIDATE_H_
#define EGRET_EXTRACT_VALIDATE_H_

#include "absl/status/status.h"
#include "egret/extract/choice.h"
#include "egret/extract/problem.h"

namespace egret::extract {

// OK when: the choice has one entry per class; every chosen node belongs to
// its class; every root has a choice; every child class of a chosen node
// reachable from the roots has a choice; and the chosen nodes reachable from
// the roots form no cycle. Choices for unreachable classes are ignored (but
// must still belong to their class). Otherwise kFailedPrecondition naming the
// first offending class.
absl::Status ValidateChoice(const ExtractionProblem& p, const Choice& choice);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_VALIDATE_H_
