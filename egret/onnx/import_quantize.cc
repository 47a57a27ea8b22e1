// ONNX's quantization ops (docs/onnx-import.md): QuantizeLinear and
// DequantizeLinear, per tensor and per axis, onto egret's Quantize and
// Dequantize with the encoding in the tensor type; and the integer and
// QLinear ops lowered to the "Dequantize -> float op -> Quantize" form that
// rules/lib/quantization.rules turns into quantized ops: QLinearConv,
// QLinearMatMul, ConvInteger, MatMulInteger and the com.microsoft QLinear ops
// ONNX Runtime's quantizer writes (QLinearAdd, QLinearMul, QLinearSigmoid,
// QLinearLeakyRelu, QLinearGlobalAveragePool, QLinearAveragePool,
// QLinearConcat).
//
// An ONNX tensor of a quantized type is its stored integers: a value the
// importer hands to other ONNX ops has the plain encoding (zero offset 0,
// stepsize 1). The encoding lives on the Quantize node a QuantizeLinear
// becomes (Value::encoded) and on the constants a DequantizeLinear reads
// (Value::quantized); a reinterpreting Cast (same dtype, stored numbers kept)
// moves between the two where needed.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {
namespace {

// The quantized dtype that holds ONNX storage type `dt` (int32 -> QInt32).
std::optional<DType> QuantizedStorage(DType dt) {
  switch (dt) {
    case DType::kQUInt8:
    case DType::kQInt8:
    case DType::kQUInt16:
    case DType::kQInt16:
    case DType::kQInt32:
    case DType::kQUInt4:
    case DType::kQInt4:
      return dt;
    case DType::kInt32:
      return DType::kQInt32;
    default:
      return std::nullopt;
  }
}

// The type of a tensor of `dims` stored as `qdt` in the encoding given by the
// current node's constant scale (input si) and optional zero point (input
// zi): per tensor when the scale has one element, else per axis along
// attribute `axis` (default `default_axis`). Unmapped when the scale or zero
// point is computed, or the encoding is one egret does not represent.
absl::StatusOr<TensorType> Encoding(Importer& im, int si, int zi, const Dims& dims, DType qdt,
                                    int64_t default_axis = 1) {
  const int64_t block_size = im.AttrInt("block_size", 0);
  if (block_size < 0) return absl::InvalidArgumentError("block_size is negative");
  if (!im.Has(si) || !im.In(si).constant) return Unmapped("the scale is not a constant");
  const Tensor& sc = *im.In(si).constant;
  std::vector<float> steps(static_cast<size_t>(sc.num_elements()));
  for (size_t i = 0; i < steps.size(); ++i) {
    steps[i] = static_cast<float>(sc.GetReal(static_cast<int64_t>(i)));
    if (!(steps[i] > 0.0f) || !std::isfinite(steps[i])) {
      return Unmapped(absl::StrCat("scale ", steps[i], " is not positive and finite"));
    }
  }
  if (steps.empty()) return absl::InvalidArgumentError("the scale has no elements");
  std::vector<int32_t> zeros(steps.size(), 0);
  if (im.Has(zi)) {
    if (!im.In(zi).constant) return Unmapped("the zero point is not a constant");
    const Tensor& z = *im.In(zi).constant;
    if (z.num_elements() != static_cast<int64_t>(steps.size())) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "the zero point has %d elements and the scale %d", z.num_elements(), steps.size()));
    }
    for (size_t i = 0; i < zeros.size(); ++i) {
      zeros[i] = static_cast<int32_t>(z.GetValue(static_cast<int64_t>(i)));
    }
  }
  TensorType t(qdt, dims);
  if (block_size > 0) {
    // Opset 21: the scale has x's rank, with ceil(dims[axis] / block_size)
    // along axis.
    EGRET_ASSIGN_OR_RETURN(int axis, NormalizeAxis(im.AttrInt("axis", default_axis),
                                                   static_cast<int>(dims.size()), "axis"));
    Dims grid = dims;
    grid[axis] = (dims[axis] + block_size - 1) / block_size;
    if (sc.type().dims != grid) {
      return absl::InvalidArgumentError(
          absl::StrCat("blocked quantization in blocks of ", block_size, " along axis ", axis,
                       " of [", absl::StrJoin(dims, ","), "] needs a scale of shape [",
                       absl::StrJoin(grid, ","), "], got ", sc.type().ToString()));
    }
    EGRET_RETURN_IF_ERROR(t.SetPerAxis(axis, std::move(steps), std::move(zeros), block_size));
    return t;
  }
  if (steps.size() == 1 && sc.type().rank() <= 1) {
    t.zero_offset = zeros[0];
    t.stepsize = steps[0];
    return t;
  }
  EGRET_ASSIGN_OR_RETURN(int axis, NormalizeAxis(im.AttrInt("axis", default_axis),
                                                 static_cast<int>(dims.size()), "axis"));
  EGRET_RETURN_IF_ERROR(t.SetPerAxis(axis, std::move(steps), std::move(zeros)));
  return t;
}

