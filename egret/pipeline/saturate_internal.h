// Equality saturation for Optimize, phase by phase (not installed): one phase
// per distinct rule priority, in ascending order, each with the extra
// rewrites (built-in equivalences, constant folding); the egraph runner runs
// the phases, and its phase hook reports progress and, in PhaseMode::kReseed,
// re-seeds the next phase. docs/rewrite-semantics.md, "Phases".
#ifndef EGRET_PIPELINE_SATURATE_INTERNAL_H_
#define EGRET_PIPELINE_SATURATE_INTERNAL_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/egraph/rewrite.h"
#include "egret/pipeline/optimize.h"
#include "egret/pipeline/optimize_result.h"
#include "egret/pipeline/seed_internal.h"
#include "egret/rules_compile/compiler.h"

namespace egret {

// Replaces `s` with a fresh seeding of the best graph extracted from it and
// returns that graph's DAG cost (+inf when not computable).
using ReseedFn = std::function<absl::StatusOr<double>(Seeded& s)>;

struct SaturateRequest {
  const std::vector<rules::CompiledRule>* rules = nullptr;  // grouped into phases by priority
  absl::Span<const Rewrite> extra;                          // added to every phase
  // options.limits (the time limit replaced by `seconds`), options.progress
  // and options.phase_mode are read.
  const OptimizeOptions* options = nullptr;
  double seconds = 0;  // time left for saturation and re-seeding
  // Called between phases in PhaseMode::kReseed (unless the run has stopped).
  ReseedFn reseed;
};

struct Saturated {
  SaturationSummary summary;
  double saturate_ms = 0;  // the phases, without re-seeding
  double reseed_ms = 0;    // extracting and re-seeding between phases
};

// Saturates `s` (re-seeded between phases in kReseed mode). Fails only with
// the error of a re-seeding.
absl::StatusOr<Saturated> Saturate(Seeded& s, const SaturateRequest& request);

}  // namespace egret

#endif  // EGRET_PIPELINE_SATURATE_INTERNAL_H_
