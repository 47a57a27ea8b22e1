// The convolution and pooling families of the op table: the rows of
// convolutions and matrix products (Conv2d, DepthWiseConv2d, TransposeConv2d,
// FullyConnected, MatMul) and of pooling and resizing in NHWC (PoolMax2d,
// PoolAvg2d, Resize and QNN's two named resizes), and the shape functions
// those rows name, beside them.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/op_rows_internal.h"
#include "egret/graph/shape_functions_internal.h"
#include "egret/support/status_macros.h"

namespace egret::shape_internal {

namespace {

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

// Convolutions and matrix products (OpGroup::kConvolution).
std::vector<OpDef> ConvolutionRows() {
  using G = OpGroup;
  const OperandDef stride = Ints("stride", "ints [1,sh,sw,1]");
  const OperandDef pads = Ints("pads", "ints [top,bottom,left,right]");
  const OperandDef dilation = Optional(Ints("dilation", "ints [1,dh,dw,1]"), "all 1");
  const OperandDef act_min = Optional(Param("act_min", "float, given with act_max"), "-inf");
  const OperandDef act_max = Optional(Param("act_max", "float >= act_min"), "inf");
  return {
      // --- Convolution and matrix products.
      {.name = "Conv2d",
       .group = G::kConvolution,
       .doc = "2-D convolution, groups = cin / filter in-depth, optional fused clamp",
       .operands = {Data("in", "[b,h,w,cin]"), Data("filter", "[fh,fw,cin/g,cout]"),
                    Data("bias", "[cout]"), stride, pads, dilation, act_min, act_max},
       .results = "[b,oh,ow,cout]",
       .shape_fn = InferConv,
       .onnx = "Conv"},
      {.name = "DepthWiseConv2d",
       .group = G::kConvolution,
       .doc = "depthwise 2-D convolution: output channel o reads input channel o / m",
       .operands = {Data("in", "[b,h,w,cin]"), Data("filter", "[fh,fw,1,cout], cout = cin*m"),
                    Data("bias", "[cout]"), stride, pads, dilation, act_min, act_max},
       .results = "[b,oh,ow,cout]",
       .shape_fn = InferConv,
       .onnx = "Conv"},
      {.name = "TransposeConv2d",
       .group = G::kConvolution,
       .doc = "transposed 2-D convolution, the adjoint of Conv2d",
       .operands = {Data("in", "[b,h,w,cin]"), Data("filter", "[fh,fw,cin/g,cout]"),
                    Data("bias", "[cout]"), stride, pads, dilation,
                    Optional(Ints("output_padding", "ints [0,ph,pw,0]"), "0")},
       .results = "[b,oh,ow,cout]",
       .shape_fn = InferConv,
       .onnx = "ConvTranspose"},
      {.name = "FullyConnected",
       .group = G::kConvolution,
       .doc = "out[n,u] = bias[u] + sum_k in[n,k] * weights[u,k], optional fused clamp",
       .operands = {Data("in", "[..., k]"), Data("weights", "[units, k]"),
                    Optional(Data("bias", "[units]"), "0"),
                    Optional(Param("act_min", "float, given with act_max and bias"), "-inf"),
                    act_max},
       .results = "[..., units]",
       .shape_fn = InferFullyConnected,
       .onnx = "Gemm MatMul"},
      {.name = "MatMul",
       .group = G::kConvolution,
       .doc = "numpy matmul; batch dims broadcast",
       .operands = {Data("a", "[..., m, k], rank >= 2"), Data("b", "[..., k, n], rank >= 2")},
       .results = "[..., m, n]",
       .shape_fn = InferMatMul,
       .onnx = "MatMul Einsum"},
  };
}

// Pooling and resizing, NHWC (OpGroup::kPooling).
std::vector<OpDef> PoolingRows() {
  using G = OpGroup;
  const OperandDef stride = Ints("stride", "ints [1,sh,sw,1]");
  const OperandDef pads = Ints("pads", "ints [top,bottom,left,right]");
  const std::vector<OperandDef> pool = {Data("x", "[b,h,w,c]"), Ints("window", "ints [1,fh,fw,1]"),
                                        stride, pads};
  const OperandDef resize_size = Ints("size", "ints [b,oh,ow,c]");
  const OperandDef transform = Optional(Param("transform", "int 0-3"), "0");
  const OperandDef nearest_mode = Optional(Param("nearest_mode", "int 0-3"), "0");
  auto with = [](std::vector<OperandDef> ops, std::initializer_list<OperandDef> more) {
    ops.insert(ops.end(), more.begin(), more.end());
    return ops;
  };
  return {
      // --- Pooling and resizing (NHWC).
      {.name = "PoolMax2d",
       .group = G::kPooling,
       .doc = "maximum over each window",
       .operands = pool,
       .results = "[b,oh,ow,c]",
       .shape_fn = InferPool,
       .onnx = "MaxPool GlobalMaxPool"},
      {.name = "PoolAvg2d",
       .group = G::kPooling,
       .doc = "average over each window",
       .operands = with(pool, {Optional(Param("count_pad", "int 0 or 1"), "0")}),
       .results = "[b,oh,ow,c]",
       .shape_fn = InferPool,
       .onnx = "AveragePool GlobalAveragePool"},
      {.name = "Resize",
       .group = G::kPooling,
       .doc = "resizes height and width",
       .operands = {Data("x", "[b,h,w,c]"), resize_size,
                    Param("mode", "int: 0 nearest, 1 bilinear"), transform, nearest_mode},
       .results = "size",
       .shape_fn = InferResize,
       .onnx = "Resize Upsample"},
      {.name = "ResizeBilinear",
       .group = G::kPooling,
       .doc = "Resize with mode 1 (QNN's name)",
       .operands = {Data("x", "[b,h,w,c]"), resize_size, transform},
       .results = "size",
       .shape_fn = InferResize,
       .onnx = "none"},
      {.name = "ResizeNearestNeighbor",
       .group = G::kPooling,
       .doc = "Resize with mode 0 (QNN's name)",
       .operands = {Data("x", "[b,h,w,c]"), resize_size, transform, nearest_mode},
       .results = "size",
       .shape_fn = InferResize,
       .onnx = "none"},
  };
}

}  // namespace egret::shape_internal
