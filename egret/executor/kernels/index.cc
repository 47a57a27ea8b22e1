// Indexing and scans: Tile, Gather, Argmax, Argmin, TopK, CumulativeSum.
// Ops that only move elements copy their bytes (exact for Int64 beyond 2^53)
// when the output has the input's type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

std::vector<Tensor> One(Tensor t) {
  std::vector<Tensor> out;
  out.push_back(std::move(t));
  return out;
}

// The (outer, dim, inner) split of dims around axis.
struct AxisSplit {
  int64_t outer = 1, dim = 1, inner = 1;
};

AxisSplit SplitAt(const Dims& d, int axis) {
  AxisSplit s;
  for (int i = 0; i < static_cast<int>(d.size()); ++i) {
    if (i < axis) s.outer *= d[i];
    if (i > axis) s.inner *= d[i];
  }
  s.dim = d[axis];
  return s;
}

Result Tile(const KernelContext& c) {
  const Dims& in = c.InDims(0);
  const Dims& out = c.outputs[0].dims;
  // The source flat index of every output element: per dim, j mod in[d].
  const std::vector<int64_t> stride = RowMajorStrides(in);
  int64_t n = c.outputs[0].num_elements();
  std::vector<int64_t> src(static_cast<size_t>(n));
  const int rank = static_cast<int>(out.size());
  std::vector<int64_t> idx(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += (idx[d] % in[d]) * stride[d];
    src[i] = off;
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return One(TakeElements(c.In(0), c.outputs[0], src));
}

Result Gather(const KernelContext& c) {
  const Dims& d = c.InDims(0);
  const int rank = static_cast<int>(d.size());
  int64_t axis_raw = 0;
  if (c.Has(2)) {
    EGRET_ASSIGN_OR_RETURN(axis_raw, ReadIntScalarParam(c.inputs[2], "axis"));
  }
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, "axis"));
  const AxisSplit s = SplitAt(d, axis);
  const std::vector<double> indices = ReadReals(c.In(1));
  std::vector<int64_t> src;
  src.reserve(static_cast<size_t>(c.outputs[0].num_elements()));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (double v : indices) {
      int64_t j = static_cast<int64_t>(v);
      if (j < -s.dim || j >= s.dim) {
        return KernelError(c, absl::StrFormat("index %d is outside [-%d, %d)", j, s.dim, s.dim));
      }
      if (j < 0) j += s.dim;
      for (int64_t i = 0; i < s.inner; ++i) src.push_back((o * s.dim + j) * s.inner + i);
    }
  }
  return One(TakeElements(c.In(0), c.outputs[0], src));
}

// Argmax (sign +1) and Argmin (sign -1): the index of the extreme element of
// each row along the axis; NaN beats every number (numpy's rule), the first
// of equal elements wins unless select_last.
Result ArgReduce(const KernelContext& c) {
  const Dims& d = c.InDims(0);
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, ReadIntScalarParam(c.inputs[1], "axis"));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, static_cast<int>(d.size()), "axis"));
  int64_t last = 0;
  if (c.Has(3)) {
    EGRET_ASSIGN_OR_RETURN(last, ReadIntScalarParam(c.inputs[3], "select_last"));
  }
  const double sign = c.op == "Argmax" ? 1 : -1;
  const AxisSplit s = SplitAt(d, axis);
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> out;
  out.reserve(static_cast<size_t>(s.outer * s.inner));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      int64_t best = 0;
      double bv = v[o * s.dim * s.inner + i];
      for (int64_t j = 1; j < s.dim; ++j) {
        const double x = v[(o * s.dim + j) * s.inner + i];
        bool take;
        if (std::isnan(bv)) {
          take = last && std::isnan(x);
        } else if (std::isnan(x)) {
          take = true;
        } else {
          take = last ? sign * x >= sign * bv : sign * x > sign * bv;
        }
        if (take) best = j, bv = x;
      }
      out.push_back(static_cast<double>(best));
    }
  }
  return One(MakeTensor(c.outputs[0], out));
}

