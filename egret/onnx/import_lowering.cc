// Lowering steps the handlers share: broadcasting into NHWC, binary and
// unary ops, reshapes and slices.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

// A rank <= 4 operand broadcast against a 4-D NHWC result: rank-4 operands in
// NHWC; lower ranks first padded with leading 1s (numpy alignment), then moved.
absl::StatusOr<ValueRef> Importer::BroadcastNhwc(const std::string& name) {
  Value& v = values_.at(name);
  if (v.type.rank() == 4) return Get(name, kNhwc);
  Dims d4(4 - v.type.rank(), 1);
  d4.insert(d4.end(), v.type.dims.begin(), v.type.dims.end());
  if (v.constant && v.quantized) {  // a DequantizeLinear of a constant: stays one
    Tensor q = TransposeTensor(ReshapeTensor(*v.quantized, d4), kToNhwc);
    return DequantizeConstant(std::make_shared<const Tensor>(std::move(q)),
                              v.constant->type().dtype, name + "/nhwc");
  }
  if (v.constant) {
    Tensor t = TransposeTensor(ReshapeTensor(*v.constant, d4), kToNhwc);
    return ConstNode(std::make_shared<const Tensor>(std::move(t)), name + "/nhwc");
  }
  EGRET_ASSIGN_OR_RETURN(auto plain, Get(name, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Reshape", {plain, ShapeParam(d4)}, name + "/4d"));
  return Emit("Transpose", {r, ShapeParam({0, 2, 3, 1})}, name + "/nhwc");
}

absl::Status Importer::Binary(std::string_view op, const std::string& a, const std::string& b,
                              const std::string& out) {
  static const absl::flat_hash_map<std::string, std::string> kOps = {
      {"Add", "ElementWiseAdd"},    {"Sub", "ElementWiseSubtract"}, {"Mul", "ElementWiseMultiply"},
      {"Div", "ElementWiseDivide"}, {"Max", "ElementWiseMaximum"},  {"Min", "ElementWiseMinimum"},
      {"Pow", "ElementWisePower"}};
  const Value& va = values_.at(a);
  const Value& vb = values_.at(b);
  auto known = kOps.find(std::string(op));
  const std::string eop = known != kOps.end() ? known->second : std::string(op);
  const int rank = std::max(va.type.rank(), vb.type.rank());
  if (rank == 4 && (IsNhwcActivation(va) || IsNhwcActivation(vb))) {
    EGRET_ASSIGN_OR_RETURN(auto ra, BroadcastNhwc(a));
    EGRET_ASSIGN_OR_RETURN(auto rb, BroadcastNhwc(b));
    EGRET_ASSIGN_OR_RETURN(auto r, Emit(eop, {ra, rb}, out));
    SetValue(out, r, kNhwc);
    return absl::OkStatus();
  }
  EGRET_ASSIGN_OR_RETURN(auto ra, Get(a, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto rb, Get(b, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(eop, {ra, rb}, out));
  SetValue(out, r, kPlain);
  return absl::OkStatus();
}

absl::Status Importer::Unary(std::string_view op, const std::string& in, const std::string& out,
                             std::vector<ValueRef> params) {
  Layout l = NativeLayout(in);
  EGRET_ASSIGN_OR_RETURN(auto x, Get(in, l));
  params.insert(params.begin(), x);
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(std::string(op), std::move(params), out));
  SetValue(out, r, l);
  return absl::OkStatus();
}

absl::Status Importer::ReshapeTo(const std::string& in, const Dims& dims, const std::string& out) {
  Value& v = values_.at(in);
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("bad output dims ", DimsStr(dims)));
    n = SaturatingMul(n, d);
  }
  if (n != v.type.num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot reshape %s to %s", DimsStr(v.type.dims), DimsStr(dims)));
  }
  if (static_cast<int>(dims.size()) > kMaxRank) {
    return Unmapped(absl::StrFormat("result rank %d exceeds %d", dims.size(), kMaxRank));
  }
  if (v.constant) {
    SetConst(out, ReshapeTensor(*v.constant, dims), v.splat);
    return absl::OkStatus();
  }
  if (dims == v.type.dims) {
    Alias(out, in);
    return absl::OkStatus();
  }
  // NHWC and NCHW list the elements in the same order when the channel or
  // both spatial dims are 1: then the NHWC value can be reshaped directly.
  Layout l = kPlain;
  if (IsNhwcActivation(v)) {
    const Dims& d = v.type.dims;
    if (d[1] == 1 || (d[2] == 1 && d[3] == 1)) l = kNhwc;
  }
  EGRET_ASSIGN_OR_RETURN(auto x, Get(in, l));
  EGRET_ASSIGN_OR_RETURN(
      auto r,
      Emit("Reshape", {x, ShapeParam(std::vector<int64_t>(dims.begin(), dims.end()))}, out));
  SetValue(out, r, kPlain);
  return absl::OkStatus();
}

absl::Status Importer::SliceTo(const std::string& in, std::vector<int64_t> begin,
                               std::vector<int64_t> end, std::vector<int64_t> stride,
                               const std::string& out) {
  Layout l = NativeLayout(in);
  for (int64_t& b : begin) b = ClampI32(b);
  for (int64_t& e : end) e = ClampI32(e);
  if (l == kNhwc) {
    std::vector<int64_t> b2(4), e2(4), s2(4);
    for (int j = 0; j < 4; ++j) {
      b2[j] = begin[kToNhwc[j]];
      e2[j] = end[kToNhwc[j]];
      s2[j] = stride[kToNhwc[j]];
    }
    begin = b2, end = e2, stride = s2;
  }
  EGRET_ASSIGN_OR_RETURN(auto x, Get(in, l));
  EGRET_ASSIGN_OR_RETURN(
      auto r, Emit("StridedSlice", {x, IntsConst(begin), IntsConst(end), IntsConst(stride)}, out));
  SetValue(out, r, l);
  return absl::OkStatus();
}

}  // namespace egret::onnx_import
