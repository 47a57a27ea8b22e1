// What the ILP extractor's tests on small hand-written problems share:
// writing a node's children inline, building the problem, and running the
// extractor with its result checked.
#ifndef EGRET_TESTS_EXTRACT_ILP_TEST_SUPPORT_H_
#define EGRET_TESTS_EXTRACT_ILP_TEST_SUPPORT_H_

#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/problem.h"
#include "egret/extract/validate.h"
#include "gtest/gtest.h"

namespace egret::extract {

// b.AddNode with the children as a braced list (which does not convert to
// std::span in C++20).
inline void AddNode(ExtractionProblemBuilder& b, ClassId c, std::string_view op, double cost,
                    std::vector<ClassId> children) {
  b.AddNode(c, op, cost, children);
}

// The built problem; a problem that does not build fails the test.
inline ExtractionProblem BuildOrFail(ExtractionProblemBuilder b) {
  absl::StatusOr<ExtractionProblem> built = std::move(b).Build();
  EXPECT_TRUE(built.ok()) << built.status();
  return *std::move(built);
}

// The ILP options of these tests: a 60 s limit, far above what they need.
inline IlpOptions TestIlpOptions() {
  IlpOptions options;
  options.time_limit_seconds = 60;
  return options;
}

// ExtractIlp, with its choice validated: an invalid choice is an error.
inline absl::StatusOr<IlpResult> ExtractIlpChecked(const ExtractionProblem& problem,
                                                   const IlpOptions& options = TestIlpOptions()) {
  absl::StatusOr<IlpResult> result = ExtractIlp(problem, options);
  if (!result.ok()) return result;
  if (absl::Status valid = ValidateChoice(problem, result->choice); !valid.ok()) return valid;
  return result;
}

}  // namespace egret::extract

#endif  // EGRET_TESTS_EXTRACT_ILP_TEST_SUPPORT_H_
