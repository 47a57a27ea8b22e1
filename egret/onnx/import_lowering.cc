// Lowering steps the handlers share: broadcasting into NHWC, binary and
// unary ops, reshapes and slices, integer folding.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

// A rank <= 4 operand broadcast against a 4-D NHWC result: rank-4 operands in
// NHWC; lower ranks first padded with leading 1s (numpy alignment), then moved.
absl::StatusOr<ValueRef> Importer::BroadcastNhwc(const std::string& name) {
  Value& v = values_.at(name);
  if (v.type.rank() == 4) return Get(name, kNhwc);
  Dims d4(4 - v.type.rank(), 1);
  d4.insert(d4.end(), v.type.dims.begin(), v.type.dims.end());
  if (v.constant) {
    Tensor t = TransposeTensor(ReshapeTensor(*v.constant, d4), kToNhwc);
    return ConstNode(std::make_shared<const Tensor>(std::move(t)), name + "/nhwc");
  }
  EGRET_ASSIGN_OR_RETURN(auto plain, Get(name, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Reshape", {plain, ShapeParam(d4)}, name + "/4d"));
  return Emit("Transpose", {r, ShapeParam({0, 2, 3, 1})}, name + "/nhwc");
}

bool Importer::FoldIntBinary(std::string_view op, const Value& a, const Value& b,
                             const std::string& out) {
  if (!a.constant || !b.constant) return false;
  DType dt = a.type.dtype;
  if ((dt != DType::kInt64 && dt != DType::kInt32) || b.type.dtype != dt) return false;
  absl::StatusOr<Dims> dims = BroadcastDims(a.type.dims, b.type.dims);
  if (!dims.ok()) return false;
  TensorType type(dt, *dims);
  if (static_cast<size_t>(type.num_elements()) > kMaxFoldElements) return false;
  std::vector<int64_t> av = TensorInts(*a.constant), bv = TensorInts(*b.constant);
  const int rank = type.rank();
  auto index = [&](const Dims& d, int64_t flat) {
    int64_t idx = 0, stride = 1;
    for (int i = rank - 1, j = static_cast<int>(d.size()) - 1; i >= 0; --i, --j) {
      int64_t c = flat % (*dims)[i];
      flat /= (*dims)[i];
      if (j >= 0) {
        if (d[j] != 1) idx += c * stride;
        stride *= d[j];
      }
    }
    return idx;
  };
  std::vector<uint8_t> bytes(static_cast<size_t>(type.byte_size()));
  for (int64_t k = 0; k < type.num_elements(); ++k) {
    int64_t x = av[index(a.type.dims, k)], y = bv[index(b.type.dims, k)], r;
    if (op == "Add") {
      r = x + y;
    } else if (op == "Sub") {
      r = x - y;
    } else if (op == "Mul") {
      r = x * y;
    } else if (op == "Div") {
      if (y == 0) return false;
      r = x / y;
    } else if (op == "Max") {
      r = std::max(x, y);
    } else if (op == "Min") {
      r = std::min(x, y);
    } else {
      return false;
    }
    if (dt == DType::kInt64) {
      std::memcpy(&bytes[k * 8], &r, 8);
    } else {
      int32_t r32 = static_cast<int32_t>(r);
      std::memcpy(&bytes[k * 4], &r32, 4);
    }
  }
  SetConst(out, *Tensor::FromBytes(type, std::move(bytes)));
  return true;
}

absl::Status Importer::Binary(std::string_view op, const std::string& a, const std::string& b,
                              const std::string& out) {
  static const absl::flat_hash_map<std::string, std::string> kOps = {
      {"Add", "ElementWiseAdd"},    {"Sub", "ElementWiseSubtract"}, {"Mul", "ElementWiseMultiply"},
      {"Div", "ElementWiseDivide"}, {"Max", "ElementWiseMaximum"},  {"Min", "ElementWiseMinimum"},
      {"Pow", "ElementWisePower"}};
  const Value& va = values_.at(a);
  const Value& vb = values_.at(b);
  if (FoldIntBinary(op, va, vb, out)) return absl::OkStatus();
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
    n *= d;
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
  Value& v = values_.at(in);
  const int rank = v.type.rank();
  if (v.constant && rank == 1) {
    int64_t first, count;
    if (!NormalizeStridedRange(v.type.dims[0], begin[0], end[0], stride[0], &first, &count)) {
      return absl::InvalidArgumentError("slice step must not be 0");
    }
    std::vector<int64_t> src = TensorInts(*v.constant);
    (void)src;
    const size_t es = static_cast<size_t>(ElementSize(v.type.dtype));
    std::vector<uint8_t> bytes;
    for (int64_t k = 0; k < count; ++k) {
      const uint8_t* p = v.constant->bytes().data() + (first + k * stride[0]) * es;
      bytes.insert(bytes.end(), p, p + es);
    }
    SetConst(out, *Tensor::FromBytes(TensorType(v.type.dtype, {count}), std::move(bytes)));
    return absl::OkStatus();
  }
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
