#include "egret/rules_compile/shape_functions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/graph.h"

namespace egret::rules {
namespace {

template <typename Map>
const typename Map::mapped_type* FindIn(const Map& m, std::string_view name) {
  auto it = m.find(std::string(name));
  return it == m.end() ? nullptr : &it->second;
}

absl::StatusOr<Dims> OperandDims(const EGraph& g, absl::Span<const FnArg> args, size_t i,
                                 std::string_view fn) {
  if (i >= args.size() || !args[i].is_operand) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(fn), ": argument ", i, " must be an operand"));
  }
  return g.TypeOf(g.Find(args[i].operand)).dims;
}

absl::StatusOr<int64_t> IntArg(absl::Span<const FnArg> args, size_t i, std::string_view fn,
                               std::optional<int64_t> fallback = std::nullopt) {
  if (i >= args.size()) {
    if (fallback) return *fallback;
    return absl::InvalidArgumentError(absl::StrCat(std::string(fn), ": missing argument ", i));
  }
  if (args[i].is_operand) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(fn), ": argument ", i, " must be a number"));
  }
  return args[i].scalar.AsInt();
}

absl::Status CheckDim(const Dims& d, int dim, std::string_view fn) {
  if (dim < 0 || dim >= static_cast<int>(d.size())) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(fn), ": split dim ", dim,
                                                   " is outside the operand's rank ", d.size()));
  }
  return absl::OkStatus();
}

// Start of a piece along `dim` (zeros elsewhere).
absl::StatusOr<Id> StartShape(EGraph& g, const Dims& in, int dim, int64_t start,
                              std::string_view fn) {
  if (absl::Status s = CheckDim(in, dim, fn); !s.ok()) return s;
  Dims out(in.size(), 0);
  out[dim] = start;
  return g.AddShape(out);
}

// in's dims with `size` at `dim`.
absl::StatusOr<Id> SizeShape(EGraph& g, const Dims& in, int dim, int64_t size,
                             std::string_view fn) {
  if (absl::Status s = CheckDim(in, dim, fn); !s.ok()) return s;
  Dims out = in;
  out[dim] = size;
  return g.AddShape(out);
}

// The stride along `dim` from argument i: a number, or an operand holding
// strides (a "$Shape" or a constant) with one value per dim of `in`, or two
// (height, width) for a 4-d `in`, or one for every dim.
absl::StatusOr<int64_t> StrideArg(const EGraph& g, absl::Span<const FnArg> args, size_t i,
                                  const Dims& in, int dim, std::string_view fn) {
  if (i >= args.size() || !args[i].is_operand) return IntArg(args, i, fn);
  const Id cls = g.Find(args[i].operand);
  std::vector<int64_t> values;
  if (ConstTensorPtr c = g.ConstantOf(cls)) {
    for (int64_t k = 0; k < c->num_elements(); ++k) {
      values.push_back(static_cast<int64_t>(c->GetValue(k)));
    }
  } else if (!g.ClassNodesWithOp(cls, Symbol::Intern(kShapeOp)).empty()) {
    const Dims& d = g.TypeOf(cls).dims;
    values.assign(d.begin(), d.end());
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(fn), ": the stride operand is neither a constant nor a $Shape"));
  }
  if (values.size() == in.size() && dim >= 0 && dim < static_cast<int>(in.size())) {
    return values[dim];
  }
  if (values.size() == 2 && in.size() == 4 && (dim == 1 || dim == 2)) return values[dim - 1];
  if (values.size() == 1) return values[0];
  return absl::InvalidArgumentError(absl::StrCat(std::string(fn), ": a stride operand of ",
                                                 values.size(), " values does not fit split dim ",
                                                 dim, " of a rank-", in.size(), " operand"));
}

// The operand's consumers in the e-graph: the distinct classes (other than
// its own) holding a live node that takes the operand's class as an input.
size_t ConsumerCount(const EGraph& g, Id operand) {
  const Id cls = g.Find(operand);
  absl::flat_hash_set<Id> users;
  for (NodeIdx n : g.ClassParents(cls)) {
    if (!g.IsLive(n)) continue;
    const Id user = g.NodeClass(n);
    if (user == cls) continue;
    bool uses = false;
    for (Id child : g.Node(n).children) uses |= g.Find(child) == cls;
    if (uses) users.insert(user);
  }
  return users.size();
}

}  // namespace

int64_t Scalar::AsInt() const {
  if (!is_float()) return i;
  if (!std::isfinite(f) || std::fabs(f) >= 9.2e18) return 0;
  return static_cast<int64_t>(f);
}

