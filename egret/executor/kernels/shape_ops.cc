// Data movement: Reshape, Transpose, Concat, Slice_shape, StridedSlice,
// Split and Pad.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/transpose.h"
#include "egret/support/status_macros.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
  // Same elements in the same order: the bytes themselves when the encoding
  // stays (taken over when the executor gives the input up), else re-encoded.
  const TensorType& out = c.outputs[0];
  if (CopiesBytes(*c.inputs[0].type, out)) {
    if (Tensor* reuse = c.Reusable(0); reuse != nullptr) {
      Tensor t = std::move(*reuse);
      if (t.Retype(out)) return Single(std::move(t));
      *reuse = std::move(t);
    }
    auto t = Tensor::FromBytes(out, c.In(0).bytes());
    if (t.ok()) return Single(*std::move(t));
  }
  return Single(MakeTensor(out, ReadReals(c.In(0))));
}

#if defined(__SSE2__)
// Moves the 4 x 4 block of 4-byte elements at src (rows `src_row` elements
// apart) to dst transposed (rows `dst_row` apart): four loads, eight
// shuffles and four stores where the scalar loop makes sixteen strided
// stores.
inline void Transpose4x4(const uint32_t* src, int64_t src_row, uint32_t* dst, int64_t dst_row) {
  auto load = [&](int64_t i) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * src_row));
  };
  const __m128i a = load(0), b = load(1), c = load(2), d = load(3);
  const __m128i ab_lo = _mm_unpacklo_epi32(a, b), cd_lo = _mm_unpacklo_epi32(c, d);
  const __m128i ab_hi = _mm_unpackhi_epi32(a, b), cd_hi = _mm_unpackhi_epi32(c, d);
  auto store = [&](int64_t i, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i * dst_row), v);
  };
  store(0, _mm_unpacklo_epi64(ab_lo, cd_lo));
  store(1, _mm_unpackhi_epi64(ab_lo, cd_lo));
  store(2, _mm_unpacklo_epi64(ab_hi, cd_hi));
  store(3, _mm_unpackhi_epi64(ab_hi, cd_hi));
}
#endif

// A transpose that moves the input's last axis to output axis `a` (not the
// last), as NCHW <-> NHWC do. Read along the output's last axis, the input
// is strided (by H * W floats for NCHW to NHWC: every element on its own
// page); so for each index of the other output axes, the od[a] x od[last]
// matrix is moved in square tiles, reading the input's rows and writing the
// output's rows within one tile's cache lines. s[d]: the input stride of
// output axis d (s[a] is 1).
template <typename T>
void TransposeTiled(const T* in, const std::vector<int64_t>& s, int a, const Dims& od, T* out) {
  constexpr int64_t kTile = 32;
  const int rank = static_cast<int>(od.size()), last = rank - 1;
  const std::vector<int64_t> os = RowMajorStrides(od);
  const int64_t rows = od[a], cols = od[last];
  const int64_t in_col = s[last], out_row = os[a];
  int64_t outer = 1;
  for (int d = 0; d < rank; ++d) {
    if (d != a && d != last) outer *= od[d];
  }
  // Units of work: one band of kTile rows of one outer index, so that a
  // single matrix (NCHW <-> NHWC of one image) still splits over the threads.
  const int64_t bands = (rows + kTile - 1) / kTile;
  ParallelFor(outer * bands, std::max<int64_t>(1, kElementwiseGrain / (kTile * cols)),
              [&](int64_t first, int64_t end) {
                for (int64_t unit = first; unit < end; ++unit) {
                  const int64_t o = unit / bands;
                  const int64_t r0 = unit % bands * kTile, r1 = std::min(rows, r0 + kTile);
                  int64_t rest = o, in_off = 0, out_off = 0;
                  for (int d = last - 1; d >= 0; --d) {
                    if (d == a) continue;
                    const int64_t i = rest % od[d];
                    rest /= od[d];
                    in_off += i * s[d];
                    out_off += i * os[d];
                  }
                  for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
                    const int64_t c1 = std::min(cols, c0 + kTile);
                    int64_t c = c0;
#if defined(__SSE2__)
                    if constexpr (sizeof(T) == 4) {  // 4 x 4 blocks, then the rest
                      for (; c + 4 <= c1; c += 4) {
                        const T* src = in + in_off + c * in_col;
                        T* dst = out + out_off + c;
                        int64_t r = r0;
                        for (; r + 4 <= r1; r += 4) {
                          Transpose4x4(reinterpret_cast<const uint32_t*>(src + r), in_col,
                                       reinterpret_cast<uint32_t*>(dst + r * out_row), out_row);
                        }
                        for (; r < r1; ++r) {
                          for (int64_t j = 0; j < 4; ++j)
                            dst[r * out_row + j] = src[j * in_col + r];
                        }
                      }
                    }
#endif
                    for (; c < c1; ++c) {
                      const T* src = in + in_off + c * in_col;
                      T* dst = out + out_off + c;
                      for (int64_t r = r0; r < r1; ++r) dst[r * out_row] = src[r];
                    }
                  }
                }
              });
}

