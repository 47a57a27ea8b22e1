// Tensor data: a TensorType and its elements, stored in the dtype's own
// representation (quantized types hold their integer storage values). Used for
// "$Const"/"$Shape" nodes, executor values and test inputs.
//
// A Tensor whose type is a container (TensorType::kind: an ONNX sequence or
// optional, executor values only) holds no bytes; its elements() are the
// sequence's tensors, or the optional's one value (none when empty). They
// are values like any other: copying the container copies them.
//
// A String tensor (ONNX's STRING elements) holds no bytes either: its
// strings() are its elements, in row-major order. The numeric accessors
// (GetValue, SetValue, ...) read 0 and store nothing for it.
#ifndef EGRET_GRAPH_TENSOR_H_
#define EGRET_GRAPH_TENSOR_H_

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/tensor_type.h"

namespace egret {
namespace tensor_internal {

// std::allocator, except that an element made without a value is left
// uninitialized (default-initialized) rather than zeroed: the storage of a
// tensor whose producer writes every byte (Tensor::Uninitialized) is not
// filled twice.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace tensor_internal

class Tensor {
 public:
  // Zero-filled tensor of `type`, or for a container type an empty sequence
  // or optional. The dtype must be concrete.
  explicit Tensor(TensorType type);
  // The container of `type` (kind not kTensor) holding `elements`: for a
  // sequence, tensors of dtype type.dtype (each of any dims); for an optional
  // tensor, at most one such tensor; for an optional sequence, at most one
  // sequence of that dtype. kInvalidArgument otherwise.
  static absl::StatusOr<Tensor> Container(TensorType type, std::vector<Tensor> elements);
  // The String tensor of `type` (a tensor type of dtype String) holding
  // `strings`, one per element. kInvalidArgument otherwise.
  static absl::StatusOr<Tensor> FromStrings(TensorType type, std::vector<std::string> strings);
  // A tensor of `type` whose bytes are unspecified, for a producer that
  // writes every one of them before anything reads them (the executor's
  // kernels: an output filled with zeros and then overwritten costs a pass
  // over memory per node). The dtype must be concrete.
  static Tensor Uninitialized(TensorType type);
  // A copy of `bytes` as the raw little-endian element data; fails when its
  // size is not type.byte_size(), the dtype is not concrete, or a byte of a
  // 4-bit tensor (one element per byte) is outside its range.
  static absl::StatusOr<Tensor> FromBytes(TensorType type, absl::Span<const uint8_t> bytes);
  // Copies are one memcpy (a vector with a custom allocator would copy byte
  // by byte through it).
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  // Stores each value converted to the dtype (rounded and saturated for
  // integer and quantized types: these are storage values, not real values).
  static Tensor FromValues(TensorType type, absl::Span<const double> values);

  const TensorType& type() const { return type_; }
  int64_t num_elements() const { return type_.num_elements(); }
  // A container's elements (see Container); empty for a tensor.
  const std::vector<Tensor>& elements() const { return elements_; }
  // A String tensor's elements (see FromStrings); empty for other dtypes.
  const std::vector<std::string>& strings() const { return strings_; }
  absl::Span<const uint8_t> bytes() const { return bytes_; }
  // The element bytes, for a producer that fills them in place (the
  // executor's kernels).
  absl::Span<uint8_t> mutable_bytes() { return absl::MakeSpan(bytes_); }

  // Gives the same bytes a new type of the same byte size (a reshape keeps
  // dtype and encoding; a kernel reusing an input's storage may change
  // them). False, and nothing changed, when the byte sizes differ or the
  // dtype is not concrete, or either type is a container. A String tensor
  // takes other dims of the same element count (a String type only).
  bool Retype(TensorType type);

  // Storage value of element i (for quantized types, the integer q). Exact
  // for every dtype except Int64/UInt64 beyond 2^53 in magnitude, which round
  // to the nearest double: kernels that only move or compare elements read
  // their stored bytes instead.
  double GetValue(int64_t i) const;
  // Real value of element i: stepsize * (q - zero_offset) for quantized types.
  double GetReal(int64_t i) const;
  // Stores v converted to the dtype (rounded and saturated; Float64 exactly,
  // Float32 rounded once, Float16 and BFloat16 rounded to float first, then
  // to the 16-bit format with halves to even).
  void SetValue(int64_t i, double v);
  // Stores the quantization of real value r (for non-quantized types, r):
  // QuantizeReal with element i's encoding, saturated.
  void SetReal(int64_t i, double r);

  friend bool operator==(const Tensor& a, const Tensor& b) {
    return a.type_ == b.type_ && a.bytes_ == b.bytes_ && a.elements_ == b.elements_ &&
           a.strings_ == b.strings_;
  }

 private:
  TensorType type_;
  std::vector<uint8_t, tensor_internal::DefaultInitAllocator<uint8_t>> bytes_;
  std::vector<Tensor> elements_;      // a container's elements
  std::vector<std::string> strings_;  // a String tensor's elements
};

// Constant data is immutable and shared: a graph copy, an e-graph class and an
// extracted graph all point at the same bytes.
using ConstTensorPtr = std::shared_ptr<const Tensor>;

// Rounds to the nearest integer, halves to the even one, whatever the
// floating-point environment's rounding mode (ONNX's rounding).
float RoundHalfToEven(float x);

// The unsaturated stored value of real `r` in encoding (stepsize,
// zero_offset), as ONNX's QuantizeLinear computes it: r / stepsize in
// float32, rounded to the nearest integer with halves to even, plus
// zero_offset. NaN gives zero_offset.
double QuantizeReal(double r, float stepsize, int32_t zero_offset);

// IEEE half-precision conversions (round to nearest even).
uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);

// bfloat16 conversions: the upper 16 bits of a float32, rounded to nearest
// even as ONNX rounds (onnx.helper's float32_to_bfloat16: add 0x7fff plus
// the lowest kept bit, then truncate); NaN gives the quiet NaN 0x7fc0 (with
// the sign), infinities stay infinite. Widening is exact.
uint16_t FloatToBFloat16(float f);
float BFloat16ToFloat(uint16_t b);

}  // namespace egret

#endif  // EGRET_GRAPH_TENSOR_H_
