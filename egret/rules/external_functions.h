// External C++ functions that rules call by name (EXTERNAL_CONSTRAINT,
// EXTERNAL_REPLACE, SHAPEFN_APPLY, AUTOSPLIT_SHAPEFN_APPLY): the built-in ones
// egret knows, plus those declared in rule files by an annotation comment
//   // :::EXTERNAL_SHAPEFN::: { <return_type> name(<param types>); }
//
// Parameter vocabulary of an annotation (docs/rule-language.md): the context
// parameters `split` (the AUTOSPLIT piece), `Split_Context`, `Replacement`
// and `OpDef` (with any const/&/namespace decoration) are supplied by the
// framework and are not rule operands; every other parameter (`op`, `OpRef`,
// `int`, `float`, ...) is one rule operand.
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
  // Built-ins: how many trailing rule operands may be left out (e.g. the
  // dilation of conv_valid_split_size).
  size_t optional_operands = 0;
  // Other operand counts a call may have: those of annotations that
  // re-declared a built-in with another parameter list (the SDK's headers
  // declare conv_valid_split_start(split, op, op)).
  std::vector<size_t> also_accepts;
  SourceLocation loc;  // of the annotation (empty for built-ins)

  // How many rule operands the function takes: params minus the leading
  // Replacement/Split_Context/OpDef context parameters; nullopt if variadic.
  std::optional<size_t> RuleArity() const;
  // Whether a call with `n` rule operands is well-formed: any n when
  // variadic, else RuleArity() minus up to optional_operands, or one of
  // also_accepts.
  bool AcceptsArity(size_t n) const;
  // The accepted counts for a message: "3", "2 to 4", "1 or 3".
  std::string ArityText() const;
};

// Whether an annotation or C++ parameter type is a context parameter (not a
// rule operand): split, Split_Context, Replacement, OpDef.
bool IsContextParam(std::string_view type);

class ExternalFunctionRegistry {
 public:
  // A registry holding the built-ins: simple_split_start/size,
  // simpledim_split_start/size, conv_valid_split_start/size.
  static ExternalFunctionRegistry WithBuiltins();

  // Adds or replaces a function by name.
  void Register(ExternalFunction fn);
  // Parses the text of one annotation (what is between the braces; one or
  // more declarations "ret name(types);") and registers each function. A
  // malformed declaration is an error at `loc`. An annotation that
  // re-declares a built-in does not replace it: the built-in stays (with its
  // implementation) and also accepts the annotation's number of operands.
  void AddAnnotation(const SourceLocation& loc, std::string_view text, DiagnosticList* diags);

  const ExternalFunction* Find(std::string_view name) const;
  const absl::flat_hash_map<std::string, ExternalFunction>& all() const { return fns_; }

 private:
  absl::flat_hash_map<std::string, ExternalFunction> fns_;
};

}  // namespace egret::rules

#endif  // EGRET_RULES_EXTERNAL_FUNCTIONS_H_
