#include "egret/graph/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/shape_functions_internal.h"
#include "egret/support/status_macros.h"

namespace egret {
namespace shape_internal {
namespace {

using Operands = absl::Span<const OperandInfo>;
using Types = std::vector<TensorType>;

std::string DimsStr(const Dims& d) { return absl::StrCat("[", absl::StrJoin(d, ","), "]"); }

}  // namespace

// Everything one shape function needs, plus error helpers.
struct ShapeContext {
  std::string_view op;  // base op name
  const OpDef& def;     // the op's row
  Operands in;
  const InferOptions& options;

  absl::Status Error(std::string_view msg) const {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s", op, msg));
  }
  int size() const { return static_cast<int>(in.size()); }
  bool Has(int i) const { return i < size(); }
  const TensorType& T(int i) const { return *in[i].type; }
  const Dims& D(int i) const { return in[i].type->dims; }
  std::string What(int i) const { return absl::StrFormat("%s %s", op, def.InputName(i)); }

  absl::StatusOr<std::vector<int64_t>> Ints(int i) const { return ReadIntParam(in[i], What(i)); }
  // An integer vector parameter of exactly n values.
  absl::StatusOr<std::vector<int64_t>> IntsN(int i, size_t n) const {
    auto v = Ints(i);
    if (!v.ok()) return v.status();
    if (v->size() != n) {
      return Error(
          absl::StrFormat("%s must hold %d values, got %d", def.InputName(i), n, v->size()));
    }
    return v;
  }
  absl::StatusOr<int64_t> Int(int i) const { return ReadIntScalarParam(in[i], What(i)); }
  absl::StatusOr<int64_t> IntOr(int i, int64_t dflt) const {
    return Has(i) ? Int(i) : absl::StatusOr<int64_t>(dflt);
  }
  absl::StatusOr<double> Float(int i) const { return ReadFloatScalarParam(in[i], What(i)); }

  absl::Status RequireRank(int i, int rank) const {
    if (T(i).rank() != rank) {
      return Error(
          absl::StrFormat("%s must have rank %d, got %s", def.InputName(i), rank, T(i).ToString()));
    }
    return absl::OkStatus();
  }

