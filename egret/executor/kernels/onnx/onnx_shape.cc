// ONNX ops whose parameters egret's mapping needs as constants, for when a
// model computes them at run time and the importer keeps the op opaque:
// Reshape, Squeeze, Unsqueeze, Expand, Tile, Slice, Split, Pad,
// ConstantOfShape, Range, Clip, TopK and CumSum.
//
// Each reads its parameters (shape, axes, repeats, starts/ends/steps, split
// sizes, pads, k, min/max, ...) from the input tensors, as ONNX defines them
// at the node's opset, computes the output dims from those values and checks
// them against the dims the importer declared (from ONNX shape inference or
// the model's value_info) before doing any work: a model whose run-time
// values disagree with its declared types fails naming the op, e.g.
// "onnx.Reshape: output 0 is declared Float32[2,6] but its inputs give
// Float32[3,4]". The ops that only move elements copy their stored bytes
// when the output is stored like the input (same dtype and encoding), so
// Int64 data stay exact; otherwise each element goes through its real value
// (MakeOnnxTensor). Clip, Range and CumSum compute in double.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/graph/checked_math.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

std::string DimsText(absl::Span<const int64_t> d) {
  return absl::StrCat("[", absl::StrJoin(d, ","), "]");
}

// Whether `out` stores its elements as `in` does (same dtype and encoding),
// so that elements may be copied as bytes.
bool SameStorage(const TensorType& in, const TensorType& out) {
  return in.dtype == out.dtype && in.per_axis == nullptr && out.per_axis == nullptr &&
         in.zero_offset == out.zero_offset && in.stepsize == out.stepsize;
}

// Output k (already checked to have `dims` by CheckOnnxOutput, or a
// placeholder) whose element j is element src[j] of `in`, or `fill` where
// src[j] < 0.
Tensor Gathered(const KernelContext& c, int k, const Tensor& in, const Dims& dims,
                const std::vector<int64_t>& src, double fill = 0) {
  const TensorType& out_type = c.outputs[k];
  if (out_type.dims != dims) return Tensor(out_type);  // a placeholder nothing reads
  if (SameStorage(in.type(), out_type)) {
    const size_t es = static_cast<size_t>(ElementSize(out_type.dtype));
    Tensor out = Tensor::Uninitialized(out_type);
    TensorType one = out_type;
    one.dims = {1};
    const Tensor f = MakeOnnxTensor(one, {&fill, 1});
    const uint8_t* from = in.bytes().data();
    uint8_t* to = out.mutable_bytes().data();
    for (size_t j = 0; j < src.size(); ++j) {
      std::memcpy(to + j * es, src[j] < 0 ? f.bytes().data() : from + src[j] * es, es);
    }
    return out;
  }
  const std::vector<double> v = ReadReals(in);
  std::vector<double> o(src.size());
  for (size_t j = 0; j < src.size(); ++j) o[j] = src[j] < 0 ? fill : v[src[j]];
  return MakeOnnxTensor(out_type, o);
}

// Output 0 with the elements of input 0 in the same row-major order, with
// dims `dims` (Reshape, Squeeze, Unsqueeze).
Result SameElements(const KernelContext& c, const Dims& dims) {
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, dims));
  const Tensor& in = c.In(0);
  std::vector<Tensor> out;
  if (c.outputs[0].dims != dims) {
    out.emplace_back(c.outputs[0]);
  } else if (SameStorage(in.type(), c.outputs[0])) {
    Tensor t = c.Reusable(0) != nullptr ? std::move(*c.Reusable(0)) : in;
    if (!t.Retype(c.outputs[0])) return KernelError(c, "cannot retype the input");
    out.push_back(std::move(t));
  } else {
    out.push_back(MakeOnnxTensor(c.outputs[0], ReadReals(in)));
  }
  return out;
}

// Integer parameter input `k` (a 1-D or scalar tensor of shape values,
// axes, ...), or attribute `attr` for opsets before `first_opset`; nullopt
// when neither is given.
std::optional<std::vector<int64_t>> IntsParam(const OnnxArgs& a, int k, std::string_view attr,
                                              int64_t first_opset) {
  if (a.Opset(first_opset) < first_opset) return a.Ints(attr);
  if (const Tensor* t = a.Input(k)) return ReadInts(*t);
  return std::nullopt;
}

