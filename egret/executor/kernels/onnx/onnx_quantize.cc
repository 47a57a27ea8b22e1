// ONNX's quantization ops egret keeps opaque: QuantizeLinear,
// DequantizeLinear and DynamicQuantizeLinear, and the integer arithmetic the
// quantized ops share (onnx_quantize_internal.h).
//
// QuantizeLinear and DequantizeLinear take a scale (and an optional zero
// point of the same shape) per tensor (one element), per slice along `axis`
// (a 1-D tensor of x's dim there, opset 13 on), or per block of `block_size`
// elements along `axis` (opset 21: the scale has x's rank and
// ceil(dim / block_size) along the axis). The output's integer type is the
// declared one (the zero point's type, or uint8, or opset 21's output_dtype).
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_quantize_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {

absl::StatusOr<IntRange> OnnxIntRange(const KernelContext& c, const TensorType& type,
                                      std::string_view what) {
  switch (type.dtype) {
    case DType::kQUInt8:
    case DType::kQUInt4:
    case DType::kQInt8:
    case DType::kQInt4:
    case DType::kQUInt16:
    case DType::kQInt16:
    case DType::kQInt32:
      return IntRange{StorageMin(type.dtype), StorageMax(type.dtype)};
    case DType::kInt32:
      return IntRange{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default:
      return KernelError(
          c, absl::StrFormat("%s must have an integer type of 32 bits or fewer, not %s", what,
                             type.ToString()));
  }
}

std::vector<int32_t> StoredInts(const Tensor& t) {
  std::vector<int32_t> out(static_cast<size_t>(t.num_elements()));
  ForEachStored(t, [&](int64_t i, int32_t q) { out[i] = q; });
  return out;
}

namespace {
template <typename T>
void StoreAll(Tensor& t, absl::Span<const int32_t> q) {
  const absl::Span<uint8_t> bytes = t.mutable_bytes();
  for (size_t i = 0; i < q.size() && (i + 1) * sizeof(T) <= bytes.size(); ++i) {
    const T v = static_cast<T>(q[i]);
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
}
}  // namespace

Tensor MakeStoredTensor(const TensorType& type, absl::Span<const int32_t> q) {
  Tensor t(type);
  if (static_cast<int64_t>(q.size()) != t.num_elements()) return t;  // callers check counts
  switch (type.dtype) {
    case DType::kQUInt8:
    case DType::kQUInt4:
      StoreAll<uint8_t>(t, q);
      break;
    case DType::kQInt8:
    case DType::kQInt4:
      StoreAll<int8_t>(t, q);
      break;
    case DType::kQUInt16:
      StoreAll<uint16_t>(t, q);
      break;
    case DType::kQInt16:
      StoreAll<int16_t>(t, q);
      break;
    case DType::kQInt32:
    case DType::kInt32:
      StoreAll<int32_t>(t, q);
      break;
    default:
      for (size_t i = 0; i < q.size(); ++i) t.SetValue(static_cast<int64_t>(i), q[i]);
      break;
  }
  return t;
}

std::vector<float> ReadFloats(const Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.num_elements()));
  if (t.type().dtype == DType::kFloat32) {
    std::memcpy(out.data(), t.bytes().data(), out.size() * sizeof(float));
    return out;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<float>(t.GetReal(static_cast<int64_t>(i)));
  }
  return out;
}

namespace {
// saturate(round(v) + zero); NaN saturates to the low end, as ONNX Runtime's
// x86 kernels (MAXPS keeps the bound when the value is NaN).
int32_t RoundAndSaturate(float v, int32_t zero, IntRange r) {
  if (std::isnan(v)) return static_cast<int32_t>(r.lo);
  const double q = static_cast<double>(RoundHalfToEven(v)) + zero;
  return static_cast<int32_t>(std::clamp(q, static_cast<double>(r.lo), static_cast<double>(r.hi)));
}
}  // namespace

int32_t QuantizeValue(float x, float scale, int32_t zero, IntRange r) {
  return RoundAndSaturate(x / scale, zero, r);
}

int32_t Requantize(int32_t acc, float multiplier, int32_t zero, IntRange r) {
  return RoundAndSaturate(static_cast<float>(acc) * multiplier, zero, r);
}

absl::StatusOr<float> ScalarScale(const KernelContext& c, const Tensor* t, std::string_view what) {
  if (t == nullptr) return KernelError(c, absl::StrFormat("%s is required", what));
  if (!IsFloat(t->type().dtype) || t->num_elements() != 1) {
    return KernelError(c,
                       absl::StrFormat("%s must be one float, not %s", what, t->type().ToString()));
  }
  return ReadFloats(*t)[0];
}

absl::StatusOr<int32_t> ScalarZeroPoint(const KernelContext& c, const Tensor* t, DType want,
                                        std::string_view what) {
  if (t == nullptr) return 0;
  if (t->type().dtype != want || t->num_elements() != 1) {
    return KernelError(c, absl::StrFormat("%s must be one %s, not %s", what, DTypeName(want),
                                          t->type().ToString()));
  }
  return StoredInts(*t)[0];
}

namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// Which scale (and zero point) each element of x uses: x is viewed as
// [outer, axis_dim, inner]; per tensor everything uses entry 0, per axis
// entry a (the index along the axis), blocked entry
// (o * ceil(axis_dim / block) + a / block) * inner + i.
struct ParamLayout {
  bool per_tensor = true;
  int64_t axis_dim = 1, inner = 1, block = 0;

  int64_t Index(int64_t i) const {
    if (per_tensor) return 0;
    const int64_t a = (i / inner) % axis_dim;
    if (block == 0) return a;
    const int64_t o = i / (inner * axis_dim);
    const int64_t blocks = (axis_dim + block - 1) / block;
    return (o * blocks + a / block) * inner + i % inner;
  }
};

absl::StatusOr<ParamLayout> LayoutOf(const KernelContext& c, const Dims& x, const Tensor& scale,
                                     const Tensor* zero) {
  const OnnxArgs args(c);
  const Dims& s = scale.type().dims;
  if (!IsFloat(scale.type().dtype)) {
    return KernelError(c,
                       absl::StrFormat("the scale must be float, not %s", scale.type().ToString()));
  }
  if (zero != nullptr && zero->num_elements() != scale.num_elements()) {
    return KernelError(c, absl::StrFormat("the zero point %s does not match the scale %s",
                                          zero->type().ToString(), scale.type().ToString()));
  }
  ParamLayout p;
  const int64_t block = args.Int("block_size", 0);
  if (block < 0) return KernelError(c, absl::StrFormat("block_size %d is negative", block));
  if (block == 0 && scale.num_elements() == 1 && s.size() <= 1) return p;  // per tensor
  const int rank = static_cast<int>(x.size());
  EGRET_ASSIGN_OR_RETURN(const int axis, OnnxAxis(c, args.Int("axis", 1), rank));
  p.per_tensor = false;
  p.axis_dim = x[axis];
  for (int d = axis + 1; d < rank; ++d) p.inner *= x[d];
  if (block == 0) {
    if (s.size() != 1 || s[0] != x[axis]) {
      return KernelError(c, absl::StrFormat("a per-axis scale must be 1-D of x's dim %d along axis "
                                            "%d, not %s",
                                            x[axis], axis, scale.type().ToString()));
    }
    return p;
  }
  p.block = block;
  bool fits = static_cast<int>(s.size()) == rank;
  for (int d = 0; fits && d < rank; ++d) {
    fits = s[d] == (d == axis ? (x[d] + block - 1) / block : x[d]);
  }
  if (!fits) {
    return KernelError(
        c, absl::StrFormat("a scale of blocks of %d along axis %d must have x's dims "
                           "%s but ceil(dim / %d) along the axis, not %s",
                           block, axis, TensorType(DType::kFloat32, x).ToString(), block,
                           scale.type().ToString()));
  }
  return p;
}

// y = saturate(round(x / y_scale) + y_zero_point).
Result QuantizeLinear(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* x, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* scale, args.Required(1));
  const Tensor* zero = args.Input(2);
  const TensorType& yt = c.outputs[0];
  EGRET_ASSIGN_OR_RETURN(const IntRange range, OnnxIntRange(c, yt, "output y"));
  if (zero != nullptr && zero->type().dtype != yt.dtype) {
    return KernelError(c, absl::StrFormat("y_zero_point %s does not have the output's type %s",
                                          zero->type().ToString(), DTypeName(yt.dtype)));
  }
  EGRET_ASSIGN_OR_RETURN(const ParamLayout layout, LayoutOf(c, x->type().dims, *scale, zero));
  EGRET_RETURN_IF_ERROR(CheckOutputCount(c, 0, x->num_elements()));
  const std::vector<double> xs = ReadReals(*x);  // float32, float16 or int32: exact
  const std::vector<float> scales = ReadFloats(*scale);
  const std::vector<int32_t> zeros =
      zero != nullptr ? StoredInts(*zero) : std::vector<int32_t>(scales.size(), 0);
  std::vector<int32_t> q(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const int64_t p = layout.Index(static_cast<int64_t>(i));
    q[i] = QuantizeValue(static_cast<float>(xs[i]), scales[p], zeros[p], range);
  }
  std::vector<Tensor> out;
  out.push_back(MakeStoredTensor(yt, q));
  return out;
}

