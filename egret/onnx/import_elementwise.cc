// Elementwise ONNX ops: arithmetic, activations, Clip, LRN, Softmax.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

absl::Status Importer::DoBinary() {
  if (cur_->op_type() == "Div" && IsQuantized(In(0).type.dtype)) {
    // 8/16-bit ONNX integers are quantized types in egret, whose division rounds.
    return Unmapped("division of 8/16-bit integers");
  }
  if (AttrInt("broadcast", 0) != 0 && Attr("axis") != nullptr) {
    return Unmapped("legacy broadcast with an axis");
  }
  return Binary(cur_->op_type(), InName(0), InName(1), Out());
}

// Sum, Max, Min, Mean: a left-to-right chain of binary ops.
absl::Status Importer::DoVariadic() {
  const std::string& t = cur_->op_type();
  std::string op = t == "Sum" || t == "Mean" ? "Add" : t;
  const int n = cur_->input_size();
  if (n == 0) return absl::InvalidArgumentError("has no inputs");
  const bool mean = t == "Mean";
  if (n == 1 && !mean) {
    Alias(Out(), InName(0));
    return absl::OkStatus();
  }
  std::string acc = InName(0);
  for (int i = 1; i < n; ++i) {
    std::string dst = i + 1 == n && !mean ? Out() : Temp(Out(), absl::StrCat(op, i));
    EGRET_RETURN_IF_ERROR(Binary(op, acc, InName(i), dst));
    acc = dst;
  }
  if (mean) {
    std::string k = ScalarTemp("count", values_.at(acc).type.dtype, n);
    EGRET_RETURN_IF_ERROR(Binary("Div", acc, k, Out()));
  }
  return absl::OkStatus();
}

absl::Status Importer::DoUnary() {
  static const absl::flat_hash_map<std::string, std::string> kOps = {{"Relu", "Relu"},
                                                                     {"Sigmoid", "Sigmoid"},
                                                                     {"Tanh", "Tanh"},
                                                                     {"Erf", "Erf"},
                                                                     {"Sqrt", "Sqrt"},
                                                                     {"Exp", "Exp"},
                                                                     {"Log", "Log"},
                                                                     {"Neg", "Neg"},
                                                                     {"Abs", "Abs"},
                                                                     {"HardSwish", "HardSwish"},
                                                                     {"Sin", "ElementWiseSin"},
                                                                     {"Cos", "ElementWiseCos"}};
  return Unary(kOps.at(cur_->op_type()), InName(0), Out());
}

// Reciprocal(x) is 1 / x (ONNX defines it for floats only).
absl::Status Importer::DoReciprocal() {
  const DType dt = In(0).type.dtype;
  if (!IsFloat(dt)) return Unmapped("a reciprocal of integers");
  return Binary("Div", ScalarTemp("one", dt, 1), InName(0), Out());
}

absl::Status Importer::DoIdentity() {
  if (cur_->op_type() == "Dropout") {
    if (OutputUsed(1)) return Unmapped("the mask output is used");
    if (Has(2)) {
      EGRET_ASSIGN_OR_RETURN(auto training, ConstInts(2, "training_mode"));
      if (!training.empty() && training[0] != 0) return Unmapped("training mode");
    }
  }
  Alias(Out(), InName(0));
  return absl::OkStatus();
}

absl::Status Importer::DoClip() {
  double lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  bool has_lo = false, has_hi = false;
  if (opset_ < 11) {
    has_lo = Attr("min") != nullptr;
    has_hi = Attr("max") != nullptr;
    lo = AttrFloat("min", lo);
    hi = AttrFloat("max", hi);
  } else {
    if (Has(1)) {
      EGRET_ASSIGN_OR_RETURN(auto v, ConstFloats(1, "min"));
      if (v.size() != 1) return absl::InvalidArgumentError("min must be a scalar");
      lo = v[0], has_lo = true;
    }
    if (Has(2)) {
      EGRET_ASSIGN_OR_RETURN(auto v, ConstFloats(2, "max"));
      if (v.size() != 1) return absl::InvalidArgumentError("max must be a scalar");
      hi = v[0], has_hi = true;
    }
  }
  if (has_lo && lo == 0 && !has_hi) return Unary("Relu", InName(0), Out());
  if (!has_lo && !has_hi) {
    Alias(Out(), InName(0));
    return absl::OkStatus();
  }
  if (lo > hi) return Unmapped("min > max");
  return Unary("ReluMinMax", InName(0), Out(), {FloatConst(lo), FloatConst(hi)});
}

