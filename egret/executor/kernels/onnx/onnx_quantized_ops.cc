// ONNX's integer convolution and matrix product: ConvInteger and
// MatMulInteger (int32 results), QLinearConv and QLinearMatMul (results
// requantized to the declared 8-bit type).
//
// The data are 8-bit (uint8 or int8). The zero points are subtracted first
// (x - x_zero_point, as int16), so padding contributes 0, as ONNX defines
// it. Products accumulate in int32 on raw integers, as ONNX Runtime does;
// this is exact while a sum has fewer than 2^31 / 255^2 terms. Longer sums
// accumulate in int64 and wrap to int32. The convolution runs as a blocked
// matrix product of w by gathered input patches, so that it vectorizes (an
// IS-Net at 1024x1024 is 160 G multiply-adds).
//
// QLinearConv and QLinearMatMul requantize each sum (plus QLinearConv's int32
// bias) with the float32 multiplier x_scale * w_scale / y_scale (per output
// channel or column when w's / b's scale is), rounding halves to even.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/executor/kernels/onnx/onnx_quantize_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// Sums of up to this many products of two centered 8-bit values fit int32.
constexpr int64_t kMaxInt32Terms = std::numeric_limits<int32_t>::max() / (255 * 255) - 1;

std::string DimsString(const Dims& d) { return absl::StrFormat("[%s]", absl::StrJoin(d, ",")); }

// t - zero as int16, `t` viewed with `dims` and `zero` (optional, t's type)
// with `zero_dims`, broadcast to them numpy-style.
absl::StatusOr<std::vector<int16_t>> Centered(const KernelContext& c, const Tensor& t,
                                              const Dims& dims, const Tensor* zero,
                                              const Dims& zero_dims, std::string_view what) {
  const DType dt = t.type().dtype;
  if (!Is8Bit(dt)) {
    return KernelError(
        c, absl::StrFormat("%s must be int8 or uint8, not %s", what, t.type().ToString()));
  }
  if (zero != nullptr && zero->type().dtype != dt) {
    return KernelError(c, absl::StrFormat("the zero point of %s must be %s like it, not %s", what,
                                          DTypeName(dt), zero->type().ToString()));
  }
  std::vector<int16_t> out(static_cast<size_t>(t.num_elements()));
  if (zero == nullptr || zero->num_elements() == 1) {
    const int32_t z = zero != nullptr ? StoredInts(*zero)[0] : 0;
    ForEachStored(t, [&](int64_t i, int32_t q) { out[i] = static_cast<int16_t>(q - z); });
    return out;
  }
  absl::StatusOr<Dims> b = BroadcastDims(zero_dims, dims);
  if (!b.ok() || *b != dims) {
    return KernelError(c, absl::StrFormat("the zero point of %s, %s, does not fit %s %s", what,
                                          zero->type().ToString(), what, DimsString(dims)));
  }
  const std::vector<int64_t> stride = BroadcastStrides(zero_dims, dims);
  const std::vector<int32_t> z = StoredInts(*zero);
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> idx(rank, 0);
  int64_t zi = 0;
  ForEachStored(t, [&](int64_t i, int32_t q) {
    out[i] = static_cast<int16_t>(q - z[zi]);
    for (int d = rank - 1; d >= 0; --d) {
      ++idx[d];
      zi += stride[d];
      if (idx[d] < dims[d]) break;
      zi -= stride[d] * dims[d];
      idx[d] = 0;
    }
  });
  return out;
}

// The dims under which a per-output-channel zero point of M entries
// broadcasts to w [M, C, k...]: [M, 1, 1, ...] ([1, 1, ...] for a
// one-element zero point, which Centered treats as a scalar anyway).
absl::StatusOr<Dims> PerChannelDims(const KernelContext& c, const Tensor* zero, int64_t m,
                                    size_t rank, std::string_view what) {
  Dims d(rank, 1);
  if (zero == nullptr || zero->num_elements() == 1) return d;
  if (zero->type().rank() != 1 || zero->num_elements() != m) {
    return KernelError(c, absl::StrFormat("%s must be a scalar or have one entry per output "
                                          "channel (%d), not %s",
                                          what, m, zero->type().ToString()));
  }
  d[0] = m;
  return d;
}

