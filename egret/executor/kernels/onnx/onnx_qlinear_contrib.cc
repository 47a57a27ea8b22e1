// The quantized ops of ONNX Runtime's com.microsoft domain that its quantizer
// writes (opaque "onnx.com.microsoft.<Op>" nodes): QLinearAdd, QLinearMul,
// QLinearSigmoid, QLinearLeakyRelu, QLinearAveragePool,
// QLinearGlobalAveragePool and QLinearConcat.
//
// Each is dequantize -> the float op -> quantize, with per-tensor scales and
// zero points (a zero point is optional and 0 by default), on 8-bit data
// (uint8 or int8) in and out. The arithmetic is ONNX Runtime's CPU kernels'
// (the op's reference implementation): float32 throughout, x dequantized as
// x_scale * (x - x_zero_point), rounding halves to even. Two places follow
// its kernels rather than the op's summary: QLinearAveragePool adds the zero
// point before rounding (round(y / y_scale + y_zero_point)) and divides by
// the whole kernel size under count_include_pad; a pool over the whole
// image (QLinearGlobalAveragePool, and QLinearAveragePool when its kernel
// covers the unpadded input) sums the raw integers and requantizes with
// x_scale / (y_scale * image size). ONNX Runtime's QLinearSigmoid uses an
// approximate logistic; this kernel the exact one, so a value on a rounding
// boundary may differ by one step.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/executor/kernels/onnx/onnx_quantize_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// A per-tensor quantization: real = scale * (q - zero).
struct Quant {
  float scale = 1.0f;
  int32_t zero = 0;
};

float Dequant(int32_t q, Quant p) { return p.scale * static_cast<float>(q - p.zero); }

// The scale at ONNX position `scale_pos` and the optional zero point (of
// dtype `type`) at `zero_pos`, named `name`_scale and `name`_zero_point.
absl::StatusOr<Quant> ReadQuant(const KernelContext& c, const OnnxArgs& args, int scale_pos,
                                int zero_pos, DType type, std::string_view name) {
  Quant q;
  EGRET_ASSIGN_OR_RETURN(q.scale,
                         ScalarScale(c, args.Input(scale_pos), std::string(name) + "_scale"));
  EGRET_ASSIGN_OR_RETURN(
      q.zero, ScalarZeroPoint(c, args.Input(zero_pos), type, std::string(name) + "_zero_point"));
  return q;
}

// The range of the declared output, which must be 8-bit and of `t`'s type.
absl::StatusOr<IntRange> SameTypeOutput(const KernelContext& c, const Tensor& t,
                                        std::string_view name) {
  const DType dt = t.type().dtype;
  if (!Is8Bit(dt)) {
    return KernelError(
        c, absl::StrFormat("%s must be int8 or uint8, not %s", name, t.type().ToString()));
  }
  if (c.outputs[0].dtype != dt) {
    return KernelError(c, absl::StrFormat("the output %s must have %s's type %s",
                                          c.outputs[0].ToString(), name, DTypeName(dt)));
  }
  return OnnxIntRange(c, c.outputs[0], "the output");
}

std::vector<Tensor> One(const KernelContext& c, absl::Span<const int32_t> q) {
  std::vector<Tensor> out;
  out.push_back(MakeStoredTensor(c.outputs[0], q));
  return out;
}

// QLinearAdd and QLinearMul (A, A_scale, A_zero_point, B, B_scale,
// B_zero_point, C_scale, C_zero_point), numpy broadcasting:
// C = quantize(dequantize(A) op dequantize(B)).
template <bool kMul>
Result QLinearBinary(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* a, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* b, args.Required(3));
  EGRET_ASSIGN_OR_RETURN(const IntRange range, SameTypeOutput(c, *a, "A"));
  const DType dt = a->type().dtype;
  if (b->type().dtype != dt) {
    return KernelError(
        c, absl::StrFormat("B %s must have A's type %s", b->type().ToString(), DTypeName(dt)));
  }
  EGRET_ASSIGN_OR_RETURN(const Quant qa, ReadQuant(c, args, 1, 2, dt, "A"));
  EGRET_ASSIGN_OR_RETURN(const Quant qb, ReadQuant(c, args, 4, 5, dt, "B"));
  EGRET_ASSIGN_OR_RETURN(const Quant qc, ReadQuant(c, args, 6, 7, dt, "C"));
  EGRET_ASSIGN_OR_RETURN(const Dims dims, BroadcastDims(a->type().dims, b->type().dims));
  if (dims != c.outputs[0].dims) {
    return KernelError(c,
                       absl::StrFormat("A and B broadcast to %s, the output is declared %s",
                                       TensorType(dt, dims).ToString(), c.outputs[0].ToString()));
  }
  const std::vector<int32_t> ai = StoredInts(*a), bi = StoredInts(*b);
  const std::vector<double> av(ai.begin(), ai.end()), bv(bi.begin(), bi.end());
  const std::vector<double> qv =
      BroadcastBinary(av, a->type().dims, bv, b->type().dims, dims, [&](double x, double y) {
        const float va = Dequant(static_cast<int32_t>(x), qa);
        const float vb = Dequant(static_cast<int32_t>(y), qb);
        return static_cast<double>(
            QuantizeValue(kMul ? va * vb : va + vb, qc.scale, qc.zero, range));
      });
  return One(c, std::vector<int32_t>(qv.begin(), qv.end()));
}

