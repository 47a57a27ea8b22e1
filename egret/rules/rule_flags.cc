#include "egret/rules/rule_flags.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/rules/pass_groups.h"

namespace egret::rules {

absl::Span<const RunFlag> RunFlags() {
  static constexpr RunFlag kFlags[] = {
      {"relaxed_precision", "relaxed_precision_flag", kRelaxedPrecision},
      {"fold_relu", "fold_relu_flag", kFoldRelu},
  };
  return kFlags;
}

std::string RunFlagNames() {
  return absl::StrJoin(RunFlags(), ", ",
                       [](std::string* out, const RunFlag& f) { out->append(f.name); });
}

absl::StatusOr<uint32_t> ParseRunFlags(absl::Span<const std::string> names) {
  uint32_t bits = 0;
  for (const std::string& name : names) {
    uint32_t bit = 0;
    for (const RunFlag& f : RunFlags()) {
      if (name == f.name || name == f.rule_flag) bit = f.bit;
    }
    if (bit == 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("unknown rule flag '%s' (known: %s)", name, RunFlagNames()));
    }
    bits |= bit;
  }
  return bits;
}

bool RuleRuns(const Rule& rule, uint32_t enabled) {
  return (rule.flag_bits & kGatingRuleFlags & ~enabled) == 0;
}

std::string LeftOutRules::ToString() const {
  std::string out;
  if (count > 0) {
    std::string flags = absl::StrJoin(needed, " or ", [](std::string* out, const std::string& f) {
      absl::StrAppend(out, "--flag ", f);
    });
    out = absl::StrFormat("%d rule%s left out (%s %s)", count, count == 1 ? "" : "s",
                          count == 1 ? "it needs" : "they need", flags);
  }
  if (device_lowering > 0) {
    absl::StrAppend(&out, out.empty() ? "" : ", ",
                    absl::StrFormat("%d device-lowering rule%s left out (tiling and memory "
                                    "placement passes: the output is for other runtimes)",
                                    device_lowering, device_lowering == 1 ? "" : "s"));
  }
  return out;
}

LeftOutRules RulesLeftOut(const RuleSet& set, uint32_t enabled, bool device_lowering) {
  LeftOutRules out;
  uint32_t missing = 0;
  for (size_t i = 0; i < set.rules.size(); ++i) {
    if (i < set.valid.size() && !set.valid[i]) continue;
    if (RuleRuns(set.rules[i], enabled)) {
      if (!device_lowering && IsDeviceLoweringPass(set.rules[i].priority)) ++out.device_lowering;
      continue;
    }
    ++out.count;
    missing |= set.rules[i].flag_bits & kGatingRuleFlags & ~enabled;
  }
  for (const RunFlag& f : RunFlags()) {
    if (missing & f.bit) out.needed.emplace_back(f.name);
  }
  return out;
}

}  // namespace egret::rules