  // The output type with `dims` whose encoding comes from declared output k
  // or, by default, from data input `from` (see the header's rule).
  absl::StatusOr<TensorType> Out(Dims dims, int from, size_t k = 0) const;
  // Out for a data input quantized per axis and no declared type.
  absl::StatusOr<TensorType> PerAxisOut(Dims dims, const TensorType& src) const;
  // The output type with `dims` for an output whose dtype is the op's own
  // rather than its input's (Bool comparisons, integer indices): declared
  // output k's dtype when one is declared, which must be in `allowed`, else
  // `dflt`. The encoding is the plain one (zero_offset 0, stepsize 1).
  absl::StatusOr<TensorType> OutOfType(Dims dims, DType dflt, std::initializer_list<DType> allowed,
                                       size_t k = 0) const;
};

namespace {

int Family(DType t) {
  if (IsFloat(t)) return 1;
  if (IsQuantized(t)) return 2;
  return 100 + static_cast<int>(t);
}

}  // namespace

absl::StatusOr<TensorType> ShapeContext::Out(Dims dims, int from, size_t k) const {
  const TensorType* declared = nullptr;
  if (k < options.declared.size() && options.declared[k].dtype != DType::kMulti &&
      options.declared[k].dtype != DType::kUnknown) {
    declared = &options.declared[k];
  }
  const TensorType& src = T(from);
  if (declared == nullptr) {
    if (op == "Cast" || op == "QNN_Cast" || op == "Quantize") {
      return Error("needs a declared output type (the dtype or encoding to convert to)");
    }
    if (op == "Dequantize") return TensorType(DType::kFloat32, std::move(dims));
    if (src.per_axis) return PerAxisOut(std::move(dims), src);
    return TensorType(src.dtype, std::move(dims), src.zero_offset, src.stepsize);
  }
  DType dt = declared->dtype;
  if (!IsConcrete(dt)) {
    return Error(absl::StrFormat("declared output dtype %s holds no data", DTypeName(dt)));
  }
  bool ok;
  if (op == "Cast" || op == "QNN_Cast") {
    ok = true;
  } else if (op == "Quantize") {
    ok = IsQuantized(dt);
  } else if (op == "Dequantize") {
    ok = IsFloat(dt);
  } else {
    ok = Family(dt) == Family(src.dtype);
  }
  if (!ok) {
    return Error(absl::StrFormat("declared output dtype %s does not fit input %s (%s)",
                                 DTypeName(dt), def.InputName(from), src.ToString()));
  }
  TensorType out(dt, std::move(dims), declared->zero_offset, declared->stepsize);
  if (declared->per_axis && IsQuantized(dt)) {
    const AxisQuantization& q = *declared->per_axis;
    absl::Status st = out.SetPerAxis(q.axis, q.stepsizes, q.zero_offsets, q.block_size);
    if (!st.ok()) return Error(absl::StrCat("declared output type: ", st.message()));
  }
  return out;
}

absl::StatusOr<TensorType> ShapeContext::PerAxisOut(Dims dims, const TensorType& src) const {
  // An op that keeps every element where it is keeps the channels (Transpose
  // moves the axis itself, in InferTranspose); anything else would need to
  // know where each channel went, so it must be told the output type.
  if (dims != src.dims) {
    return Error(absl::StrFormat("input %s is quantized per axis; %s needs a declared output type",
                                 src.ToString(), op));
  }
  TensorType t = src;
  t.dims = std::move(dims);
  return t;
}

absl::StatusOr<TensorType> ShapeContext::OutOfType(Dims dims, DType dflt,
                                                   std::initializer_list<DType> allowed,
                                                   size_t k) const {
  DType dt = dflt;
  if (k < options.declared.size() && options.declared[k].dtype != DType::kMulti &&
      options.declared[k].dtype != DType::kUnknown) {
    dt = options.declared[k].dtype;
    if (std::find(allowed.begin(), allowed.end(), dt) == allowed.end()) {
      std::string names;
      for (DType a : allowed) {
        absl::StrAppend(&names, names.empty() ? "" : " or ", std::string(DTypeName(a)));
      }
      return Error(
          absl::StrFormat("declared output %d dtype %s is not %s", k, DTypeName(dt), names));
    }
  }
  return TensorType(dt, std::move(dims));
}

namespace {

absl::StatusOr<Types> One(absl::StatusOr<TensorType> t) {
  if (!t.ok()) return t.status();
  return Types{*std::move(t)};
}

// ---------------------------------------------------------------------------
// Convolutions and matrix products.

// The optional fused activation clamp of Conv2d, DepthWiseConv2d and
// FullyConnected: inputs `first` (act_min) and `first + 1` (act_max), given
// together or not at all, with act_min <= act_max.
absl::Status CheckActivationClamp(const ShapeContext& c, int first) {
  if (!c.Has(first)) return absl::OkStatus();
  if (!c.Has(first + 1)) return c.Error("act_min is given without act_max");
  EGRET_ASSIGN_OR_RETURN(auto lo, c.Float(first));
  EGRET_ASSIGN_OR_RETURN(auto hi, c.Float(first + 1));
  if (lo > hi) return c.Error(absl::StrCat("act_min ", lo, " is greater than act_max ", hi));
  return absl::OkStatus();
}

}  // namespace

ShapeResult InferConv(const ShapeContext& c) {
  EGRET_RETURN_IF_ERROR(c.RequireRank(0, 4));
  EGRET_RETURN_IF_ERROR(c.RequireRank(1, 4));
  const Dims& x = c.D(0);
  const Dims& f = c.D(1);
  const int64_t cin = x[3];
  const int64_t fh = f[0], fw = f[1];
  const bool transposed = c.op == "TransposeConv2d";
  int64_t cout = f[3];
  if (c.op == "DepthWiseConv2d") {
    if (f[2] != 1) {
      return c.Error(
          absl::StrFormat("filter %s must have in-depth 1 ([fh,fw,1,out_depth])", DimsStr(f)));
    }
    if (cin == 0 || cout % cin != 0) {
      return c.Error(absl::StrFormat("filter out-depth %d is not a multiple of the input depth %d",
                                     cout, cin));
    }
  } else {
    if (f[2] == 0 || cin % f[2] != 0) {
      return c.Error(
          absl::StrFormat("filter in-depth %d does not divide input depth %d", f[2], cin));
    }
    int64_t groups = cin / f[2];
    if (cout % groups != 0) {
      return c.Error(
          absl::StrFormat("filter out-depth %d is not a multiple of the %d groups", cout, groups));
    }
  }
  if (c.T(2).rank() != 1 || c.D(2)[0] != cout) {
    return c.Error(absl::StrFormat("bias must be [%d] (the filter's out-depth), got %s", cout,
                                   c.T(2).ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(auto stride, c.IntsN(3, 4));
  EGRET_ASSIGN_OR_RETURN(auto pads, c.IntsN(4, 4));
  std::vector<int64_t> dilation = {1, 1, 1, 1};
  if (c.Has(5)) {
    EGRET_ASSIGN_OR_RETURN(auto d, c.IntsN(5, 4));
    dilation = d;
  }
  std::vector<int64_t> out_pad = {0, 0, 0, 0};
  if (!transposed) EGRET_RETURN_IF_ERROR(CheckActivationClamp(c, 6));
  if (transposed && c.Has(6)) {
    EGRET_ASSIGN_OR_RETURN(auto p, c.IntsN(6, 4));
    out_pad = p;
  }
  for (int i = 1; i <= 2; ++i) {
    if (stride[i] <= 0) return c.Error(absl::StrCat("stride ", stride[i], " must be positive"));
    if (dilation[i] <= 0) {
      return c.Error(absl::StrCat("dilation ", dilation[i], " must be positive"));
    }
    if (out_pad[i] < 0) return c.Error("output_padding must not be negative");
  }
  for (int64_t p : pads) {
    if (p < 0) return c.Error(absl::StrCat("pads must not be negative, got ", p));
  }
  // Saturating: strides, pads and dilations come from the file.
  const int64_t eff_h = SaturatingAdd(SaturatingMul(fh - 1, dilation[1]), 1);
  const int64_t eff_w = SaturatingAdd(SaturatingMul(fw - 1, dilation[2]), 1);
  int64_t oh, ow;
  if (transposed) {
    auto extent = [](int64_t in, int64_t stride, int64_t eff, int64_t lo, int64_t hi,
                     int64_t extra) {
      int64_t e = SaturatingAdd(SaturatingMul(in - 1, stride), eff);
      return SaturatingAdd(SaturatingSub(SaturatingSub(e, lo), hi), extra);
    };
    oh = extent(x[1], stride[1], eff_h, pads[0], pads[1], out_pad[1]);
    ow = extent(x[2], stride[2], eff_w, pads[2], pads[3], out_pad[2]);
    if (oh <= 0 || ow <= 0) {
      return c.Error(absl::StrFormat("pads remove the whole output (%dx%d)", oh, ow));
    }
  } else {
    const int64_t ph = SaturatingAdd(SaturatingAdd(x[1], pads[0]), pads[1]);
    const int64_t pw = SaturatingAdd(SaturatingAdd(x[2], pads[2]), pads[3]);
    if (ph < eff_h || pw < eff_w) {
      return c.Error(absl::StrFormat(
          "padded input %dx%d is smaller than the (dilated) filter %dx%d", ph, pw, eff_h, eff_w));
    }
    oh = (ph - eff_h) / stride[1] + 1;
    ow = (pw - eff_w) / stride[2] + 1;
  }
  return One(c.Out({x[0], oh, ow, cout}, 0));
}

ShapeResult InferFullyConnected(const ShapeContext& c) {
  if (c.T(0).rank() < 1) return c.Error("in must have rank >= 1");
  EGRET_RETURN_IF_ERROR(c.RequireRank(1, 2));
  const Dims& x = c.D(0);
  const Dims& w = c.D(1);
  if (x.back() != w[1]) {
    return c.Error(absl::StrFormat("in depth %d does not match weights %s ([units, in_depth])",
                                   x.back(), DimsStr(w)));
  }
  if (c.Has(2) && (c.T(2).rank() != 1 || c.D(2)[0] != w[0])) {
    return c.Error(absl::StrFormat("bias must be [%d], got %s", w[0], c.T(2).ToString()));
  }
  EGRET_RETURN_IF_ERROR(CheckActivationClamp(c, 3));
  Dims out(x.begin(), x.end() - 1);
  out.push_back(w[0]);
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferMatMul(const ShapeContext& c) {
  const Dims& a = c.D(0);
  const Dims& b = c.D(1);
  if (a.size() < 2 || b.size() < 2) {
    return c.Error(
        absl::StrFormat("a and b must have rank >= 2, got %s and %s", DimsStr(a), DimsStr(b)));
  }
  if (a.back() != b[b.size() - 2]) {
    return c.Error(absl::StrFormat("inner dims differ: a %s, b %s", DimsStr(a), DimsStr(b)));
  }
  Dims ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  auto batch = BroadcastDims(ab, bb);
  if (!batch.ok()) return c.Error(absl::StrCat("batch dims: ", batch.status().message()));
  Dims out = *batch;
  out.push_back(a[a.size() - 2]);
  out.push_back(b.back());
  return One(c.Out(std::move(out), 0));
}

// ---------------------------------------------------------------------------
// Elementwise.

ShapeResult InferBinary(const ShapeContext& c) {
  auto d = BroadcastDims(c.D(0), c.D(1));
  if (!d.ok()) return c.Error(std::string(d.status().message()));
  return One(c.Out(*std::move(d), 0));
}

ShapeResult InferUnary(const ShapeContext& c) {
  // Scalar parameters are checked here so that a bad graph fails early.
  if (c.op == "ReluX") {
    EGRET_RETURN_IF_ERROR(c.Float(1).status());
  } else if (c.op == "ReluMinMax") {
    EGRET_ASSIGN_OR_RETURN(auto lo, c.Float(1));
    EGRET_ASSIGN_OR_RETURN(auto hi, c.Float(2));
    if (lo > hi) return c.Error(absl::StrCat("min ", lo, " is greater than max ", hi));
  } else if (c.op == "HardSigmoid") {
    EGRET_RETURN_IF_ERROR(c.Float(1).status());
    EGRET_RETURN_IF_ERROR(c.Float(2).status());
  } else if (c.op == "Gelu") {
    EGRET_ASSIGN_OR_RETURN(auto approximate, c.IntOr(1, 0));
    if (approximate != 0 && approximate != 1) {
      return c.Error(absl::StrCat("approximate must be 0 (erf) or 1 (tanh), got ", approximate));
    }
  }
  return One(c.Out(c.D(0), 0));
}

// ---------------------------------------------------------------------------
// Normalization and reductions.

ShapeResult InferSoftmax(const ShapeContext& c) {
  int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis, c.IntOr(1, -1));
  EGRET_RETURN_IF_ERROR(NormalizeAxis(axis, rank, c.What(1)).status());
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferLayerNorm(const ShapeContext& c) {
  int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.IntOr(4, -1));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(4)));
  EGRET_ASSIGN_OR_RETURN(auto eps, c.Float(3));
  if (!(eps >= 0)) return c.Error("epsilon must not be negative");
  Dims norm(c.D(0).begin() + axis, c.D(0).end());
  for (int i = 1; i <= 2; ++i) {
    auto b = BroadcastDims(c.D(i), norm);
    if (!b.ok() || *b != norm || c.T(i).rank() > static_cast<int>(norm.size())) {
      return c.Error(absl::StrFormat("%s %s does not broadcast to the normalized dims %s",
                                     c.def.InputName(i), DimsStr(c.D(i)), DimsStr(norm)));
    }
  }
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferBatchnorm(const ShapeContext& c) {
  if (c.T(0).rank() < 1) return c.Error("x must have rank >= 1");
  int64_t ch = c.D(0).back();
  for (int i = 1; i <= 2; ++i) {
    if (c.T(i).rank() != 1 || c.D(i)[0] != ch) {
      return c.Error(absl::StrFormat("%s must be [%d] (the channel depth), got %s",
                                     c.def.InputName(i), ch, c.T(i).ToString()));
    }
  }
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferLrn(const ShapeContext& c) {
  EGRET_RETURN_IF_ERROR(c.RequireRank(0, 4));
  EGRET_ASSIGN_OR_RETURN(auto size, c.Int(1));
  if (size < 1) return c.Error(absl::StrCat("size ", size, " must be positive"));
  for (int i = 2; i <= 4; ++i) EGRET_RETURN_IF_ERROR(c.Float(i).status());
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferReduce(const ShapeContext& c) {
  int rank = c.T(0).rank();
  EGRET_ASSIGN_OR_RETURN(auto axes, c.Ints(1));
  EGRET_ASSIGN_OR_RETURN(auto keep, c.IntOr(2, 1));
  if (keep != 0 && keep != 1) return c.Error("keep_dims must be 0 or 1");
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    EGRET_ASSIGN_OR_RETURN(auto n, NormalizeAxis(a, rank, c.What(1)));
    if (reduced[n]) return c.Error(absl::StrCat("axis ", a, " is listed twice"));
    reduced[n] = true;
  }
  Dims out;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      out.push_back(c.D(0)[i]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  return One(c.Out(std::move(out), 0));
}

// ---------------------------------------------------------------------------
// Data movement.

ShapeResult InferReshape(const ShapeContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto shape, c.Ints(1));
  if (static_cast<int>(shape.size()) > kMaxRank) return c.Error("shape has rank above 8");
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return c.Error(absl::StrCat("shape ", absl::StrJoin(shape, ","),
                                  " has a negative dim (at most one -1 is allowed)"));
    } else {
      known = SaturatingMul(known, shape[i]);
    }
  }
  const int64_t n = c.T(0).num_elements();
  if (infer >= 0) {
    if (known == 0 || n % known != 0) {
      return c.Error(absl::StrFormat("cannot infer the -1 dim of [%s] for %d elements",
                                     absl::StrJoin(shape, ","), n));
    }
    shape[infer] = n / known;
    known = n;
  }
  if (known != n) {
    return c.Error(absl::StrFormat("shape [%s] holds %d elements, input %s holds %d",
                                   absl::StrJoin(shape, ","), known, DimsStr(c.D(0)), n));
  }
  return One(c.Out(Dims(shape.begin(), shape.end()), 0));
}

ShapeResult InferTranspose(const ShapeContext& c) {
  int rank = c.T(0).rank();
  EGRET_ASSIGN_OR_RETURN(auto perm, c.Ints(1));
  if (static_cast<int>(perm.size()) != rank) {
    return c.Error(absl::StrFormat("perm has %d entries for a rank-%d input", perm.size(), rank));
  }
  std::vector<bool> seen(rank, false);
  Dims out;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return c.Error(absl::StrCat("perm [", absl::StrJoin(perm, ","), "] is not a permutation"));
    }
    seen[p] = true;
    out.push_back(c.D(0)[p]);
  }
  if (c.T(0).per_axis && (c.options.declared.empty() || !IsConcrete(c.options.declared[0].dtype))) {
    return One(c.T(0).Permuted(std::vector<int>(perm.begin(), perm.end())));
  }
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferConcat(const ShapeContext& c) {
  int rank = c.T(1).rank();
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.Int(0));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(0)));
  Dims out = c.D(1);
  for (int i = 2; i < c.size(); ++i) {
    const Dims& d = c.D(i);
    bool ok = static_cast<int>(d.size()) == rank;
    for (int k = 0; ok && k < rank; ++k) ok = k == axis || d[k] == out[k];
    if (!ok) {
      return c.Error(absl::StrFormat("input %d %s does not match input 1 %s except on axis %d", i,
                                     DimsStr(d), DimsStr(c.D(1)), axis));
    }
    out[axis] = SaturatingAdd(out[axis], d[axis]);
  }
  return One(c.Out(std::move(out), 1));
}

