// Loading optimization rules for the optimizer: rule files in the HTP
// optimization grammar (op-package C++ sources or bare .rules files,
// docs/rule-language.md) and rule texts held in memory, checked against the
// external functions the caller registers (api/functions.h).
//
//   egret::DiagnosticList diags;
//   absl::StatusOr<egret::api::Rules> rules = egret::api::Rules::Load(
//       {egret::api::RuleSource::Text("<my rules>", kRuleText)}, functions, {}, &diags);
//   if (!rules.ok()) { for (const auto& d : diags.all()) print(d.ToString()); }
//
// A rule text registers both rewrites (DEF_PACKAGE_OPTIMIZATION) and the
// implementations and costs of ops (DEF_PACKAGE_OP_AND_COST_AND_FLAGS): the
// optimizer prices a graph only from the implementations loaded with it.
#ifndef EGRET_API_RULES_H_
#define EGRET_API_RULES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/api/functions.h"
#include "egret/rules/rule_source.h"
#include "egret/support/diagnostic.h"

namespace egret::api {

using rules::RuleSource;

struct RuleOptions {
  std::vector<std::string> include_dirs;  // searched by #include, in order (-I)
  std::vector<std::string> defines;       // "NAME" or "NAME=VALUE" (-D)
};

// A loaded, checked set of rules and op implementations, bound to the
// external functions it was loaded with. Move-only.
class Rules {
 public:
  // Preprocesses, parses and checks `sources` in order. A rule that calls an
  // external function `functions` has no implementation of (built in,
  // registered or from a plugin) is kept, with one warning per such function,
  // and not run by Optimize (OptimizeResult::skipped_rules lists it); a call
  // of a function of `functions` or of an EXTERNAL_SHAPEFN annotation is held
  // to its number of operands. Every diagnostic, warnings included, goes to `diags`
  // as "file:line:col: error: ..." with the source's name as the file
  // (`diags` may be null).
  // Errors: kNotFound / kResourceExhausted when a file cannot be read;
  // kInvalidArgument when any source has an error, with the first error as
  // the message (nothing is returned then: a compiler should not optimize
  // with half its rules).
  static absl::StatusOr<Rules> Load(const std::vector<RuleSource>& sources,
                                    const Functions& functions, const RuleOptions& options,
                                    DiagnosticList* diags);

  ~Rules();
  Rules(Rules&&) noexcept;
  Rules& operator=(Rules&&) noexcept;

  // Rewrite rules (DEF_PACKAGE_OPTIMIZATION and the like), in source order.
  size_t num_rules() const;
  // Op implementations (DEF_PACKAGE_OP*), in source order.
  size_t num_implementations() const;

  struct Impl;  // egret's own representation (api/rules_internal.h)
  const Impl& impl() const { return *impl_; }

 private:
  explicit Rules(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The files of egret's shipped rule library (docs/rule-library.md: the
// implementations and costs of egret's ops, then cleanup, algebra, fusion and
// tiling rules) in `dir`, in load order. An installed egret keeps them in
// <prefix>/share/egret/rules.
std::vector<RuleSource> ShippedRuleLibrary(const std::string& dir);

}  // namespace egret::api

#endif  // EGRET_API_RULES_H_
