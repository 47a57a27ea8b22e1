#include "egret/graph/tensor_type.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace egret {

int64_t TensorType::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t TensorType::byte_size() const { return num_elements() * ElementSize(dtype); }

bool TensorType::SameEncoding(const TensorType& other) const {
  if (dtype != other.dtype) return false;
  if (!IsQuantized(dtype)) return true;
  return zero_offset == other.zero_offset && stepsize == other.stepsize;
}

std::string TensorType::ToString() const {
  std::string out = absl::StrCat(std::string(DTypeName(dtype)), "[", absl::StrJoin(dims, ","), "]");
  if (IsQuantized(dtype) || zero_offset != 0 || stepsize != 1.0f) {
    absl::StrAppend(&out, "(z=", zero_offset, ",s=", stepsize, ")");
  }
  return out;
}

}  // namespace egret
