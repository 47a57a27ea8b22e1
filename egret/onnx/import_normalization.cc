// LayerNormalization (opset 17) onto egret's LayerNorm, RMSNormalization
// (opset 23) onto RmsNorm, and Gelu (opset 20)
// onto egret's Gelu (approximate="tanh" as its approximate operand 1). LayerNormalization
// normalizes over the dims axis..rank-1 of the ONNX (NCHW) layout, which is not a suffix of the
// NHWC layout for a 4-D activation: such an operand is taken in its NCHW form. A LayerNormalization
// whose Mean or InvStdDev output is used stays opaque (its ONNX kernel runs it).
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

namespace {

absl::Status DoLayerNormalization(Importer& im) {
  if (im.OutputUsed(1) || im.OutputUsed(2)) {
    return Unmapped("its Mean or InvStdDev output is used");
  }
  if (!im.Has(1)) return absl::InvalidArgumentError("Scale is missing");
  const TensorType& x = im.In(0).type;
  EGRET_ASSIGN_OR_RETURN(int axis, NormalizeAxis(im.AttrInt("axis", -1), x.rank(), "axis"));
  EGRET_ASSIGN_OR_RETURN(ValueRef xr, im.Get(im.InName(0), kPlain));
  EGRET_ASSIGN_OR_RETURN(ValueRef scale, im.Get(im.InName(1), kPlain));
  ValueRef bias;
  if (im.Has(2)) {
    EGRET_ASSIGN_OR_RETURN(bias, im.Get(im.InName(2), kPlain));
  } else {
    bias =
        im.ConstNode(std::make_shared<const Tensor>(TensorType(x.dtype, {1})), im.Out() + "/bias");
  }
  EGRET_ASSIGN_OR_RETURN(
      ValueRef r,
      im.Emit("LayerNorm",
              {xr, scale, bias, im.FloatConst(im.AttrFloat("epsilon", 1e-5)), im.IntConst(axis)},
              im.Out()));
  im.SetValue(im.Out(), r, kPlain);
  return absl::OkStatus();
}

// RMSNormalization (opset 23): X / sqrt(mean(X^2 over axis..end) + epsilon)
// * scale, onto RmsNorm with a zero bias (stash_type 1, float computation, is
// what egret's kernel does in double).
absl::Status DoRmsNormalization(Importer& im) {
  if (!im.Has(1)) return absl::InvalidArgumentError("scale is missing");
  const TensorType& x = im.In(0).type;
  EGRET_ASSIGN_OR_RETURN(int axis, NormalizeAxis(im.AttrInt("axis", -1), x.rank(), "axis"));
  EGRET_ASSIGN_OR_RETURN(ValueRef xr, im.Get(im.InName(0), kPlain));
  EGRET_ASSIGN_OR_RETURN(ValueRef scale, im.Get(im.InName(1), kPlain));
  ValueRef bias =
      im.ConstNode(std::make_shared<const Tensor>(TensorType(x.dtype, {1})), im.Out() + "/bias");
  EGRET_ASSIGN_OR_RETURN(
      ValueRef r,
      im.Emit("RmsNorm",
              {xr, scale, bias, im.FloatConst(im.AttrFloat("epsilon", 1e-5)), im.IntConst(axis)},
              im.Out()));
  im.SetValue(im.Out(), r, kPlain);
  return absl::OkStatus();
}

absl::Status DoGelu(Importer& im) {
  const std::string approximate = im.AttrStr("approximate", "none");
  if (approximate == "tanh") return im.Unary("Gelu", im.InName(0), im.Out(), {im.IntConst(1)});
  if (approximate != "none") {
    return absl::InvalidArgumentError(
        absl::StrCat("approximate must be \"none\" or \"tanh\", got \"", approximate, "\""));
  }
  return im.Unary("Gelu", im.InName(0), im.Out());
}

}  // namespace

void RegisterNormalizationHandlers(HandlerTable& t) {
  t["LayerNormalization"] = DoLayerNormalization;
  t["RMSNormalization"] = DoRmsNormalization;
  t["Gelu"] = DoGelu;
}

}  // namespace egret::onnx_import
