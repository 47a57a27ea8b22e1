// ONNX pooling of any spatial rank, for the variants the importer does not
// map (1-D and 3-D pools, dilations, MaxPool's Indices output): MaxPool,
// AveragePool, and MaxUnpool, its inverse.
//
// X is [N, C, d1, ..., dk]. Output position o of spatial dim i reads input
// positions o * stride - pad_begin + j * dilation for j < kernel; positions
// outside the input are padding: MaxPool skips them, AveragePool counts
// those inside the explicit pads when count_include_pad is set (never those
// a ceil_mode window reaches past the pads). auto_pad SAME_UPPER/SAME_LOWER
// choose out = ceil(in / stride) and split the padding it needs (the odd
// unit at the end for SAME_UPPER, at the start for SAME_LOWER); VALID pads
// nothing. MaxPool's Indices are flat indices into X, row-major
// (storage_order 0) or with the spatial dims column-major (storage_order 1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;
using Ints = std::vector<int64_t>;

// Calls f(index) for every index of the box [0, extent) in row-major order.
template <typename F>
void ForEachIndex(const Ints& extent, F f) {
  for (int64_t e : extent) {
    if (e <= 0) return;
  }
  Ints idx(extent.size(), 0);
  while (true) {
    f(idx);
    int d = static_cast<int>(extent.size()) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < extent[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// The windows of a pool over the spatial dims of X.
struct Geometry {
  Ints in, out, kernel, strides, dilations, pad_begin, pad_end;
  int64_t planes = 0;  // N * C
  int rank() const { return static_cast<int>(in.size()); }
};

absl::StatusOr<Geometry> PoolGeometry(const KernelContext& c, const OnnxArgs& a,
                                      const Dims& x_dims) {
  if (x_dims.size() < 3) return KernelError(c, "X must be [N, C, d1, ...]");
  Geometry g;
  const size_t rank = x_dims.size() - 2;
  g.planes = x_dims[0] * x_dims[1];
  g.in.assign(x_dims.begin() + 2, x_dims.end());
  std::optional<Ints> kernel = a.Ints("kernel_shape");
  if (!kernel || kernel->size() != rank) {
    return KernelError(c, absl::StrFormat("kernel_shape must have %d values", rank));
  }
  g.kernel = *kernel;
  EGRET_ASSIGN_OR_RETURN(g.strides, a.IntsOfLength("strides", rank, 1));
  EGRET_ASSIGN_OR_RETURN(g.dilations, a.IntsOfLength("dilations", rank, 1));
  EGRET_ASSIGN_OR_RETURN(const Ints pads, a.IntsOfLength("pads", 2 * rank, 0));
  const std::string auto_pad = a.Str("auto_pad", "NOTSET");
  const bool ceil_mode = a.Int("ceil_mode", 0) != 0;
  const Dims& declared = c.outputs.empty() ? x_dims : c.outputs[0].dims;
  for (size_t i = 0; i < rank; ++i) {
    if (g.kernel[i] <= 0 || g.strides[i] <= 0 || g.dilations[i] <= 0) {
      return KernelError(c, "kernel_shape, strides and dilations must be positive");
    }
    const int64_t in = g.in[i], s = g.strides[i];
    const int64_t span = (g.kernel[i] - 1) * g.dilations[i] + 1;
    int64_t out = 0, begin = 0, end = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + span - in);
      begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (auto_pad == "VALID") {
      out = in >= span ? (in - span) / s + 1 : 0;
    } else if (auto_pad == "NOTSET") {
      begin = pads[i];
      end = pads[rank + i];
      const int64_t room = in + begin + end - span;
      if (room < 0) return KernelError(c, "the kernel is larger than the padded input");
      out = room / s + 1;
      if (ceil_mode && room % s != 0) {
        ++out;
        // The last window must start inside the input or its leading pad;
        // ONNX's shape inference before opset 19 did not drop it, so a
        // declared output that keeps it is accepted.
        const bool keep = declared.size() == x_dims.size() && declared[2 + i] == out;
        if ((out - 1) * s >= in + begin && !keep) --out;
      }
    } else {
      return KernelError(c, absl::StrFormat("unknown auto_pad '%s'", auto_pad));
    }
    g.out.push_back(out);
    g.pad_begin.push_back(begin);
    g.pad_end.push_back(end);
  }
  return g;
}

Dims OutDims(const Dims& x_dims, const Geometry& g) {
  Dims d{x_dims[0], x_dims[1]};
  d.insert(d.end(), g.out.begin(), g.out.end());
  return d;
}

// Visits the window of output position `o`: f(inside, padded, offset), where
// `inside` says the position is in X (then `offset` is its row-major spatial
// offset, and `col` its column-major one) and `padded` that it is within the
// explicit pads.
template <typename F>
void ForEachInWindow(const Geometry& g, const Ints& o, F f) {
  const int rank = g.rank();
  ForEachIndex(g.kernel, [&](const Ints& k) {
    bool inside = true, padded = true;
    int64_t offset = 0, col = 0, col_stride = 1;
    for (int d = 0; d < rank; ++d) {
      const int64_t p = o[d] * g.strides[d] - g.pad_begin[d] + k[d] * g.dilations[d];
      if (p < -g.pad_begin[d] || p >= g.in[d] + g.pad_end[d]) padded = false;
      if (p < 0 || p >= g.in[d]) inside = false;
      offset = offset * g.in[d] + p;
      col += p * col_stride;
      col_stride *= g.in[d];
    }
    f(inside, padded, offset, col);
  });
}

int64_t Product(const Ints& v) {
  int64_t n = 1;
  for (int64_t e : v) n *= e;
  return n;
}

Result MaxPool(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0)) return KernelError(c, "needs X");
  const Dims& x_dims = a.Input(0)->type().dims;
  EGRET_ASSIGN_OR_RETURN(const Geometry g, PoolGeometry(c, a, x_dims));
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, OutDims(x_dims, g)));
  const bool column_major = a.Int("storage_order", 0) != 0;
  const std::vector<double> x = ReadReals(*a.Input(0));
  const int64_t plane_in = Product(g.in), plane_out = Product(g.out);
  std::vector<double> y(static_cast<size_t>(g.planes * plane_out));
  std::vector<double> indices(y.size());
  for (int64_t p = 0; p < g.planes; ++p) {
    int64_t at = p * plane_out;
    ForEachIndex(g.out, [&](const Ints& o) {
      double best = -std::numeric_limits<double>::infinity();
      int64_t best_index = -1;
      ForEachInWindow(g, o, [&](bool inside, bool, int64_t offset, int64_t col) {
        if (!inside) return;
        const double v = x[p * plane_in + offset];
        if (best_index < 0 || v > best) {
          best = v;
          best_index = p * plane_in + (column_major ? col : offset);
        }
      });
      y[at] = best;
      indices[at] = static_cast<double>(best_index);
      ++at;
    });
  }
  std::vector<Tensor> out;
  const Dims out_dims = OutDims(x_dims, g);
  EGRET_ASSIGN_OR_RETURN(Tensor yt, OnnxOutput(c, 0, out_dims, y));
  out.push_back(std::move(yt));
  if (c.outputs.size() > 1) {
    EGRET_ASSIGN_OR_RETURN(Tensor it, OnnxOutput(c, 1, out_dims, indices));
    out.push_back(std::move(it));
  }
  return out;
}