// QLinearSigmoid and QLinearLeakyRelu (X, X_scale, X_zero_point, Y_scale,
// Y_zero_point): Y = quantize(f(dequantize(X))), through a table of the 256
// possible inputs.
Result QLinearUnary(const KernelContext& c, float (*f)(float, float), float param) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* x, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const IntRange range, SameTypeOutput(c, *x, "X"));
  const DType dt = x->type().dtype;
  EGRET_ASSIGN_OR_RETURN(const Quant qx, ReadQuant(c, args, 1, 2, dt, "X"));
  EGRET_ASSIGN_OR_RETURN(const Quant qy, ReadQuant(c, args, 3, 4, dt, "Y"));
  EGRET_RETURN_IF_ERROR(CheckOutputCount(c, 0, x->num_elements()));
  std::vector<int32_t> table(static_cast<size_t>(range.hi - range.lo + 1));
  for (int64_t v = range.lo; v <= range.hi; ++v) {
    const float y = f(Dequant(static_cast<int32_t>(v), qx), param);
    table[v - range.lo] = QuantizeValue(y, qy.scale, qy.zero, range);
  }
  std::vector<int32_t> q(static_cast<size_t>(x->num_elements()));
  ForEachStored(*x, [&](int64_t i, int32_t v) { q[i] = table[v - range.lo]; });
  return One(c, q);
}

float Sigmoid(float x, float) { return static_cast<float>(1.0 / (1.0 + std::exp(-double{x}))); }
float LeakyRelu(float x, float alpha) { return x >= 0.0f ? x : x * alpha; }

Result QLinearSigmoid(const KernelContext& c) { return QLinearUnary(c, Sigmoid, 0.0f); }

Result QLinearLeakyRelu(const KernelContext& c) {
  const OnnxArgs args(c);
  return QLinearUnary(c, LeakyRelu, static_cast<float>(args.Float("alpha", 0.01)));
}