// The float32 entries of a scale that is one value or `n` values (rank 1).
absl::StatusOr<std::vector<float>> ScaleEntries(const KernelContext& c, const Tensor* t, int64_t n,
                                                std::string_view what) {
  if (t == nullptr) return KernelError(c, absl::StrFormat("%s is required", what));
  const bool one = t->num_elements() == 1;
  if (!IsFloat(t->type().dtype) || (!one && (t->type().rank() != 1 || t->num_elements() != n))) {
    return KernelError(c, absl::StrFormat("%s must be one float or %d floats, not %s", what, n,
                                          t->type().ToString()));
  }
  std::vector<float> s = ReadFloats(*t);
  if (one) s.assign(static_cast<size_t>(n), s[0]);
  return s;
}

// ---------------------------------------------------------------------------
// Convolution

// The geometry of an ONNX convolution of x [N, C, D1, ...] by w
// [M, C / group, k1, ...]; per spatial axis: input, kernel and output sizes,
// stride, dilation and leading pad.
struct ConvShape {
  int64_t batch = 0, cin = 0, cout = 0, groups = 1;
  std::vector<int64_t> in, kernel, out, stride, dilation, pad;
};

absl::StatusOr<ConvShape> OnnxConvShape(const KernelContext& c, const Dims& x, const Dims& w) {
  const OnnxArgs args(c);
  const int rank = static_cast<int>(x.size());
  if (rank < 3 || w.size() != x.size()) {
    return KernelError(c, absl::StrFormat("x %s and w %s must be [N, C, D1, ...] and "
                                          "[M, C / group, k1, ...]",
                                          DimsString(x), DimsString(w)));
  }
  const int sd = rank - 2;
  ConvShape s;
  s.batch = x[0];
  s.cin = x[1];
  s.cout = w[0];
  s.groups = args.Int("group", 1);
  if (s.groups < 1 || s.cin % s.groups != 0 || s.cout % s.groups != 0 || w[1] * s.groups != s.cin) {
    return KernelError(c, absl::StrFormat("group %d does not fit x %s and w %s", s.groups,
                                          DimsString(x), DimsString(w)));
  }
  auto spatial = [&](std::string_view name) -> absl::StatusOr<std::vector<int64_t>> {
    std::optional<std::vector<int64_t>> v = args.Ints(name);
    if (!v) return std::vector<int64_t>(sd, 1);
    if (static_cast<int>(v->size()) != sd ||
        std::any_of(v->begin(), v->end(), [](int64_t e) { return e < 1; })) {
      return KernelError(c, absl::StrFormat("%s [%s] must be %d positive values", name,
                                            absl::StrJoin(*v, ","), sd));
    }
    return *v;
  };
  EGRET_ASSIGN_OR_RETURN(s.stride, spatial("strides"));
  EGRET_ASSIGN_OR_RETURN(s.dilation, spatial("dilations"));
  s.kernel.assign(w.begin() + 2, w.end());
  if (std::any_of(s.kernel.begin(), s.kernel.end(), [](int64_t k) { return k < 1; })) {
    return KernelError(c, absl::StrFormat("w %s has an empty kernel", DimsString(w)));
  }
  if (auto k = args.Ints("kernel_shape"); k && *k != s.kernel) {
    return KernelError(c, absl::StrFormat("kernel_shape [%s] does not match w %s",
                                          absl::StrJoin(*k, ","), DimsString(w)));
  }
  std::vector<int64_t> pads = args.Ints("pads").value_or(std::vector<int64_t>(2 * sd, 0));
  if (static_cast<int>(pads.size()) != 2 * sd ||
      std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; })) {
    return KernelError(c, absl::StrFormat("pads [%s] must be %d values, none negative",
                                          absl::StrJoin(pads, ","), 2 * sd));
  }
  const std::string auto_pad = args.Str("auto_pad", "NOTSET");
  for (int d = 0; d < sd; ++d) {
    const int64_t in = x[2 + d], st = s.stride[d];
    const int64_t extent = (s.kernel[d] - 1) * s.dilation[d] + 1;
    int64_t lead = 0, out = 0;
    if (auto_pad == "NOTSET") {
      lead = pads[d];
      const int64_t span = in + pads[d] + pads[d + sd] - extent;
      out = span < 0 ? 0 : span / st + 1;
    } else if (auto_pad == "VALID") {
      out = in < extent ? 0 : (in - extent) / st + 1;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (in + st - 1) / st;
      const int64_t total = std::max<int64_t>(0, (out - 1) * st + extent - in);
      lead = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      return KernelError(c, absl::StrFormat("unknown auto_pad '%s'", auto_pad));
    }
    if (out < 1) {
      return KernelError(c, absl::StrFormat("spatial axis %d: the kernel (%d taps, dilation %d) "
                                            "does not fit the padded input of %d",
                                            d, s.kernel[d], s.dilation[d], in));
    }
    s.in.push_back(in);
    s.out.push_back(out);
    s.pad.push_back(lead);
  }
  // The output the importer declared must be [N, M, out...].
  Dims want = {s.batch, s.cout};
  want.insert(want.end(), s.out.begin(), s.out.end());
  if (c.outputs[0].dims != want) {
    return KernelError(c, absl::StrFormat("the convolution gives %s, the output is declared %s",
                                          DimsString(want), c.outputs[0].ToString()));
  }
  return s;
}

