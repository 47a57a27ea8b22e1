#include "egret/extract/extractor.h"

#include <utility>

#include "egret/extract/dag_extractor.h"
#include "egret/extract/ilp_extractor.h"
#include "egret/extract/tree_extractor.h"

namespace egret::extract {

std::optional<ExtractorKind> ParseExtractorKind(std::string_view name) {
  if (name == "tree") return ExtractorKind::kTree;
  if (name == "dag") return ExtractorKind::kDag;
  if (name == "ilp") return ExtractorKind::kIlp;
  return std::nullopt;
}

std::string_view ExtractorName(ExtractorKind kind) {
  switch (kind) {
    case ExtractorKind::kTree:
      return "tree";
    case ExtractorKind::kDag:
      return "dag";
    case ExtractorKind::kIlp:
      return "ilp";
  }
  return "?";
}

absl::StatusOr<ExtractResult> Extract(const ExtractionProblem& p, const ExtractOptions& options) {
  ExtractResult out;
  switch (options.kind) {
    case ExtractorKind::kTree: {
      absl::StatusOr<Choice> c = ExtractTree(p);
      if (!c.ok()) return c.status();
      out.choice = *std::move(c);
      break;
    }
    case ExtractorKind::kDag: {
      absl::StatusOr<Choice> c = ExtractDag(p);
      if (!c.ok()) return c.status();
      out.choice = *std::move(c);
      break;
    }
    case ExtractorKind::kIlp: {
      IlpOptions ilp;
      ilp.time_limit_seconds = options.ilp_time_limit_seconds;
      absl::StatusOr<IlpResult> r = ExtractIlp(p, ilp);
      if (!r.ok()) return r.status();
      out.choice = std::move(r->choice);
      out.optimal = r->optimal;
      out.bound = r->bound;
      break;
    }
  }
  out.tree_cost = TreeCost(p, out.choice);
  out.dag_cost = DagCost(p, out.choice);
  return out;
}

}  // namespace egret::extract
