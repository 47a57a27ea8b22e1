// Convolutions in NHWC with filters [fh, fw, in_depth / groups, out_depth],
// computed by oneDNN's convolution and deconvolution primitives in float32
// (dnnl_support.h); the double loops below are the fallback for shapes oneDNN
// rejects. A convolution of 8-bit quantized operands is computed exactly, in
// integers (DnnlQuantizedConv, conv_quantized.cc).
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "egret/executor/kernels/conv_internal.h"
#include "egret/executor/kernels/dnnl_support.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/parallel.h"
#include "egret/executor/kernels/requantize.h"
#include "egret/executor/kernels/simd.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace conv {

std::optional<dnnl::memory> FilterIn(const KernelContext& c, const dnnl::memory::desc& want,
                                     int part,
                                     absl::FunctionRef<std::optional<dnnl::memory>()> make_user) {
  auto reordered = [&]() -> std::optional<dnnl::memory> {
    std::optional<dnnl::memory> user = make_user();
    if (!user || user->get_desc() == want) return user;
    dnnl::memory m(want, CpuEngine());
    dnnl::stream s(CpuEngine());
    dnnl::reorder(*user, m).execute(s, *user, m);
    s.wait();
    return m;
  };
  if (const std::shared_ptr<const Tensor>* w = c.Constant(1)) {
    return c.cache->Get(*w, want, part, reordered);
  }
  return reordered();
}

std::vector<int64_t> ConvKey(PrimitiveKind kind, int64_t src_type, const KernelContext& c,
                             int64_t groups, const ConvParams& p, int64_t pad_bottom,
                             int64_t pad_right) {
  std::vector<int64_t> key = {kind, KernelThreads(), src_type,   groups,     p.sh,     p.sw, p.dh,
                              p.dw, p.pad_top,       p.pad_left, pad_bottom, pad_right};
  for (const Dims* d : {&c.InDims(0), &c.InDims(1), &c.outputs[0].dims}) {
    key.push_back(static_cast<int64_t>(d->size()));
    key.insert(key.end(), d->begin(), d->end());
  }
  return key;
}

}  // namespace conv