// QLinearConcat(Y_scale, Y_zero_point, X1, X1_scale, X1_zero_point, ...):
// each input requantized to Y's scale and zero point (copied when they are
// its own), concatenated along `axis`.
Result QLinearConcat(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  const int n = args.num_inputs();
  if (n < 5 || (n - 2) % 3 != 0) {
    return KernelError(c, absl::StrFormat("needs Y_scale, Y_zero_point and (tensor, scale, zero "
                                          "point) triples, has %d inputs",
                                          n));
  }
  if (!args.HasAttr("axis")) return KernelError(c, "the axis attribute is required");
  const TensorType& yt = c.outputs[0];
  if (!Is8Bit(yt.dtype)) {
    return KernelError(c, absl::StrFormat("output Y must be int8 or uint8, not %s", yt.ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(const IntRange range, OnnxIntRange(c, yt, "output Y"));
  EGRET_ASSIGN_OR_RETURN(const Quant qy, ReadQuant(c, args, 0, 1, yt.dtype, "Y"));
  const int count = (n - 2) / 3;
  std::vector<const Tensor*> xs;
  std::vector<Quant> qs;
  for (int j = 0; j < count; ++j) {
    EGRET_ASSIGN_OR_RETURN(const Tensor* x, args.Required(2 + 3 * j));
    const std::string name = absl::StrCat("input ", j);
    if (x->type().dtype != yt.dtype) {
      return KernelError(c, absl::StrFormat("%s %s must have Y's type %s", name,
                                            x->type().ToString(), DTypeName(yt.dtype)));
    }
    EGRET_ASSIGN_OR_RETURN(const Quant q, ReadQuant(c, args, 3 + 3 * j, 4 + 3 * j, yt.dtype, name));
    xs.push_back(x);
    qs.push_back(q);
  }
  const Dims& first = xs[0]->type().dims;
  const int rank = static_cast<int>(first.size());
  EGRET_ASSIGN_OR_RETURN(const int axis, OnnxAxis(c, args.Int("axis", 0), rank));
  Dims want = first;
  want[axis] = 0;
  for (const Tensor* x : xs) {
    const Dims& d = x->type().dims;
    bool fits = static_cast<int>(d.size()) == rank;
    for (int k = 0; fits && k < rank; ++k) fits = k == axis || d[k] == first[k];
    if (!fits) {
      return KernelError(c, absl::StrFormat("%s does not concatenate with %s along axis %d",
                                            x->type().ToString(), xs[0]->type().ToString(), axis));
    }
    want[axis] += d[axis];
  }
  if (want != yt.dims) {
    return KernelError(c, absl::StrFormat("the inputs concatenate to %s, the output is declared %s",
                                          TensorType(yt.dtype, want).ToString(), yt.ToString()));
  }
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < axis; ++k) outer *= first[k];
  for (int k = axis + 1; k < rank; ++k) inner *= first[k];
  std::vector<std::vector<int32_t>> values;
  for (size_t j = 0; j < xs.size(); ++j) {
    std::vector<int32_t> v = StoredInts(*xs[j]);
    if (qs[j].scale != qy.scale || qs[j].zero != qy.zero) {
      for (int32_t& e : v) e = QuantizeValue(Dequant(e, qs[j]), qy.scale, qy.zero, range);
    }
    values.push_back(std::move(v));
  }
  std::vector<int32_t> q;
  q.reserve(static_cast<size_t>(yt.num_elements()));
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t j = 0; j < xs.size(); ++j) {
      const int64_t chunk = xs[j]->type().dims[axis] * inner;
      q.insert(q.end(), values[j].begin() + o * chunk, values[j].begin() + (o + 1) * chunk);
    }
  }
  return One(c, q);
}

// ---------------------------------------------------------------------------
// Pooling

// A pooled tensor's layout: [N, C, D1, ...], or [N, D1, ..., C] with
// channels_last.
struct PoolLayout {
  int64_t batch = 0, channels = 0, plane = 1;
  Dims spatial;
  bool channels_last = false;

  // The flat index of (n, ch, spatial position p) in a tensor of this layout
  // with `plane_size` positions.
  int64_t At(int64_t n, int64_t ch, int64_t p, int64_t plane_size) const {
    return channels_last ? (n * plane_size + p) * channels + ch
                         : (n * channels + ch) * plane_size + p;
  }
};

absl::StatusOr<PoolLayout> LayoutOf(const KernelContext& c, const Dims& x, bool channels_last) {
  if (x.size() < 3) {
    return KernelError(c, absl::StrFormat("X %s must have a batch, a channel and a spatial axis",
                                          TensorType(DType::kQUInt8, x).ToString()));
  }
  PoolLayout l;
  l.channels_last = channels_last;
  l.batch = x[0];
  l.channels = channels_last ? x.back() : x[1];
  l.spatial.assign(x.begin() + (channels_last ? 1 : 2), x.end() - (channels_last ? 1 : 0));
  for (int64_t d : l.spatial) l.plane *= d;
  return l;
}

// The dims of a pooled output with spatial dims `out` in layout `l`.
Dims PooledDims(const PoolLayout& l, const Dims& out) {
  Dims d = {l.batch};
  if (!l.channels_last) d.push_back(l.channels);
  d.insert(d.end(), out.begin(), out.end());
  if (l.channels_last) d.push_back(l.channels);
  return d;
}

// Sums each (batch, channel) image's raw integers and requantizes the sum,
// less the zero point's share, with x_scale / (y_scale * image size).
std::vector<int32_t> GlobalAverage(const Tensor& x, const PoolLayout& l, Quant qx, Quant qy,
                                   IntRange range) {
  const std::vector<int32_t> xi = StoredInts(x);
  const auto size = static_cast<int32_t>(l.plane);
  const float multiplier = qx.scale / (qy.scale * static_cast<float>(size));
  std::vector<int32_t> q(static_cast<size_t>(l.batch * l.channels));
  for (int64_t n = 0; n < l.batch; ++n) {
    for (int64_t ch = 0; ch < l.channels; ++ch) {
      int64_t sum = -static_cast<int64_t>(qx.zero) * size;
      for (int64_t p = 0; p < l.plane; ++p) sum += xi[l.At(n, ch, p, l.plane)];
      q[l.At(n, ch, 0, 1)] = Requantize(static_cast<int32_t>(sum), multiplier, qy.zero, range);
    }
  }
  return q;
}

