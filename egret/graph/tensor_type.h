// The type of a tensor value: element type, shape, and quantization encoding.
#ifndef EGRET_GRAPH_TENSOR_TYPE_H_
#define EGRET_GRAPH_TENSOR_TYPE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "egret/graph/dtype.h"

namespace egret {

// The HTP supports tensors of rank up to 8.
inline constexpr int kMaxRank = 8;

using Dims = absl::InlinedVector<int64_t, 4>;

// Per-axis (per-channel) quantization: the elements whose index along `axis`
// is c have encoding (zero_offsets[c], stepsizes[c]). What PyTorch and ONNX
// Runtime write for the weights of convolutions and matrix products, and for
// their Int32 biases. Immutable and shared between the types that carry it.
struct AxisQuantization {
  int axis = 0;
  std::vector<float> stepsizes;       // > 0 and finite, one per channel
  std::vector<int32_t> zero_offsets;  // as many as stepsizes
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
struct TensorType {
  DType dtype = DType::kUnknown;
  Dims dims;
  int32_t zero_offset = 0;
  float stepsize = 1.0f;
  std::shared_ptr<const AxisQuantization> per_axis;  // null: one encoding for all

  TensorType() = default;
  TensorType(DType t, Dims d, int32_t zero = 0, float step = 1.0f)
      : dtype(t), dims(std::move(d)), zero_offset(zero), stepsize(step) {}

  int rank() const { return static_cast<int>(dims.size()); }
  // Product of dims (1 for a scalar of rank 0, 0 when a dim is 0), saturated
  // at INT64_MAX: readers and shape inference keep it at most kMaxElements
  // (egret/graph/checked_math.h), so saturation only shows on a type built
  // by hand and never validated.
  int64_t num_elements() const;
  // num_elements() * ElementSize(dtype), saturated like num_elements().
  int64_t byte_size() const;
  // Dimension d, or 1 when d is past the rank (the HTP reads missing leading
  // dims of a rank-4 view as 1).
  int64_t dim(int d) const { return d >= 0 && d < rank() ? dims[d] : 1; }

  // Sets a per-axis encoding (and the summary fields). Fails, leaving the
  // type unchanged, unless the dtype is quantized, `axis` is in [0, rank),
  // dims[axis] == stepsizes.size() == zero_offsets.size(), every stepsize is
  // positive and finite and every zero offset fits the dtype's storage.
  absl::Status SetPerAxis(int axis, std::vector<float> stepsizes,
                          std::vector<int32_t> zero_offsets);
  // Drops a per-axis encoding, keeping dtype and dims (encoding z=0, s=1).
  void ClearQuantization();
  // For a per-axis type, the channel of row-major element `i`; 0 otherwise.
  int64_t ChannelOf(int64_t i) const;
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
  // axis, "QInt8[3,3,16,32](axis=3,z=0,s<=0.02)".
  std::string ToString() const;

  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.dims == b.dims && a.zero_offset == b.zero_offset &&
           a.stepsize == b.stepsize && SamePerAxis(a, b);
  }
  friend bool operator!=(const TensorType& a, const TensorType& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const TensorType& t) {
    h = H::combine(std::move(h), t.dtype, t.dims, t.zero_offset, t.stepsize, t.per_axis != nullptr);
    if (t.per_axis) h = H::combine(std::move(h), t.per_axis->axis, t.per_axis->zero_offsets);
    return h;
  }

 private:
  static bool SamePerAxis(const TensorType& a, const TensorType& b);
};

}  // namespace egret

#endif  // EGRET_GRAPH_TENSOR_TYPE_H_
