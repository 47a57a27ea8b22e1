// What an extractor is, for tools that choose one by name (CLI, optimize,
// the comparison strategies, benches): a row of the registry
// (extract/extractor_registry.h) with a name, a one-line description and a
// function from a problem to a choice; and Extract, which runs one and
// measures its choice.
#ifndef EGRET_EXTRACT_EXTRACTOR_H_
#define EGRET_EXTRACT_EXTRACTOR_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "egret/extract/choice.h"
#include "egret/extract/problem.h"

namespace egret::extract {

// Options every extractor receives; each reads what applies to it.
struct ExtractOptions {
  // Wall-clock limit in seconds, for extractors that take one (ilp).
  double time_limit_seconds = 10.0;
  // When set, the extractors that can stop early do so by this time with the
  // best choice found so far: dag's local search stops at it, ilp's time limit
  // is cut to it. (tree and greedy have no early stop; they are linear-ish.)
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Bytes the extractor may allocate beyond what the process holds when it
  // starts (0: no bound), for extractors whose memory can grow faster than
  // the problem: dag's cost sets give up past it (its other candidate
  // remains), ilp's solver is stopped past it (its warm start remains).
  // tree and greedy allocate a few arrays of one entry per class or node.
  int64_t memory_budget_bytes = 0;
};

// What an extractor returns.
struct ExtractorOutput {
  Choice choice;  // valid, restricted to the classes reachable from the roots
  // Only when the extractor's row says proves_optimality: whether the choice
  // is proven DAG-optimal, and the proven lower bound on the DAG cost.
  bool optimal = false;
  double bound = 0;
  // A limit of ExtractOptions cut the extractor short; the choice is its best
  // so far.
  bool time_limit_hit = false;
  bool memory_limit_hit = false;
};

// An extractor: fails with kInvalidArgument when a root cannot be extracted
// (the message names the class).
using ExtractorFn = absl::StatusOr<ExtractorOutput> (*)(const ExtractionProblem& p,
                                                        const ExtractOptions& options);

// One row of the registry.
struct Extractor {
  std::string_view name;         // `--extractor NAME`, strategy "eqsat-NAME"
  std::string_view description;  // one line, for --help
  ExtractorFn run;
  // Its output's `optimal` and `bound` are meaningful (tools print them).
  bool proves_optimality = false;
  // Run by default where the extractors are compared (`egret compare`'s
  // default strategies); false for variants kept for measurement (benches).
  bool compared_by_default = true;
};

struct ExtractResult {
  Choice choice;  // valid, restricted to the classes reachable from the roots
  double tree_cost = 0;
  double dag_cost = 0;
  // As in ExtractorOutput (proves_optimality extractors only).
  bool optimal = false;
  double bound = 0;
  // As in ExtractorOutput.
  bool time_limit_hit = false;
  bool memory_limit_hit = false;
};

// Runs `extractor` and measures both costs of its choice. Fails like the
// extractor (kInvalidArgument when a root cannot be extracted).
absl::StatusOr<ExtractResult> Extract(const ExtractionProblem& p, const Extractor& extractor,
                                      const ExtractOptions& options);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_EXTRACTOR_H_
