// Tensor data: a TensorType and its elements, stored in the dtype's own
// representation (quantized types hold their integer storage values). Used for
// "$Const"/"$Shape" nodes, executor values and test inputs.
#ifndef EGRET_GRAPH_TENSOR_H_
#define EGRET_GRAPH_TENSOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/tensor_type.h"

namespace egret {

class Tensor {
 public:
  // Zero-filled tensor of `type`. The dtype must be concrete.
  explicit Tensor(TensorType type);
  // Takes `bytes` as the raw little-endian element data; fails when its size is
  // not type.byte_size() or the dtype is not concrete.
  static absl::StatusOr<Tensor> FromBytes(TensorType type, std::vector<uint8_t> bytes);
  // Stores each value converted to the dtype (rounded and saturated for
  // integer and quantized types: these are storage values, not real values).
  static Tensor FromValues(TensorType type, absl::Span<const double> values);

  const TensorType& type() const { return type_; }
  int64_t num_elements() const { return type_.num_elements(); }
  absl::Span<const uint8_t> bytes() const { return bytes_; }
  // The element bytes, for a producer that fills them in place (the
  // executor's kernels).
  absl::Span<uint8_t> mutable_bytes() { return absl::MakeSpan(bytes_); }

  // Gives the same bytes a new type of the same byte size (a reshape keeps
  // dtype and encoding; a kernel reusing an input's storage may change
  // them). False, and nothing changed, when the byte sizes differ or the
  // dtype is not concrete.
  bool Retype(TensorType type);

  // Storage value of element i (for quantized types, the integer q).
  double GetValue(int64_t i) const;
  // Real value of element i: stepsize * (q - zero_offset) for quantized types.
  double GetReal(int64_t i) const;
  // Stores v converted to the dtype (rounded and saturated).
  void SetValue(int64_t i, double v);
  // Stores the quantization of real value r (for non-quantized types, r):
  // QuantizeReal with element i's encoding, saturated.
  void SetReal(int64_t i, double r);

  friend bool operator==(const Tensor& a, const Tensor& b) {
    return a.type_ == b.type_ && a.bytes_ == b.bytes_;
  }

 private:
  TensorType type_;
  std::vector<uint8_t> bytes_;
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

}  // namespace egret

#endif  // EGRET_GRAPH_TENSOR_H_