ShapeResult InferSliceShape(const ShapeContext& c) {
  size_t rank = c.D(0).size();
  EGRET_ASSIGN_OR_RETURN(auto start, c.IntsN(1, rank));
  EGRET_ASSIGN_OR_RETURN(auto size, c.IntsN(2, rank));
  for (size_t i = 0; i < rank; ++i) {
    if (start[i] < 0 || size[i] < 0 || SaturatingAdd(start[i], size[i]) > c.D(0)[i]) {
      return c.Error(absl::StrFormat("start %d size %d is outside dim %d (%d)", start[i], size[i],
                                     i, c.D(0)[i]));
    }
  }
  return One(c.Out(Dims(size.begin(), size.end()), 0));
}

ShapeResult InferStridedSlice(const ShapeContext& c) {
  size_t rank = c.D(0).size();
  EGRET_ASSIGN_OR_RETURN(auto begin, c.IntsN(1, rank));
  EGRET_ASSIGN_OR_RETURN(auto end, c.IntsN(2, rank));
  EGRET_ASSIGN_OR_RETURN(auto strides, c.IntsN(3, rank));
  Dims out;
  for (size_t i = 0; i < rank; ++i) {
    if (strides[i] == 0) return c.Error(absl::StrCat("stride of dim ", i, " is 0"));
    int64_t first, count;
    if (!NormalizeStridedRange(c.D(0)[i], begin[i], end[i], strides[i], &first, &count)) {
      return c.Error("bad range");
    }
    out.push_back(count);
  }
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferSplit(const ShapeContext& c) {
  int rank = c.T(0).rank();
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.Int(1));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(1)));
  EGRET_ASSIGN_OR_RETURN(auto sizes, c.Ints(2));
  if (sizes.empty()) return c.Error("sizes is empty");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) return c.Error("sizes must not be negative");
    sum = SaturatingAdd(sum, s);
  }
  if (sum != c.D(0)[axis]) {
    return c.Error(absl::StrFormat("sizes [%s] add up to %d, not dim %d (%d)",
                                   absl::StrJoin(sizes, ","), sum, axis, c.D(0)[axis]));
  }
  Types out;
  for (size_t k = 0; k < sizes.size(); ++k) {
    Dims d = c.D(0);
    d[axis] = sizes[k];
    EGRET_ASSIGN_OR_RETURN(auto t, c.Out(std::move(d), 0, k));
    out.push_back(std::move(t));
  }
  return out;
}