Result TopK(const KernelContext& c) {
  const Dims& d = c.InDims(0);
  const int rank = static_cast<int>(d.size());
  EGRET_ASSIGN_OR_RETURN(auto k, ReadIntScalarParam(c.inputs[1], "k"));
  int64_t axis_raw = -1, largest = 1;
  if (c.Has(2)) {
    EGRET_ASSIGN_OR_RETURN(axis_raw, ReadIntScalarParam(c.inputs[2], "axis"));
  }
  if (c.Has(3)) {
    EGRET_ASSIGN_OR_RETURN(largest, ReadIntScalarParam(c.inputs[3], "largest"));
  }
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, "axis"));
  const AxisSplit s = SplitAt(d, axis);
  const std::vector<double> v = ReadReals(c.In(0));
  // Output order: (outer, rank within the row, inner).
  std::vector<int64_t> src(static_cast<size_t>(s.outer * k * s.inner));
  std::vector<double> indices(src.size());
  std::vector<int64_t> order(static_cast<size_t>(s.dim));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](int64_t j) { return v[(o * s.dim + j) * s.inner + i]; };
      std::iota(order.begin(), order.end(), 0);
      // Stable, so equal elements keep index order; NaN sorts as the largest.
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        const double a = at(x), b = at(y);
        if (std::isnan(a) || std::isnan(b)) return largest ? !std::isnan(b) : !std::isnan(a);
        return largest ? a > b : a < b;
      });
      for (int64_t r = 0; r < k; ++r) {
        const size_t pos = static_cast<size_t>((o * k + r) * s.inner + i);
        src[pos] = (o * s.dim + order[r]) * s.inner + i;
        indices[pos] = static_cast<double>(order[r]);
      }
    }
  }
  std::vector<Tensor> out;
  out.push_back(TakeElements(c.In(0), c.outputs[0], src));
  out.push_back(MakeTensor(c.outputs[1], indices));
  return out;
}

Result CumulativeSum(const KernelContext& c) {
  const Dims& d = c.InDims(0);
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, ReadIntScalarParam(c.inputs[1], "axis"));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, static_cast<int>(d.size()), "axis"));
  int64_t exclusive = 0, reverse = 0;
  if (c.Has(2)) {
    EGRET_ASSIGN_OR_RETURN(exclusive, ReadIntScalarParam(c.inputs[2], "exclusive"));
  }
  if (c.Has(3)) {
    EGRET_ASSIGN_OR_RETURN(reverse, ReadIntScalarParam(c.inputs[3], "reverse"));
  }
  const AxisSplit s = SplitAt(d, axis);
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> out(v.size());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      double acc = 0;
      for (int64_t t = 0; t < s.dim; ++t) {
        const int64_t j = reverse ? s.dim - 1 - t : t;
        const size_t pos = static_cast<size_t>((o * s.dim + j) * s.inner + i);
        if (exclusive) {
          out[pos] = acc;
          acc += v[pos];
        } else {
          acc += v[pos];
          out[pos] = acc;
        }
      }
    }
  }
  return One(MakeTensor(c.outputs[0], out));
}

}  // namespace

Tensor TakeElements(const Tensor& in, const TensorType& type, absl::Span<const int64_t> src) {
  const TensorType& it = in.type();
  if (it.dtype == type.dtype && it.zero_offset == type.zero_offset &&
      it.stepsize == type.stepsize && !it.per_axis && !type.per_axis) {
    const size_t es = static_cast<size_t>(ElementSize(type.dtype));
    Tensor out(type);  // zeros past a short `src`
    const absl::Span<uint8_t> bytes = out.mutable_bytes();
    for (size_t i = 0; i < src.size() && (i + 1) * es <= bytes.size(); ++i) {
      std::memcpy(&bytes[i * es], in.bytes().data() + src[i] * es, es);
    }
    return out;
  }
  const std::vector<double> v = ReadReals(in);
  std::vector<double> out(src.size());
  for (size_t i = 0; i < src.size(); ++i) out[i] = v[src[i]];
  return MakeTensor(type, out);
}

void RegisterIndexKernels(KernelTable& t) {
  t.emplace("Tile", Tile);
  t.emplace("Gather", Gather);
  t.emplace("Argmax", ArgReduce);
  t.emplace("Argmin", ArgReduce);
  t.emplace("TopK", TopK);
  t.emplace("CumulativeSum", CumulativeSum);
}

}  // namespace egret::backend_internal