FunctionLibrary FunctionLibrary::WithBuiltins() {
  FunctionLibrary lib;
  lib.RegisterAutoSplitShapeFn(
      "simple_split_start",
      [](EGraph& g, const SplitContext& s, absl::Span<const FnArg> a) -> absl::StatusOr<Id> {
        absl::StatusOr<Dims> in = OperandDims(g, a, 0, "simple_split_start");
        if (!in.ok()) return in.status();
        return StartShape(g, *in, s.dim, s.start, "simple_split_start");
      });
  lib.RegisterAutoSplitShapeFn(
      "simple_split_size",
      [](EGraph& g, const SplitContext& s, absl::Span<const FnArg> a) -> absl::StatusOr<Id> {
        absl::StatusOr<Dims> in = OperandDims(g, a, 0, "simple_split_size");
        if (!in.ok()) return in.status();
        return SizeShape(g, *in, s.dim, s.size, "simple_split_size");
      });
  lib.RegisterAutoSplitShapeFn(
      "simpledim_split_start",
      [](EGraph& g, const SplitContext& s, absl::Span<const FnArg> a) -> absl::StatusOr<Id> {
        absl::StatusOr<Dims> in = OperandDims(g, a, 0, "simpledim_split_start");
        if (!in.ok()) return in.status();
        absl::StatusOr<int64_t> d = IntArg(a, 1, "simpledim_split_start");
        if (!d.ok()) return d.status();
        return StartShape(g, *in, static_cast<int>(*d), s.start, "simpledim_split_start");
      });
  lib.RegisterAutoSplitShapeFn(
      "simpledim_split_size",
      [](EGraph& g, const SplitContext& s, absl::Span<const FnArg> a) -> absl::StatusOr<Id> {
        absl::StatusOr<Dims> in = OperandDims(g, a, 0, "simpledim_split_size");
        if (!in.ok()) return in.status();
        absl::StatusOr<int64_t> d = IntArg(a, 1, "simpledim_split_size");
        if (!d.ok()) return d.status();
        return SizeShape(g, *in, static_cast<int>(*d), s.size, "simpledim_split_size");
      });
  lib.RegisterAutoSplitShapeFn(
      "conv_valid_split_start",
      [](EGraph& g, const SplitContext& s, absl::Span<const FnArg> a) -> absl::StatusOr<Id> {
        absl::StatusOr<Dims> in = OperandDims(g, a, 0, "conv_valid_split_start");
        if (!in.ok()) return in.status();
        absl::StatusOr<int64_t> stride = StrideArg(g, a, 1, *in, s.dim, "conv_valid_split_start");
        if (!stride.ok()) return stride.status();
        // Operands 2 and 3 (taps, dilation) do not move the start.
        return StartShape(g, *in, s.dim, s.start * *stride, "conv_valid_split_start");
      });
  lib.RegisterAutoSplitShapeFn(
      "conv_valid_split_size",
      [](EGraph& g, const SplitContext& s, absl::Span<const FnArg> a) -> absl::StatusOr<Id> {
        absl::StatusOr<Dims> in = OperandDims(g, a, 0, "conv_valid_split_size");
        if (!in.ok()) return in.status();
        if (absl::Status st = CheckDim(*in, s.dim, "conv_valid_split_size"); !st.ok()) return st;
        absl::StatusOr<int64_t> stride = StrideArg(g, a, 1, *in, s.dim, "conv_valid_split_size");
        absl::StatusOr<int64_t> taps = IntArg(a, 2, "conv_valid_split_size");
        absl::StatusOr<int64_t> dil = IntArg(a, 3, "conv_valid_split_size", 1);
        if (!stride.ok()) return stride.status();
        if (!taps.ok()) return taps.status();
        if (!dil.ok()) return dil.status();
        int64_t size = (s.size - 1) * *stride + (*taps - 1) * *dil + 1;
        int64_t avail = (*in)[s.dim] - s.start * *stride;
        return SizeShape(g, *in, s.dim, std::max<int64_t>(0, std::min(size, avail)),
                         "conv_valid_split_size");
      });
  lib.RegisterConstraint("has_only_one_consumer",
                         [](const EGraph& g, Id operand, absl::Span<const Scalar>) {
                           return ConsumerCount(g, operand) == 1;
                         });
  lib.RegisterConstraint(
      "has_n_consumers", [](const EGraph& g, Id operand, absl::Span<const Scalar> args) {
        return !args.empty() && static_cast<int64_t>(ConsumerCount(g, operand)) == args[0].AsInt();
      });
  return lib;
}

void FunctionLibrary::RegisterConstraint(std::string name, ConstraintFn fn) {
  constraints_[std::move(name)] = std::move(fn);
}
void FunctionLibrary::RegisterShapeFn(std::string name, ShapeFn fn) {
  shape_fns_[std::move(name)] = std::move(fn);
}
void FunctionLibrary::RegisterAutoSplitShapeFn(std::string name, AutoSplitShapeFn fn) {
  autosplit_fns_[std::move(name)] = std::move(fn);
}
void FunctionLibrary::RegisterReplace(std::string name, ReplaceFn fn) {
  replace_fns_[std::move(name)] = std::move(fn);
}

const ConstraintFn* FunctionLibrary::FindConstraint(std::string_view name) const {
  return FindIn(constraints_, name);
}
const ShapeFn* FunctionLibrary::FindShapeFn(std::string_view name) const {
  return FindIn(shape_fns_, name);
}
const AutoSplitShapeFn* FunctionLibrary::FindAutoSplitShapeFn(std::string_view name) const {
  return FindIn(autosplit_fns_, name);
}
const ReplaceFn* FunctionLibrary::FindReplace(std::string_view name) const {
  return FindIn(replace_fns_, name);
}

}  // namespace egret::rules