Result AveragePool(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0)) return KernelError(c, "needs X");
  const Dims& x_dims = a.Input(0)->type().dims;
  EGRET_ASSIGN_OR_RETURN(const Geometry g, PoolGeometry(c, a, x_dims));
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, OutDims(x_dims, g)));
  const bool include_pad = a.Int("count_include_pad", 0) != 0;
  const std::vector<double> x = ReadReals(*a.Input(0));
  const int64_t plane_in = Product(g.in), plane_out = Product(g.out);
  std::vector<double> y(static_cast<size_t>(g.planes * plane_out));
  for (int64_t p = 0; p < g.planes; ++p) {
    int64_t at = p * plane_out;
    ForEachIndex(g.out, [&](const Ints& o) {
      double sum = 0;
      int64_t count = 0;
      ForEachInWindow(g, o, [&](bool inside, bool padded, int64_t offset, int64_t) {
        if (inside) sum += x[p * plane_in + offset];
        if (inside || (include_pad && padded)) ++count;
      });
      y[at++] = count > 0 ? sum / static_cast<double>(count) : 0.0;
    });
  }
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor yt, OnnxOutput(c, 0, OutDims(x_dims, g), y));
  out.push_back(std::move(yt));
  return out;
}

// MaxUnpool(X, I, output_shape?): zeros of the unpooled shape
// (in - 1) * stride - pad_begin - pad_end + kernel per spatial dim, with
// X's values at the flat indices I (into that shape, as MaxPool's Indices
// are). A larger output_shape pads that result with zeros at the end of
// each dim.
Result MaxUnpool(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0) || !a.Has(1)) return KernelError(c, "needs X and I");
  const Dims& x_dims = a.Input(0)->type().dims;
  if (x_dims.size() < 3 || a.Input(1)->type().dims != x_dims) {
    return KernelError(c, "X must be [N, C, d1, ...] and I of the same dims");
  }
  const size_t rank = x_dims.size() - 2;
  std::optional<Ints> kernel = a.Ints("kernel_shape");
  if (!kernel || kernel->size() != rank) {
    return KernelError(c, absl::StrFormat("kernel_shape must have %d values", rank));
  }
  EGRET_ASSIGN_OR_RETURN(const Ints strides, a.IntsOfLength("strides", rank, 1));
  EGRET_ASSIGN_OR_RETURN(const Ints pads, a.IntsOfLength("pads", 2 * rank, 0));
  Dims unpooled{x_dims[0], x_dims[1]};
  for (size_t i = 0; i < rank; ++i) {
    unpooled.push_back((x_dims[2 + i] - 1) * strides[i] - pads[i] - pads[rank + i] + (*kernel)[i]);
    if (unpooled.back() <= 0) return KernelError(c, "the unpooled shape would be empty");
  }
  Dims out_dims = unpooled;
  if (const Tensor* shape = a.Input(2)) {
    const Ints s = ReadInts(*shape);
    if (s.size() != x_dims.size()) {
      return KernelError(
          c, absl::StrFormat("output_shape has %d values, expected %d", s.size(), x_dims.size()));
    }
    out_dims.assign(s.begin(), s.end());
    for (size_t d = 0; d < out_dims.size(); ++d) {
      if (out_dims[d] < unpooled[d]) {
        return KernelError(
            c, absl::StrFormat("output_shape [%s] is smaller than the unpooled "
                               "shape [%s]",
                               absl::StrJoin(out_dims, ","), absl::StrJoin(unpooled, ",")));
      }
    }
  }
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, out_dims));
  const Ints idx = ReadInts(*a.Input(1));
  const std::vector<double> x = ReadReals(*a.Input(0));
  const Ints unpooled_ints(unpooled.begin(), unpooled.end());
  const int64_t total = Product(unpooled_ints);
  int64_t out_total = 1;
  for (int64_t d : out_dims) out_total *= d;
  std::vector<double> y(static_cast<size_t>(out_total), 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    if (idx[i] < 0 || idx[i] >= total) {
      return KernelError(c, absl::StrFormat("index %d is outside [0, %d)", idx[i], total));
    }
    // The position of idx in the unpooled shape, placed in the output.
    int64_t rest = idx[i], at = 0, stride = 1;
    for (int d = static_cast<int>(unpooled.size()) - 1; d >= 0; --d) {
      at += (rest % unpooled[d]) * stride;
      rest /= unpooled[d];
      stride *= out_dims[d];
    }
    y[at] = x[i];
  }
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor yt, OnnxOutput(c, 0, out_dims, y));
  out.push_back(std::move(yt));
  return out;
}

}  // namespace

void RegisterOnnxPoolKernels(KernelTable& t) {
  t.emplace("onnx.MaxPool", MaxPool);
  t.emplace("onnx.AveragePool", AveragePool);
  t.emplace("onnx.MaxUnpool", MaxUnpool);
}

}  // namespace egret::backend_internal