// For each output element of dims `out`, the row-major index of the input
// element of dims `in` at coordinates f(axis, out coordinate) (same rank).
template <typename F>
std::vector<int64_t> MapIndices(const Dims& in, const Dims& out, F f) {
  const int rank = static_cast<int>(out.size());
  const std::vector<int64_t> stride = RowMajorStrides(in);
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  std::vector<int64_t> src(static_cast<size_t>(n));
  std::vector<int64_t> idx(rank, 0);
  for (int64_t j = 0; j < n; ++j) {
    int64_t s = 0;
    for (int a = 0; a < rank; ++a) {
      const int64_t i = f(a, idx[a]);
      if (i < 0) {
        s = -1;
        break;
      }
      s += i * stride[a];
    }
    src[j] = s;
    for (int a = rank - 1; a >= 0; --a) {
      if (++idx[a] < out[a]) break;
      idx[a] = 0;
    }
  }
  return src;
}

// Output k of dims `out`, checked against the declared type (CheckOnnxOutput),
// whose element at each coordinate is input 0's (dims `in`) at coordinates
// f(axis, out coordinate), or `fill` where f gives a negative one: the data
// movement of Expand, Tile, Slice, Split and Pad.
template <typename F>
absl::StatusOr<Tensor> Moved(const KernelContext& c, int k, const Dims& in, const Dims& out, F f,
                             double fill = 0) {
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, k, out));
  return Gathered(c, k, c.In(0), out, MapIndices(in, out, f), fill);
}

// Moved as the one output of a kernel.
template <typename F>
Result MovedOnly(const KernelContext& c, const Dims& in, const Dims& out, F f, double fill = 0) {
  EGRET_ASSIGN_OR_RETURN(Tensor t, Moved(c, 0, in, out, f, fill));
  std::vector<Tensor> result;
  result.push_back(std::move(t));
  return result;
}

// Reshape: `shape` (input 1; the "shape" attribute before opset 5), where 0
// copies the input's dim (unless allowzero) and one -1 takes what is left.
Result Reshape(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  std::optional<std::vector<int64_t>> shape = IntsParam(a, 1, "shape", 5);
  if (!shape) return KernelError(c, "needs a shape");
  const Dims& in = c.InDims(0);
  const bool allow_zero = a.Int("allowzero", 0) != 0;
  Dims out;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape->size(); ++i) {
    int64_t s = (*shape)[i];
    if (s == 0 && !allow_zero) {
      if (i >= in.size()) return KernelError(c, "shape copies a dim the input lacks");
      s = in[i];
    } else if (s == -1) {
      if (infer >= 0) return KernelError(c, "shape has more than one -1");
      infer = static_cast<int>(i);
      s = 1;
    } else if (s < 0) {
      return KernelError(c, absl::StrFormat("shape has a negative size %d", s));
    }
    out.push_back(s);
    known = SaturatingMul(known, s);
  }
  const int64_t n = c.In(0).num_elements();
  if (infer >= 0) {
    if (known == 0 || n % known != 0) {
      return KernelError(
          c, absl::StrFormat("cannot reshape %s to %s", DimsText(in), DimsText(*shape)));
    }
    out[infer] = n / known;
  }
  int64_t total = 1;
  for (int64_t d : out) total = SaturatingMul(total, d);
  if (total != n) {
    return KernelError(c,
                       absl::StrFormat("cannot reshape %s to %s", DimsText(in), DimsText(*shape)));
  }
  return SameElements(c, out);
}