namespace {

using conv::ConvKey;
using conv::ConvParams;
using conv::ConvPrimitive;
using conv::DeconvPrimitive;
using conv::DnnlQuantizedConv;
using conv::FilterIn;
using conv::kFloatConv;
using conv::kFloatDeconv;

using Result = absl::StatusOr<std::vector<Tensor>>;

absl::StatusOr<ConvParams> ReadConvParams(const KernelContext& c) {
  ConvParams p;
  EGRET_ASSIGN_OR_RETURN(auto stride, ReadIntParam(c.inputs[3], "stride"));
  EGRET_ASSIGN_OR_RETURN(auto pads, ReadIntParam(c.inputs[4], "pads"));
  p.sh = stride[1];
  p.sw = stride[2];
  p.pad_top = pads[0];
  p.pad_left = pads[2];
  if (c.Has(5)) {
    EGRET_ASSIGN_OR_RETURN(auto dil, ReadIntParam(c.inputs[5], "dilation"));
    p.dh = dil[1];
    p.dw = dil[2];
  }
  return p;
}

// The filter of a convolution or deconvolution as oneDNN's grouped weights
// {groups, out / groups, in / groups, fh, fw}, described in place over
// egret's [fh, fw, in / groups, out] storage: output channel g * og + j of
// group g is column g * og + j.
dnnl::memory::desc GroupedWeightsDesc(int64_t groups, int64_t fh, int64_t fw, int64_t fcin,
                                      int64_t cout) {
  const int64_t og = cout / groups;
  return StridedDesc({groups, og, fcin, fh, fw}, {og, 1, cout, fw * fcin * cout, fcin * cout});
}

dnnl::memory::desc NhwcDesc(const Dims& d) {
  return dnnl::memory::desc({d[0], d[3], d[1], d[2]}, dnnl::memory::data_type::f32,
                            dnnl::memory::format_tag::nhwc);
}

// Runs a convolution-like primitive on the node's input, filter and bias
// (inputs 0-2, read as floats), whose weights oneDNN lays out itself:
// reorders the filter into the primitive's layout, then executes it, writing
// `out`.
template <typename PrimitiveDesc, typename Primitive>
void RunConvLike(const PrimitiveDesc& pd, const Primitive& prim, const dnnl::memory::desc& wdesc,
                 const KernelContext& c, float* out) {
  const FloatsIn x(c.In(0));
  const FloatsIn bias(c.In(2));
  const dnnl::engine& eng = CpuEngine();
  std::optional<FloatsIn> w;
  const dnnl::memory wmem =
      *FilterIn(c, pd.weights_desc(), 0, [&]() -> std::optional<dnnl::memory> {
        w.emplace(c.In(1));
        // oneDNN takes non-const handles; it only reads sources and weights.
        return dnnl::memory(wdesc, eng, const_cast<float*>(w->data()));
      });
  dnnl::stream s(eng);
  dnnl::memory xmem(pd.src_desc(), eng, const_cast<float*>(x.data()));
  dnnl::memory bmem(pd.bias_desc(), eng, const_cast<float*>(bias.data()));
  dnnl::memory omem(pd.dst_desc(), eng, out);
  prim.execute(s, {{DNNL_ARG_SRC, xmem},
                   {DNNL_ARG_WEIGHTS, wmem},
                   {DNNL_ARG_BIAS, bmem},
                   {DNNL_ARG_DST, omem}});
  s.wait();
}

// Conv2d and DepthWiseConv2d on oneDNN, the result clamped when `clamp` is
// set; nullopt when oneDNN does not take the shape.
std::optional<Tensor> DnnlConv(const KernelContext& c, const ConvParams& p,
                               const std::optional<ActivationClamp>& clamp) {
  const Dims& xd = c.InDims(0);
  const Dims& wd = c.InDims(1);
  const Dims& od = c.outputs[0].dims;
  if (xd.size() != 4 || wd.size() != 4 || od.size() != 4) return std::nullopt;
  const int64_t cin = xd[3], fh = wd[0], fw = wd[1], fcin = wd[2], cout = wd[3];
  if (c.outputs[0].num_elements() == 0 || c.In(0).num_elements() == 0) return std::nullopt;
  for (int i = 0; i < 3; ++i) {
    if (!FloatComputable(c.In(i).type())) return std::nullopt;
  }
  if (!FloatComputable(c.outputs[0])) return std::nullopt;
  const bool depthwise = c.op == "DepthWiseConv2d";
  const int64_t groups = depthwise ? cin : cin / fcin;
  const std::optional<int64_t> pb =
      DnnlTrailingPad((od[1] - 1) * p.sh + (fh - 1) * p.dh + 1 - xd[1] - p.pad_top, p.sh);
  const std::optional<int64_t> pr =
      DnnlTrailingPad((od[2] - 1) * p.sw + (fw - 1) * p.dw + 1 - xd[2] - p.pad_left, p.sw);
  if (p.pad_top < 0 || p.pad_left < 0 || !pb || !pr) return std::nullopt;
  const int64_t pad_bottom = *pb, pad_right = *pr;
  if (std::optional<Tensor> t = DnnlQuantizedConv(c, p, pad_bottom, pad_right, clamp)) return t;
  try {
    using dnnl::memory;
    const memory::desc wdesc = GroupedWeightsDesc(groups, fh, fw, depthwise ? 1 : fcin, cout);
    const memory::desc wany({groups, cout / groups, depthwise ? 1 : fcin, fh, fw},
                            memory::data_type::f32, memory::format_tag::any);
    const memory::desc bdesc({cout}, memory::data_type::f32, memory::format_tag::a);
    const ConvPrimitive made = CachedPrimitive<ConvPrimitive>(
        c.primitives, ConvKey(kFloatConv, 0, c, groups, p, pad_bottom, pad_right), [&] {
          dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                            dnnl::algorithm::convolution_direct, NhwcDesc(xd), wany,
                                            bdesc, NhwcDesc(od), {p.sh, p.sw}, {p.dh - 1, p.dw - 1},
                                            {p.pad_top, p.pad_left}, {pad_bottom, pad_right});
          dnnl::convolution_forward::primitive_desc pd(d, CpuEngine());
          return ConvPrimitive{pd, dnnl::convolution_forward(pd)};
        });
    FloatsOut out(c.outputs[0]);
    RunConvLike(made.pd, made.prim, wdesc, c, out.data());
    if (clamp) ClampFloats(out.span(), clamp->lo, clamp->hi);
    return out.Finish();
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// TransposeConv2d on oneDNN's deconvolution into `out`, or false.
bool DnnlTransposeConv(const KernelContext& c, const ConvParams& p, FloatsOut& out) {
  const Dims& xd = c.InDims(0);
  const Dims& wd = c.InDims(1);
  const Dims& od = c.outputs[0].dims;
  if (xd.size() != 4 || wd.size() != 4 || od.size() != 4) return false;
  const int64_t cin = xd[3], fh = wd[0], fw = wd[1], fcin = wd[2], cout = wd[3];
  if (c.outputs[0].num_elements() == 0 || c.In(0).num_elements() == 0) return false;
  for (int i = 0; i < 3; ++i) {
    if (!FloatComputable(c.In(i).type())) return false;
  }
  if (!FloatComputable(c.outputs[0])) return false;
  const int64_t groups = cin / fcin;
  // oneDNN's deconvolution is the adjoint of the convolution from dst to src.
  const int64_t pad_bottom = (xd[1] - 1) * p.sh + (fh - 1) * p.dh + 1 - od[1] - p.pad_top;
  const int64_t pad_right = (xd[2] - 1) * p.sw + (fw - 1) * p.dw + 1 - od[2] - p.pad_left;
  if (p.pad_top < 0 || p.pad_left < 0) return false;
  try {
    using dnnl::memory;
    const memory::desc wdesc = GroupedWeightsDesc(groups, fh, fw, fcin, cout);
    const memory::desc wany({groups, cout / groups, fcin, fh, fw}, memory::data_type::f32,
                            memory::format_tag::any);
    const memory::desc bdesc({cout}, memory::data_type::f32, memory::format_tag::a);
    const DeconvPrimitive made = CachedPrimitive<DeconvPrimitive>(
        c.primitives, ConvKey(kFloatDeconv, 0, c, groups, p, pad_bottom, pad_right), [&] {
          dnnl::deconvolution_forward::desc d(
              dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
              NhwcDesc(xd), wany, bdesc, NhwcDesc(od), {p.sh, p.sw}, {p.dh - 1, p.dw - 1},
              {p.pad_top, p.pad_left}, {pad_bottom, pad_right});
          dnnl::deconvolution_forward::primitive_desc pd(d, CpuEngine());
          return DeconvPrimitive{pd, dnnl::deconvolution_forward(pd)};
        });
    RunConvLike(made.pd, made.prim, wdesc, c, out.data());
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

// Conv2d and DepthWiseConv2d: a gather over the receptive field of each
// output element.
Result Conv(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto p, ReadConvParams(c));
  EGRET_ASSIGN_OR_RETURN(const std::optional<ActivationClamp> clamp, ReadActivationClamp(c, 6));
  if (std::optional<Tensor> t = DnnlConv(c, p, clamp)) {
    std::vector<Tensor> result;
    result.push_back(*std::move(t));
    return result;
  }
  const std::vector<double> x = ReadReals(c.In(0));
  const std::vector<double> w = ReadReals(c.In(1));
  const std::vector<double> bias = ReadReals(c.In(2));
  const Dims& xd = c.InDims(0);
  const Dims& wd = c.InDims(1);
  const Dims& od = c.outputs[0].dims;
  const int64_t batch = xd[0], ih = xd[1], iw = xd[2], cin = xd[3];
  const int64_t fh = wd[0], fw = wd[1], fcin = wd[2], cout = wd[3];
  const int64_t oh = od[1], ow = od[2];
  const bool depthwise = c.op == "DepthWiseConv2d";
  // Conv2d: output channel o reads input channels g*fcin .. g*fcin+fcin-1 of
  // its group g. DepthWiseConv2d: output channel o reads input channel
  // o / (cout / cin) only (fcin is 1).
  const int64_t group_out = depthwise ? cout / cin : cout / (cin / fcin);
  std::vector<double> out(static_cast<size_t>(batch * oh * ow * cout));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        double* acc = &out[((b * oh + oy) * ow + ox) * cout];
        for (int64_t oc = 0; oc < cout; ++oc) acc[oc] = bias[oc];
        for (int64_t ky = 0; ky < fh; ++ky) {
          const int64_t iy = oy * p.sh - p.pad_top + ky * p.dh;
          if (iy < 0 || iy >= ih) continue;
          for (int64_t kx = 0; kx < fw; ++kx) {
            const int64_t ix = ox * p.sw - p.pad_left + kx * p.dw;
            if (ix < 0 || ix >= iw) continue;
            const double* xp = &x[((b * ih + iy) * iw + ix) * cin];
            const double* wp = &w[(ky * fw + kx) * fcin * cout];
            if (depthwise) {
              for (int64_t oc = 0; oc < cout; ++oc) acc[oc] += xp[oc / group_out] * wp[oc];
              continue;
            }
            // Output channels of group g read input channels g*fcin .. g*fcin+fcin-1;
            // the innermost loop runs over contiguous output channels.
            for (int64_t g = 0; g * group_out < cout; ++g) {
              for (int64_t k = 0; k < fcin; ++k) {
                const double v = xp[g * fcin + k];
                const double* wr = wp + k * cout + g * group_out;
                double* ar = acc + g * group_out;
                for (int64_t j = 0; j < group_out; ++j) ar[j] += v * wr[j];
              }
            }
          }
        }
      }
    }
  }
  EGRET_RETURN_IF_ERROR(ApplyActivationClamp(c, 6, out));
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

// TransposeConv2d: each input element scatters into the output positions its
// filter taps reach (the adjoint of Conv2d with the same parameters).
Result TransposeConv(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto p, ReadConvParams(c));
  if (FloatsOut out(c.outputs[0]); DnnlTransposeConv(c, p, out)) {
    std::vector<Tensor> result;
    result.push_back(out.Finish());
    return result;
  }
  const std::vector<double> x = ReadReals(c.In(0));
  const std::vector<double> w = ReadReals(c.In(1));
  const std::vector<double> bias = ReadReals(c.In(2));
  const Dims& xd = c.InDims(0);
  const Dims& wd = c.InDims(1);
  const Dims& od = c.outputs[0].dims;
  const int64_t batch = xd[0], ih = xd[1], iw = xd[2], cin = xd[3];
  const int64_t fh = wd[0], fw = wd[1], fcin = wd[2], cout = wd[3];
  const int64_t oh = od[1], ow = od[2];
  const int64_t groups = cin / fcin;
  const int64_t group_out = cout / groups;
  std::vector<double> out(static_cast<size_t>(batch * oh * ow * cout));
  for (size_t i = 0; i < out.size(); ++i) out[i] = bias[i % cout];
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t iy = 0; iy < ih; ++iy) {
      for (int64_t ix = 0; ix < iw; ++ix) {
        for (int64_t ic = 0; ic < cin; ++ic) {
          const double v = x[((b * ih + iy) * iw + ix) * cin + ic];
          const int64_t g = ic / fcin, k = ic % fcin;
          for (int64_t ky = 0; ky < fh; ++ky) {
            const int64_t oy = iy * p.sh - p.pad_top + ky * p.dh;
            if (oy < 0 || oy >= oh) continue;
            for (int64_t kx = 0; kx < fw; ++kx) {
              const int64_t ox = ix * p.sw - p.pad_left + kx * p.dw;
              if (ox < 0 || ox >= ow) continue;
              double* op = &out[((b * oh + oy) * ow + ox) * cout + g * group_out];
              const double* wp = &w[((ky * fw + kx) * fcin + k) * cout + g * group_out];
              for (int64_t j = 0; j < group_out; ++j) op[j] += v * wp[j];
            }
          }
        }
      }
    }
  }
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

}  // namespace

void RegisterConvKernels(KernelTable& t) {
  t.emplace("Conv2d", Conv);
  t.emplace("DepthWiseConv2d", Conv);
  t.emplace("TransposeConv2d", TransposeConv);
}

}  // namespace egret::backend_internal
