// The type of a value: a tensor (element type, shape, quantization encoding),
// or, for ONNX's sequence and optional values, a container of tensors
// (ValueKind).
#ifndef EGRET_GRAPH_TENSOR_TYPE_H_
#define EGRET_GRAPH_TENSOR_TYPE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "egret/graph/dtype.h"

namespace egret {

// The HTP supports tensors of rank up to 8.
inline constexpr int kMaxRank = 8;

using Dims = absl::InlinedVector<int64_t, 4>;

// What a value is. Almost every value is a tensor. ONNX models may also
// carry sequences (an ordered list of tensors of one element type, each with
// its own shape) and optionals (a tensor or a sequence, or nothing); egret
// keeps the ops that make and read them opaque ("onnx.Sequence*",
// "onnx.Optional*") and only the reference executor looks inside. A
// container type records its element dtype alone: element shapes are known
// only at run time, so its dims are empty and its num_elements() and
// byte_size() are 0 (the values' memory is not counted).
enum class ValueKind : uint8_t {
  kTensor = 0,
  kSequence = 1,          // a sequence of tensors of `dtype`
  kOptionalTensor = 2,    // an optional tensor of `dtype`
  kOptionalSequence = 3,  // an optional sequence of tensors of `dtype`
};
// "Tensor", "Sequence", "OptionalTensor", "OptionalSequence".
std::string_view ValueKindName(ValueKind k);
// Inverse of ValueKindName; nullopt for an unknown name.
std::optional<ValueKind> ParseValueKind(std::string_view name);

// Per-axis (per-channel) quantization: the elements whose index along `axis`
// is c have encoding (zero_offsets[c], stepsizes[c]). What PyTorch and ONNX
// Runtime write for the weights of convolutions and matrix products, and for
// their Int32 biases. Immutable and shared between the types that carry it.
//
// Blocked quantization (block_size > 0: ONNX opset 21's blocked
// DequantizeLinear, ONNX Runtime's MatMulNBits, the HTP's block-wise weight
// encoding) cuts `axis` into blocks of block_size elements (the last block
// may be shorter) and gives each block of each slice its own pair: the
// arrays are then laid out, row-major, over the block grid, the tensor's
// dims with dims[axis] replaced by ceil(dims[axis] / block_size).
struct AxisQuantization {
  int axis = 0;
  std::vector<float> stepsizes;       // > 0 and finite, one per channel (or block)
  std::vector<int32_t> zero_offsets;  // as many as stepsizes
  int64_t block_size = 0;             // 0: per channel; else blocks along axis
};

// dtype, dims (rank = dims.size()), and the quantization encoding: the real
// value of a stored integer q is stepsize * (q - zero_offset). Types that are
// not quantized have zero_offset 0 and stepsize 1.
//
// A per-axis encoding (`per_axis` set, quantized dtypes only) gives each
// channel along per_axis->axis its own pair; zero_offset and stepsize then
// summarize it for the rule language (STEPSIZE_OF, ZERO_OFFSET_OF): the
// largest stepsize and the zero offset of channel 0. Code that converts
// between stored and real values must use StepsizeAt/ZeroOffsetAt (Tensor
// does), never the summary.
//
// A container type (kind other than kTensor) has the element dtype, no dims
// and the plain encoding; see ValueKind.
struct TensorType {
  DType dtype = DType::kUnknown;
  Dims dims;
  int32_t zero_offset = 0;
  float stepsize = 1.0f;
  std::shared_ptr<const AxisQuantization> per_axis;  // null: one encoding for all
  ValueKind kind = ValueKind::kTensor;

  TensorType() = default;
  TensorType(DType t, Dims d, int32_t zero = 0, float step = 1.0f)
      : dtype(t), dims(std::move(d)), zero_offset(zero), stepsize(step) {}
  // The container type of `kind` (not kTensor) over elements of `element`.
  static TensorType Container(ValueKind kind, DType element);

