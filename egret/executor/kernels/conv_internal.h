// Private to the executor's convolution kernels: what the float
// convolutions on oneDNN (conv.cc) and the exact 8-bit one
// (conv_quantized.cc) share: the window parameters, the filter in a
// primitive's layout through the ConstantCache, and the PrimitiveCache's
// values and keys.
#ifndef EGRET_EXECUTOR_KERNELS_CONV_INTERNAL_H_
#define EGRET_EXECUTOR_KERNELS_CONV_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "egret/executor/kernels/dnnl_support.h"
#include "egret/executor/kernels/kernels_internal.h"

namespace egret::backend_internal::conv {

// The parameters every convolution shares, read from inputs 3.. (validated by
// the shape function before the kernel runs).
struct ConvParams {
  int64_t sh, sw, pad_top, pad_left, dh = 1, dw = 1;
};

// The filter (input 1), or its `part` (ConstantCache), in `want`, the
// primitive's layout: `user` itself when that is the layout, else reordered
// from it by make_user() (which may refuse: nullopt), through the run's
// ConstantCache when the filter is a graph constant.
std::optional<dnnl::memory> FilterIn(const KernelContext& c, const dnnl::memory::desc& want,
                                     int part,
                                     absl::FunctionRef<std::optional<dnnl::memory>()> make_user);

// A primitive with the descriptor it was made from (PrimitiveCache's value).
template <typename Pd, typename Prim>
struct WithDesc {
  Pd pd;
  Prim prim;
};
using ConvPrimitive =
    WithDesc<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>;
using DeconvPrimitive =
    WithDesc<dnnl::deconvolution_forward::primitive_desc, dnnl::deconvolution_forward>;

// PrimitiveCache kinds.
enum PrimitiveKind : int64_t { kInt8Conv = 1, kFloatConv = 2, kFloatDeconv = 3 };

// The key of a convolution-like primitive: its kind, the thread count, the
// source data type, the three shapes, groups and the window parameters with
// the trailing paddings.
std::vector<int64_t> ConvKey(PrimitiveKind kind, int64_t src_type, const KernelContext& c,
                             int64_t groups, const ConvParams& p, int64_t pad_bottom,
                             int64_t pad_right);

// Conv2d and DepthWiseConv2d of an 8-bit input quantized per tensor and an
// 8-bit filter (Int8FilterValues), computed exactly: oneDNN sums the products
// (qx - zx)(qw - zw) in int32 (src zero point; padding contributes 0), and
// each output is sx * sw[c] * sum + bias[c] in double, rounded once to float,
// clamped when `clamp` is set, and stored in the output type (a quantized
// type with one encoding chunk by chunk, QuantizeFloatsInto). Nullopt when
// the operands are not of that form, a sum could overflow int32, or oneDNN
// does not take the shape.
std::optional<Tensor> DnnlQuantizedConv(const KernelContext& c, const ConvParams& p,
                                        int64_t pad_bottom, int64_t pad_right,
                                        const std::optional<ActivationClamp>& clamp);

}  // namespace egret::backend_internal::conv

#endif  // EGRET_EXECUTOR_KERNELS_CONV_INTERNAL_H_
