// The type of a tensor value: element type, shape, and quantization encoding.
#ifndef EGRET_GRAPH_TENSOR_TYPE_H_
#define EGRET_GRAPH_TENSOR_TYPE_H_

#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "egret/graph/dtype.h"

namespace egret {

// The HTP supports tensors of rank up to 8.
inline constexpr int kMaxRank = 8;

using Dims = absl::InlinedVector<int64_t, 4>;

// dtype, dims (rank = dims.size()), and the quantization encoding: the real
// value of a stored integer q is stepsize * (q - zero_offset). Types that are
// not quantized have zero_offset 0 and stepsize 1.
struct TensorType {
  DType dtype = DType::kUnknown;
  Dims dims;
  int32_t zero_offset = 0;
  float stepsize = 1.0f;

  TensorType() = default;
  TensorType(DType t, Dims d, int32_t zero = 0, float step = 1.0f)
      : dtype(t), dims(std::move(d)), zero_offset(zero), stepsize(step) {}

  int rank() const { return static_cast<int>(dims.size()); }
  // Product of dims (1 for a scalar of rank 0).
  int64_t num_elements() const;
  // num_elements() * ElementSize(dtype).
  int64_t byte_size() const;
  // Dimension d, or 1 when d is past the rank (the HTP reads missing leading
  // dims of a rank-4 view as 1).
  int64_t dim(int d) const { return d >= 0 && d < rank() ? dims[d] : 1; }

  // Same dtype and, for quantized dtypes, the same zero_offset and stepsize.
  bool SameEncoding(const TensorType& other) const;

  // E.g. "QUInt8[1,224,224,3](z=128,s=0.0078125)" or "Float32[1,1000]".
  std::string ToString() const;

  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.dims == b.dims && a.zero_offset == b.zero_offset &&
           a.stepsize == b.stepsize;
  }
  friend bool operator!=(const TensorType& a, const TensorType& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const TensorType& t) {
    return H::combine(std::move(h), t.dtype, t.dims, t.zero_offset, t.stepsize);
  }
};

}  // namespace egret

#endif  // EGRET_GRAPH_TENSOR_TYPE_H_
