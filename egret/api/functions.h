// External functions for rules, as a compiler registers them: the C++ code
// that a rule calls by name with EXTERNAL_CONSTRAINT, SHAPEFN_APPLY or
// EXTERNAL_REPLACE. Registering a function both declares it to the rule
// checker (so a rule that calls it loads without an EXTERNAL_SHAPEFN
// annotation comment) and supplies its implementation to the optimizer.
//
//   egret::api::Functions fns;
//   fns.AddConstraint("is_narrow", [](const egret::api::Operand& x,
//                                     absl::Span<const double> args) {
//     return x.type.dim(3) <= args[0];
//   });
//   // a rule:  EXTERNAL_CONSTRAINT(is_narrow, "x", 64)
//
// A function sees only values (an operand's type and, for a constant, its
// data) and returns values; egret adds what it returns to the e-graph. The
// built-in AUTOSPLIT shape functions (simple_split_start, ...) are always
// present; a registration of the same name replaces one of this set.
//
// Functions are called during optimization, possibly many times per rule and
// in any order; they must not keep state that changes their answer.
#ifndef EGRET_API_FUNCTIONS_H_
#define EGRET_API_FUNCTIONS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/tensor.h"
#include "egret/graph/tensor_type.h"

namespace egret::api {

// One value of the graph being rewritten, as an external function sees it.
struct Operand {
  TensorType type;
  // The value's data when it is a constant ("$Const"); null otherwise. A
  // shape parameter ("$Shape") has no data: its dims are `type.dims`.
  std::shared_ptr<const Tensor> constant;
};

// One argument of a SHAPEFN_APPLY function: an operand (a quoted tag or a
// nested construction in the rule) or a scalar expression.
struct Arg {
  bool is_operand = false;
  Operand operand;    // when is_operand
  double scalar = 0;  // otherwise
};

// What a SHAPEFN_APPLY function builds: a "$Shape" parameter with these dims,
// or a "$Const" holding this tensor.
using Built = std::variant<Dims, Tensor>;

// EXTERNAL_CONSTRAINT(name, "tag", exprs...): `operand` is the value the tag
// names, `args` the expressions' values (integers, bools as 0/1 and dtypes as
// their QNN number, all exactly representable below 2^53). True lets the
// rule fire.
using ConstraintFn = std::function<bool(const Operand& operand, absl::Span<const double> args)>;
// SHAPEFN_APPLY(name, params...): the parameter node to build. An error makes
// this application of the rule fail; it is counted among the rule's build
// failures (Result::rule_issues) and the e-graph is left unchanged.
using ShapeFn = std::function<absl::StatusOr<Built>(absl::Span<const Arg> args)>;
// EXTERNAL_REPLACE(name), the replacement of a rule: a constant to merge with
// the matched root (its type must be the root's), or nullopt to leave the
// e-graph unchanged. Errors are counted as for ShapeFn.
using ReplaceFn = std::function<absl::StatusOr<std::optional<Tensor>>(const Operand& root)>;

// A set of external functions by name. Copyable; cheap to copy when the
// functions' captures are.
class Functions {
 public:
  Functions();
  ~Functions();
  Functions(const Functions&);
  Functions& operator=(const Functions&);
  Functions(Functions&&) noexcept;
  Functions& operator=(Functions&&) noexcept;

  // Each adds or replaces the function `name` (a C identifier). A constraint
  // takes any number of expressions; a shape function exactly `num_args`
  // operands, which the rule checker enforces.
  void AddConstraint(std::string name, ConstraintFn fn);
  void AddShapeFn(std::string name, int num_args, ShapeFn fn);
  void AddReplace(std::string name, ReplaceFn fn);

  // Loads a function plugin: a shared library built against the C ABI of
  // egret/rules_compile/plugin_abi.h (docs/plugins.md), whose functions are added as
  // by the Add* calls (replacing those of the same name and kind). Errors are
  // one line "<path>: error: ..." (kNotFound for a missing file,
  // kInvalidArgument otherwise); nothing is added then.
  absl::Status LoadPlugin(const std::string& path);

  struct Impl;  // egret's own representation (api/functions_internal.h)
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace egret::api

#endif  // EGRET_API_FUNCTIONS_H_