// The input, scales and zero points every quantized pool reads: X, x_scale,
// x_zero_point, y_scale, y_zero_point.
struct PoolInputs {
  const Tensor* x = nullptr;
  Quant qx, qy;
  IntRange range;
  PoolLayout layout;
};

absl::StatusOr<PoolInputs> ReadPoolInputs(const KernelContext& c, const OnnxArgs& args) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  PoolInputs p;
  EGRET_ASSIGN_OR_RETURN(p.x, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(p.range, SameTypeOutput(c, *p.x, "X"));
  const DType dt = p.x->type().dtype;
  EGRET_ASSIGN_OR_RETURN(p.qx, ReadQuant(c, args, 1, 2, dt, "x"));
  EGRET_ASSIGN_OR_RETURN(p.qy, ReadQuant(c, args, 3, 4, dt, "y"));
  EGRET_ASSIGN_OR_RETURN(p.layout,
                         LayoutOf(c, p.x->type().dims, args.Int("channels_last", 0) != 0));
  return p;
}

// Advances `idx` within the box [lo, hi) row-major; false after the last
// position.
bool NextInWindow(std::vector<int64_t>& idx, const std::vector<int64_t>& lo,
                  const std::vector<int64_t>& hi) {
  for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
    if (++idx[d] < hi[d]) return true;
    idx[d] = lo[d];
  }
  return false;
}

absl::Status CheckPooledDims(const KernelContext& c, const PoolLayout& l, const Dims& out) {
  const Dims want = PooledDims(l, out);
  if (want == c.outputs[0].dims) return absl::OkStatus();
  return KernelError(
      c, absl::StrFormat("the pool gives %s, the output is declared %s",
                         TensorType(c.outputs[0].dtype, want).ToString(), c.outputs[0].ToString()));
}

Result QLinearGlobalAveragePool(const KernelContext& c) {
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const PoolInputs p, ReadPoolInputs(c, args));
  EGRET_RETURN_IF_ERROR(CheckPooledDims(c, p.layout, Dims(p.layout.spatial.size(), 1)));
  return One(c, GlobalAverage(*p.x, p.layout, p.qx, p.qy, p.range));
}