ShapeResult InferPad(const ShapeContext& c) {
  size_t rank = c.D(0).size();
  EGRET_ASSIGN_OR_RETURN(auto pads, c.IntsN(1, 2 * rank));
  EGRET_ASSIGN_OR_RETURN(auto mode, c.IntOr(2, 0));
  if (mode < 0 || mode > 3) {
    return c.Error(absl::StrCat("mode ", mode,
                                " is not 0 (constant), 1 (symmetric), 2 (reflect) or 3 (edge)"));
  }
  if (c.Has(3)) EGRET_RETURN_IF_ERROR(c.Float(3).status());
  Dims out;
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = c.D(0)[i];
    int64_t lo = pads[2 * i], hi = pads[2 * i + 1];
    if (lo < 0 || hi < 0) return c.Error("pads must not be negative");
    int64_t limit = mode == 1   ? d
                    : mode == 2 ? d - 1
                    : mode == 3 ? (d > 0 ? INT64_MAX : 0)
                                : INT64_MAX;
    if (lo > limit || hi > limit) {
      return c.Error(absl::StrFormat("pad %d on dim %d (%d) is too large for mode %d",
                                     std::max(lo, hi), i, d, mode));
    }
    out.push_back(SaturatingAdd(SaturatingAdd(d, lo), hi));
  }
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferPool(const ShapeContext& c) {
  EGRET_RETURN_IF_ERROR(c.RequireRank(0, 4));
  const Dims& x = c.D(0);
  EGRET_ASSIGN_OR_RETURN(auto window, c.IntsN(1, 4));
  EGRET_ASSIGN_OR_RETURN(auto stride, c.IntsN(2, 4));
  EGRET_ASSIGN_OR_RETURN(auto pads, c.IntsN(3, 4));
  if (c.Has(4)) {
    EGRET_ASSIGN_OR_RETURN(auto count_pad, c.Int(4));
    if (count_pad != 0 && count_pad != 1) return c.Error("count_pad must be 0 or 1");
  }
  int64_t o[2];
  for (int i = 0; i < 2; ++i) {
    if (window[1 + i] <= 0 || stride[1 + i] <= 0) {
      return c.Error("window and stride must be positive");
    }
    int64_t lo = pads[2 * i], hi = pads[2 * i + 1];
    if (lo < 0 || hi < 0) return c.Error("pads must not be negative");
    if (lo >= window[1 + i] || hi >= window[1 + i]) {
      return c.Error("pads must be smaller than the window");
    }
    int64_t padded = SaturatingAdd(SaturatingAdd(x[1 + i], lo), hi);
    if (padded < window[1 + i]) {
      return c.Error(
          absl::StrFormat("window %d is larger than the padded input %d", window[1 + i], padded));
    }
    o[i] = (padded - window[1 + i]) / stride[1 + i] + 1;
  }
  return One(c.Out({x[0], o[0], o[1], x[3]}, 0));
}