// `type` with the plain encoding.
TensorType Plain(TensorType type) {
  type.ClearQuantization();
  return type;
}

absl::Status DoQuantizeLinear(Importer& im) {
  const Value& x = im.In(0);
  if (!IsFloat(x.type.dtype)) return Unmapped("the input is not a float tensor");
  DType qdt = DType::kQUInt8;
  if (im.Has(2)) {
    qdt = im.In(2).type.dtype;
  } else if (im.Attr("output_dtype") != nullptr) {
    auto d = DTypeFromOnnx(static_cast<int32_t>(im.AttrInt("output_dtype", 0)));
    if (!d.ok()) return Unmapped(std::string(d.status().message()));
    qdt = *d;
  }
  if (!IsQuantized(qdt) || qdt == DType::kQInt32) {
    return Unmapped(absl::StrCat("quantizing to ", std::string(DTypeName(qdt)), " is not mapped"));
  }
  EGRET_ASSIGN_OR_RETURN(TensorType enc, Encoding(im, 1, 2, x.type.dims, qdt));
  if (x.constant) {
    Tensor q(enc);
    for (int64_t i = 0; i < q.num_elements(); ++i) q.SetReal(i, x.constant->GetReal(i));
    EGRET_ASSIGN_OR_RETURN(Tensor stored, Tensor::FromBytes(Plain(enc), q.bytes()));
    im.SetConst(im.Out(), std::move(stored));
    return absl::OkStatus();
  }
  // Per tensor, in the input's layout; per axis, in ONNX's (the axis is ONNX's).
  const Layout l = enc.per_axis ? kPlain : im.NativeLayout(im.InName(0));
  EGRET_ASSIGN_OR_RETURN(ValueRef xin, im.Get(im.InName(0), l));
  TensorType t = enc;
  if (!enc.per_axis) t.dims = im.g_.TypeOf(xin).dims;
  EGRET_ASSIGN_OR_RETURN(ValueRef r, im.Emit("Quantize", {xin}, im.Out(), {t}));
  Value v;
  v.type = Plain(enc);
  v.native = x.type.rank() == 4 ? l : kPlain;
  v.encoded = r;
  im.values_[im.Out()] = std::move(v);
  return absl::OkStatus();
}

absl::Status DoDequantizeLinear(Importer& im) {
  const Value& x = im.In(0);
  std::optional<DType> qdt = QuantizedStorage(x.type.dtype);
  if (!qdt)
    return Unmapped(
        absl::StrCat("dequantizing ", std::string(DTypeName(x.type.dtype)), " is not mapped"));
  if (!im.Has(1)) return absl::InvalidArgumentError("the scale is missing");
  const DType fdt = im.In(1).type.dtype;
  if (!IsFloat(fdt)) return Unmapped("the scale is not a float tensor");
  EGRET_ASSIGN_OR_RETURN(TensorType enc, Encoding(im, 1, 2, x.type.dims, *qdt));
  if (x.constant) {
    EGRET_ASSIGN_OR_RETURN(Tensor q, Tensor::FromBytes(enc, x.constant->bytes()));
    Tensor reals(TensorType(fdt, x.type.dims));
    for (int64_t i = 0; i < q.num_elements(); ++i) reals.SetReal(i, q.GetReal(i));
    auto quantized = std::make_shared<const Tensor>(std::move(q));
    im.SetConst(im.Out(), std::move(reals));
    im.values_.at(im.Out()).quantized = std::move(quantized);
    return absl::OkStatus();
  }
  Layout l = enc.per_axis ? kPlain : im.NativeLayout(im.InName(0));
  ValueRef src = x.encoded;
  if (src.node == kNoNode || (enc.per_axis && x.native != kPlain) ||
      !im.g_.TypeOf(src).SameEncoding(enc)) {
    EGRET_ASSIGN_OR_RETURN(ValueRef xin, im.Get(im.InName(0), l));
    TensorType t = enc;
    if (!enc.per_axis) t.dims = im.g_.TypeOf(xin).dims;
    EGRET_ASSIGN_OR_RETURN(src, im.Emit("Cast", {xin}, im.Out() + "/encoded", {t}));
  } else {
    l = x.type.rank() == 4 ? x.native : kPlain;
  }
  EGRET_ASSIGN_OR_RETURN(ValueRef r, im.Emit("Dequantize", {src}, im.Out(), {ScalarType(fdt)}));
  im.SetValue(im.Out(), r, l);
  return absl::OkStatus();
}

