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

int64_t TensorType::stored_byte_size() const {
  if (StorageBits(dtype) != 4) return byte_size();
  return num_elements() / 2 + num_elements() % 2;
}

absl::Status TensorType::SetPerAxis(int axis, std::vector<float> stepsizes,
                                    std::vector<int32_t> zero_offsets, int64_t block_size) {
  if (!IsQuantized(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "per-axis quantization needs a quantized dtype, not ", std::string(DTypeName(dtype))));
  }
  if (axis < 0 || axis >= rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("quantization axis ", axis, " is out of range for rank ", rank()));
  }
  if (block_size < 0 || (block_size > 0 && block_size > std::max<int64_t>(dims[axis], 1))) {
    return absl::InvalidArgumentError(absl::StrCat("block size ", block_size, " does not fit axis ",
                                                   axis, " of [", absl::StrJoin(dims, ","), "]"));
  }
  if (block_size > 0) {
    int64_t grid = 1;
    for (int d = 0; d < rank(); ++d) {
      grid = SaturatingMul(grid, d == axis ? (dims[d] + block_size - 1) / block_size : dims[d]);
    }
    if (stepsizes.size() != zero_offsets.size() || static_cast<int64_t>(stepsizes.size()) != grid) {
      return absl::InvalidArgumentError(absl::StrCat(
          "blocked quantization of [", absl::StrJoin(dims, ","), "] in blocks of ", block_size,
          " along axis ", axis, " needs ", grid, " stepsizes and zero offsets, got ",
          stepsizes.size(), " and ", zero_offsets.size()));
    }
  } else if (stepsizes.size() != zero_offsets.size() ||
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
  q->block_size = block_size;
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
  const int64_t n = dims[per_axis->axis];
  if (per_axis->block_size <= 0) return (i / inner) % n;
  // Element (outer, j, r) of dims [.., n, inner] is in grid cell
  // (outer, j / block_size, r) of [.., blocks, inner].
  const int64_t blocks = (n + per_axis->block_size - 1) / per_axis->block_size;
  const int64_t r = i % inner, j = (i / inner) % n, outer = i / inner / n;
  return (outer * blocks + j / per_axis->block_size) * inner + r;
}

std::vector<int64_t> TensorType::BlockGridDims() const {
  std::vector<int64_t> g(dims.begin(), dims.end());
  if (blocked()) {
    const int a = per_axis->axis;
    g[a] = (g[a] + per_axis->block_size - 1) / per_axis->block_size;
  }
  return g;
}

TensorType TensorType::Permuted(const std::vector<int>& perm) const {
  TensorType t = *this;
  for (size_t d = 0; d < perm.size() && d < dims.size(); ++d) t.dims[d] = dims[perm[d]];
  if (per_axis) {
    const int axis = per_axis->axis;
    const int at = static_cast<int>(std::find(perm.begin(), perm.end(), axis) - perm.begin());
    if (blocked()) {
      // The grid moves with the dims: cell k of the output grid is the input
      // grid's cell at the permuted index.
      const std::vector<int64_t> in_grid = BlockGridDims();
      const int r = static_cast<int>(in_grid.size());
      std::vector<int64_t> in_strides(r, 1);
      for (int d = r - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * in_grid[d + 1];
      std::vector<int64_t> out_grid(r);
      for (int d = 0; d < r; ++d) out_grid[d] = in_grid[perm[d]];
      auto q = std::make_shared<AxisQuantization>(*per_axis);
      q->axis = at;
      std::vector<int64_t> idx(r, 0);
      for (size_t k = 0; k < q->stepsizes.size(); ++k) {
        int64_t src = 0;
        for (int d = 0; d < r; ++d) src += idx[d] * in_strides[perm[d]];
        q->stepsizes[k] = per_axis->stepsizes[src];
        q->zero_offsets[k] = per_axis->zero_offsets[src];
        for (int d = r - 1; d >= 0; --d) {
          if (++idx[d] < out_grid[d]) break;
          idx[d] = 0;
        }
      }
      t.zero_offset = q->zero_offsets.empty() ? 0 : q->zero_offsets[0];
      t.per_axis = std::move(q);
    } else if (at != axis) {
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
  return a.per_axis->axis == b.per_axis->axis && a.per_axis->block_size == b.per_axis->block_size &&
         a.per_axis->stepsizes == b.per_axis->stepsizes &&
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
    absl::StrAppend(&out, "(axis=", per_axis->axis,
                    per_axis->block_size > 0 ? absl::StrCat(",block=", per_axis->block_size) : "",
                    ",z=", zero_offset,
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