// out[i] = in[perm-mapped i] for T elements; the innermost output axis is
// one strided loop, or TransposeTiled's tiles.
template <typename T>
void TransposeInto(const T* in, const Dims& in_dims, const std::vector<int64_t>& perm,
                   const Dims& od, T* out) {
  const int rank = static_cast<int>(od.size());
  int64_t n = 1;
  for (int64_t d : od) n *= d;
  if (n == 0) return;
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  const std::vector<int64_t> in_stride = RowMajorStrides(in_dims);
  std::vector<int64_t> s(rank);
  for (int d = 0; d < rank; ++d) s[d] = in_stride[perm[d]];
  const int a = static_cast<int>(std::find(perm.begin(), perm.end(), rank - 1) - perm.begin());
  if (a < rank - 1 && od[a] > 1 && od[rank - 1] > 1) {
    TransposeTiled(in, s, a, od, out);
    return;
  }
  const int64_t inner = od[rank - 1], step = s[rank - 1];
  // Rows of `inner` output elements, split over the threads.
  auto rows = [&](int64_t first, int64_t last) {
    std::vector<int64_t> idx(rank, 0);
    int64_t off = 0;
    for (int64_t r = first, d = rank - 2; d >= 0; --d) {  // the indices of row `first`
      idx[d] = r % od[d];
      r /= od[d];
      off += idx[d] * s[d];
    }
    for (int64_t row = first; row < last; ++row) {
      T* dst = out + row * inner;
      const T* src = in + off;
      if (step == 1) {
        std::copy(src, src + inner, dst);
      } else {
        for (int64_t k = 0; k < inner; ++k) dst[k] = src[k * step];
      }
      for (int d = rank - 2; d >= 0; --d) {
        ++idx[d];
        off += s[d];
        if (idx[d] < od[d]) break;
        off -= s[d] * od[d];
        idx[d] = 0;
      }
    }
  };
  ParallelFor(n / inner, std::max<int64_t>(1, kElementwiseGrain / inner), rows);
}

// The same transpose on as few axes as it takes: input axes of size 1
// dropped, and output axes that are also consecutive, in order, in the
// input merged into one (ShuffleNet's channel shuffle [0, 2, 1, 3, 4] of
// [1, 4, 68, 14, 14] is [1, 0, 2] of [4, 68, 196]), so that the rows the
// loops copy are as long as they can be. Sets `dims`, `perm` and `od`.
void SimplifyTranspose(const Dims& in_dims, const std::vector<int64_t>& in_perm, Dims& dims,
                       std::vector<int64_t>& perm, Dims& od) {
  const int rank = static_cast<int>(in_dims.size());
  std::vector<int64_t> kept(rank, -1);  // new index of each input axis kept
  Dims d;
  for (int i = 0; i < rank; ++i) {
    if (in_dims[i] != 1) {
      kept[i] = static_cast<int64_t>(d.size());
      d.push_back(in_dims[i]);
    }
  }
  std::vector<int64_t> p;
  for (int64_t a : in_perm) {
    if (kept[a] >= 0) p.push_back(kept[a]);
  }
  // Runs of output axes reading consecutive input axes.
  std::vector<std::pair<int64_t, int64_t>> runs;  // [first, last] input axes, in output order
  for (int64_t a : p) {
    if (!runs.empty() && a == runs.back().second + 1) {
      runs.back().second = a;
    } else {
      runs.emplace_back(a, a);
    }
  }
  // Each run becomes one axis; their input order is that of their first axes.
  std::vector<int64_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t x, int64_t y) { return runs[x].first < runs[y].first; });
  std::vector<int64_t> axis_of_run(runs.size());
  for (size_t j = 0; j < order.size(); ++j) axis_of_run[order[j]] = static_cast<int64_t>(j);
  dims.assign(runs.size(), 1);
  for (size_t r = 0; r < runs.size(); ++r) {
    for (int64_t a = runs[r].first; a <= runs[r].second; ++a) dims[axis_of_run[r]] *= d[a];
  }
  perm = axis_of_run;
  if (dims.empty()) {  // every axis of size 1
    dims = {1};
    perm = {0};
  }
  od.clear();
  for (int64_t a : perm) od.push_back(dims[a]);
}

