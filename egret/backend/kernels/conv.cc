// Convolutions in NHWC with filters [fh, fw, in_depth / groups, out_depth].
#include "egret/backend/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// The parameters every convolution shares, read from inputs 3.. (validated by
// the shape function before the kernel runs).
struct ConvParams {
  int64_t sh, sw, pad_top, pad_left, dh = 1, dw = 1;
};

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

// Conv2d and DepthWiseConv2d: a gather over the receptive field of each
// output element.
Result Conv(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto p, ReadConvParams(c));
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