ShapeResult InferResize(const ShapeContext& c) {
  EGRET_RETURN_IF_ERROR(c.RequireRank(0, 4));
  const Dims& x = c.D(0);
  EGRET_ASSIGN_OR_RETURN(auto size, c.IntsN(1, 4));
  int next = 2;
  if (c.op == "Resize") {
    EGRET_ASSIGN_OR_RETURN(auto mode, c.Int(2));
    if (mode != 0 && mode != 1) return c.Error("mode must be 0 (nearest) or 1 (bilinear)");
    next = 3;
  }
  EGRET_ASSIGN_OR_RETURN(auto transform, c.IntOr(next, 0));
  if (transform < 0 || transform > 3) {
    return c.Error(
        "transform must be 0 (half_pixel), 1 (align_corners), 2 (asymmetric) or 3 "
        "(pytorch_half_pixel)");
  }
  EGRET_ASSIGN_OR_RETURN(auto nearest, c.IntOr(next + 1, 0));
  if (nearest < 0 || nearest > 3) {
    return c.Error(
        "nearest_mode must be 0 (round_prefer_floor), 1 (round_prefer_ceil), 2 "
        "(floor) or 3 (ceil)");
  }
  if (size[0] != x[0] || size[3] != x[3] || size[1] <= 0 || size[2] <= 0) {
    return c.Error(absl::StrFormat(
        "size [%s] must keep batch and depth of %s and have positive height and width",
        absl::StrJoin(size, ","), DimsStr(x)));
  }
  return One(c.Out(Dims(size.begin(), size.end()), 0));
}

