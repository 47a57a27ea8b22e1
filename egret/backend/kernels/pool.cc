// PoolMax2d and PoolAvg2d over NHWC windows. Padded positions never win a max
// and, unless count_pad is 1, do not count in an average.
#include <algorithm>
#include <limits>

#include "egret/backend/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

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