// QLinearAveragePool: kernel_shape, strides, pads or auto_pad, ceil_mode,
// count_include_pad, channels_last. Windows are clipped to the input; the
// mean is the float32 sum over the window divided by its element count (or
// the kernel size under count_include_pad).
Result QLinearAveragePool(const KernelContext& c) {
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const PoolInputs p, ReadPoolInputs(c, args));
  const PoolLayout& l = p.layout;
  const int sd = static_cast<int>(l.spatial.size());
  const std::optional<std::vector<int64_t>> kernel = args.Ints("kernel_shape");
  if (!kernel || static_cast<int>(kernel->size()) != sd ||
      std::any_of(kernel->begin(), kernel->end(), [](int64_t k) { return k < 1; })) {
    return KernelError(c, absl::StrFormat("kernel_shape must be %d positive values", sd));
  }
  const std::vector<int64_t> stride = args.Ints("strides").value_or(std::vector<int64_t>(sd, 1));
  std::vector<int64_t> pads = args.Ints("pads").value_or(std::vector<int64_t>(2 * sd, 0));
  if (static_cast<int>(stride.size()) != sd || static_cast<int>(pads.size()) != 2 * sd ||
      std::any_of(stride.begin(), stride.end(), [](int64_t s) { return s < 1; }) ||
      std::any_of(pads.begin(), pads.end(), [](int64_t s) { return s < 0; })) {
    return KernelError(
        c, absl::StrFormat("strides [%s] and pads [%s] must be %d positive and %d "
                           "non-negative values",
                           absl::StrJoin(stride, ","), absl::StrJoin(pads, ","), sd, 2 * sd));
  }
  const std::string auto_pad = args.Str("auto_pad", "NOTSET");
  const bool ceil_mode = args.Int("ceil_mode", 0) != 0;
  Dims out(sd);
  for (int d = 0; d < sd; ++d) {
    const int64_t in = l.spatial[d], k = (*kernel)[d], s = stride[d];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out[d] = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out[d] - 1) * s + k - in);
      pads[d] = auto_pad == "SAME_LOWER" ? (total + 1) / 2 : total / 2;
      pads[d + sd] = total - pads[d];
    } else if (auto_pad == "VALID" || auto_pad == "NOTSET") {
      if (auto_pad == "VALID") pads[d] = pads[d + sd] = 0;
      const int64_t span = in + pads[d] + pads[d + sd] - k;
      if (span < 0) {
        return KernelError(c, absl::StrFormat("kernel %d does not fit the padded input %d", k, in));
      }
      out[d] = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // The last window must start inside the input or its leading pad.
      if (ceil_mode && (out[d] - 1) * s >= in + pads[d]) --out[d];
    } else {
      return KernelError(c, absl::StrFormat("unknown auto_pad '%s'", auto_pad));
    }
  }
  EGRET_RETURN_IF_ERROR(CheckPooledDims(c, l, out));
  if (std::equal(kernel->begin(), kernel->end(), l.spatial.begin(), l.spatial.end()) &&
      std::all_of(pads.begin(), pads.end(), [](int64_t v) { return v == 0; })) {
    return One(c, GlobalAverage(*p.x, l, p.qx, p.qy, p.range));
  }
  std::vector<float> xf(static_cast<size_t>(p.x->num_elements()));
  ForEachStored(*p.x, [&](int64_t i, int32_t q) { xf[i] = Dequant(q, p.qx); });
  const bool include_pad = args.Int("count_include_pad", 0) != 0;
  int64_t kernel_size = 1, out_plane = 1;
  for (int d = 0; d < sd; ++d) {
    kernel_size *= (*kernel)[d];
    out_plane *= out[d];
  }
  std::vector<int32_t> q(static_cast<size_t>(l.batch * l.channels * out_plane));
  std::vector<int64_t> oi(sd), lo(sd), hi(sd), wi(sd);
  for (int64_t n = 0; n < l.batch; ++n) {
    for (int64_t ch = 0; ch < l.channels; ++ch) {
      std::fill(oi.begin(), oi.end(), 0);
      for (int64_t op = 0; op < out_plane; ++op, Increment(oi, out)) {
        int64_t count = 1;
        bool empty = false;
        for (int d = 0; d < sd; ++d) {
          const int64_t start = oi[d] * stride[d] - pads[d];
          hi[d] = std::min(start + (*kernel)[d], l.spatial[d]);
          lo[d] = std::max<int64_t>(start, 0);
          count *= hi[d] - lo[d];
          empty = empty || lo[d] >= hi[d];
        }
        float sum = 0.0f;
        if (!empty) {
          wi = lo;
          do {
            int64_t pos = 0;
            for (int d = 0; d < sd; ++d) pos = pos * l.spatial[d] + wi[d];
            sum += xf[l.At(n, ch, pos, l.plane)];
          } while (NextInWindow(wi, lo, hi));
        }
        const float mean = sum / static_cast<float>(include_pad ? kernel_size : count);
        const float scaled = mean / p.qy.scale + static_cast<float>(p.qy.zero);
        q[l.At(n, ch, op, out_plane)] = std::isnan(scaled)
                                            ? static_cast<int32_t>(p.range.lo)
                                            : static_cast<int32_t>(std::clamp<double>(
                                                  RoundHalfToEven(scaled), p.range.lo, p.range.hi));
      }
    }
  }
  return One(c, q);
}

}  // namespace

void RegisterOnnxQLinearContribKernels(KernelTable& t) {
  t.emplace("onnx.com.microsoft.QLinearAdd", QLinearBinary<false>);
  t.emplace("onnx.com.microsoft.QLinearMul", QLinearBinary<true>);
  t.emplace("onnx.com.microsoft.QLinearSigmoid", QLinearSigmoid);
  t.emplace("onnx.com.microsoft.QLinearLeakyRelu", QLinearLeakyRelu);
  t.emplace("onnx.com.microsoft.QLinearAveragePool", QLinearAveragePool);
  t.emplace("onnx.com.microsoft.QLinearGlobalAveragePool", QLinearGlobalAveragePool);
  t.emplace("onnx.com.microsoft.QLinearConcat", QLinearConcat);
}

}  // namespace egret::backend_internal
