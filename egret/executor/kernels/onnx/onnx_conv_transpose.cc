// ONNX ConvTranspose of any spatial rank, with groups, dilations,
// output_padding, output_shape and auto_pad.
//
// X is [N, C, d1, ..., dk], W is [C, M / group, k1, ..., kk], B is [M].
// Input position i of spatial dim d scatters into output position
// i * stride - pad_begin + j * dilation for kernel offset j:
//   Y[n, g*Mg + m, o] += X[n, g*Cg + c, i] * W[g*Cg + c, m, j]
// The output size is stride * (in - 1) + output_padding + (kernel - 1) *
// dilation + 1 - pad_begin - pad_end. When output_shape is given (and pads
// are not), or auto_pad is SAME_UPPER / SAME_LOWER (output in * stride),
// the pads are derived from that size: total = stride * (in - 1) +
// output_padding + (kernel - 1) * dilation + 1 - out, with the larger half
// at the end for SAME_UPPER and at the start otherwise.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;
using Ints = std::vector<int64_t>;

// floor(v / 2), also for negative v.
int64_t FloorDiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

Result ConvTranspose(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0) || !a.Has(1)) return KernelError(c, "needs X and W");
  const Dims& xd = a.Input(0)->type().dims;
  const Dims& wd = a.Input(1)->type().dims;
  if (xd.size() < 3 || wd.size() != xd.size()) {
    return KernelError(c, "X must be [N, C, d1, ...] and W [C, M/group, k1, ...]");
  }
  const size_t rank = xd.size() - 2;
  const int64_t n = xd[0], in_c = xd[1];
  const int64_t group = a.Int("group", 1);
  if (group <= 0 || in_c % group != 0 || wd[0] != in_c) {
    return KernelError(
        c, absl::StrFormat("W %s does not fit X %s with group %d", a.Input(1)->type().ToString(),
                           a.Input(0)->type().ToString(), group));
  }
  const int64_t in_cg = in_c / group, out_cg = wd[1], out_c = out_cg * group;
  Ints kernel(wd.begin() + 2, wd.end());
  if (std::optional<Ints> k = a.Ints("kernel_shape"); k && *k != kernel) {
    return KernelError(c, "kernel_shape does not match W");
  }
  EGRET_ASSIGN_OR_RETURN(const Ints strides, a.IntsOfLength("strides", rank, 1));
  EGRET_ASSIGN_OR_RETURN(const Ints dilations, a.IntsOfLength("dilations", rank, 1));
  EGRET_ASSIGN_OR_RETURN(const Ints out_pad, a.IntsOfLength("output_padding", rank, 0));
  const std::string auto_pad = a.Str("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    return KernelError(c, absl::StrFormat("unknown auto_pad '%s'", auto_pad));
  }
  std::optional<Ints> output_shape = a.Ints("output_shape");
  if (output_shape && output_shape->size() == rank + 2) {
    output_shape->erase(output_shape->begin(), output_shape->begin() + 2);
  }
  if (output_shape && output_shape->size() != rank) {
    return KernelError(c, absl::StrFormat("output_shape must have %d values", rank));
  }
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  const std::optional<Ints> pads_attr = a.Ints("pads");
  Ints begin(rank, 0), end(rank, 0), out(rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t full =
        strides[i] * (xd[2 + i] - 1) + out_pad[i] + (kernel[i] - 1) * dilations[i] + 1;
    if ((output_shape || same) && !(pads_attr && auto_pad == "NOTSET")) {
      out[i] = output_shape ? (*output_shape)[i] : xd[2 + i] * strides[i];
      // total < 0 (a larger output than the kernel reaches) extends the end.
      const int64_t total = full - out[i];
      const int64_t half = FloorDiv2(total);
      begin[i] = auto_pad == "SAME_UPPER" ? half : total - half;
      end[i] = total - begin[i];
    } else {
      if (pads_attr && auto_pad == "NOTSET") {
        if (pads_attr->size() != 2 * rank) {
          return KernelError(c, absl::StrFormat("pads must have %d values", 2 * rank));
        }
        begin[i] = (*pads_attr)[i];
        end[i] = (*pads_attr)[rank + i];
      }
      out[i] = output_shape ? (*output_shape)[i] : full - begin[i] - end[i];
    }
    if (out[i] < 0) return KernelError(c, "the output would have a negative size");
  }
  Dims out_dims{n, out_c};
  out_dims.insert(out_dims.end(), out.begin(), out.end());
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, out_dims));
  std::vector<double> bias(static_cast<size_t>(out_c), 0.0);
  if (const Tensor* b = a.Input(2)) {
    if (b->type().dims != Dims{out_c}) {
      return KernelError(c, absl::StrFormat("B is %s, expected [%d]", b->type().ToString(), out_c));
    }
    bias = ReadReals(*b);
  }

  const std::vector<double> x = ReadReals(*a.Input(0));
  const std::vector<double> w = ReadReals(*a.Input(1));
  int64_t in_plane = 1, out_plane = 1, k_plane = 1;
  for (size_t i = 0; i < rank; ++i) {
    in_plane *= xd[2 + i];
    out_plane *= out[i];
    k_plane *= kernel[i];
  }
  std::vector<double> y(static_cast<size_t>(n * out_c * out_plane));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      std::fill_n(y.begin() + (b * out_c + oc) * out_plane, out_plane, bias[oc]);
    }
  }
  // Scatter every (input position, kernel offset) pair.
  Ints ip(rank), kp(rank);
  for (int64_t i = 0; i < in_plane; ++i) {
    for (int64_t rest = i, d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      ip[d] = rest % xd[2 + d];
      rest /= xd[2 + d];
    }
    for (int64_t k = 0; k < k_plane; ++k) {
      int64_t o_off = 0;
      bool inside = true;
      for (int64_t rest = k, d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
        kp[d] = rest % kernel[d];
        rest /= kernel[d];
      }
      for (size_t d = 0; d < rank; ++d) {
        const int64_t o = ip[d] * strides[d] - begin[d] + kp[d] * dilations[d];
        if (o < 0 || o >= out[d]) inside = false;
        o_off = o_off * out[d] + o;
      }
      if (!inside) continue;
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t g = 0; g < group; ++g) {
          for (int64_t ic = 0; ic < in_cg; ++ic) {
            const int64_t xc = g * in_cg + ic;
            const double xv = x[(b * in_c + xc) * in_plane + i];
            for (int64_t m = 0; m < out_cg; ++m) {
              const double wv = w[(xc * out_cg + m) * k_plane + k];
              y[(b * out_c + g * out_cg + m) * out_plane + o_off] += xv * wv;
            }
          }
        }
      }
    }
  }
  std::vector<Tensor> result;
  EGRET_ASSIGN_OR_RETURN(Tensor yt, OnnxOutput(c, 0, out_dims, y));
  result.push_back(std::move(yt));
  return result;
}

}  // namespace

void RegisterOnnxConvTransposeKernels(KernelTable& t) {
  t.emplace("onnx.ConvTranspose", ConvTranspose);
}

}  // namespace egret::backend_internal