ShapeResult InferConvert(const ShapeContext& c) {
  DType in = c.T(0).dtype;
  if (c.op == "Quantize" && !IsFloat(in) && !IsQuantized(in)) {
    return c.Error(absl::StrFormat("x must be float or quantized, got %s", DTypeName(in)));
  }
  if (c.op == "Dequantize" && !IsQuantized(in)) {
    return c.Error(absl::StrFormat("x must be quantized, got %s", DTypeName(in)));
  }
  return One(c.Out(c.D(0), 0));
}

// ---------------------------------------------------------------------------
// Comparison, logic and selection.

ShapeResult InferCompare(const ShapeContext& c) {
  auto d = BroadcastDims(c.D(0), c.D(1));
  if (!d.ok()) return c.Error(std::string(d.status().message()));
  return One(c.OutOfType(*std::move(d), DType::kBool, {DType::kBool}));
}

ShapeResult InferLogical(const ShapeContext& c) {
  // Bool operands only, so that the algebraic traits (And(a, a) = a,
  // Not(Not(a)) = a) keep the type.
  for (int i = 0; i < c.size(); ++i) {
    if (c.T(i).dtype != DType::kBool) {
      return c.Error(
          absl::StrFormat("%s must be Bool, got %s", c.def.InputName(i), c.T(i).ToString()));
    }
  }
  if (c.size() == 1) return One(c.OutOfType(c.D(0), DType::kBool, {DType::kBool}));
  return InferCompare(c);
}

ShapeResult InferSelect(const ShapeContext& c) {
  if (c.T(0).dtype != DType::kBool) {
    return c.Error(absl::StrFormat("condition must be Bool, got %s", c.T(0).ToString()));
  }
  auto ab = BroadcastDims(c.D(1), c.D(2));
  if (!ab.ok()) return c.Error(std::string(ab.status().message()));
  auto d = BroadcastDims(c.D(0), *ab);
  if (!d.ok()) return c.Error(std::string(d.status().message()));
  return One(c.Out(*std::move(d), 1));
}

