// External C++ functions that rules call by name (EXTERNAL_CONSTRAINT,
// EXTERNAL_REPLACE, SHAPEFN_APPLY, AUTOSPLIT_SHAPEFN_APPLY): the built-in ones
// egret knows, plus those declared in rule files by an annotation comment
//   // :::EXTERNAL_SHAPEFN::: { <return_type> name(<param types>); }
#ifndef EGRET_RULES_EXTERNAL_FUNCTIONS_H_
#define EGRET_RULES_EXTERNAL_FUNCTIONS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

struct ExternalFunction {
  std::string name;
  std::string return_type;
  // Parameter types as written, including the leading context parameters
  // (Replacement &, Split_Context const &). Unused when `variadic`.
  std::vector<std::string> params;
  bool variadic = false;  // declared with "..." or arity unknown
  bool builtin = false;
  SourceLocation loc;  // of the annotation (empty for built-ins)

  // How many rule operands the function takes: params minus the leading
  // Replacement/Split_Context/OpDef context parameters; nullopt if variadic.
  std::optional<size_t> RuleArity() const;
};

class ExternalFunctionRegistry {
 public:
  // A registry holding the built-ins: simple_split_start/size,
  // simpledim_split_start/size, conv_valid_split_start/size.
  static ExternalFunctionRegistry WithBuiltins();

  // Adds or replaces a function by name.
  void Register(ExternalFunction fn);
  // Parses the text of one annotation (what is between the braces; one or
  // more declarations "ret name(types);") and registers each function. A
  // malformed declaration is an error at `loc`.
  void AddAnnotation(const SourceLocation& loc, std::string_view text, DiagnosticList* diags);

  const ExternalFunction* Find(std::string_view name) const;
  const absl::flat_hash_map<std::string, ExternalFunction>& all() const { return fns_; }

 private:
  absl::flat_hash_map<std::string, ExternalFunction> fns_;
};

}  // namespace egret::rules

#endif  // EGRET_RULES_EXTERNAL_FUNCTIONS_H_