// ---- The integer and QLinear ops, as steps of ONNX ops run through their
// handlers (Importer::RunSynthetic).

// Builds the synthetic nodes of one lowering; temporaries are named after the
// current node's first output.
class Lowering {
 public:
  explicit Lowering(Importer& im) : im_(im), base_(im.Out()), label_(im.cur_->name()) {}

  // A temporary tensor name.
  std::string Temp(std::string_view what) const { return im_.Temp(base_, what); }

  // Runs op(inputs) -> out with `attrs` copied from the current node (those
  // named) plus `ints`.
  absl::Status Run(const std::string& op, std::vector<std::string> inputs, const std::string& out,
                   std::initializer_list<std::string_view> copy = {},
                   std::vector<std::pair<std::string, int64_t>> ints = {}) {
    onnx::NodeProto& n = nodes_.emplace_back();
    n.set_op_type(op);
    n.set_name(label_.empty() ? std::string() : absl::StrCat(label_, "/", op));
    for (auto& i : inputs) n.add_input(i);
    n.add_output(out);
    for (const auto& a : im_.cur_->attribute()) {
      for (std::string_view c : copy) {
        if (a.name() == c) *n.add_attribute() = a;
      }
    }
    for (auto& [name, v] : ints) {
      auto* a = n.add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(v);
    }
    return im_.RunSynthetic(n);
  }

  // A float constant `values` of `dims` as a temporary tensor.
  std::string Const(std::string_view what, Dims dims, const std::vector<double>& values) {
    std::string name = Temp(what);
    im_.SetConst(name, Tensor::FromValues(TensorType(DType::kFloat32, std::move(dims)), values));
    return name;
  }

  // DequantizeLinear(x, scale, zero) -> a temporary, along `axis`.
  absl::StatusOr<std::string> Dequantize(int x, int scale, int zero, int64_t axis,
                                         std::string_view what) {
    std::string out = Temp(what);
    EGRET_RETURN_IF_ERROR(
        Run("DequantizeLinear",
            {im_.InName(x), im_.InName(scale), im_.Has(zero) ? im_.InName(zero) : ""}, out, {},
            {{"axis", axis}}));
    return out;
  }

  // QuantizeLinear(y, scale, zero) -> the current node's output.
  absl::Status Quantize(const std::string& y, int scale, int zero) {
    return Run("QuantizeLinear", {y, im_.InName(scale), im_.Has(zero) ? im_.InName(zero) : ""},
               base_);
  }

 private:
  Importer& im_;
  std::string base_;
  std::string label_;
  std::deque<onnx::NodeProto> nodes_;  // live while their handlers run
};

// The float values of constant input i (Unmapped when computed).
absl::StatusOr<std::vector<double>> Floats(Importer& im, int i, std::string_view what) {
  if (!im.Has(i)) return absl::InvalidArgumentError(absl::StrCat(std::string(what), " is missing"));
  return im.ConstFloats(i, what);
}

// QLinearConv(x, xs, xz, w, ws, wz, ys, yz, B): DQ(x), DQ(w) per output
// channel, DQ(B) with scale xs * ws, Conv, Q.
absl::Status DoQLinearConv(Importer& im) {
  Lowering low(im);
  EGRET_ASSIGN_OR_RETURN(auto dx, low.Dequantize(0, 1, 2, 1, "x"));
  EGRET_ASSIGN_OR_RETURN(auto dw, low.Dequantize(3, 4, 5, 0, "w"));
  std::vector<std::string> conv_in = {dx, dw};
  if (im.Has(8)) {
    EGRET_ASSIGN_OR_RETURN(auto xs, Floats(im, 1, "x_scale"));
    EGRET_ASSIGN_OR_RETURN(auto ws, Floats(im, 4, "w_scale"));
    if (xs.size() != 1) return Unmapped("x_scale is not a scalar");
    std::vector<double> bs;
    for (double w : ws) bs.push_back(static_cast<float>(xs[0]) * static_cast<float>(w));
    const int64_t n = static_cast<int64_t>(bs.size());
    std::string scale = low.Const("bias_scale", n == 1 ? Dims{} : Dims{n}, bs);
    std::string db = low.Temp("bias");
    EGRET_RETURN_IF_ERROR(
        low.Run("DequantizeLinear", {im.InName(8), scale}, db, {}, {{"axis", 0}}));
    conv_in.push_back(db);
  }
  std::string y = low.Temp("conv");
  EGRET_RETURN_IF_ERROR(low.Run(
      "Conv", conv_in, y, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}));
  return low.Quantize(y, 6, 7);
}

