#include "egret/extract/extractor_registry.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "egret/extract/dag_extractor.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/tree_extractor.h"

namespace egret::extract {
namespace {

absl::StatusOr<ExtractorOutput> Output(absl::StatusOr<Choice> choice) {
  if (!choice.ok()) return choice.status();
  ExtractorOutput out;
  out.choice = *std::move(choice);
  return out;
}

// The registry: one row per extractor. The order is that of Extractors().
constexpr Extractor kExtractors[] = {
    {"tree", "bottom-up, optimal for tree cost (a shared class is paid at every use)",
     [](const ExtractionProblem& p, const ExtractOptions&) { return Output(ExtractTree(p)); }},
    {"greedy", "the DAG heuristic's greedy cost-set pass alone, without its local search",
     [](const ExtractionProblem& p, const ExtractOptions&) { return Output(ExtractGreedyDag(p)); },
     /*proves_optimality=*/false, /*compared_by_default=*/false},
    {"dag", "DAG-aware heuristic: greedy cost sets and the tree choice, improved by local search",
     [](const ExtractionProblem& p, const ExtractOptions& options) {
       DagOptions dag;
       DagOptions::Report report;
       dag.deadline = options.deadline;
       dag.memory_budget_bytes = options.memory_budget_bytes;
       dag.report = &report;
       absl::StatusOr<ExtractorOutput> out = Output(ExtractDag(p, dag));
       if (out.ok()) {
         out->time_limit_hit = report.time_limit_hit;
         out->memory_limit_hit = report.memory_limit_hit;
       }
       return out;
     }},
    {"ilp", "exact DAG cost by a 0-1 integer program (CBC), within the time limit",
     [](const ExtractionProblem& p,
        const ExtractOptions& options) -> absl::StatusOr<ExtractorOutput> {
       IlpOptions ilp;
       ilp.time_limit_seconds = options.time_limit_seconds;
       ilp.memory_budget_bytes = options.memory_budget_bytes;
       if (options.deadline) {
         ilp.time_limit_seconds = std::min(
             ilp.time_limit_seconds,
             std::chrono::duration<double>(*options.deadline - std::chrono::steady_clock::now())
                 .count());
       }
       absl::StatusOr<IlpResult> r = ExtractIlp(p, ilp);
       if (!r.ok()) return r.status();
       ExtractorOutput out;
       out.choice = std::move(r->choice);
       out.optimal = r->optimal;
       out.bound = r->bound;
       out.time_limit_hit = r->time_limit_hit;
       out.memory_limit_hit = r->memory_limit_hit;
       return out;
     },
     /*proves_optimality=*/true},
};

constexpr std::string_view kDefaultExtractorName = "dag";

}  // namespace

absl::Span<const Extractor> Extractors() { return kExtractors; }

const Extractor* FindExtractor(std::string_view name) {
  for (const Extractor& e : kExtractors) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

absl::StatusOr<const Extractor*> LookupExtractor(std::string_view name) {
  if (const Extractor* e = FindExtractor(name)) return e;
  return absl::InvalidArgumentError(absl::StrCat("unknown extractor '", std::string(name),
                                                 "' (expected ", ExtractorNameList(), ")"));
}

const Extractor& DefaultExtractor() {
  static const Extractor* const kDefault = FindExtractor(kDefaultExtractorName);
  return *kDefault;
}

std::string ExtractorNameList() {
  std::string out;
  const size_t n = std::size(kExtractors);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) absl::StrAppend(&out, i + 1 == n ? " or " : ", ");
    out.append(kExtractors[i].name);
  }
  return out;
}

}  // namespace egret::extract