  bool is_tensor() const { return kind == ValueKind::kTensor; }
  bool is_sequence() const { return kind == ValueKind::kSequence; }
  bool is_optional() const {
    return kind == ValueKind::kOptionalTensor || kind == ValueKind::kOptionalSequence;
  }

  int rank() const { return static_cast<int>(dims.size()); }
  // Product of dims (1 for a scalar of rank 0, 0 when a dim is 0; 0 for a
  // container), saturated
  // at INT64_MAX: readers and shape inference keep it at most kMaxElements
  // (egret/graph/checked_math.h), so saturation only shows on a type built
  // by hand and never validated.
  int64_t num_elements() const;
  // num_elements() * ElementSize(dtype), saturated like num_elements().
  int64_t byte_size() const;
  // The bytes a device or a file stores the elements in: byte_size(), except
  // that 4-bit types take two elements to a byte (rounded up).
  int64_t stored_byte_size() const;
  // Dimension d, or 1 when d is past the rank (the HTP reads missing leading
  // dims of a rank-4 view as 1).
  int64_t dim(int d) const { return d >= 0 && d < rank() ? dims[d] : 1; }

  // Sets a per-axis encoding (and the summary fields). Fails, leaving the
  // type unchanged, unless the dtype is quantized, `axis` is in [0, rank),
  // dims[axis] == stepsizes.size() == zero_offsets.size(), every stepsize is
  // positive and finite and every zero offset fits the dtype's storage.
  // With block_size > 0, a blocked encoding: one pair per element of the
  // block grid (see AxisQuantization), block_size <= dims[axis].
  absl::Status SetPerAxis(int axis, std::vector<float> stepsizes, std::vector<int32_t> zero_offsets,
                          int64_t block_size = 0);
  // A blocked encoding (per_axis->block_size > 0).
  bool blocked() const { return per_axis && per_axis->block_size > 0; }
  // Drops a per-axis encoding, keeping dtype and dims (encoding z=0, s=1).
  void ClearQuantization();
  // For a per-axis type, the channel of row-major element `i` (for a blocked
  // one, its index in the block grid); 0 otherwise.
  int64_t ChannelOf(int64_t i) const;
  // The dims of the block grid (the dims themselves unless blocked).
  std::vector<int64_t> BlockGridDims() const;
  float StepsizeAt(int64_t channel) const {
    return per_axis ? per_axis->stepsizes[channel] : stepsize;
  }
  int32_t ZeroOffsetAt(int64_t channel) const {
    return per_axis ? per_axis->zero_offsets[channel] : zero_offset;
  }
  // The same type with its dims permuted (out dim d = this dim perm[d]); a
  // per-axis encoding follows its axis.
  TensorType Permuted(const std::vector<int>& perm) const;

  // Same dtype and, for quantized dtypes, the same encoding (per-tensor or
  // per-axis, channel for channel).
  bool SameEncoding(const TensorType& other) const;

  // E.g. "QUInt8[1,224,224,3](z=128,s=0.0078125)", "Float32[1,1000]" or, per
  // axis, "QInt8[3,3,16,32](axis=3,z=0,s<=0.02)"; containers
  // "Sequence<Float32>", "Optional<Int64>", "Optional<Sequence<Float32>>".
  std::string ToString() const;

  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.kind == b.kind && a.dtype == b.dtype && a.dims == b.dims &&
           a.zero_offset == b.zero_offset && a.stepsize == b.stepsize && SamePerAxis(a, b);
  }
  friend bool operator!=(const TensorType& a, const TensorType& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const TensorType& t) {
    h = H::combine(std::move(h), t.kind, t.dtype, t.dims, t.zero_offset, t.stepsize,
                   t.per_axis != nullptr);
    if (t.per_axis) {
      h = H::combine(std::move(h), t.per_axis->axis, t.per_axis->zero_offsets,
                     t.per_axis->block_size);
    }
    return h;
  }

 private:
  static bool SamePerAxis(const TensorType& a, const TensorType& b);
};

}  // namespace egret

#endif  // EGRET_GRAPH_TENSOR_TYPE_H_
