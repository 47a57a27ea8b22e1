// Private to the ONNX kernels: the integer arithmetic that ONNX's quantized
// ops (onnx_quantize.cc, onnx_quantized_ops.cc) share.
//
// These ops are defined on the stored integers, not on egret's real values:
// the importer types ONNX's uint8 / int8 / uint16 / int16 as QUInt8 / QInt8 /
// QUInt16 / QInt16 with the plain encoding and int32 as Int32, so a kernel
// reads the raw storage (never ReadReals, which would apply a stepsize) and
// writes raw storage. Scales are float32 and the arithmetic is float32, as
// ONNX Runtime's CPU kernels do it, so that results match it bit for bit:
// x / scale is a float32 division, rounded half to even, and saturated.
#ifndef EGRET_EXECUTOR_KERNELS_ONNX_ONNX_QUANTIZE_INTERNAL_H_
#define EGRET_EXECUTOR_KERNELS_ONNX_ONNX_QUANTIZE_INTERNAL_H_

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"

namespace egret::backend_internal {

// The closed range of an integer element type (uint8 -> [0, 255], ...).
struct IntRange {
  int64_t lo;
  int64_t hi;
};

// The range of `type` when it is one of the integer types these ops produce
// (QUInt8, QInt8, QUInt16, QInt16, QInt32, Int32), else an error naming the
// op and `what`.
absl::StatusOr<IntRange> OnnxIntRange(const KernelContext& c, const TensorType& type,
                                      std::string_view what);

// Whether `t` is ONNX's uint8 or int8 (QUInt8 or QInt8).
inline bool Is8Bit(DType t) { return t == DType::kQUInt8 || t == DType::kQInt8; }

// Calls f(i, q) for every element i of `t` in order, q being its stored
// integer. `t` must be QUInt8, QInt8, QUInt16, QInt16, QInt32, Int32 or Bool
// (other dtypes call nothing; OnnxIntRange rejects them first).
template <typename F>
void ForEachStored(const Tensor& t, F f) {
  const uint8_t* p = t.bytes().data();
  const int64_t n = t.num_elements();
  auto each = [&]<typename T>(T) {
    for (int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
      f(i, static_cast<int32_t>(v));
    }
  };
  switch (t.type().dtype) {
    case DType::kQUInt8:
    case DType::kQUInt4:
    case DType::kBool:
      each(uint8_t{});
      break;
    case DType::kQInt8:
    case DType::kQInt4:
      each(int8_t{});
      break;
    case DType::kQUInt16:
      each(uint16_t{});
      break;
    case DType::kQInt16:
      each(int16_t{});
      break;
    case DType::kQInt32:
    case DType::kInt32:
      each(int32_t{});
      break;
    default:
      break;
  }
}

// The stored integers of `t` (see ForEachStored).
std::vector<int32_t> StoredInts(const Tensor& t);

// A tensor of `type` (an integer type, see OnnxIntRange) storing `q`, whose
// values must lie in the type's range.
Tensor MakeStoredTensor(const TensorType& type, absl::Span<const int32_t> q);

// The float32 values of a float tensor (Float32 or Float16), exactly.
std::vector<float> ReadFloats(const Tensor& t);

// (RoundHalfToEven, the rounding these ops share, is egret/graph/tensor.h's.)

// ONNX's QuantizeLinear of one value: saturate(round(x / scale) + zero), the
// division in float32, halves to even; NaN gives `zero`.
int32_t QuantizeValue(float x, float scale, int32_t zero, IntRange r);

// The requantization of an integer accumulator (QLinearConv, QLinearMatMul):
// saturate(round(float(acc) * multiplier) + zero), in float32.
int32_t Requantize(int32_t acc, float multiplier, int32_t zero, IntRange r);

// The one float32 value of a scale input that must be a scalar (rank 0 or one
// element), else an error naming the op and `what`.
absl::StatusOr<float> ScalarScale(const KernelContext& c, const Tensor* t, std::string_view what);

// The one stored integer of an optional zero-point input (0 when absent);
// an error unless it holds one element of dtype `want`.
absl::StatusOr<int32_t> ScalarZeroPoint(const KernelContext& c, const Tensor* t, DType want,
                                        std::string_view what);

// Advances the row-major multi-index `idx` within `dims` (wrapping to all
// zeros after the last position).
inline void Increment(std::vector<int64_t>& idx, absl::Span<const int64_t> dims) {
  for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return;
    idx[d] = 0;
  }
}

// Registration of the families RegisterOnnxQuantizeKernels includes.
void RegisterOnnxQuantizedOpKernels(KernelTable& t);     // ConvInteger .. QLinearMatMul
void RegisterOnnxQLinearContribKernels(KernelTable& t);  // com.microsoft QLinear*

}  // namespace egret::backend_internal

#endif  // EGRET_EXECUTOR_KERNELS_ONNX_ONNX_QUANTIZE_INTERNAL_H_
