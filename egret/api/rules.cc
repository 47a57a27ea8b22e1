#include "egret/api/rules.h"

#include <utility>

#include "egret/api/functions_internal.h"
#include "egret/api/rules_internal.h"
#include "egret/rules_compile/function_binding.h"

namespace egret::api {

absl::StatusOr<Rules> Rules::Load(const std::vector<RuleSource>& sources,
                                  const Functions& functions, const RuleOptions& options,
                                  DiagnosticList* diags) {
  DiagnosticList local;
  if (diags == nullptr) diags = &local;
  rules::PreprocessOptions pp;
  pp.include_dirs = options.include_dirs;
  pp.defines = options.defines;
  const size_t first = diags->all().size();
  absl::StatusOr<rules::RuleSet> set =
      rules::LoadRuleSources(sources, functions.impl().declared, pp, diags);
  if (!set.ok()) return set.status();
  rules::WarnSkippedRules(rules::RulesWithUnboundCalls(*set, functions.impl().library), diags);
  for (size_t i = first; i < diags->all().size(); ++i) {
    const Diagnostic& d = diags->all()[i];
    if (d.severity == Severity::kError) {
      return absl::InvalidArgumentError(FormatDiagnostic(d.loc, d.severity, d.message));
    }
  }
  auto impl = std::make_unique<Impl>();
  impl->set = *std::move(set);
  impl->functions = functions.impl().library;
  return Rules(std::move(impl));
}

Rules::Rules(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Rules::~Rules() = default;
Rules::Rules(Rules&&) noexcept = default;
Rules& Rules::operator=(Rules&&) noexcept = default;

size_t Rules::num_rules() const { return impl_->set.rules.size(); }
size_t Rules::num_implementations() const { return impl_->set.ops.size(); }

std::vector<RuleSource> ShippedRuleLibrary(const std::string& dir) {
  std::vector<RuleSource> sources;
  for (std::string& path : rules::ShippedRuleFiles(dir)) {
    sources.push_back(RuleSource::File(std::move(path)));
  }
  return sources;
}

}  // namespace egret::api