// Squeeze: drops the listed axes (each of size 1), or every axis of size 1.
Result Squeeze(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  const Dims& in = c.InDims(0);
  const int rank = static_cast<int>(in.size());
  std::optional<std::vector<int64_t>> axes = IntsParam(a, 1, "axes", 13);
  std::vector<bool> drop(rank, false);
  if (!axes) {
    for (int i = 0; i < rank; ++i) drop[i] = in[i] == 1;
  }
  for (int64_t ax : axes.value_or(std::vector<int64_t>{})) {
    EGRET_ASSIGN_OR_RETURN(int i, OnnxAxis(c, ax, rank));
    if (in[i] != 1) {
      return KernelError(c, absl::StrFormat("axis %d has size %d, not 1", ax, in[i]));
    }
    drop[i] = true;
  }
  Dims out;
  for (int i = 0; i < rank; ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  return SameElements(c, out);
}

// Unsqueeze: inserts axes of size 1 at the listed positions of the output.
Result Unsqueeze(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  const Dims& in = c.InDims(0);
  std::optional<std::vector<int64_t>> axes = IntsParam(a, 1, "axes", 13);
  if (!axes) return KernelError(c, "needs axes");
  const int out_rank = static_cast<int>(in.size() + axes->size());
  std::vector<bool> one(out_rank, false);
  for (int64_t ax : *axes) {
    EGRET_ASSIGN_OR_RETURN(int i, OnnxAxis(c, ax, out_rank));
    if (one[i]) return KernelError(c, absl::StrFormat("axis %d is repeated", ax));
    one[i] = true;
  }
  Dims out;
  for (int i = 0, j = 0; i < out_rank; ++i) out.push_back(one[i] ? 1 : in[j++]);
  return SameElements(c, out);
}

// Expand: input 0 broadcast with `shape` (input 1), numpy style.
Result Expand(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const std::vector<int64_t> shape = ReadInts(c.In(1));
  for (int64_t s : shape) {
    if (s < 0)
      return KernelError(c, absl::StrFormat("shape %s has a negative size", DimsText(shape)));
  }
  const Dims& in = c.InDims(0);
  absl::StatusOr<Dims> out = BroadcastDims(in, Dims(shape.begin(), shape.end()));
  if (!out.ok()) {
    return KernelError(c,
                       absl::StrFormat("cannot broadcast %s to %s", DimsText(in), DimsText(shape)));
  }
  Dims padded(out->size() - in.size(), 1);
  padded.insert(padded.end(), in.begin(), in.end());
  return MovedOnly(c, padded, *out, [&](int ax, int64_t o) { return padded[ax] == 1 ? 0 : o; });
}

// Tile: input 0 repeated repeats[i] times along axis i.
Result Tile(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const std::vector<int64_t> rep = ReadInts(c.In(1));
  const Dims& in = c.InDims(0);
  if (rep.size() != in.size()) {
    return KernelError(
        c, absl::StrFormat("repeats has %d values for a rank-%d input", rep.size(), in.size()));
  }
  Dims out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (rep[i] < 0) return KernelError(c, "repeats must not be negative");
    out.push_back(SaturatingMul(in[i], rep[i]));
  }
  return MovedOnly(c, in, out, [&](int ax, int64_t o) { return o % in[ax]; });
}

// Slice: per listed axis, elements start, start + step, ... before end, with
// ONNX's clamping (negative starts and ends count from the end; then clamped
// to [0, dim] for a positive step, [0, dim - 1] and [-1, dim - 1] for a
// negative one).
Result Slice(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  std::vector<int64_t> starts, ends, axes, steps;
  if (a.Opset(10) < 10) {
    starts = a.Ints("starts").value_or(std::vector<int64_t>{});
    ends = a.Ints("ends").value_or(std::vector<int64_t>{});
    axes = a.Ints("axes").value_or(std::vector<int64_t>{});
  } else {
    EGRET_ASSIGN_OR_RETURN(const Tensor* s, a.Required(1));
    EGRET_ASSIGN_OR_RETURN(const Tensor* e, a.Required(2));
    starts = ReadInts(*s);
    ends = ReadInts(*e);
    if (const Tensor* t = a.Input(3)) axes = ReadInts(*t);
    if (const Tensor* t = a.Input(4)) steps = ReadInts(*t);
  }
  const Dims& in = c.InDims(0);
  const int rank = static_cast<int>(in.size());
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return KernelError(c, "starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> first(rank, 0), step(rank, 1);
  Dims out(in.begin(), in.end());
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    EGRET_ASSIGN_OR_RETURN(int ax, OnnxAxis(c, axes[i], rank));
    if (seen[ax]) return KernelError(c, absl::StrFormat("axis %d is repeated", axes[i]));
    seen[ax] = true;
    const int64_t d = in[ax], st = steps[i];
    if (st == 0) return KernelError(c, "step 0");
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b = b < -d ? -1 : b + d;  // (written so that INT64_MIN cannot overflow)
    if (e < 0) e = e < -d ? -1 : e + d;
    int64_t n;
    if (st > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      n = e > b ? (e - b - 1) / st + 1 : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      n = b > e ? (b - e - 1) / -st + 1 : 0;
    }
    first[ax] = b;
    step[ax] = st;
    out[ax] = n;
  }
  return MovedOnly(c, in, out, [&](int ax, int64_t o) { return first[ax] + o * step[ax]; });
}

