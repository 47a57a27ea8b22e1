// Data movement: Reshape, Transpose, Concat, Slice_shape, StridedSlice,
// Split and Pad.
#include <numeric>

#include "egret/backend/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

std::vector<Tensor> Single(Tensor t) {
  std::vector<Tensor> v;
  v.push_back(std::move(t));
  return v;
}

std::vector<int64_t> Iota(int64_t first, int64_t count, int64_t step = 1) {
  std::vector<int64_t> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[i] = first + i * step;
  return v;
}

// The identity map of every axis of dims.
std::vector<std::vector<int64_t>> IdentityMap(const Dims& d) {
  std::vector<std::vector<int64_t>> m;
  for (int64_t n : d) m.push_back(Iota(0, n));
  return m;
}

Result Reshape(const KernelContext& c) {
  // Same elements in the same order; re-encoded when the output type differs.
  return Single(MakeTensor(c.outputs[0], ReadReals(c.In(0))));
}

Result Transpose(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto perm, ReadIntParam(c.inputs[1], "perm"));
  const std::vector<double> v = ReadReals(c.In(0));
  const std::vector<int64_t> in_stride = RowMajorStrides(c.InDims(0));
  const Dims& od = c.outputs[0].dims;
  const int rank = static_cast<int>(od.size());
  std::vector<int64_t> s(rank);
  for (int d = 0; d < rank; ++d) s[d] = in_stride[perm[d]];
  std::vector<double> out(v.size());
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = v[off];
    for (int d = rank - 1; d >= 0; --d) {
      ++idx[d];
      off += s[d];
      if (idx[d] < od[d]) break;
      off -= s[d] * od[d];
      idx[d] = 0;
    }
  }
  return Single(MakeTensor(c.outputs[0], out));
}

Result Concat(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, ReadIntScalarParam(c.inputs[0], "Concat axis"));
  const Dims& od = c.outputs[0].dims;
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, static_cast<int>(od.size()), "axis"));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= od[d];
  for (size_t d = axis + 1; d < od.size(); ++d) inner *= od[d];
  std::vector<double> out(static_cast<size_t>(c.outputs[0].num_elements()));
  int64_t col = 0;  // offset of this input's chunk inside one outer row
  const int64_t row = od[axis] * inner;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    const std::vector<double> v = ReadReals(c.In(static_cast<int>(i)));
    const int64_t chunk = c.InDims(static_cast<int>(i))[axis] * inner;
    for (int64_t o = 0; o < outer; ++o) {
      std::copy(v.begin() + o * chunk, v.begin() + (o + 1) * chunk, out.begin() + o * row + col);
    }
    col += chunk;
  }
  return Single(MakeTensor(c.outputs[0], out));
}

Result SliceShape(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto start, ReadIntParam(c.inputs[1], "start"));
  const Dims& od = c.outputs[0].dims;
  std::vector<std::vector<int64_t>> map;
  for (size_t d = 0; d < od.size(); ++d) map.push_back(Iota(start[d], od[d]));
  return Single(MakeTensor(c.outputs[0], GatherAxes(ReadReals(c.In(0)), c.InDims(0), map, 0)));
}

Result StridedSlice(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto begin, ReadIntParam(c.inputs[1], "begin"));
  EGRET_ASSIGN_OR_RETURN(auto end, ReadIntParam(c.inputs[2], "end"));
  EGRET_ASSIGN_OR_RETURN(auto strides, ReadIntParam(c.inputs[3], "strides"));
  const Dims& in = c.InDims(0);
  std::vector<std::vector<int64_t>> map;
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t first = 0, count = 0;
    NormalizeStridedRange(in[d], begin[d], end[d], strides[d], &first, &count);
    map.push_back(Iota(first, count, strides[d]));
  }
  return Single(MakeTensor(c.outputs[0], GatherAxes(ReadReals(c.In(0)), in, map, 0)));
}

Result Split(const KernelContext& c) {
  const Dims& in = c.InDims(0);
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, ReadIntScalarParam(c.inputs[1], "Split axis"));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, static_cast<int>(in.size()), "axis"));
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<std::vector<int64_t>> map = IdentityMap(in);
  std::vector<Tensor> out;
  int64_t first = 0;
  for (const TensorType& t : c.outputs) {
    map[axis] = Iota(first, t.dims[axis]);
    first += t.dims[axis];
    out.push_back(MakeTensor(t, GatherAxes(v, in, map, 0)));
  }
  return out;
}

// Source index of padded position j of a dim of size d (-1: the pad value).
int64_t PadSource(int64_t j, int64_t lo, int64_t d, int64_t mode) {
  int64_t i = j - lo;
  if (i >= 0 && i < d) return i;
  switch (mode) {
    case 1:  // symmetric: the edge element is repeated
      return i < 0 ? -i - 1 : 2 * d - 1 - i;
    case 2:  // reflect: the edge element is not repeated
      return i < 0 ? -i : 2 * (d - 1) - i;
    case 3:  // edge
      return i < 0 ? 0 : d - 1;
    default:
      return -1;
  }
}

Result Pad(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto pads, ReadIntParam(c.inputs[1], "pads"));
  int64_t mode = 0;
  if (c.Has(2)) {
    EGRET_ASSIGN_OR_RETURN(auto m, ReadIntScalarParam(c.inputs[2], "Pad mode"));
    mode = m;
  }
  double value = 0;
  if (c.Has(3)) {
    EGRET_ASSIGN_OR_RETURN(auto v, ReadFloatScalarParam(c.inputs[3], "Pad value"));
    value = v;
  }
  const Dims& in = c.InDims(0);
  const Dims& od = c.outputs[0].dims;
  std::vector<std::vector<int64_t>> map(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    for (int64_t j = 0; j < od[d]; ++j) map[d].push_back(PadSource(j, pads[2 * d], in[d], mode));
  }
  return Single(MakeTensor(c.outputs[0], GatherAxes(ReadReals(c.In(0)), in, map, value)));
}

}  // namespace

void RegisterShapeKernels(KernelTable& t) {
  t.emplace("Reshape", Reshape);
  t.emplace("Transpose", Transpose);
  t.emplace("Concat", Concat);
  t.emplace("Slice_shape", SliceShape);
  t.emplace("StridedSlice", StridedSlice);
  t.emplace("Split", Split);
  t.emplace("Pad", Pad);
}

}  // namespace egret::backend_internal