// The convolution runs as a matrix product, blocked: a slice of at most
// kSlice of the C / group * kernel-size products of each sum, and a tile of
// at most kTile output positions along a row, whose input taps are gathered
// once into a patch and reused by every output channel of the group.
constexpr int64_t kSlice = 1152;
constexpr int64_t kTile = 32;

// sum a[t] * b[t] over t < n, n a multiple of kLanes: with a fixed inner trip
// count, -O2 vectorizes it (pmaddwd on x86) without an epilogue. Short sums
// pad to 16 terms, longer ones to 64.
template <typename Acc, int64_t kLanes>
Acc Dot(const int16_t* a, const int16_t* b, int64_t n) {
  Acc sum = 0;
  for (int64_t t = 0; t < n; t += kLanes) {
    for (int64_t u = 0; u < kLanes; ++u) sum += Acc{a[t + u]} * b[t + u];
  }
  return sum;
}

// acc[n][oc][o...] = sum over the input channels ic of oc's group and the
// kernel taps k of x[n][ic][i...] * w[oc][ic][k...], x and w centered (taps
// in the padding read 0).
template <typename Acc>
std::vector<Acc> ConvAccumulate(const ConvShape& s, absl::Span<const int16_t> x,
                                absl::Span<const int16_t> w) {
  const int sd = static_cast<int>(s.in.size());
  const int64_t iw = s.in.back(), ow = s.out.back(), kw = s.kernel.back();
  const int64_t sw = s.stride.back(), dw = s.dilation.back(), pw = s.pad.back();
  int64_t in_plane = 1, out_plane = 1, k_size = 1;
  for (int d = 0; d < sd; ++d) {
    in_plane *= s.in[d];
    out_plane *= s.out[d];
    k_size *= s.kernel[d];
  }
  const int64_t out_rows = out_plane / ow, k_rows = k_size / kw;
  // rows[oo * k_rows + ko]: the offset of the input row that kernel row ko
  // reads for output row oo, or -1 when it lies in the padding.
  std::vector<int64_t> rows(static_cast<size_t>(out_rows * k_rows));
  const absl::Span<const int64_t> out_lead(s.out.data(), sd - 1);
  const absl::Span<const int64_t> k_lead(s.kernel.data(), sd - 1);
  std::vector<int64_t> oi(sd - 1, 0);
  for (int64_t oo = 0; oo < out_rows; ++oo, Increment(oi, out_lead)) {
    std::vector<int64_t> ki(sd - 1, 0);
    for (int64_t ko = 0; ko < k_rows; ++ko, Increment(ki, k_lead)) {
      int64_t off = 0;
      bool inside = true;
      for (int d = 0; d < sd - 1 && inside; ++d) {
        const int64_t p = oi[d] * s.stride[d] - s.pad[d] + ki[d] * s.dilation[d];
        inside = p >= 0 && p < s.in[d];
        off = off * s.in[d] + p;
      }
      rows[oo * k_rows + ko] = inside ? off * iw : -1;
    }
  }
  const int64_t cin_g = s.cin / s.groups, cout_g = s.cout / s.groups;
  const int64_t terms = cin_g * k_size;
  std::vector<Acc> acc(static_cast<size_t>(s.batch * s.cout * out_plane), 0);
  if (terms == 0) return acc;  // sums of nothing
  // Term t of a sum is input channel t / k_size, kernel row t % k_size / kw
  // and column t % kw (w's own order). Each slice of kSlice terms holds
  // w's rows zero-padded to a multiple of the lanes.
  const int64_t lanes = terms < 192 ? 16 : 64;
  auto dot = lanes == 16 ? Dot<Acc, 16> : Dot<Acc, 64>;
  const int64_t slices = (terms + kSlice - 1) / kSlice;
  const int64_t slice = ((terms + slices - 1) / slices + lanes - 1) / lanes * lanes;
  std::vector<int16_t> wp(static_cast<size_t>(slices * s.cout * slice), 0);
  for (int64_t oc = 0; oc < s.cout; ++oc) {
    for (int64_t t = 0; t < terms; ++t) {
      wp[(t / slice * s.cout + oc) * slice + t % slice] = w[oc * terms + t];
    }
  }
  // Where term t reads: kernel row, input channel plane, and column
  // (relative to the output position times the stride).
  std::vector<int64_t> tap_row(terms), tap_plane(terms), tap_col(terms);
  for (int64_t t = 0; t < terms; ++t) {
    tap_row[t] = t % k_size / kw;
    tap_plane[t] = t / k_size * in_plane;
    tap_col[t] = t % kw * dw - pw;
  }
  std::vector<int16_t> patch(static_cast<size_t>(kTile * slice));
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const int16_t* xg = x.data() + (n * s.cin + g * cin_g) * in_plane;
      for (int64_t oo = 0; oo < out_rows; ++oo) {
        const int64_t* row_off = rows.data() + oo * k_rows;
        for (int64_t o0 = 0; o0 < ow; o0 += kTile) {
          const int64_t tile = std::min(kTile, ow - o0);
          for (int64_t sl = 0; sl < slices; ++sl) {
            // Taps in the padding, and terms past the sum, read 0.
            std::fill(patch.begin(), patch.end(), int16_t{0});
            const int64_t end = std::min(slice, terms - sl * slice);
            for (int64_t u = 0; u < end; ++u) {
              const int64_t t = sl * slice + u;
              const int64_t off = row_off[tap_row[t]];
              if (off < 0) continue;
              const int16_t* src = xg + tap_plane[t] + off;
              for (int64_t p = 0; p < tile; ++p) {
                const int64_t ix = (o0 + p) * sw + tap_col[t];
                if (ix >= 0 && ix < iw) patch[p * slice + u] = src[ix];
              }
            }
            for (int64_t oc = g * cout_g; oc < (g + 1) * cout_g; ++oc) {
              const int16_t* wr = wp.data() + (sl * s.cout + oc) * slice;
              Acc* out = acc.data() + (n * s.cout + oc) * out_plane + oo * ow + o0;
              for (int64_t p = 0; p < tile; ++p) out[p] += dot(wr, patch.data() + p * slice, slice);
            }
          }
        }
      }
    }
  }
  return acc;
}

