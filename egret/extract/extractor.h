// One entry point over the three extractors, for tools (CLI, bench, optimize).
#ifndef EGRET_EXTRACT_EXTRACTOR_H_
#define EGRET_EXTRACT_EXTRACTOR_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "egret/extract/choice.h"
#include "egret/extract/problem.h"

namespace egret::extract {

enum class ExtractorKind { kTree, kDag, kIlp };

// "tree", "dag", "ilp" -> kind; anything else -> nullopt.
std::optional<ExtractorKind> ParseExtractorKind(std::string_view name);
std::string_view ExtractorName(ExtractorKind kind);

struct ExtractOptions {
  ExtractorKind kind = ExtractorKind::kDag;
  double ilp_time_limit_seconds = 10.0;
};

struct ExtractResult {
  Choice choice;  // valid, restricted to the classes reachable from the roots
  double tree_cost = 0;
  double dag_cost = 0;
  // ILP only: whether the choice is proven optimal, and the proven lower bound.
  bool optimal = false;
  double bound = 0;
};

// Runs the chosen extractor and measures both costs of its choice. Fails with
// kInvalidArgument when a root cannot be extracted (message names the class).
absl::StatusOr<ExtractResult> Extract(const ExtractionProblem& p, const ExtractOptions& options);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_EXTRACTOR_H_
