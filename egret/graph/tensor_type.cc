#include "egret/graph/tensor_type.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/graph/checked_math.h"

namespace egret {

std::string_view ValueKindName(ValueKind k) {
  switch (k) {
    case ValueKind::kTensor:
      return "Tensor";
    case ValueKind::kSequence:
      return "Sequence";
    case ValueKind::kOptionalTensor:
      return "OptionalTensor";
    case ValueKind::kOptionalSequence:
      return "OptionalSequence";
  }
  return "Tensor";
}

std::optional<ValueKind> ParseValueKind(std::string_view name) {
  for (ValueKind k : {ValueKind::kTensor, ValueKind::kSequence, ValueKind::kOptionalTensor,
                      ValueKind::kOptionalSequence}) {
    if (ValueKindName(k) == name) return k;
  }
  return std::nullopt;
}

TensorType TensorType::Container(ValueKind kind, DType element) {
  TensorType t;
  t.dtype = element;
  t.kind = kind;
  return t;
}

int64_t TensorType::num_elements() const { return is_tensor() ? SaturatingProduct(dims) : 0; }

int64_t TensorType::byte_size() const { return SaturatingMul(num_elements(), ElementSize(dtype)); }

absl::Status TensorType::SetPerAxis(int axis, std::vector<float> stepsizes,
                                    std::vector<int32_t> zero_offsets) {
  if (!IsQuantized(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "per-axis quantization needs a quantized dtype, not ", std::string(DTypeName(dtype))));
  }
  if (axis < 0 || axis >= rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("quantization axis ", axis, " is out of range for rank ", rank()));
  }
  if (stepsizes.size() != zero_offsets.size() ||
      static_cast<int64_t>(stepsizes.size()) != dims[axis]) {
    return absl::InvalidArgumentError(absl::StrCat("per-axis quantization along axis ", axis,
                                                   " of [", absl::StrJoin(dims, ","), "] needs ",
                                                   dims[axis], " stepsizes and zero offsets, got ",
                                                   stepsizes.size(), " and ", zero_offsets.size()));
  }
  if (stepsizes.empty()) {
    return absl::InvalidArgumentError("per-axis quantization of an empty axis");
  }
  for (float s : stepsizes) {
    if (!(s > 0.0f) || !std::isfinite(s)) {
      return absl::InvalidArgumentError(
          absl::StrCat("stepsize ", s, " is not positive and finite"));
    }
  }
  for (int32_t z : zero_offsets) {
    if (z < StorageMin(dtype) || z > StorageMax(dtype)) {
      return absl::InvalidArgumentError(
          absl::StrCat("zero offset ", z, " does not fit ", std::string(DTypeName(dtype))));
    }
  }
  auto q = std::make_shared<AxisQuantization>();
  q->axis = axis;
  q->stepsizes = std::move(stepsizes);
  q->zero_offsets = std::move(zero_offsets);
  stepsize = *std::max_element(q->stepsizes.begin(), q->stepsizes.end());
  zero_offset = q->zero_offsets[0];
  per_axis = std::move(q);
  return absl::OkStatus();
}

void TensorType::ClearQuantization() {
  per_axis.reset();
  zero_offset = 0;
  stepsize = 1.0f;
}

int64_t TensorType::ChannelOf(int64_t i) const {
  if (!per_axis) return 0;
  int64_t inner = 1;
  for (int d = per_axis->axis + 1; d < rank(); ++d) inner = SaturatingMul(inner, dims[d]);
  return (i / inner) % dims[per_axis->axis];
}

TensorType TensorType::Permuted(const std::vector<int>& perm) const {
  TensorType t = *this;
  for (size_t d = 0; d < perm.size() && d < dims.size(); ++d) t.dims[d] = dims[perm[d]];
  if (per_axis) {
    const int axis = per_axis->axis;
    const int at = static_cast<int>(std::find(perm.begin(), perm.end(), axis) - perm.begin());
    if (at != axis) {
      auto q = std::make_shared<AxisQuantization>(*per_axis);
      q->axis = at;
      t.per_axis = std::move(q);
    }
  }
  return t;
}

bool TensorType::SamePerAxis(const TensorType& a, const TensorType& b) {
  if (a.per_axis == b.per_axis) return true;
  if (!a.per_axis || !b.per_axis) return false;
  return a.per_axis->axis == b.per_axis->axis && a.per_axis->stepsizes == b.per_axis->stepsizes &&
         a.per_axis->zero_offsets == b.per_axis->zero_offsets;
}

bool TensorType::SameEncoding(const TensorType& other) const {
  if (dtype != other.dtype) return false;
  if (!IsQuantized(dtype)) return true;
  return zero_offset == other.zero_offset && stepsize == other.stepsize &&
         SamePerAxis(*this, other);
}

std::string TensorType::ToString() const {
  const std::string element(DTypeName(dtype));
  switch (kind) {
    case ValueKind::kTensor:
      break;
    case ValueKind::kSequence:
      return absl::StrCat("Sequence<", element, ">");
    case ValueKind::kOptionalTensor:
      return absl::StrCat("Optional<", element, ">");
    case ValueKind::kOptionalSequence:
      return absl::StrCat("Optional<Sequence<", element, ">>");
  }
  std::string out = absl::StrCat(std::string(DTypeName(dtype)), "[", absl::StrJoin(dims, ","), "]");
  if (per_axis) {
    absl::StrAppend(&out, "(axis=", per_axis->axis, ",z=", zero_offset,
                    std::all_of(per_axis->zero_offsets.begin(), per_axis->zero_offsets.end(),
                                [&](int32_t z) { return z == zero_offset; })
                        ? ""
                        : "..",
                    ",s<=", stepsize, ")");
  } else if (IsQuantized(dtype) || zero_offset != 0 || stepsize != 1.0f) {
    absl::StrAppend(&out, "(z=", zero_offset, ",s=", stepsize, ")");
  }
  return out;
}

}  // namespace egret
