// Comparison and logic ONNX ops: Equal, Less, LessOrEqual, Greater,
// GreaterOrEqual, And, Or, Xor, Not, Where. Each maps onto the egret op of the
// same meaning (ElementWiseEqual .. ElementWiseSelect); constant operands
// (shape arithmetic such as Where(Equal(shape, -1), ...)) fold at import.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

std::vector<int64_t> BroadcastSources(const Dims& in, const Dims& out) {
  const size_t rank = out.size();
  const size_t lead = rank - in.size();
  std::vector<int64_t> stride(rank, 0);
  int64_t s = 1;
  for (size_t d = in.size(); d-- > 0;) {
    stride[lead + d] = in[d] == 1 ? 0 : s;
    s *= in[d];
  }
  const int64_t n = Product(out, 0, rank);
  std::vector<int64_t> src(static_cast<size_t>(n));
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    src[i] = off;
    for (size_t d = rank; d-- > 0;) {
      off += stride[d];
      if (++idx[d] < out[d]) break;
      off -= stride[d] * out[d];
      idx[d] = 0;
    }
  }
  return src;
}

Tensor TakeTensorElements(const Tensor& t, TensorType type, absl::Span<const int64_t> src) {
  const size_t es = static_cast<size_t>(ElementSize(t.type().dtype));
  type.dtype = t.type().dtype;
  type.zero_offset = t.type().zero_offset;
  type.stepsize = t.type().stepsize;
  std::vector<uint8_t> bytes(static_cast<size_t>(type.byte_size()));
  for (size_t i = 0; i < src.size() && (i + 1) * es <= bytes.size(); ++i) {
    std::memcpy(&bytes[i * es], t.bytes().data() + src[i] * es, es);
  }
  return *Tensor::FromBytes(std::move(type), std::move(bytes));
}

namespace {

// The egret op of each binary ONNX comparison or logic op.
const absl::flat_hash_map<std::string, std::string>& BinaryOps() {
  static const auto* const kOps = new absl::flat_hash_map<std::string, std::string>{
      {"Equal", "ElementWiseEqual"},
      {"Less", "ElementWiseLess"},
      {"LessOrEqual", "ElementWiseLessEqual"},
      {"Greater", "ElementWiseGreater"},
      {"GreaterOrEqual", "ElementWiseGreaterEqual"},
      {"And", "ElementWiseAnd"},
      {"Or", "ElementWiseOr"},
      {"Xor", "ElementWiseXor"}};
  return *kOps;
}

template <typename T>
bool Relation(std::string_view op, T x, T y) {
  if (op == "Equal") return x == y;
  if (op == "Less") return x < y;
  if (op == "LessOrEqual") return x <= y;
  if (op == "Greater") return x > y;
  if (op == "GreaterOrEqual") return x >= y;
  if (op == "And") return x != 0 && y != 0;
  if (op == "Or") return x != 0 || y != 0;
  return (x != 0) != (y != 0);  // Xor
}

bool IsIntegerType(DType t) { return t == DType::kInt32 || t == DType::kInt64; }

// Both operands constant and the result small: the Bool result. Integers
// compare exactly (int64), everything else by real value.
std::optional<Tensor> FoldRelation(std::string_view op, const Value& a, const Value& b) {
  if (!a.constant || !b.constant) return std::nullopt;
  absl::StatusOr<Dims> dims = BroadcastDims(a.type.dims, b.type.dims);
  if (!dims.ok() || static_cast<size_t>(Product(*dims, 0, dims->size())) > kMaxFoldElements) {
    return std::nullopt;
  }
  const std::vector<int64_t> ia = BroadcastSources(a.type.dims, *dims);
  const std::vector<int64_t> ib = BroadcastSources(b.type.dims, *dims);
  std::vector<double> out(ia.size());
  if (IsIntegerType(a.type.dtype) && IsIntegerType(b.type.dtype)) {
    const std::vector<int64_t> x = TensorInts(*a.constant), y = TensorInts(*b.constant);
    for (size_t i = 0; i < out.size(); ++i) out[i] = Relation(op, x[ia[i]], y[ib[i]]);
  } else {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = Relation(op, a.constant->GetReal(ia[i]), b.constant->GetReal(ib[i]));
    }
  }
  return Tensor::FromValues(TensorType(DType::kBool, *dims), out);
}