// Split: input 0 cut along `axis` into the outputs, by the sizes of `split`
// (input 1; an attribute before opset 13), else into equal parts (opset 18's
// num_outputs: parts of ceil(dim / n), the last one smaller).
Result Split(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  const Dims& in = c.InDims(0);
  const int rank = static_cast<int>(in.size());
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, a.Int("axis", 0), rank));
  const int64_t d = in[axis];
  std::vector<int64_t> sizes = IntsParam(a, 1, "split", 13).value_or(std::vector<int64_t>{});
  const int n = static_cast<int>(c.outputs.size());
  if (sizes.empty()) {
    const int64_t parts = a.Int("num_outputs", n);
    if (parts < 1) return KernelError(c, "num_outputs must be positive");
    if (a.HasAttr("num_outputs")) {
      const int64_t chunk = (d + parts - 1) / parts;
      for (int64_t i = 0, left = d; i < parts; ++i, left -= chunk) {
        sizes.push_back(std::clamp<int64_t>(left, 0, chunk));
      }
    } else {
      if (d % parts != 0) {
        return KernelError(
            c, absl::StrFormat("dim %d (%d) does not split into %d equal parts", axis, d, parts));
      }
      sizes.assign(static_cast<size_t>(parts), d / parts);
    }
  }
  if (static_cast<int>(sizes.size()) < n) {
    return KernelError(c, absl::StrFormat("split has %d sizes for %d outputs", sizes.size(), n));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return KernelError(c, "split sizes must not be negative");
    total += s;
  }
  if (total != d) {
    return KernelError(c, absl::StrFormat("split sizes %s do not add up to dim %d (%d)",
                                          DimsText(sizes), axis, d));
  }
  std::vector<Tensor> result;
  int64_t offset = 0;
  for (int k = 0; k < n; ++k) {
    Dims out(in.begin(), in.end());
    out[axis] = sizes[k];
    EGRET_ASSIGN_OR_RETURN(Tensor piece, Moved(c, k, in, out, [&](int ax, int64_t o) {
                             return ax == axis ? o + offset : o;
                           }));
    result.push_back(std::move(piece));
    offset += sizes[k];
  }
  return result;
}

// Pad: pads (input 1; attribute "pads", or "paddings" at opset 1, before
// opset 11) gives per axis the elements added before and after, negative
// values removing them; axes (input 3, opset 18) says which axes the pads
// are for. Added elements hold constant_value (input 2, or attribute
// "value"; 0 when absent) in mode constant, the nearest edge element in
// mode edge, the mirror image without the edge in mode reflect, and the
// input repeated in mode wrap.
Result Pad(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  const Dims& in = c.InDims(0);
  const int rank = static_cast<int>(in.size());
  std::vector<int64_t> pads;
  double value = 0;
  std::vector<int64_t> axes;
  if (a.Opset(11) < 11) {
    pads = a.Ints(a.Opset(11) < 2 ? "paddings" : "pads").value_or(std::vector<int64_t>{});
    value = a.Float("value", 0.0);
  } else {
    EGRET_ASSIGN_OR_RETURN(const Tensor* p, a.Required(1));
    pads = ReadInts(*p);
    if (const Tensor* v = a.Input(2); v != nullptr && v->num_elements() > 0) {
      if (v->num_elements() != 1) return KernelError(c, "constant_value must hold one value");
      value = ReadReals(*v)[0];
    }
    if (const Tensor* t = a.Input(3)) axes = ReadInts(*t);
  }
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  const size_t na = axes.size();
  if (pads.size() != 2 * na) {
    return KernelError(c, absl::StrFormat("pads has %d values for %d axes", pads.size(), na));
  }
  std::vector<int64_t> before(rank, 0), after(rank, 0);
  for (size_t i = 0; i < na; ++i) {
    EGRET_ASSIGN_OR_RETURN(int ax, OnnxAxis(c, axes[i], rank));
    before[ax] = pads[i];
    after[ax] = pads[na + i];
  }
  const std::string mode = a.Str("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") {
    return KernelError(c, absl::StrFormat("unknown mode '%s'", mode));
  }
  Dims out;
  for (int i = 0; i < rank; ++i) {
    const int64_t o = in[i] + before[i] + after[i];
    if (o < 0) {
      return KernelError(c, absl::StrFormat("pads %d and %d remove more than dim %d (%d)",
                                            before[i], after[i], i, in[i]));
    }
    out.push_back(o);
    if (mode != "constant" && in[i] == 0 && o > 0) {
      return KernelError(c, absl::StrFormat("mode %s cannot pad the empty axis %d", mode, i));
    }
  }
  auto source = [&](int ax, int64_t o) -> int64_t {
    const int64_t d = in[ax];
    int64_t i = o - before[ax];
    if (i >= 0 && i < d) return i;
    if (mode == "constant") return -1;
    if (mode == "edge") return std::clamp<int64_t>(i, 0, d - 1);
    if (mode == "wrap") return ((i % d) + d) % d;
    if (d == 1) return 0;  // reflect
    const int64_t period = 2 * (d - 1);
    i = ((i % period) + period) % period;
    return i < d ? i : period - i;
  };
  return MovedOnly(c, in, out, source, value);
}