// QLinearMatMul(a, as, az, b, bs, bz, ys, yz): DQ(a) per row, DQ(b) per
// column, MatMul, Q.
absl::Status DoQLinearMatMul(Importer& im) {
  Lowering low(im);
  EGRET_ASSIGN_OR_RETURN(auto da, low.Dequantize(0, 1, 2, -2, "a"));
  EGRET_ASSIGN_OR_RETURN(auto db, low.Dequantize(3, 4, 5, -1, "b"));
  std::string y = low.Temp("matmul");
  EGRET_RETURN_IF_ERROR(low.Run("MatMul", {da, db}, y));
  return low.Quantize(y, 6, 7);
}

// ConvInteger(x, w, xz, wz) and MatMulInteger(a, b, az, bz): the integer
// product as a float one on (x - xz) and (w - wz), cast to Int32. The sums
// are exact while below 2^24; beyond, they carry float32's relative error
// (ONNX Runtime's are exact), which the scale applied after them dwarfs.
absl::Status IntegerProduct(Importer& im, const std::string& op, int64_t w_axis,
                            std::initializer_list<std::string_view> attrs) {
  Lowering low(im);
  std::string x = low.Temp("x");
  EGRET_RETURN_IF_ERROR(low.Run("Cast", {im.InName(0)}, x, {}, {{"to", onnx::TensorProto::FLOAT}}));
  if (im.Has(2)) {
    if (im.In(2).type.num_elements() != 1) return Unmapped("the input zero point is not a scalar");
    std::string z = low.Temp("x_zero"), centred = low.Temp("x_centred");
    EGRET_RETURN_IF_ERROR(
        low.Run("Cast", {im.InName(2)}, z, {}, {{"to", onnx::TensorProto::FLOAT}}));
    EGRET_RETURN_IF_ERROR(low.Run("Sub", {x, z}, centred));
    x = centred;
  }
  const int64_t nz = im.Has(3) ? im.In(3).type.num_elements() : 1;
  const int64_t rank_w = im.In(1).type.rank();
  std::string one = low.Const("one", nz == 1 ? Dims{} : Dims{nz},
                              std::vector<double>(static_cast<size_t>(nz), 1.0));
  std::string w = low.Temp("w");
  EGRET_RETURN_IF_ERROR(low.Run("DequantizeLinear",
                                {im.InName(1), one, im.Has(3) ? im.InName(3) : ""}, w, {},
                                {{"axis", w_axis < 0 ? w_axis + rank_w : w_axis}}));
  std::string y = low.Temp("product");
  EGRET_RETURN_IF_ERROR(low.Run(op, {x, w}, y, attrs));
  return low.Run("Cast", {y}, im.Out(), {}, {{"to", onnx::TensorProto::INT32}});
}

// A com.microsoft QLinear op computing `op` on its dequantized inputs:
// inputs (X, Xs, Xz)... then (Ys, Yz).
absl::Status QLinearElementwise(Importer& im, const std::string& op, int num_inputs,
                                std::initializer_list<std::string_view> attrs = {}) {
  if (im.AttrInt("channels_last", 0) != 0) return Unmapped("channels_last is not mapped");
  Lowering low(im);
  std::vector<std::string> ins;
  for (int k = 0; k < num_inputs; ++k) {
    EGRET_ASSIGN_OR_RETURN(auto d,
                           low.Dequantize(3 * k, 3 * k + 1, 3 * k + 2, 1, absl::StrCat("in", k)));
    ins.push_back(d);
  }
  std::string y = low.Temp(op);
  EGRET_RETURN_IF_ERROR(low.Run(op, ins, y, attrs));
  return low.Quantize(y, 3 * num_inputs, 3 * num_inputs + 1);
}