Result Transpose(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto given, ReadIntParam(c.inputs[1], "perm"));
  Dims dims, od;
  std::vector<int64_t> perm;
  SimplifyTranspose(c.InDims(0), given, dims, perm, od);
  if (std::optional<Tensor> out = MoveStoredElements(
          c.In(0), c.outputs[0],
          [&](const auto* in, auto* o) { TransposeInto(in, dims, perm, od, o); })) {
    return Single(*std::move(out));
  }
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> out(v.size());
  TransposeInto<double>(v.data(), dims, perm, od, out.data());
  return Single(MakeTensor(c.outputs[0], out));
}

Result Concat(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, ReadIntScalarParam(c.inputs[0], "Concat axis"));
  const Dims& od = c.outputs[0].dims;
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, static_cast<int>(od.size()), "axis"));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= od[d];
  for (size_t d = axis + 1; d < od.size(); ++d) inner *= od[d];
  const int64_t row = od[axis] * inner;
  bool bytes = IsConcrete(c.outputs[0].dtype);
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    bytes = bytes && CopiesBytes(c.In(static_cast<int>(i)).type(), c.outputs[0]);
  }
  if (bytes) {
    // Row by row, each input's chunk copied as stored.
    const int64_t es = ElementSize(c.outputs[0].dtype);
    Tensor out(c.outputs[0]);
    uint8_t* dst = out.mutable_bytes().data();
    int64_t col = 0;
    for (size_t i = 1; i < c.inputs.size(); ++i) {
      const uint8_t* src = c.In(static_cast<int>(i)).bytes().data();
      const int64_t chunk = c.InDims(static_cast<int>(i))[axis] * inner * es;
      for (int64_t o = 0; o < outer && chunk > 0; ++o) {
        std::memcpy(dst + o * row * es + col, src + o * chunk, static_cast<size_t>(chunk));
      }
      col += chunk;
    }
    return Single(std::move(out));
  }
  std::vector<double> out(static_cast<size_t>(c.outputs[0].num_elements()));
  int64_t col = 0;  // offset of this input's chunk inside one outer row
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
  return Single(GatherTensor(c.In(0), c.outputs[0], map));
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
  return Single(GatherTensor(c.In(0), c.outputs[0], map));
}

Result Split(const KernelContext& c) {
  const Dims& in = c.InDims(0);
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, ReadIntScalarParam(c.inputs[1], "Split axis"));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, static_cast<int>(in.size()), "axis"));
  std::vector<std::vector<int64_t>> map = IdentityMap(in);
  std::vector<Tensor> out;
  int64_t first = 0;
  for (const TensorType& t : c.outputs) {
    map[axis] = Iota(first, t.dims[axis]);
    first += t.dims[axis];
    out.push_back(GatherTensor(c.In(0), t, map));
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
  if (c.outputs[0].dtype == DType::kFloat32 && CopiesBytes(c.In(0).type(), c.outputs[0])) {
    Tensor out(c.outputs[0]);
    GatherAxesInto<float>(reinterpret_cast<const float*>(c.In(0).bytes().data()), in, map,
                          static_cast<float>(value),
                          reinterpret_cast<float*>(out.mutable_bytes().data()));
    return Single(std::move(out));
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

namespace egret {

bool TransposeStoredElements(const Tensor& in, absl::Span<const int64_t> perm, Tensor& out) {
  Dims dims, od;
  std::vector<int64_t> simple;
  backend_internal::SimplifyTranspose(
      in.type().dims, std::vector<int64_t>(perm.begin(), perm.end()), dims, simple, od);
  return backend_internal::WithStorageType(ElementSize(in.type().dtype), [&](auto zero) {
    using T = decltype(zero);
    backend_internal::TransposeInto(reinterpret_cast<const T*>(in.bytes().data()), dims, simple, od,
                                    reinterpret_cast<T*>(out.mutable_bytes().data()));
  });
}

}  // namespace egret