// The centered convolution's sums as int32 (wrapping past its range).
std::vector<int32_t> ConvSums(const ConvShape& s, absl::Span<const int16_t> x,
                              absl::Span<const int16_t> w) {
  int64_t terms = s.cin / s.groups;
  for (int64_t k : s.kernel) terms *= k;
  if (terms <= kMaxInt32Terms) return ConvAccumulate<int32_t>(s, x, w);
  const std::vector<int64_t> wide = ConvAccumulate<int64_t>(s, x, w);
  return std::vector<int32_t>(wide.begin(), wide.end());
}

// ConvInteger(x, w, x_zero_point, w_zero_point): int32 sums of
// (x - x_zero_point) * (w - w_zero_point); w's zero point may be per output
// channel.
Result ConvInteger(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* x, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* w, args.Required(1));
  const Tensor* xz = args.Input(2);
  const Tensor* wz = args.Input(3);
  if (c.outputs[0].dtype != DType::kInt32) {
    return KernelError(c,
                       absl::StrFormat("output y must be int32, not %s", c.outputs[0].ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(const ConvShape s, OnnxConvShape(c, x->type().dims, w->type().dims));
  if (xz != nullptr && xz->num_elements() != 1) {
    return KernelError(
        c, absl::StrFormat("x_zero_point must be a scalar, not %s", xz->type().ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(const Dims wz_dims,
                         PerChannelDims(c, wz, s.cout, w->type().rank(), "w_zero_point"));
  EGRET_ASSIGN_OR_RETURN(const auto xs, Centered(c, *x, x->type().dims, xz, Dims{1}, "x"));
  EGRET_ASSIGN_OR_RETURN(const auto ws, Centered(c, *w, w->type().dims, wz, wz_dims, "w"));
  std::vector<Tensor> out;
  out.push_back(MakeStoredTensor(c.outputs[0], ConvSums(s, xs, ws)));
  return out;
}

// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
// y_zero_point, B): the ConvInteger sums plus the int32 bias B, requantized.
Result QLinearConv(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* x, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* w, args.Required(3));
  const TensorType& yt = c.outputs[0];
  EGRET_ASSIGN_OR_RETURN(const IntRange range, OnnxIntRange(c, yt, "output y"));
  EGRET_ASSIGN_OR_RETURN(const ConvShape s, OnnxConvShape(c, x->type().dims, w->type().dims));
  EGRET_ASSIGN_OR_RETURN(const float x_scale, ScalarScale(c, args.Input(1), "x_scale"));
  EGRET_ASSIGN_OR_RETURN(const auto w_scale, ScaleEntries(c, args.Input(4), s.cout, "w_scale"));
  EGRET_ASSIGN_OR_RETURN(const float y_scale, ScalarScale(c, args.Input(6), "y_scale"));
  EGRET_ASSIGN_OR_RETURN(const int32_t y_zero,
                         ScalarZeroPoint(c, args.Input(7), yt.dtype, "y_zero_point"));
  const Tensor* xz = args.Input(2);
  const Tensor* wz = args.Input(5);
  if (xz != nullptr && xz->num_elements() != 1) {
    return KernelError(
        c, absl::StrFormat("x_zero_point must be a scalar, not %s", xz->type().ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(const Dims wz_dims,
                         PerChannelDims(c, wz, s.cout, w->type().rank(), "w_zero_point"));
  std::vector<int32_t> bias(static_cast<size_t>(s.cout), 0);
  if (const Tensor* b = args.Input(8)) {
    if (b->type().dtype != DType::kInt32 || b->num_elements() != s.cout) {
      return KernelError(
          c, absl::StrFormat("B must be %d int32 values, not %s", s.cout, b->type().ToString()));
    }
    bias = StoredInts(*b);
  }
  EGRET_ASSIGN_OR_RETURN(const auto xs, Centered(c, *x, x->type().dims, xz, Dims{1}, "x"));
  EGRET_ASSIGN_OR_RETURN(const auto ws, Centered(c, *w, w->type().dims, wz, wz_dims, "w"));
  std::vector<int32_t> q = ConvSums(s, xs, ws);
  const int64_t plane = static_cast<int64_t>(q.size()) / std::max<int64_t>(s.batch * s.cout, 1);
  for (int64_t i = 0; i < static_cast<int64_t>(q.size()); ++i) {
    const int64_t oc = i / plane % s.cout;
    const float multiplier = x_scale * w_scale[oc] / y_scale;
    // The bias adds in int32 arithmetic, wrapping as ONNX Runtime's does.
    const auto sum =
        static_cast<int32_t>(static_cast<uint32_t>(q[i]) + static_cast<uint32_t>(bias[oc]));
    q[i] = Requantize(sum, multiplier, y_zero, range);
  }
  std::vector<Tensor> out;
  out.push_back(MakeStoredTensor(yt, q));
  return out;
}

// ---------------------------------------------------------------------------
// Matrix product

// numpy matmul of a [..., M, K] by b [..., K, N]: a 1-D a is a row [1, K]
// and a 1-D b a column [K, 1] (their axis leaves the result); the leading
// (batch) axes broadcast.
struct MatMulShape {
  Dims a, b, batch, out;  // a and b with rank >= 2
  int64_t m = 0, k = 0, n = 0;
};

absl::StatusOr<MatMulShape> OnnxMatMulShape(const KernelContext& c, const Dims& a, const Dims& b) {
  if (a.empty() || b.empty()) {
    return KernelError(c, absl::StrFormat("cannot multiply %s by %s: a scalar is not a matrix",
                                          DimsString(a), DimsString(b)));
  }
  MatMulShape s;
  s.a = a.size() == 1 ? Dims{1, a[0]} : a;
  s.b = b.size() == 1 ? Dims{b[0], 1} : b;
  s.m = s.a[s.a.size() - 2];
  s.k = s.a.back();
  s.n = s.b.back();
  if (s.b[s.b.size() - 2] != s.k) {
    return KernelError(c, absl::StrFormat("cannot multiply %s by %s: the inner dims differ",
                                          DimsString(a), DimsString(b)));
  }
  const Dims ab(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
  absl::StatusOr<Dims> batch = BroadcastDims(ab, bb);
  if (!batch.ok()) {
    return KernelError(c, absl::StrFormat("the batch dims of %s and %s do not broadcast",
                                          DimsString(a), DimsString(b)));
  }
  s.batch = *batch;
  s.out = s.batch;
  if (a.size() > 1) s.out.push_back(s.m);
  if (b.size() > 1) s.out.push_back(s.n);
  if (c.outputs[0].dims != s.out) {
    return KernelError(c, absl::StrFormat("the product gives %s, the output is declared %s",
                                          DimsString(s.out), c.outputs[0].ToString()));
  }
  return s;
}

template <typename Acc>
std::vector<Acc> MatMulAccumulate(const MatMulShape& s, absl::Span<const int16_t> a,
                                  absl::Span<const int16_t> b) {
  const Dims ab(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
  const std::vector<int64_t> sa = BroadcastStrides(ab, s.batch);
  const std::vector<int64_t> sb = BroadcastStrides(bb, s.batch);
  int64_t batches = 1;
  for (int64_t d : s.batch) batches *= d;
  std::vector<Acc> out(static_cast<size_t>(batches * s.m * s.n), 0);
  std::vector<int64_t> idx(s.batch.size(), 0);
  for (int64_t bi = 0; bi < batches; ++bi, Increment(idx, s.batch)) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
    }
    const int16_t* am = a.data() + ia * s.m * s.k;
    const int16_t* bm = b.data() + ib * s.k * s.n;
    for (int64_t i = 0; i < s.m; ++i) {
      Acc* row = out.data() + (bi * s.m + i) * s.n;
      for (int64_t k = 0; k < s.k; ++k) {
        const Acc av = am[i * s.k + k];
        const int16_t* br = bm + k * s.n;
        for (int64_t j = 0; j < s.n; ++j) row[j] += av * br[j];
      }
    }
  }
  return out;
}

std::vector<int32_t> MatMulSums(const MatMulShape& s, absl::Span<const int16_t> a,
                                absl::Span<const int16_t> b) {
  if (s.k <= kMaxInt32Terms) return MatMulAccumulate<int32_t>(s, a, b);
  const std::vector<int64_t> wide = MatMulAccumulate<int64_t>(s, a, b);
  return std::vector<int32_t>(wide.begin(), wide.end());
}

// The dims under which a matmul zero point broadcasts: one entry is a
// scalar (Centered ignores its dims); a 1-D a zero point of M entries is per row ([M, 1]); anything
// else broadcasts numpy-style as it is (b's [N] per column, [..., M, 1],
// [..., 1, N]).
Dims ZeroDims(const Tensor* zero, bool is_a, int64_t m) {
  if (zero == nullptr || zero->num_elements() == 1) return Dims{1};
  const Dims& d = zero->type().dims;
  if (is_a && d.size() == 1 && d[0] == m) return {m, 1};
  return d;
}

// MatMulInteger(A, B, a_zero_point, b_zero_point): int32 products of
// (A - a_zero_point) and (B - b_zero_point).
Result MatMulInteger(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* a, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* b, args.Required(1));
  if (c.outputs[0].dtype != DType::kInt32) {
    return KernelError(c,
                       absl::StrFormat("output Y must be int32, not %s", c.outputs[0].ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(const MatMulShape s, OnnxMatMulShape(c, a->type().dims, b->type().dims));
  const Tensor* az = args.Input(2);
  const Tensor* bz = args.Input(3);
  EGRET_ASSIGN_OR_RETURN(const auto as, Centered(c, *a, s.a, az, ZeroDims(az, true, s.m), "A"));
  EGRET_ASSIGN_OR_RETURN(const auto bs, Centered(c, *b, s.b, bz, ZeroDims(bz, false, s.m), "B"));
  std::vector<Tensor> out;
  out.push_back(MakeStoredTensor(c.outputs[0], MatMulSums(s, as, bs)));
  return out;
}

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point): the MatMulInteger products requantized; a's scale and zero
// point may be per row (M entries), b's per column (N entries).
Result QLinearMatMul(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* a, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* b, args.Required(3));
  const TensorType& yt = c.outputs[0];
  EGRET_ASSIGN_OR_RETURN(const IntRange range, OnnxIntRange(c, yt, "output y"));
  EGRET_ASSIGN_OR_RETURN(const MatMulShape s, OnnxMatMulShape(c, a->type().dims, b->type().dims));
  EGRET_ASSIGN_OR_RETURN(const auto a_scale, ScaleEntries(c, args.Input(1), s.m, "a_scale"));
  EGRET_ASSIGN_OR_RETURN(const auto b_scale, ScaleEntries(c, args.Input(4), s.n, "b_scale"));
  EGRET_ASSIGN_OR_RETURN(const float y_scale, ScalarScale(c, args.Input(6), "y_scale"));
  EGRET_ASSIGN_OR_RETURN(const int32_t y_zero,
                         ScalarZeroPoint(c, args.Input(7), yt.dtype, "y_zero_point"));
  const Tensor* az = args.Input(2);
  const Tensor* bz = args.Input(5);
  EGRET_ASSIGN_OR_RETURN(const auto as, Centered(c, *a, s.a, az, ZeroDims(az, true, s.m), "a"));
  EGRET_ASSIGN_OR_RETURN(const auto bs, Centered(c, *b, s.b, bz, ZeroDims(bz, false, s.m), "b"));
  std::vector<int32_t> q = MatMulSums(s, as, bs);
  for (int64_t i = 0; i < static_cast<int64_t>(q.size()); ++i) {
    const int64_t row = i / s.n % s.m, col = i % s.n;
    q[i] = Requantize(q[i], a_scale[row] * b_scale[col] / y_scale, y_zero, range);
  }
  std::vector<Tensor> out;
  out.push_back(MakeStoredTensor(yt, q));
  return out;
}

}  // namespace

void RegisterOnnxQuantizedOpKernels(KernelTable& t) {
  t.emplace("onnx.ConvInteger", ConvInteger);
  t.emplace("onnx.QLinearConv", QLinearConv);
  t.emplace("onnx.MatMulInteger", MatMulInteger);
  t.emplace("onnx.QLinearMatMul", QLinearMatMul);
}

}  // namespace egret::backend_internal
