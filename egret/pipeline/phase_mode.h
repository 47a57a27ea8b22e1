// What carries from one saturation phase to the next (docs/rewrite-semantics.md,
// "Phases"): the whole e-graph (kKeep), or only the best graph extracted from
// it, re-seeded into a fresh e-graph (kReseed).
#ifndef EGRET_PIPELINE_PHASE_MODE_H_
#define EGRET_PIPELINE_PHASE_MODE_H_

#include <optional>
#include <string_view>

namespace egret {

enum class PhaseMode { kKeep, kReseed };

// "keep" / "reseed"; nullopt for any other name.
std::optional<PhaseMode> ParsePhaseMode(std::string_view name);
std::string_view PhaseModeName(PhaseMode mode);

}  // namespace egret

#endif  // EGRET_PIPELINE_PHASE_MODE_H_