// y = (x - x_zero_point) * x_scale, in float32.
Result DequantizeLinear(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* x, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* scale, args.Required(1));
  const Tensor* zero = args.Input(2);
  EGRET_RETURN_IF_ERROR(OnnxIntRange(c, x->type(), "input x").status());
  if (zero != nullptr && zero->type().dtype != x->type().dtype) {
    return KernelError(c, absl::StrFormat("x_zero_point %s does not have x's type %s",
                                          zero->type().ToString(), DTypeName(x->type().dtype)));
  }
  if (!IsFloat(c.outputs[0].dtype)) {
    return KernelError(c,
                       absl::StrFormat("output y must be float, not %s", c.outputs[0].ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(const ParamLayout layout, LayoutOf(c, x->type().dims, *scale, zero));
  EGRET_RETURN_IF_ERROR(CheckOutputCount(c, 0, x->num_elements()));
  const std::vector<float> scales = ReadFloats(*scale);
  const std::vector<int32_t> zeros =
      zero != nullptr ? StoredInts(*zero) : std::vector<int32_t>(scales.size(), 0);
  std::vector<double> y(static_cast<size_t>(x->num_elements()));
  ForEachStored(*x, [&](int64_t i, int32_t q) {
    const int64_t p = layout.Index(i);
    const auto centered = static_cast<float>(static_cast<int64_t>(q) - zeros[p]);
    y[i] = centered * scales[p];  // a float32 product
  });
  std::vector<Tensor> out;
  out.push_back(MakeTensor(c.outputs[0], y));
  return out;
}

// The spec's uint8 DynamicQuantizeLinear:
//   y_scale = (max(0, max(x)) - min(0, min(x))) / 255
//   y_zero_point = saturate(round(0 - min(0, min(x)) / y_scale))
//   y = saturate(round(x / y_scale) + y_zero_point)
// in float32, rounding halves to even. An x of zeros only (or no elements)
// has no range: its scale is 1 and its zero point 0, as ONNX Runtime does
// (the formula would divide by zero).
Result DynamicQuantizeLinear(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const Tensor& x = c.In(0);
  if (!IsFloat(x.type().dtype)) {
    return KernelError(c, absl::StrFormat("x must be float, not %s", x.type().ToString()));
  }
  const TensorType& yt = c.outputs[0];
  if (yt.dtype != DType::kQUInt8) {
    return KernelError(c, absl::StrFormat("output y must be uint8, not %s", yt.ToString()));
  }
  EGRET_RETURN_IF_ERROR(CheckOutputCount(c, 0, x.num_elements()));
  const IntRange range{0, 255};
  const FloatsIn xs(x);
  const FloatRange r = RangeWithZero(xs.span());  // the range always includes 0
  const float lo = r.lo, hi = r.hi;
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float initial_zero = 0.0f - lo / scale;
  const auto zero = static_cast<int32_t>(RoundHalfToEven(std::clamp(initial_zero, 0.0f, 255.0f)));
  std::vector<Tensor> out;
  if (!r.has_nan && std::isfinite(scale) && scale > 0.0f) {
    // QuantizeValue is QuantizeFloats' rounding (Tensor::SetReal's) for
    // every quotient but NaN (to the range's low end here, to the zero point
    // there), which a NaN x, or a zero or infinite scale, would give.
    Tensor y(TensorType(DType::kQUInt8, yt.dims, zero, scale));
    QuantizeFloats(xs.span(), y);
    y.Retype(yt);
    out.push_back(std::move(y));
  } else {
    std::vector<int32_t> q(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) q[i] = QuantizeValue(xs.data()[i], scale, zero, range);
    out.push_back(MakeStoredTensor(yt, q));
  }
  if (c.outputs.size() > 1) {
    EGRET_RETURN_IF_ERROR(CheckOutputCount(c, 1, 1));
    out.push_back(MakeTensor(c.outputs[1], {static_cast<double>(scale)}));
  }
  if (c.outputs.size() > 2) {
    EGRET_RETURN_IF_ERROR(CheckOutputCount(c, 2, 1));
    const int32_t z[] = {zero};
    out.push_back(MakeStoredTensor(c.outputs[2], z));
  }
  return out;
}

}  // namespace

void RegisterOnnxQuantizeKernels(KernelTable& t) {
  t.emplace("onnx.QuantizeLinear", QuantizeLinear);
  t.emplace("onnx.DequantizeLinear", DequantizeLinear);
  t.emplace("onnx.DynamicQuantizeLinear", DynamicQuantizeLinear);
  RegisterOnnxQuantizedOpKernels(t);
  RegisterOnnxQLinearContribKernels(t);
}

}  // namespace egret::backend_internal