// ConstantOfShape: a tensor of dims `shape` (input 0) holding the one value
// of the "value" attribute (the importer keeps it as "onnx.tensor.value"),
// 0 when absent.
Result ConstantOfShape(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  const std::vector<int64_t> shape = ReadInts(c.In(0));
  Dims out;
  for (int64_t s : shape) {
    if (s < 0)
      return KernelError(c, absl::StrFormat("shape %s has a negative size", DimsText(shape)));
    out.push_back(s);
  }
  double value = 0;
  if (a.HasAttr("value")) {
    std::optional<std::vector<double>> v = a.Floats("onnx.tensor.value");
    if (!v || v->size() != 1) return KernelError(c, "the value attribute must hold one value");
    value = (*v)[0];
  }
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, out));
  std::vector<Tensor> result;
  if (c.outputs[0].dims != out) {
    result.emplace_back(c.outputs[0]);
  } else {
    result.push_back(
        MakeOnnxTensor(c.outputs[0], std::vector<double>(c.outputs[0].num_elements(), value)));
  }
  return result;
}

// Range: start, start + delta, ... before limit (scalars): max(ceil((limit -
// start) / delta), 0) elements, computed in int64 for integer operands.
Result Range(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 3));
  for (int i = 0; i < 3; ++i) {
    if (c.In(i).num_elements() != 1)
      return KernelError(c, "start, limit and delta must be scalars");
  }
  std::vector<double> values;
  if (IsOnnxInteger(c.In(0).type())) {
    const int64_t s = ReadInts(c.In(0))[0], l = ReadInts(c.In(1))[0], d = ReadInts(c.In(2))[0];
    if (d == 0) return KernelError(c, "delta is 0");
    const int64_t diff = l - s;
    const int64_t n =
        d > 0 ? (diff > 0 ? (diff + d - 1) / d : 0) : (diff < 0 ? (diff + d + 1) / d : 0);
    EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, {n}));
    for (int64_t i = 0; i < n; ++i) values.push_back(static_cast<double>(s + i * d));
  } else {
    const double s = ReadReals(c.In(0))[0], l = ReadReals(c.In(1))[0], d = ReadReals(c.In(2))[0];
    if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
      return KernelError(c, "delta is 0 or a bound is not finite");
    }
    const double count = std::max(std::ceil((l - s) / d), 0.0);
    if (count > 4.0e18) return KernelError(c, "the range is too long");
    const int64_t n = static_cast<int64_t>(count);
    EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, {n}));
    // As ONNX Runtime computes it: each element the previous one plus delta,
    // in the element type.
    const TensorType& t = c.outputs[0];
    double v = s;
    for (int64_t i = 0; i < n; ++i) {
      values.push_back(v);
      v = t.dtype == DType::kFloat32
              ? static_cast<double>(static_cast<float>(v) + static_cast<float>(d))
              : v + d;
    }
  }
  return OnnxResult(c, values);
}

// Clip: every element clamped to [min, max] (inputs 1 and 2 from opset 11,
// attributes before; each optional). When min > max every element becomes
// max, as ONNX specifies.
Result Clip(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  if (a.Opset(11) < 11) {
    lo = a.Float("min", lo);
    hi = a.Float("max", hi);
  } else {
    for (int k = 1; k <= 2; ++k) {
      const Tensor* t = a.Input(k);
      if (t == nullptr || t->num_elements() == 0) continue;
      if (t->num_elements() != 1) {
        return KernelError(c, absl::StrFormat("%s must hold one value", k == 1 ? "min" : "max"));
      }
      (k == 1 ? lo : hi) = ReadReals(*t)[0];
    }
  }
  return MapUnary(c,
                  [lo, hi](double x) { return std::isnan(x) ? x : std::min(std::max(x, lo), hi); });
}