// ---------------------------------------------------------------------------
// Indexing.

ShapeResult InferTile(const ShapeContext& c) {
  const size_t rank = c.D(0).size();
  EGRET_ASSIGN_OR_RETURN(auto m, c.IntsN(1, rank));
  Dims out = c.D(0);
  for (size_t i = 0; i < rank; ++i) {
    if (m[i] < 0) return c.Error(absl::StrCat("multiple ", m[i], " is negative"));
    out[i] = SaturatingMul(out[i], m[i]);
  }
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferGather(const ShapeContext& c) {
  const int rank = c.T(0).rank();
  if (rank < 1) return c.Error("data must have rank >= 1");
  const DType it = c.T(1).dtype;
  if (it != DType::kInt32 && it != DType::kInt64) {
    return c.Error(absl::StrFormat("indices must be Int32 or Int64, got %s", c.T(1).ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.IntOr(2, 0));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(2)));
  const Dims& d = c.D(0);
  Dims out(d.begin(), d.begin() + axis);
  out.insert(out.end(), c.D(1).begin(), c.D(1).end());
  out.insert(out.end(), d.begin() + axis + 1, d.end());
  if (static_cast<int>(out.size()) > kMaxRank) return c.Error("the result has rank above 8");
  return One(c.Out(std::move(out), 0));
}

namespace {

absl::Status RequireFlag(const ShapeContext& c, int i, int64_t dflt) {
  auto v = c.IntOr(i, dflt);
  if (!v.ok()) return v.status();
  if (*v != 0 && *v != 1) return c.Error(absl::StrFormat("%s must be 0 or 1", c.def.InputName(i)));
  return absl::OkStatus();
}

}  // namespace

ShapeResult InferArgReduce(const ShapeContext& c) {
  const int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.Int(1));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(1)));
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 2, 1));
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 3, 0));
  EGRET_ASSIGN_OR_RETURN(auto keep, c.IntOr(2, 1));
  Dims out = c.D(0);
  if (keep) {
    out[axis] = 1;
  } else {
    out.erase(out.begin() + axis);
  }
  return One(c.OutOfType(std::move(out), DType::kInt32, {DType::kInt32, DType::kInt64}));
}

ShapeResult InferTopK(const ShapeContext& c) {
  const int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto k, c.Int(1));
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.IntOr(2, -1));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(2)));
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 3, 1));
  if (k < 0 || k > c.D(0)[axis]) {
    return c.Error(absl::StrFormat("k %d is outside [0, %d] (dim %d)", k, c.D(0)[axis], axis));
  }
  Dims out = c.D(0);
  out[axis] = k;
  EGRET_ASSIGN_OR_RETURN(auto values, c.Out(out, 0, 0));
  EGRET_ASSIGN_OR_RETURN(auto indices,
                         c.OutOfType(out, DType::kInt32, {DType::kInt32, DType::kInt64}, 1));
  return Types{std::move(values), std::move(indices)};
}

