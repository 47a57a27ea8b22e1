// PoolMax2d and PoolAvg2d over NHWC windows. Padded positions never win a max
// and, unless count_pad is 1, do not count in an average. Computed by
// oneDNN's pooling primitive in float32 (dnnl_support.h); the double loop is
// the fallback for windows oneDNN does not take.
#include <algorithm>
#include <limits>
#include <optional>

#include "egret/executor/kernels/dnnl_support.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// The pool on oneDNN into `out`; false when oneDNN does not take the window.
bool DnnlPool(const KernelContext& c, bool is_max, bool count_pad,
              const std::vector<int64_t>& window, const std::vector<int64_t>& stride,
              const std::vector<int64_t>& pads, FloatsOut& out) {
  const Dims& xd = c.InDims(0);
  const Dims& od = c.outputs[0].dims;
  if (xd.size() != 4 || od.size() != 4 || window.size() < 3 || stride.size() < 3 ||
      pads.size() < 3) {
    return false;
  }
  if (c.outputs[0].num_elements() == 0 || c.In(0).num_elements() == 0) return false;
  if (!FloatComputable(c.In(0).type()) || !FloatComputable(c.outputs[0])) return false;
  const int64_t kh = window[1], kw = window[2], sh = stride[1], sw = stride[2];
  const int64_t pt = pads[0], pl = pads[2];
  const std::optional<int64_t> trailing_b = DnnlTrailingPad((od[1] - 1) * sh + kh - xd[1] - pt, sh);
  const std::optional<int64_t> trailing_r = DnnlTrailingPad((od[2] - 1) * sw + kw - xd[2] - pl, sw);
  if (!trailing_b || !trailing_r) return false;
  const int64_t pb = *trailing_b, pr = *trailing_r;
  // Every window must overlap the input (the loop kernel gives 0 for a
  // window wholly in the padding, oneDNN does not define it); a count_pad
  // average divides by the whole window, which oneDNN does only when the
  // window stays inside the padded input.
  if (pt < 0 || pl < 0 || pb < 0 || pr < 0 || pt >= kh || pl >= kw || pb >= kh || pr >= kw) {
    return false;
  }
  if (!is_max && count_pad && (pb > pads[1] || pr > pads[3])) return false;
  try {
    using dnnl::memory;
    const dnnl::engine& eng = CpuEngine();
    const memory::desc xdesc({xd[0], xd[3], xd[1], xd[2]}, memory::data_type::f32,
                             memory::format_tag::nhwc);
    const memory::desc odesc({od[0], od[3], od[1], od[2]}, memory::data_type::f32,
                             memory::format_tag::nhwc);
    const dnnl::algorithm alg = is_max      ? dnnl::algorithm::pooling_max
                                : count_pad ? dnnl::algorithm::pooling_avg_include_padding
                                            : dnnl::algorithm::pooling_avg_exclude_padding;
    dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, alg, xdesc, odesc, {sh, sw},
                                  {kh, kw}, {pt, pl}, {pb, pr});
    dnnl::pooling_forward::primitive_desc pd(d, eng);
    const FloatsIn x(c.In(0));
    dnnl::stream s(eng);
    // oneDNN takes a non-const handle; it only reads the source.
    dnnl::memory xmem(xdesc, eng, const_cast<float*>(x.data())), omem(odesc, eng, out.data());
    dnnl::pooling_forward(pd).execute(s, {{DNNL_ARG_SRC, xmem}, {DNNL_ARG_DST, omem}});
    s.wait();
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

Result Pool(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto window, ReadIntParam(c.inputs[1], "window"));
  EGRET_ASSIGN_OR_RETURN(auto stride, ReadIntParam(c.inputs[2], "stride"));
  EGRET_ASSIGN_OR_RETURN(auto pads, ReadIntParam(c.inputs[3], "pads"));
  int64_t count_pad = 0;
  if (c.Has(4)) {
    EGRET_ASSIGN_OR_RETURN(auto cp, ReadIntScalarParam(c.inputs[4], "count_pad"));
    count_pad = cp;
  }
  const bool is_max = c.op == "PoolMax2d";
  if (FloatsOut out(c.outputs[0]); DnnlPool(c, is_max, count_pad != 0, window, stride, pads, out)) {
    std::vector<Tensor> result;
    result.push_back(out.Finish());
    return result;
  }
  const std::vector<double> x = ReadReals(c.In(0));
  const Dims& xd = c.InDims(0);
  const Dims& od = c.outputs[0].dims;
  const int64_t batch = xd[0], ih = xd[1], iw = xd[2], ch = xd[3];
  const int64_t oh = od[1], ow = od[2];
  std::vector<double> out(static_cast<size_t>(c.outputs[0].num_elements()));
  size_t o = 0;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        for (int64_t k = 0; k < ch; ++k) {
          double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
          int64_t n = 0;
          for (int64_t ky = 0; ky < window[1]; ++ky) {
            const int64_t iy = oy * stride[1] - pads[0] + ky;
            if (iy < 0 || iy >= ih) continue;
            for (int64_t kx = 0; kx < window[2]; ++kx) {
              const int64_t ix = ox * stride[2] - pads[2] + kx;
              if (ix < 0 || ix >= iw) continue;
              const double v = x[((b * ih + iy) * iw + ix) * ch + k];
              acc = is_max ? std::max(acc, v) : acc + v;
              ++n;
            }
          }
          if (!is_max) {
            const int64_t div = count_pad ? window[1] * window[2] : n;
            acc = div > 0 ? acc / static_cast<double>(div) : 0.0;
          }
          out[o++] = acc;
        }
      }
    }
  }
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

}  // namespace

void RegisterPoolKernels(KernelTable& t) {
  t.emplace("PoolMax2d", Pool);
  t.emplace("PoolAvg2d", Pool);
}

}  // namespace egret::backend_internal