// LeakyRelu(x) = max(x, alpha * x) for alpha <= 1.
absl::Status Importer::DoLeakyRelu() {
  double alpha = AttrFloat("alpha", 0.01);
  if (alpha > 1) return Unmapped("alpha > 1");
  std::string k = ScalarTemp("alpha", In(0).type.dtype, alpha);
  std::string scaled = Temp(Out(), "scaled");
  EGRET_RETURN_IF_ERROR(Binary("Mul", InName(0), k, scaled));
  return Binary("Max", InName(0), scaled, Out());
}

absl::Status Importer::DoHardSigmoid() {
  return Unary("HardSigmoid", InName(0), Out(),
               {FloatConst(AttrFloat("alpha", 0.2)), FloatConst(AttrFloat("beta", 0.5))});
}

absl::Status Importer::DoLrn() {
  if (In(0).type.rank() != 4 || !options_.nhwc) return Unmapped("LRN needs a 4-D NHWC input");
  const int64_t size = AttrInt("size", 0);
  if (size < 1) return absl::InvalidArgumentError("size must be a positive integer");
  EGRET_ASSIGN_OR_RETURN(auto x, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(
      auto r, Emit("LRN",
                   {x, IntConst(size), FloatConst(AttrFloat("alpha", 1e-4)),
                    FloatConst(AttrFloat("beta", 0.75)), FloatConst(AttrFloat("bias", 1.0))},
                   Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoSoftmax() {
  const bool log = cur_->op_type() == "LogSoftmax";
  const int rank = In(0).type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis,
                         NormalizeAxis(AttrInt("axis", opset_ >= 13 ? -1 : 1), rank, "axis"));
  const std::string soft = log ? Temp(Out(), "softmax") : Out();
  if (opset_ >= 13 || axis == rank - 1) {
    Layout l = NativeLayout(InName(0));
    int eaxis = l == kNhwc ? kPos[axis] : axis;
    EGRET_RETURN_IF_ERROR(Unary("Softmax", InName(0), soft, {IntConst(eaxis)}));
  } else {
    // Before opset 13, softmax runs over all dims from axis on, flattened.
    const Dims& d = In(0).type.dims;
    Dims flat = {Product(d, 0, axis), Product(d, axis, rank)};
    std::string in2 = Temp(Out(), "2d"), out2 = Temp(Out(), "softmax2d");
    Dims orig = d;
    EGRET_RETURN_IF_ERROR(ReshapeTo(InName(0), flat, in2));
    EGRET_RETURN_IF_ERROR(Unary("Softmax", in2, out2, {IntConst(1)}));
    EGRET_RETURN_IF_ERROR(ReshapeTo(out2, orig, soft));
  }
  if (log) return Unary("Log", soft, Out());
  return absl::OkStatus();
}

void RegisterElementwiseHandlers(HandlerTable& t) {
  for (auto op : {"Add", "Sub", "Mul", "Div", "Pow"})
    t[op] = [](Importer& im) { return im.DoBinary(); };
  for (auto op : {"Sum", "Max", "Min", "Mean"})
    t[op] = [](Importer& im) { return im.DoVariadic(); };
  for (auto op : {"Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Log", "Neg", "Abs", "HardSwish",
                  "Sin", "Cos"})
    t[op] = [](Importer& im) { return im.DoUnary(); };
  t["Reciprocal"] = [](Importer& im) { return im.DoReciprocal(); };
  t["Identity"] = [](Importer& im) { return im.DoIdentity(); };
  t["Dropout"] = [](Importer& im) { return im.DoIdentity(); };
  t["Clip"] = [](Importer& im) { return im.DoClip(); };
  t["LeakyRelu"] = [](Importer& im) { return im.DoLeakyRelu(); };
  t["HardSigmoid"] = [](Importer& im) { return im.DoHardSigmoid(); };
  t["LRN"] = [](Importer& im) { return im.DoLrn(); };
  t["Softmax"] = [](Importer& im) { return im.DoSoftmax(); };
  t["LogSoftmax"] = [](Importer& im) { return im.DoSoftmax(); };
}

}  // namespace egret::onnx_import