ShapeResult InferCumulativeSum(const ShapeContext& c) {
  const int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis, c.Int(1));
  EGRET_RETURN_IF_ERROR(NormalizeAxis(axis, rank, c.What(1)).status());
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 2, 0));
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 3, 0));
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferOut(const ShapeContext& c) {
  if (c.T(0).dtype != DType::kMulti) {
    return c.Error(absl::StrFormat("multi must be a Multi value, got %s", c.T(0).ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(auto sel, c.Ints(1));
  if (sel.empty()) return c.Error("selector is empty");
  const int64_t n = static_cast<int64_t>(c.in[0].multi.size());
  int64_t k = sel.back();
  if (sel.size() >= 2 && sel[sel.size() - 2] != n) {
    return c.Error(
        absl::StrFormat("selector says %d outputs, the producer has %d", sel[sel.size() - 2], n));
  }
  if (k < 0 || k >= n) return c.Error(absl::StrFormat("output %d of %d does not exist", k, n));
  return Types{c.in[0].multi[k]};
}

ShapeResult InferLeaf(const ShapeContext& c) {
  if (!c.options.declared.empty()) return Types{c.options.declared[0]};
  return c.Error("has no declared output type");
}

}  // namespace shape_internal

bool NormalizeStridedRange(int64_t dim, int64_t begin, int64_t end, int64_t stride, int64_t* first,
                           int64_t* count) {
  if (stride == 0) return false;
  if (begin < 0) begin += dim;
  if (end < 0) end += dim;
  if (stride > 0) {
    begin = std::clamp<int64_t>(begin, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    *count = end > begin ? (end - begin - 1) / stride + 1 : 0;  // no overflow for any stride
  } else {
    begin = std::clamp<int64_t>(begin, -1, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    const int64_t step = stride == std::numeric_limits<int64_t>::min()
                             ? std::numeric_limits<int64_t>::max()
                             : -stride;
    *count = begin > end ? (begin - end - 1) / step + 1 : 0;
  }
  *first = begin;
  return true;
}

absl::StatusOr<std::vector<int64_t>> ReadIntParam(const OperandInfo& param, std::string_view what) {
  if (param.is_shape) return std::vector<int64_t>(param.type->dims.begin(), param.type->dims.end());
  if (param.value == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must be a $Shape or $Const (a value known before running)", what));
  }
  const Tensor& t = *param.value;
  DType dt = t.type().dtype;
  if (IsQuantized(dt) || dt == DType::kBool) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must hold integers, got %s", what, t.type().ToString()));
  }
  std::vector<int64_t> out(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    double v = t.GetValue(i);
    std::optional<int64_t> n = DoubleToInt64(v, std::numeric_limits<int64_t>::min() / 2,
                                             std::numeric_limits<int64_t>::max() / 2);
    if (v != std::floor(v) || !n.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s must hold integers, element %d is %g", what, i, v));
    }
    out[i] = *n;
  }
  return out;
}

absl::StatusOr<int64_t> ReadIntScalarParam(const OperandInfo& param, std::string_view what) {
  auto v = ReadIntParam(param, what);
  if (!v.ok()) return v.status();
  if (v->size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must hold one integer, got %d values", what, v->size()));
  }
  return (*v)[0];
}

absl::StatusOr<double> ReadFloatScalarParam(const OperandInfo& param, std::string_view what) {
  if (param.value == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat("%s must be a $Const", what));
  }
  if (param.value->num_elements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must hold one number, got %s", what, param.value->type().ToString()));
  }
  return param.value->GetReal(0);
}

absl::StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(absl::StrFormat("shapes %s and %s do not broadcast",
                                                        shape_internal::DimsStr(a),
                                                        shape_internal::DimsStr(b)));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank, std::string_view what) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s %d is out of range for rank %d", what, axis, rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

absl::StatusOr<std::vector<TensorType>> InferOutputTypes(std::string_view op,
                                                         absl::Span<const OperandInfo> inputs,
                                                         const InferOptions& options) {
  const OpDef* def = FindOpDef(op);
  if (def == nullptr) {
    return absl::UnimplementedError(absl::StrFormat("unknown op '%s'", op));
  }
  std::string_view base = def->name;
  const int n = static_cast<int>(inputs.size());
  if (!def->AcceptsInputCount(n)) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: expects %s inputs (%s), got %d", base,
                                                      def->InputCountText(), def->InputNames(), n));
  }
  for (int i = 0; i < n; ++i) {
    const TensorType* t = inputs[i].type;
    if (t == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: input %d has no type", base, i));
    }
    bool multi_ok = base == "$Out" && i == 0;
    if (!IsConcrete(t->dtype) && !(multi_ok && t->dtype == DType::kMulti)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: input %d (%s) has dtype %s%s", base, i, def->InputName(i), DTypeName(t->dtype),
          t->dtype == DType::kMulti ? "; select one output with $Out" : ""));
    }
  }
  if (def->shape_fn == nullptr) {
    return absl::InternalError(absl::StrFormat("%s: no shape function", base));
  }
  absl::StatusOr<std::vector<TensorType>> out =
      def->shape_fn(shape_internal::ShapeContext{base, *def, inputs, options});
  if (!out.ok()) return out;
  // One check for every shape function: no output above the element cap.
  for (size_t k = 0; k < out->size(); ++k) {
    if (absl::Status s = CheckShape((*out)[k].dims); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: output %d: %s", base, k, s.message()));
    }
  }
  return out;
}

absl::StatusOr<std::vector<TensorType>> InferNodeOutputTypes(const Graph& g, NodeId id) {
  const Node& node = g.node(id);
  std::vector<OperandInfo> ops(node.inputs.size());
  std::vector<std::vector<TensorType>> multis(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ValueRef& in = node.inputs[i];
    const Node& p = g.node(in.node);
    ops[i].type = &g.TypeOf(in);
    if (IsConstantOp(p.op)) ops[i].value = p.constant.get();
    ops[i].is_shape = p.op == kShapeOp;
    if (ops[i].type->dtype == DType::kMulti) {
      if (p.outputs.size() == 1) {
        auto t = InferNodeOutputTypes(g, in.node);
        if (!t.ok()) return t.status();
        multis[i] = *std::move(t);
      } else {
        multis[i].assign(p.outputs.begin(), p.outputs.end());
      }
      ops[i].multi = multis[i];
    }
  }
  InferOptions options;
  options.declared = node.outputs;
  if (node.op == kConstOp && node.constant) {
    return std::vector<TensorType>{node.constant->type()};
  }
  return InferOutputTypes(node.op, ops, options);
}

}  // namespace egret
