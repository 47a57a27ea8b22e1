#include "egret/extract/extractor.h"

#include <utility>

namespace egret::extract {

absl::StatusOr<ExtractResult> Extract(const ExtractionProblem& p, const Extractor& extractor,
                                      const ExtractOptions& options) {
  absl::StatusOr<ExtractorOutput> r = extractor.run(p, options);
  if (!r.ok()) return r.status();
  ExtractResult out;
  out.choice = std::move(r->choice);
  out.optimal = r->optimal;
  out.bound = r->bound;
  out.time_limit_hit = r->time_limit_hit;
  out.memory_limit_hit = r->memory_limit_hit;
  out.tree_cost = TreeCost(p, out.choice);
  out.dag_cost = DagCost(p, out.choice);
  return out;
}

}  // namespace egret::extract
