#include "egret/pipeline/phase_mode.h"

#include "egret/support/enum_names.h"

namespace egret {
namespace {

constexpr auto kPhaseModeNames = MakeEnumNames<PhaseMode>({
    {PhaseMode::kKeep, "keep"},
    {PhaseMode::kReseed, "reseed"},
});

}  // namespace

std::optional<PhaseMode> ParsePhaseMode(std::string_view name) {
  return kPhaseModeNames.Parse(name);
}

std::string_view PhaseModeName(PhaseMode mode) { return kPhaseModeNames.Name(mode, "reseed"); }

}  // namespace egret