absl::Status DoCompare(Importer& im) {
  const std::string& op = im.cur_->op_type();
  if (std::optional<Tensor> t = FoldRelation(op, im.In(0), im.In(1))) {
    im.SetConst(im.Out(), *std::move(t));
    return absl::OkStatus();
  }
  return im.Binary(BinaryOps().at(op), im.InName(0), im.InName(1), im.Out());
}

absl::Status DoNot(Importer& im) {
  const Value& x = im.In(0);
  if (x.constant && static_cast<size_t>(x.type.num_elements()) <= kMaxFoldElements) {
    Tensor t(TensorType(DType::kBool, x.type.dims));
    for (int64_t i = 0; i < t.num_elements(); ++i) t.SetValue(i, x.constant->GetValue(i) == 0);
    im.SetConst(im.Out(), std::move(t));
    return absl::OkStatus();
  }
  return im.Unary("ElementWiseNot", im.InName(0), im.Out());
}

absl::Status DoWhere(Importer& im) {
  const Value& c = im.In(0);
  const Value& x = im.In(1);
  const Value& y = im.In(2);
  EGRET_ASSIGN_OR_RETURN(auto xy, BroadcastDims(x.type.dims, y.type.dims));
  EGRET_ASSIGN_OR_RETURN(auto dims, BroadcastDims(c.type.dims, xy));
  if (c.constant && x.constant && y.constant && x.type.dtype == y.type.dtype &&
      static_cast<size_t>(Product(dims, 0, dims.size())) <= kMaxFoldElements) {
    const std::vector<int64_t> ic = BroadcastSources(c.type.dims, dims);
    const std::vector<int64_t> ix = BroadcastSources(x.type.dims, dims);
    const std::vector<int64_t> iy = BroadcastSources(y.type.dims, dims);
    const TensorType type(x.type.dtype, dims);
    Tensor tx = TakeTensorElements(*x.constant, type, ix);
    Tensor ty = TakeTensorElements(*y.constant, type, iy);
    const size_t es = static_cast<size_t>(ElementSize(type.dtype));
    std::vector<uint8_t> bytes(static_cast<size_t>(type.byte_size()));
    for (size_t i = 0; i < ic.size(); ++i) {
      const Tensor& src = c.constant->GetValue(ic[i]) != 0 ? tx : ty;
      std::memcpy(&bytes[i * es], src.bytes().data() + i * es, es);
    }
    im.SetConst(im.Out(), *Tensor::FromBytes(tx.type(), std::move(bytes)));
    return absl::OkStatus();
  }
  std::vector<ValueRef> ins;
  const bool nhwc =
      dims.size() == 4 && (IsNhwcActivation(c) || IsNhwcActivation(x) || IsNhwcActivation(y));
  for (int i = 0; i < 3; ++i) {
    EGRET_ASSIGN_OR_RETURN(auto r,
                           nhwc ? im.BroadcastNhwc(im.InName(i)) : im.Get(im.InName(i), kPlain));
    ins.push_back(r);
  }
  EGRET_ASSIGN_OR_RETURN(auto r, im.Emit("ElementWiseSelect", std::move(ins), im.Out()));
  im.SetValue(im.Out(), r, nhwc ? kNhwc : kPlain);
  return absl::OkStatus();
}

}  // namespace

void RegisterLogicHandlers(HandlerTable& t) {
  for (const auto& [onnx_op, egret_op] : BinaryOps()) t[onnx_op] = DoCompare;
  t["Not"] = DoNot;
  t["Where"] = DoWhere;
}

}  // namespace egret::onnx_import
