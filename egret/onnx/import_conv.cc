// Convolution, pooling, normalization and matrix products.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

// Pads [top, bottom, left, right] from the node's pads/auto_pad attributes.
absl::StatusOr<std::vector<int64_t>> Importer::ConvPads(const Dims& in_hw,
                                                        const std::vector<int64_t>& k,
                                                        const std::vector<int64_t>& s,
                                                        const std::vector<int64_t>& d) {
  std::string auto_pad = AttrStr("auto_pad", "NOTSET");
  std::vector<int64_t> pads(4, 0);
  if (auto_pad == "NOTSET") {
    auto p = AttrInts("pads").value_or(std::vector<int64_t>(4, 0));
    if (p.size() != 4) return absl::InvalidArgumentError("pads must have 4 values");
    for (int64_t v : p) {
      if (v < 0) return Unmapped("negative pads");
    }
    return std::vector<int64_t>{p[0], p[2], p[1], p[3]};
  }
  if (auto_pad == "VALID") return pads;
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return absl::InvalidArgumentError(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
  }
  for (int i = 0; i < 2; ++i) {
    // Saturating: strides, kernel sizes and dilations come from the file.
    int64_t out = SaturatingSub(SaturatingAdd(in_hw[i], s[i]), 1) / s[i];
    int64_t span = SaturatingAdd(SaturatingMul(out - 1, s[i]),
                                 SaturatingAdd(SaturatingMul(k[i] - 1, d[i]), 1));
    int64_t total = std::max<int64_t>(0, SaturatingSub(span, in_hw[i]));
    int64_t small = total / 2, big = total - small;
    pads[2 * i] = auto_pad == "SAME_UPPER" ? small : big;
    pads[2 * i + 1] = auto_pad == "SAME_UPPER" ? big : small;
  }
  return pads;
}

// A 1-D Conv or ConvTranspose (audio front ends, STFT as a convolution) is
// its 2-D form with H = 1: x [N, C, L] -> [N, C, 1, L], weight [M, C/g, k]
// -> [M, C/g, 1, k], every spatial attribute gains a leading H entry (1 for
// kernel_shape, strides, dilations and output_shape, 0 for output_padding, a
// 0 pair for pads), and the [N, M, 1, L'] result is reshaped to [N, M, L'].
absl::Status Importer::Conv1dAs2d(absl::Status (Importer::*conv2d)()) {
  const Dims xd = In(0).type.dims;
  const Value& w = In(1);
  if (w.type.rank() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight must be 3-D, got ", DimsStr(w.type.dims)));
  }
  const std::string x2 = Temp(Out(), "x2d"), w2 = Temp(Out(), "w2d"), y2 = Temp(Out(), "y2d");
  EGRET_RETURN_IF_ERROR(ReshapeTo(InName(0), {xd[0], xd[1], 1, xd[2]}, x2));
  const Dims wd = {w.type.dims[0], w.type.dims[1], 1, w.type.dims[2]};
  if (w.constant) {
    SetConst(w2, ReshapeTensor(*w.constant, wd), w.splat);
  } else {
    EGRET_RETURN_IF_ERROR(ReshapeTo(InName(1), wd, w2));
  }
  onnx::NodeProto node = *cur_;
  node.set_input(0, x2);
  node.set_input(1, w2);
  node.set_output(0, y2);
  for (onnx::AttributeProto& a : *node.mutable_attribute()) {
    const std::string& n = a.name();
    if (n == "pads" && a.ints_size() == 2) {
      const int64_t begin = a.ints(0), end = a.ints(1);
      a.clear_ints();
      for (int64_t v : {int64_t{0}, begin, int64_t{0}, end}) a.add_ints(v);
    } else if (n == "kernel_shape" || n == "strides" || n == "dilations" || n == "output_padding" ||
               n == "output_shape") {
      std::vector<int64_t> v(a.ints().begin(), a.ints().end());
      a.clear_ints();
      a.add_ints(n == "output_padding" ? 0 : 1);
      for (int64_t x : v) a.add_ints(x);
    }
  }
  const onnx::NodeProto* outer = cur_;
  cur_ = &node;
  absl::Status s = (this->*conv2d)();
  cur_ = outer;
  EGRET_RETURN_IF_ERROR(s);
  const Dims yd = values_.at(y2).type.dims;
  return ReshapeTo(y2, {yd[0], yd[1], yd[3]}, Out());
}