// TopK: the k largest (or smallest) elements along `axis` and their Int64
// indices, sorted; equal values keep their index order. k is input 1 (an
// attribute before opset 10).
Result TopK(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  int64_t k;
  if (a.Opset(10) < 10) {
    k = a.Int("k", -1);
  } else {
    EGRET_ASSIGN_OR_RETURN(const Tensor* kt, a.Required(1));
    if (kt->num_elements() != 1) return KernelError(c, "k must hold one value");
    k = ReadInts(*kt)[0];
  }
  const Dims& in = c.InDims(0);
  const int rank = static_cast<int>(in.size());
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, a.Int("axis", -1), rank));
  if (k < 0 || k > in[axis]) {
    return KernelError(c, absl::StrFormat("k %d is outside [0, %d]", k, in[axis]));
  }
  const bool largest = a.Int("largest", 1) != 0;
  Dims out(in.begin(), in.end());
  out[axis] = k;
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, out));
  if (c.outputs.size() > 1) EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 1, out));
  const std::vector<double> v = ReadReals(c.In(0));
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= in[i];
  for (int i = axis + 1; i < rank; ++i) inner *= in[i];
  const int64_t d = in[axis];
  std::vector<double> values(static_cast<size_t>(outer * k * inner));
  std::vector<double> indices(values.size());
  std::vector<int64_t> order(static_cast<size_t>(d));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return v[(o * d + j) * inner + i]; };
      std::iota(order.begin(), order.end(), 0);
      // NaN counts as larger than every number (ONNX Runtime's order).
      auto before = [&](int64_t x, int64_t y) {
        const double vx = at(x), vy = at(y);
        const bool nx = std::isnan(vx), ny = std::isnan(vy);
        if (nx || ny) return largest ? nx && !ny : !nx && ny;
        return largest ? vx > vy : vx < vy;
      };
      std::stable_sort(order.begin(), order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const size_t e = static_cast<size_t>((o * k + j) * inner + i);
        values[e] = at(order[j]);
        indices[e] = static_cast<double>(order[j]);
      }
    }
  }
  std::vector<Tensor> result;
  EGRET_ASSIGN_OR_RETURN(Tensor t0, OnnxOutput(c, 0, out, values));
  result.push_back(std::move(t0));
  if (c.outputs.size() > 1) {
    EGRET_ASSIGN_OR_RETURN(Tensor t1, OnnxOutput(c, 1, out, indices));
    result.push_back(std::move(t1));
  }
  return result;
}

// CumSum: running sums along `axis` (input 1), exclusive (each sum leaves
// its own element out) and reverse (summing from the end) as attributes say.
Result CumSum(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs a(c);
  if (c.In(1).num_elements() != 1) return KernelError(c, "axis must hold one value");
  const Dims& in = c.InDims(0);
  const int rank = static_cast<int>(in.size());
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, ReadInts(c.In(1))[0], rank));
  const bool exclusive = a.Int("exclusive", 0) != 0, reverse = a.Int("reverse", 0) != 0;
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> out(v.size());
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= in[i];
  for (int i = axis + 1; i < rank; ++i) inner *= in[i];
  const int64_t d = in[axis];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (int64_t s = 0; s < d; ++s) {
        const int64_t j = reverse ? d - 1 - s : s;
        const size_t e = static_cast<size_t>((o * d + j) * inner + i);
        if (exclusive) {
          out[e] = sum;
          sum += v[e];
        } else {
          sum += v[e];
          out[e] = sum;
        }
      }
    }
  }
  return OnnxResult(c, out);
}

}  // namespace

void RegisterOnnxShapeKernels(KernelTable& t) {
  t.emplace("onnx.Reshape", Reshape);
  t.emplace("onnx.Squeeze", Squeeze);
  t.emplace("onnx.Unsqueeze", Unsqueeze);
  t.emplace("onnx.Expand", Expand);
  t.emplace("onnx.Tile", Tile);
  t.emplace("onnx.Slice", Slice);
  t.emplace("onnx.Split", Split);
  t.emplace("onnx.Pad", Pad);
  t.emplace("onnx.ConstantOfShape", ConstantOfShape);
  t.emplace("onnx.Range", Range);
  t.emplace("onnx.Clip", Clip);
  t.emplace("onnx.TopK", TopK);
  t.emplace("onnx.CumSum", CumSum);
}

}  // namespace egret::backend_internal