// QLinearConcat(Ys, Yz, X1, X1s, X1z, ...).
absl::Status DoQLinearConcat(Importer& im) {
  Lowering low(im);
  std::vector<std::string> ins;
  for (int i = 2; i + 2 < im.cur_->input_size(); i += 3) {
    EGRET_ASSIGN_OR_RETURN(auto d, low.Dequantize(i, i + 1, i + 2, 1, absl::StrCat("in", i)));
    ins.push_back(d);
  }
  if (ins.empty()) return absl::InvalidArgumentError("no inputs");
  std::string y = low.Temp("concat");
  EGRET_RETURN_IF_ERROR(low.Run("Concat", ins, y, {"axis"}));
  return low.Quantize(y, 0, 1);
}

}  // namespace

absl::StatusOr<ValueRef> Importer::DequantizeConstant(ConstTensorPtr q, DType dtype,
                                                      const std::string& name) {
  ValueRef c = ConstNode(std::move(q), name + "/quantized");
  return Emit("Dequantize", {c}, name, {ScalarType(dtype)});
}

absl::StatusOr<ValueRef> Importer::DequantizedWeight(const std::string& name,
                                                     const std::vector<int>& perm,
                                                     std::string_view suffix) {
  const Value& v = values_.at(name);
  ConstTensorPtr q = v.quantized;
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int>(i);
  if (!identity) q = std::make_shared<const Tensor>(TransposeTensor(*q, perm));
  return DequantizeConstant(std::move(q), v.constant->type().dtype,
                            absl::StrCat(name, std::string(suffix)));
}

absl::StatusOr<ValueRef> Importer::GetDequantized(const std::string& name, Layout want) {
  std::vector<int> perm(kToNhwc, kToNhwc + 4);
  if (want != kNhwc) {
    perm.resize(static_cast<size_t>(values_.at(name).type.rank()));
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
  }
  EGRET_ASSIGN_OR_RETURN(ValueRef r, DequantizedWeight(name, perm, want == kNhwc ? "/nhwc" : ""));
  values_.at(name).ref[want] = r;
  return r;
}

absl::Status Importer::BuildPlainFromEncoded(const std::string& name) {
  const Value& v = values_.at(name);
  const ValueRef encoded = v.encoded;
  const Layout l = v.native;
  EGRET_ASSIGN_OR_RETURN(ValueRef r,
                         Emit("Cast", {encoded}, name + "/stored", {Plain(g_.TypeOf(encoded))}));
  values_.at(name).ref[l] = r;
  return absl::OkStatus();
}

absl::Status Importer::RunSynthetic(const onnx::NodeProto& node) {
  auto it = Handlers().find(node.op_type());
  if (it == Handlers().end()) return Unmapped(absl::StrCat(node.op_type(), " is not mapped"));
  const onnx::NodeProto* outer = cur_;
  cur_ = &node;
  absl::Status s = it->second(*this);
  cur_ = outer;
  return s;
}

void RegisterQuantizeHandlers(HandlerTable& t) {
  t["QuantizeLinear"] = DoQuantizeLinear;
  t["DequantizeLinear"] = DoDequantizeLinear;
  t["QLinearConv"] = DoQLinearConv;
  t["QLinearMatMul"] = DoQLinearMatMul;
  t["ConvInteger"] = [](Importer& im) {
    return IntegerProduct(im, "Conv", 0,
                          {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  };
  t["MatMulInteger"] = [](Importer& im) { return IntegerProduct(im, "MatMul", -1, {}); };
  t["com.microsoft.QLinearAdd"] = [](Importer& im) { return QLinearElementwise(im, "Add", 2); };
  t["com.microsoft.QLinearMul"] = [](Importer& im) { return QLinearElementwise(im, "Mul", 2); };
  t["com.microsoft.QLinearSigmoid"] = [](Importer& im) {
    return QLinearElementwise(im, "Sigmoid", 1);
  };
  t["com.microsoft.QLinearLeakyRelu"] = [](Importer& im) {
    return QLinearElementwise(im, "LeakyRelu", 1, {"alpha"});
  };
  t["com.microsoft.QLinearGlobalAveragePool"] = [](Importer& im) {
    return QLinearElementwise(im, "GlobalAveragePool", 1);
  };
  t["com.microsoft.QLinearAveragePool"] = [](Importer& im) {
    return QLinearElementwise(
        im, "AveragePool", 1,
        {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  };
  t["com.microsoft.QLinearConcat"] = DoQLinearConcat;
}

}  // namespace egret::onnx_import