absl::Status Importer::DoConv() {
  if (!options_.nhwc) return Unmapped("Conv needs the NHWC layout");
  if (In(0).type.rank() == 3) return Conv1dAs2d(&Importer::DoConv);
  const Value& x = In(0);
  const Value& w = In(1);
  if (x.type.rank() != 4) return Unmapped("only 1-D and 2-D convolution are mapped");
  if (w.type.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight must be 4-D, got ", DimsStr(w.type.dims)));
  }
  const int64_t g = AttrInt("group", 1);
  const int64_t cin = x.type.dims[1], cout = w.type.dims[0];
  if (g <= 0 || SaturatingMul(w.type.dims[1], g) != cin || cout % g != 0) {
    return absl::InvalidArgumentError(absl::StrFormat("weight %s and group %d do not fit input %s",
                                                      DimsStr(w.type.dims), g,
                                                      DimsStr(x.type.dims)));
  }
  std::vector<int64_t> k = {w.type.dims[2], w.type.dims[3]};
  std::vector<int64_t> s = AttrInts("strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> d = AttrInts("dilations").value_or(std::vector<int64_t>{1, 1});
  if (s.size() != 2 || d.size() != 2)
    return absl::InvalidArgumentError("strides/dilations need 2 values");
  EGRET_ASSIGN_OR_RETURN(auto pads, ConvPads({x.type.dims[2], x.type.dims[3]}, k, s, d));
  // Filter [cout, cin/g, kh, kw] -> [kh, kw, cin/g, cout].
  ValueRef filter;
  if (w.quantized) {
    EGRET_ASSIGN_OR_RETURN(filter, DequantizedWeight(InName(1), {2, 3, 1, 0}, "/hwio"));
  } else if (w.constant) {
    TensorType ft = w.type;
    ft.dims = {k[0], k[1], w.type.dims[1], cout};
    filter = ConstNode(std::make_shared<const Tensor>(
                           w.splat ? SplatTensor(*w.constant, ft)
                                   : TransposeTensor(*w.constant, std::vector<int>{2, 3, 1, 0})),
                       InName(1) + "/hwio");
  } else {
    EGRET_ASSIGN_OR_RETURN(auto wr, Get(InName(1), kPlain));
    EGRET_ASSIGN_OR_RETURN(auto t,
                           Emit("Transpose", {wr, ShapeParam({2, 3, 1, 0})}, InName(1) + "/hwio"));
    filter = t;
  }
  EGRET_ASSIGN_OR_RETURN(ValueRef bias, ConvBias(cout));
  const bool depthwise = g > 1 && g == cin && w.type.dims[1] == 1;
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(depthwise ? "DepthWiseConv2d" : "Conv2d",
                                      {xin, filter, bias, ShapeParam({1, s[0], s[1], 1}),
                                       ShapeParam(pads), ShapeParam({1, d[0], d[1], 1})},
                                      Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::StatusOr<ValueRef> Importer::ConvBias(int64_t cout) {
  if (Has(2)) return Get(InName(2), kPlain);
  const DType dt = In(0).type.dtype;
  if (In(1).quantized) {
    // A quantized convolution's bias is Int32: zeros are exact in any encoding.
    return DequantizeConstant(std::make_shared<const Tensor>(TensorType(DType::kQInt32, {cout})),
                              dt, Out() + "/bias");
  }
  return ConstNode(std::make_shared<const Tensor>(TensorType(dt, {cout})), Out() + "/bias");
}

// The filter of a grouped ConvTranspose weight W [cin, cout/g, kh, kw] as
// egret's [kh, kw, cin/g, cout]: filter[ky,kx,k,gi*cg+j] = W[gi*ing+k, j, ky, kx].
absl::StatusOr<ValueRef> Importer::GroupedTransposeFilter(const Value& w, int64_t g,
                                                          const std::string& name) {
  const int64_t cin = w.type.dims[0], cg = w.type.dims[1], cout = cg * g, ing = cin / g;
  const int64_t kh = w.type.dims[2], kw = w.type.dims[3];
  TensorType ft = w.type;
  ft.dims = {kh, kw, ing, cout};
  std::vector<uint8_t> bytes(static_cast<size_t>(ft.byte_size()));
  const size_t es = static_cast<size_t>(ElementSize(ft.dtype));
  const uint8_t* src = w.constant->bytes().data();
  for (int64_t gi = 0; gi < g; ++gi) {
    for (int64_t kk = 0; kk < ing; ++kk) {
      for (int64_t j = 0; j < cg; ++j) {
        for (int64_t ky = 0; ky < kh; ++ky) {
          for (int64_t kx = 0; kx < kw; ++kx) {
            int64_t from = (((gi * ing + kk) * cg + j) * kh + ky) * kw + kx;
            int64_t to = ((ky * kw + kx) * ing + kk) * cout + gi * cg + j;
            std::memcpy(&bytes[to * es], src + from * es, es);
          }
        }
      }
    }
  }
  return ConstNode(std::make_shared<const Tensor>(*Tensor::FromBytes(ft, bytes)), name);
}

absl::Status Importer::DoConvTranspose() {
  if (!options_.nhwc) return Unmapped("ConvTranspose needs the NHWC layout");
  if (In(0).type.rank() == 3) return Conv1dAs2d(&Importer::DoConvTranspose);
  const Value& x = In(0);
  const Value& w = In(1);
  if (x.type.rank() != 4) return Unmapped("only 1-D and 2-D transposed convolution are mapped");
  if (!w.constant) return Unmapped("the weight is not a constant");
  if (w.type.rank() != 4) return absl::InvalidArgumentError("weight must be 4-D");
  const int64_t g = AttrInt("group", 1);
  const int64_t cin = x.type.dims[1];
  if (g <= 0 || w.type.dims[0] != cin || cin % g != 0) {
    return absl::InvalidArgumentError(absl::StrFormat("weight %s and group %d do not fit input %s",
                                                      DimsStr(w.type.dims), g,
                                                      DimsStr(x.type.dims)));
  }
  const int64_t cg = w.type.dims[1], cout = SaturatingMul(cg, g);
  if (cout > kMaxElements) return absl::InvalidArgumentError("group makes too many channels");
  const int64_t kh = w.type.dims[2], kw = w.type.dims[3];
  std::vector<int64_t> s = AttrInts("strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> d = AttrInts("dilations").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> op = AttrInts("output_padding").value_or(std::vector<int64_t>{0, 0});
  if (s.size() != 2 || d.size() != 2 || op.size() != 2) {
    return absl::InvalidArgumentError("strides/dilations/output_padding need 2 values");
  }
  std::vector<int64_t> k = {kh, kw};
  std::vector<int64_t> pads(4, 0);
  std::string auto_pad = AttrStr("auto_pad", "NOTSET");
  auto out_shape = AttrInts("output_shape");
  if (out_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    std::vector<int64_t> want(2);
    for (int i = 0; i < 2; ++i) {
      if (out_shape) {
        if (out_shape->size() < 2) return absl::InvalidArgumentError("bad output_shape");
        want[i] = (*out_shape)[out_shape->size() - 2 + i];
      } else {
        want[i] = SaturatingMul(x.type.dims[2 + i], s[i]);
      }
      if (want[i] < 0 || want[i] > kMaxElements) {
        return absl::InvalidArgumentError(
            absl::StrCat("output size ", want[i], " is out of range"));
      }
      // Saturating: the attributes come from the file.
      int64_t span = SaturatingAdd(SaturatingMul(s[i], x.type.dims[2 + i] - 1), op[i]);
      span = SaturatingAdd(span, SaturatingAdd(SaturatingMul(k[i] - 1, d[i]), 1));
      int64_t total = SaturatingSub(span, want[i]);
      if (total < 0) {
        op[i] = SaturatingSub(op[i], total);
        total = 0;
      }
      int64_t small = total / 2, big = total - small;
      const bool upper = auto_pad == "SAME_UPPER";
      pads[2 * i] = upper ? small : big;
      pads[2 * i + 1] = upper ? big : small;
    }
  } else if (auto_pad == "NOTSET") {
    auto p = AttrInts("pads").value_or(std::vector<int64_t>(4, 0));
    if (p.size() != 4) return absl::InvalidArgumentError("pads must have 4 values");
    pads = {p[0], p[2], p[1], p[3]};
  }
  for (int64_t v : pads) {
    if (v < 0) return Unmapped("negative pads");
  }
  ValueRef filter;
  if (w.quantized && g == 1) {
    // [cin, cout, kh, kw] -> [kh, kw, cin, cout], the encoding's axis with it.
    EGRET_ASSIGN_OR_RETURN(filter, DequantizedWeight(InName(1), {2, 3, 0, 1}, "/hwio"));
  } else {
    EGRET_ASSIGN_OR_RETURN(filter, GroupedTransposeFilter(w, g, InName(1) + "/hwio"));
  }
  EGRET_ASSIGN_OR_RETURN(ValueRef bias, ConvBias(cout));
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(auto r,
                         Emit("TransposeConv2d",
                              {xin, filter, bias, ShapeParam({1, s[0], s[1], 1}), ShapeParam(pads),
                               ShapeParam({1, d[0], d[1], 1}), ShapeParam({0, op[0], op[1], 0})},
                              Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoPool() {
  if (!options_.nhwc) return Unmapped("pools need the NHWC layout");
  const std::string& t = cur_->op_type();
  const Value& x = In(0);
  if (x.type.rank() != 4) return Unmapped("only 2-D pooling is mapped");
  const bool max = t == "MaxPool" || t == "GlobalMaxPool";
  const bool global = t.rfind("Global", 0) == 0;
  const int64_t h = x.type.dims[2], w = x.type.dims[3];
  std::vector<int64_t> k, s, pads;
  int64_t count_pad = 0;
  if (global) {
    k = {h, w};
    s = {1, 1};
    pads = {0, 0, 0, 0};
  } else {
    if (OutputUsed(1)) return Unmapped("the indices output is used");
    auto ks = AttrInts("kernel_shape");
    if (!ks || ks->size() != 2) return Unmapped("kernel_shape is not 2-D");
    k = *ks;
    s = AttrInts("strides").value_or(std::vector<int64_t>{1, 1});
    auto dil = AttrInts("dilations").value_or(std::vector<int64_t>{1, 1});
    if (dil != std::vector<int64_t>{1, 1}) return Unmapped("dilated pooling");
    if (s.size() != 2) return absl::InvalidArgumentError("strides need 2 values");
    EGRET_ASSIGN_OR_RETURN(auto p, ConvPads({h, w}, k, s, {1, 1}));
    pads = p;
    count_pad = AttrInt("count_include_pad", 0);
    if (AttrInt("ceil_mode", 0) != 0) {
      const int64_t in[2] = {h, w};
      for (int i = 0; i < 2; ++i) {
        int64_t padded = SaturatingAdd(SaturatingAdd(in[i], pads[2 * i]), pads[2 * i + 1]);
        int64_t out = SaturatingSub(SaturatingAdd(padded - k[i], s[i]), 1) / s[i] + 1;
        int64_t extra = SaturatingSub(SaturatingAdd(SaturatingMul(out - 1, s[i]), k[i]), padded);
        if (extra > 0) {
          if (count_pad) return Unmapped("ceil_mode with count_include_pad");
          pads[2 * i + 1] = SaturatingAdd(pads[2 * i + 1], extra);
        }
      }
    }
    for (int i = 0; i < 4; ++i) {
      if (pads[i] >= k[i / 2]) return Unmapped("pads as large as the window");
    }
  }
  std::vector<ValueRef> params = {ShapeParam({1, k[0], k[1], 1}), ShapeParam({1, s[0], s[1], 1}),
                                  ShapeParam(pads)};
  if (!max) params.push_back(IntConst(count_pad));
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  params.insert(params.begin(), xin);
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(max ? "PoolMax2d" : "PoolAvg2d", params, Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoBatchNorm() {
  for (int k = 1; k < cur_->output_size(); ++k) {
    if (OutputUsed(k)) return Unmapped("training outputs are used");
  }
  if (AttrInt("training_mode", 0) != 0) return Unmapped("training mode");
  const Value& x = In(0);
  const int rank = x.type.rank();
  if (rank < 2) return absl::InvalidArgumentError("input must have rank >= 2");
  const int64_t c = x.type.dims[1];
  std::vector<double> p[4];
  const char* names[4] = {"scale", "bias", "mean", "var"};
  for (int i = 0; i < 4; ++i) {
    EGRET_ASSIGN_OR_RETURN(auto v, ConstFloats(i + 1, names[i]));
    if (static_cast<int64_t>(v.size()) != c) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s has %d values, the input has %d channels", names[i], v.size(), c));
    }
    p[i] = std::move(v);
  }
  const double eps = AttrFloat("epsilon", 1e-5);
  std::vector<double> scale(c), offset(c);
  for (int64_t i = 0; i < c; ++i) {
    scale[i] = p[0][i] / std::sqrt(p[3][i] + eps);
    offset[i] = p[1][i] - p[2][i] * scale[i];
  }
  const DType dt = x.type.dtype;
  const bool channel_last = rank == 2 || (rank == 4 && options_.nhwc);
  if (channel_last) {
    ValueRef sc =
        ConstNode(std::make_shared<const Tensor>(Tensor::FromValues(TensorType(dt, {c}), scale)),
                  Out() + "/scale");
    ValueRef of =
        ConstNode(std::make_shared<const Tensor>(Tensor::FromValues(TensorType(dt, {c}), offset)),
                  Out() + "/offset");
    EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), rank == 4 ? kNhwc : kPlain));
    EGRET_ASSIGN_OR_RETURN(auto r, Emit("Batchnorm", {xin, sc, of}, Out()));
    SetValue(Out(), r, rank == 4 ? kNhwc : kPlain);
    return absl::OkStatus();
  }
  // Channel not last: x * scale + offset with [c, 1, ...] constants.
  Dims cd(rank - 1, 1);
  cd[0] = c;
  std::string ks = Temp(Out(), "scale"), ko = Temp(Out(), "offset"), mul = Temp(Out(), "mul");
  SetConst(ks, Tensor::FromValues(TensorType(dt, cd), scale));
  SetConst(ko, Tensor::FromValues(TensorType(dt, cd), offset));
  EGRET_RETURN_IF_ERROR(Binary("Mul", InName(0), ks, mul));
  return Binary("Add", mul, ko, Out());
}

absl::Status Importer::DoGemm() {
  const Value& a = In(0);
  const Value& b = In(1);
  if (a.type.rank() != 2 || b.type.rank() != 2) {
    return absl::InvalidArgumentError("A and B must be 2-D");
  }
  const bool ta = AttrInt("transA", 0) != 0, tb = AttrInt("transB", 0) != 0;
  const double alpha = AttrFloat("alpha", 1.0), beta = AttrFloat("beta", 1.0);
  const int64_t n = tb ? b.type.dims[0] : b.type.dims[1];
  std::string a_name = InName(0);
  if (ta) {
    a_name = Temp(Out(), "At");
    if (a.constant) {
      SetConst(a_name, TransposeTensor(*a.constant, std::vector<int>{1, 0}));
    } else {
      EGRET_ASSIGN_OR_RETURN(auto ar, Get(InName(0), kPlain));
      EGRET_ASSIGN_OR_RETURN(auto t, Emit("Transpose", {ar, ShapeParam({1, 0})}, a_name));
      SetValue(a_name, t, kPlain);
    }
  }
  // weights [n, k]
  ValueRef weights;
  bool alpha_done = alpha == 1.0;
  if (b.quantized && alpha_done) {
    if (tb) {
      EGRET_ASSIGN_OR_RETURN(weights, Get(InName(1), kPlain));
    } else {
      EGRET_ASSIGN_OR_RETURN(weights, DequantizedWeight(InName(1), {1, 0}, "/t"));
    }
  } else if (b.constant) {
    ConstTensorPtr wt = b.constant;
    if (!tb) wt = Transposed2d(b);
    if (!alpha_done) {
      Tensor scaled = *wt;
      for (int64_t i = 0; i < scaled.num_elements(); ++i) {
        scaled.SetReal(i, scaled.GetReal(i) * alpha);
      }
      wt = std::make_shared<const Tensor>(std::move(scaled));
      alpha_done = true;
    }
    if (tb && wt == b.constant) {
      EGRET_ASSIGN_OR_RETURN(auto br, Get(InName(1), kPlain));
      weights = br;
    } else {
      weights = ConstNode(std::move(wt), InName(1) + "/t");
    }
  } else {
    EGRET_ASSIGN_OR_RETURN(auto br, Get(InName(1), kPlain));
    if (tb) {
      weights = br;
    } else {
      EGRET_ASSIGN_OR_RETURN(auto t, Emit("Transpose", {br, ShapeParam({1, 0})}, InName(1) + "/t"));
      weights = t;
    }
  }
  if (!alpha_done) {
    std::string k = ScalarTemp("alpha", a.type.dtype, alpha), scaled = Temp(Out(), "Ascaled");
    EGRET_RETURN_IF_ERROR(Binary("Mul", a_name, k, scaled));
    a_name = scaled;
  }
  EGRET_ASSIGN_OR_RETURN(auto ain, Get(a_name, kPlain));
  std::vector<ValueRef> ins = {ain, weights};
  std::string add_c;  // a C added after the FullyConnected
  if (Has(2) && beta != 0) {
    const Value& c = In(2);
    if (c.quantized && beta == 1.0 && c.type.rank() == 1 && c.type.num_elements() == n) {
      EGRET_ASSIGN_OR_RETURN(auto bias, Get(InName(2), kPlain));
      ins.push_back(bias);
    } else if (c.constant && (c.type.num_elements() == n || c.type.num_elements() == 1) &&
               (c.type.rank() <= 1 || (c.type.rank() == 2 && c.type.dims[0] == 1))) {
      std::vector<double> bias(n);
      for (int64_t i = 0; i < n; ++i) {
        bias[i] = beta * c.constant->GetReal(c.type.num_elements() == 1 ? 0 : i);
      }
      ins.push_back(ConstNode(
          std::make_shared<const Tensor>(Tensor::FromValues(TensorType(c.type.dtype, {n}), bias)),
          InName(2) + "/bias"));
    } else if (beta == 1.0) {
      add_c = InName(2);
    } else {
      add_c = Temp(Out(), "betaC");
      std::string k = ScalarTemp("beta", c.type.dtype, beta);
      EGRET_RETURN_IF_ERROR(Binary("Mul", InName(2), k, add_c));
    }
  }
  std::string fc = add_c.empty() ? Out() : Temp(Out(), "fc");
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("FullyConnected", ins, fc));
  SetValue(fc, r, kPlain);
  if (!add_c.empty()) return Binary("Add", fc, add_c, Out());
  return absl::OkStatus();
}

absl::Status Importer::DoMatMul() {
  const Value& a = In(0);
  const Value& b = In(1);
  const int ra = a.type.rank(), rb = b.type.rank();
  if (ra == 0 || rb == 0) return absl::InvalidArgumentError("operands must have rank >= 1");
  if (b.constant && rb == 2 && !(a.constant && ra == 1)) {
    // x @ B == FullyConnected(x, B^T).
    ValueRef weights;
    if (b.quantized) {
      EGRET_ASSIGN_OR_RETURN(weights, DequantizedWeight(InName(1), {1, 0}, "/t"));
    } else {
      weights = ConstNode(Transposed2d(b), InName(1) + "/t");
    }
    EGRET_ASSIGN_OR_RETURN(auto ain, Get(InName(0), kPlain));
    EGRET_ASSIGN_OR_RETURN(auto r, Emit("FullyConnected", {ain, weights}, Out()));
    SetValue(Out(), r, kPlain);
    return absl::OkStatus();
  }
  std::string an = InName(0), bn = InName(1);
  Dims out_dims;
  if (ra == 1) {
    an = Temp(Out(), "a2d");
    EGRET_RETURN_IF_ERROR(ReshapeTo(InName(0), {1, a.type.dims[0]}, an));
  }
  if (rb == 1) {
    bn = Temp(Out(), "b2d");
    EGRET_RETURN_IF_ERROR(ReshapeTo(InName(1), {b.type.dims[0], 1}, bn));
  }
  EGRET_ASSIGN_OR_RETURN(auto ar, Get(an, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto br, Get(bn, kPlain));
  if (ra > 1 && rb > 1) {
    EGRET_ASSIGN_OR_RETURN(auto r, Emit("MatMul", {ar, br}, Out()));
    SetValue(Out(), r, kPlain);
    return absl::OkStatus();
  }
  std::string mm = Temp(Out(), "matmul");
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("MatMul", {ar, br}, mm));
  SetValue(mm, r, kPlain);
  Dims d = g_.TypeOf(r).dims;
  if (ra == 1) d.erase(d.end() - 2);
  if (rb == 1) d.erase(d.end() - 1);
  return ReshapeTo(mm, d, Out());
}

void RegisterConvHandlers(HandlerTable& t) {
  for (auto op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"})
    t[op] = [](Importer& im) { return im.DoPool(); };
  t["Conv"] = [](Importer& im) { return im.DoConv(); };
  t["ConvTranspose"] = [](Importer& im) { return im.DoConvTranspose(); };
  t["BatchNormalization"] = [](Importer& im) { return im.DoBatchNorm(); };
  t["Gemm"] = [](Importer& im) { return im.DoGemm(); };
  t["MatMul"] = [](Importer& im) { return im.DoMatMul(); };
}

}  // namespace egret::onnx_import
