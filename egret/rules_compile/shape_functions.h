// The run-time library of C++ functions that compiled rules call by name:
// EXTERNAL_CONSTRAINT, SHAPEFN_APPLY, AUTOSPLIT_SHAPEFN_APPLY and
// EXTERNAL_REPLACE. rules/external_functions.h declares what the checker
// knows about a function (its name and parameter types, from the built-ins
// and from `// :::EXTERNAL_SHAPEFN:::` annotations); this library holds the
// implementations the rule compiler binds to those names. Library users
// register their own functions before compiling rules:
//
//   rules::FunctionLibrary lib = rules::FunctionLibrary::WithBuiltins();
//   lib.RegisterShapeFn("double_depth",
//       [](EGraph& g, absl::Span<const rules::FnArg> args) -> absl::StatusOr<Id> {
//         Dims d = g.TypeOf(g.Find(args[0].operand)).dims;
//         d.back() *= 2;
//         return g.AddShape(d);
//       });
//
// Built-ins (AUTOSPLIT shape functions, each returning a "$Shape"):
//   simple_split_start(in)              start of the piece: 0 except SPLIT_START at SPLIT_DIM
//   simple_split_size(in)               in's dims with SPLIT_SIZE at SPLIT_DIM
//   simpledim_split_start(in, d)        like simple_split_start but at dim d
//   simpledim_split_size(in, d)         like simple_split_size but at dim d
//   conv_valid_split_start(in, stride[, taps[, dilation]])
//       input rows a VALID convolution needs for output rows [start, start+size):
//       start*stride at SPLIT_DIM (taps and dilation, which egret's
//       TYPICAL_CONV_SLICE passes and the SDK's does not, are unused)
//   conv_valid_split_size(in, stride, taps[, dilation])
//       (size-1)*stride + (taps-1)*dilation + 1 at SPLIT_DIM (clamped to in's dim)
//   `stride` is a number or an operand holding the strides (a "$Shape" or a
//   constant: one value per dim of `in`, or (height, width) for a 4-d `in`).
// Built-in constraints (EXTERNAL_CONSTRAINT(fn, "x", ...)):
//   has_only_one_consumer(x)            x's class has exactly one consumer
//   has_n_consumers(x, n)               x's class has exactly n consumers
//   A consumer is a distinct e-class, other than x's own, with a live node
//   that takes x's class as an input. This approximates the graph's uses:
//   alternatives that rewrites added (a fused op beside the ops it replaces
//   in one class) are one consumer, but a consumer that a rewrite replaced
//   by a node of another class still counts, so the count can only be too
//   high, and has_only_one_consumer errs towards false. Graph outputs are
//   not consumers.
#ifndef EGRET_RULES_COMPILE_SHAPE_FUNCTIONS_H_
#define EGRET_RULES_COMPILE_SHAPE_FUNCTIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/matcher.h"
#include "egret/rules/ast.h"

namespace egret::rules {

// A scalar value of a constraint expression. `type` is kBool, kInt, kSize,
// kFloat or kDType; integers (and bools, and dtypes as their QNN numeric
// value) live in `i`, floats in `f`.
struct Scalar {
  Type type = Type::kInt;
  int64_t i = 0;
  double f = 0;

  static Scalar Bool(bool b) { return Scalar{Type::kBool, b ? 1 : 0, 0}; }
  static Scalar Int(int64_t v) { return Scalar{Type::kInt, v, 0}; }
  static Scalar Size(int64_t v) { return Scalar{Type::kSize, v, 0}; }
  static Scalar Float(double v) { return Scalar{Type::kFloat, 0, v}; }
  static Scalar OfDType(DType t) { return Scalar{Type::kDType, static_cast<int64_t>(t), 0}; }

  bool is_float() const { return type == Type::kFloat; }
  double AsFloat() const { return is_float() ? f : static_cast<double>(i); }
  // Floats truncate toward zero (NaN and out-of-range values give 0).
  int64_t AsInt() const;
  bool AsBool() const { return is_float() ? f != 0 : i != 0; }
};

// The piece an AUTOSPLIT / OP_ITER iteration is building.
struct SplitContext {
  int dim = 0;
  int64_t start = 0;
  int64_t size = 0;
};

// One argument of an external function: an operand (an e-class) or a scalar.
struct FnArg {
  bool is_operand = false;
  Id operand = kNoId;
  Scalar scalar;
};

// What EXTERNAL_REPLACE functions see: the match and the root's type.
struct ReplaceContext {
  const MatchView* match = nullptr;
  Id root = kNoId;
  TensorType root_type;
};

// EXTERNAL_CONSTRAINT(fn, "tag", exprs...): `operand` is the tag's class.
using ConstraintFn =
    std::function<bool(const EGraph& g, Id operand, absl::Span<const Scalar> args)>;
// SHAPEFN_APPLY(fn, params...): returns the class of the node it built
// (usually g.AddShape(...) or g.AddConstant(...)).
using ShapeFn = std::function<absl::StatusOr<Id>(EGraph& g, absl::Span<const FnArg> args)>;
// AUTOSPLIT_SHAPEFN_APPLY(fn, tag, params...).
using AutoSplitShapeFn = std::function<absl::StatusOr<Id>(EGraph& g, const SplitContext& split,
                                                          absl::Span<const FnArg> args)>;
// EXTERNAL_REPLACE(fn): the class to merge with the root, or nullopt to leave
// the e-graph unchanged.
using ReplaceFn =
    std::function<absl::StatusOr<std::optional<Id>>(EGraph& g, const ReplaceContext& ctx)>;

class FunctionLibrary {
 public:
  // An empty library.
  FunctionLibrary() = default;
  // The built-in AUTOSPLIT shape functions listed in the file comment.
  static FunctionLibrary WithBuiltins();

  // Each adds or replaces the function of that name and kind.
  void RegisterConstraint(std::string name, ConstraintFn fn);
  void RegisterShapeFn(std::string name, ShapeFn fn);
  void RegisterAutoSplitShapeFn(std::string name, AutoSplitShapeFn fn);
  void RegisterReplace(std::string name, ReplaceFn fn);

  // The function, or nullptr.
  const ConstraintFn* FindConstraint(std::string_view name) const;
  const ShapeFn* FindShapeFn(std::string_view name) const;
  const AutoSplitShapeFn* FindAutoSplitShapeFn(std::string_view name) const;
  const ReplaceFn* FindReplace(std::string_view name) const;

 private:
  absl::flat_hash_map<std::string, ConstraintFn> constraints_;
  absl::flat_hash_map<std::string, ShapeFn> shape_fns_;
  absl::flat_hash_map<std::string, AutoSplitShapeFn> autosplit_fns_;
  absl::flat_hash_map<std::string, ReplaceFn> replace_fns_;
};

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_SHAPE_FUNCTIONS_H_
