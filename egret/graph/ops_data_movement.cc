// The data movement and indexing families of the op table: ops that move
// elements without computing on them (Reshape, Transpose, Concat, the
// slices, Split, Pad) and ops that index (Tile, Gather, Argmax, Argmin,
// TopK, CumulativeSum): their rows, and the shape functions those rows name,
// beside them.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/op_rows_internal.h"
#include "egret/graph/shape_functions_internal.h"
#include "egret/support/status_macros.h"

namespace egret::shape_internal {

ShapeResult InferReshape(const ShapeContext& c) {
  EGRET_ASSIGN_OR_RETURN(auto shape, c.Ints(1));
  if (static_cast<int>(shape.size()) > kMaxRank) return c.Error("shape has rank above 8");
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return c.Error(absl::StrCat("shape ", absl::StrJoin(shape, ","),
                                  " has a negative dim (at most one -1 is allowed)"));
    } else {
      known = SaturatingMul(known, shape[i]);
    }
  }
  const int64_t n = c.T(0).num_elements();
  if (infer >= 0) {
    if (known == 0 || n % known != 0) {
      return c.Error(absl::StrFormat("cannot infer the -1 dim of [%s] for %d elements",
                                     absl::StrJoin(shape, ","), n));
    }
    shape[infer] = n / known;
    known = n;
  }
  if (known != n) {
    return c.Error(absl::StrFormat("shape [%s] holds %d elements, input %s holds %d",
                                   absl::StrJoin(shape, ","), known, DimsStr(c.D(0)), n));
  }
  return One(c.Out(Dims(shape.begin(), shape.end()), 0));
}

ShapeResult InferTranspose(const ShapeContext& c) {
  int rank = c.T(0).rank();
  EGRET_ASSIGN_OR_RETURN(auto perm, c.Ints(1));
  if (static_cast<int>(perm.size()) != rank) {
    return c.Error(absl::StrFormat("perm has %d entries for a rank-%d input", perm.size(), rank));
  }
  std::vector<bool> seen(rank, false);
  Dims out;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return c.Error(absl::StrCat("perm [", absl::StrJoin(perm, ","), "] is not a permutation"));
    }
    seen[p] = true;
    out.push_back(c.D(0)[p]);
  }
  if (c.T(0).per_axis && (c.options.declared.empty() || !IsConcrete(c.options.declared[0].dtype))) {
    return One(c.T(0).Permuted(std::vector<int>(perm.begin(), perm.end())));
  }
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferConcat(const ShapeContext& c) {
  int rank = c.T(1).rank();
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.Int(0));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(0)));
  Dims out = c.D(1);
  for (int i = 2; i < c.size(); ++i) {
    const Dims& d = c.D(i);
    bool ok = static_cast<int>(d.size()) == rank;
    for (int k = 0; ok && k < rank; ++k) ok = k == axis || d[k] == out[k];
    if (!ok) {
      return c.Error(absl::StrFormat("input %d %s does not match input 1 %s except on axis %d", i,
                                     DimsStr(d), DimsStr(c.D(1)), axis));
    }
    out[axis] = SaturatingAdd(out[axis], d[axis]);
  }
  return One(c.Out(std::move(out), 1));
}

ShapeResult InferSliceShape(const ShapeContext& c) {
  size_t rank = c.D(0).size();
  EGRET_ASSIGN_OR_RETURN(auto start, c.IntsN(1, rank));
  EGRET_ASSIGN_OR_RETURN(auto size, c.IntsN(2, rank));
  for (size_t i = 0; i < rank; ++i) {
    if (start[i] < 0 || size[i] < 0 || SaturatingAdd(start[i], size[i]) > c.D(0)[i]) {
      return c.Error(absl::StrFormat("start %d size %d is outside dim %d (%d)", start[i], size[i],
                                     i, c.D(0)[i]));
    }
  }
  return One(c.Out(Dims(size.begin(), size.end()), 0));
}

ShapeResult InferStridedSlice(const ShapeContext& c) {
  size_t rank = c.D(0).size();
  EGRET_ASSIGN_OR_RETURN(auto begin, c.IntsN(1, rank));
  EGRET_ASSIGN_OR_RETURN(auto end, c.IntsN(2, rank));
  EGRET_ASSIGN_OR_RETURN(auto strides, c.IntsN(3, rank));
  Dims out;
  for (size_t i = 0; i < rank; ++i) {
    if (strides[i] == 0) return c.Error(absl::StrCat("stride of dim ", i, " is 0"));
    int64_t first, count;
    if (!NormalizeStridedRange(c.D(0)[i], begin[i], end[i], strides[i], &first, &count)) {
      return c.Error("bad range");
    }
    out.push_back(count);
  }
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferSplit(const ShapeContext& c) {
  int rank = c.T(0).rank();
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.Int(1));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(1)));
  EGRET_ASSIGN_OR_RETURN(auto sizes, c.Ints(2));
  if (sizes.empty()) return c.Error("sizes is empty");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) return c.Error("sizes must not be negative");
    sum = SaturatingAdd(sum, s);
  }
  if (sum != c.D(0)[axis]) {
    return c.Error(absl::StrFormat("sizes [%s] add up to %d, not dim %d (%d)",
                                   absl::StrJoin(sizes, ","), sum, axis, c.D(0)[axis]));
  }
  Types out;
  for (size_t k = 0; k < sizes.size(); ++k) {
    Dims d = c.D(0);
    d[axis] = sizes[k];
    EGRET_ASSIGN_OR_RETURN(auto t, c.Out(std::move(d), 0, k));
    out.push_back(std::move(t));
  }
  return out;
}

ShapeResult InferPad(const ShapeContext& c) {
  size_t rank = c.D(0).size();
  EGRET_ASSIGN_OR_RETURN(auto pads, c.IntsN(1, 2 * rank));
  EGRET_ASSIGN_OR_RETURN(auto mode, c.IntOr(2, 0));
  if (mode < 0 || mode > 3) {
    return c.Error(absl::StrCat("mode ", mode,
                                " is not 0 (constant), 1 (symmetric), 2 (reflect) or 3 (edge)"));
  }
  if (c.Has(3)) EGRET_RETURN_IF_ERROR(c.Float(3).status());
  Dims out;
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = c.D(0)[i];
    int64_t lo = pads[2 * i], hi = pads[2 * i + 1];
    if (lo < 0 || hi < 0) return c.Error("pads must not be negative");
    int64_t limit = mode == 1   ? d
                    : mode == 2 ? d - 1
                    : mode == 3 ? (d > 0 ? INT64_MAX : 0)
                                : INT64_MAX;
    if (lo > limit || hi > limit) {
      return c.Error(absl::StrFormat("pad %d on dim %d (%d) is too large for mode %d",
                                     std::max(lo, hi), i, d, mode));
    }
    out.push_back(SaturatingAdd(SaturatingAdd(d, lo), hi));
  }
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferTile(const ShapeContext& c) {
  const size_t rank = c.D(0).size();
  EGRET_ASSIGN_OR_RETURN(auto m, c.IntsN(1, rank));
  Dims out = c.D(0);
  for (size_t i = 0; i < rank; ++i) {
    if (m[i] < 0) return c.Error(absl::StrCat("multiple ", m[i], " is negative"));
    out[i] = SaturatingMul(out[i], m[i]);
  }
  return One(c.Out(std::move(out), 0));
}

ShapeResult InferGather(const ShapeContext& c) {
  const int rank = c.T(0).rank();
  if (rank < 1) return c.Error("data must have rank >= 1");
  const DType it = c.T(1).dtype;
  if (it != DType::kInt32 && it != DType::kInt64) {
    return c.Error(absl::StrFormat("indices must be Int32 or Int64, got %s", c.T(1).ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.IntOr(2, 0));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(2)));
  const Dims& d = c.D(0);
  Dims out(d.begin(), d.begin() + axis);
  out.insert(out.end(), c.D(1).begin(), c.D(1).end());
  out.insert(out.end(), d.begin() + axis + 1, d.end());
  if (static_cast<int>(out.size()) > kMaxRank) return c.Error("the result has rank above 8");
  return One(c.Out(std::move(out), 0));
}

namespace {

absl::Status RequireFlag(const ShapeContext& c, int i, int64_t dflt) {
  auto v = c.IntOr(i, dflt);
  if (!v.ok()) return v.status();
  if (*v != 0 && *v != 1) return c.Error(absl::StrFormat("%s must be 0 or 1", c.def.InputName(i)));
  return absl::OkStatus();
}

}  // namespace

ShapeResult InferArgReduce(const ShapeContext& c) {
  const int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.Int(1));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(1)));
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 2, 1));
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 3, 0));
  EGRET_ASSIGN_OR_RETURN(auto keep, c.IntOr(2, 1));
  Dims out = c.D(0);
  if (keep) {
    out[axis] = 1;
  } else {
    out.erase(out.begin() + axis);
  }
  return One(c.OutOfType(std::move(out), DType::kInt32, {DType::kInt32, DType::kInt64}));
}

ShapeResult InferTopK(const ShapeContext& c) {
  const int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto k, c.Int(1));
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.IntOr(2, -1));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(2)));
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 3, 1));
  if (k < 0 || k > c.D(0)[axis]) {
    return c.Error(absl::StrFormat("k %d is outside [0, %d] (dim %d)", k, c.D(0)[axis], axis));
  }
  Dims out = c.D(0);
  out[axis] = k;
  EGRET_ASSIGN_OR_RETURN(auto values, c.Out(out, 0, 0));
  EGRET_ASSIGN_OR_RETURN(auto indices,
                         c.OutOfType(out, DType::kInt32, {DType::kInt32, DType::kInt64}, 1));
  return Types{std::move(values), std::move(indices)};
}

ShapeResult InferCumulativeSum(const ShapeContext& c) {
  const int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis, c.Int(1));
  EGRET_RETURN_IF_ERROR(NormalizeAxis(axis, rank, c.What(1)).status());
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 2, 0));
  EGRET_RETURN_IF_ERROR(RequireFlag(c, 3, 0));
  return One(c.Out(c.D(0), 0));
}

// Data movement (OpGroup::kDataMovement).
std::vector<OpDef> DataMovementRows() {
  using G = OpGroup;
  return {
      // --- Data movement.
      {.name = "Reshape",
       .group = G::kDataMovement,
       .doc = "the same elements in row-major order, with new dims",
       .operands = {Data("x"), Ints("shape", "ints, at most one -1 (inferred)")},
       .results = "shape",
       .shape_fn = InferReshape,
       .onnx = "Reshape Flatten Squeeze Unsqueeze Gather MatMul Expand Einsum"},
      {.name = "Transpose",
       .group = G::kDataMovement,
       .doc = "permutes the dims",
       .operands = {Data("x"), Ints("perm", "ints, a permutation of 0..rank-1")},
       .results = "out.dims[i] = x.dims[perm[i]]",
       .shape_fn = InferTranspose,
       .onnx = "Transpose Einsum"},
      {.name = "Concat",
       .group = G::kDataMovement,
       .doc = "joins its x operands along axis",
       .operands = {Param("axis", "int"), Variadic(Data("x", "equal dims except on axis"))},
       .results = "sum of the x along axis",
       .shape_fn = InferConcat,
       .onnx = "Concat"},
      {.name = "Slice_shape",
       .group = G::kDataMovement,
       .doc = "out[i] = x[start + i] (what AUTOSPLIT_SLICE builds)",
       .operands = {Data("x"), Ints("start", "ints, one per dim"),
                    Ints("size", "ints, one per dim; start + size <= dims")},
       .results = "size",
       .shape_fn = InferSliceShape,
       .onnx = "none"},
      {.name = "StridedSlice",
       .group = G::kDataMovement,
       .doc = "Python slicing per dim",
       .operands = {Data("x"), Ints("begin", "ints, one per dim"), Ints("end", "ints, one per dim"),
                    Ints("strides", "ints, one per dim, non-zero")},
       .results = "ceil((end - begin) / stride) or 0 per dim",
       .shape_fn = InferStridedSlice,
       .onnx = "Slice Gather"},
      {.name = "Split",
       .group = G::kDataMovement,
       .doc = "cuts x along axis into pieces of the given sizes",
       .operands = {Data("x"), Param("axis", "int"),
                    Ints("sizes", "ints adding up to x.dims[axis]")},
       .num_results = kVariadic,
       .results = "one per size (or one Multi value)",
       .shape_fn = InferSplit,
       .onnx = "Split"},
      {.name = "Pad",
       .group = G::kDataMovement,
       .doc = "pads every dim: mode 0 constant, 1 symmetric, 2 reflect, 3 edge",
       .operands = {Data("x"), Ints("pads", "ints [before0,after0,before1,...] >= 0"),
                    Optional(Param("mode", "int 0-3"), "0"),
                    Optional(Param("value", "float"), "0")},
       .results = "dims[i] + before + after",
       .shape_fn = InferPad,
       .onnx = "Pad"},
  };
}

// Indexing: tiles, gathers, arg-reductions, top-k, scans (OpGroup::kIndexing).
std::vector<OpDef> IndexingRows() {
  using G = OpGroup;
  const std::vector<OperandDef> arg_reduce = {Data("x", "rank >= 1"), Param("axis", "int"),
                                              Optional(Param("keep_dims", "int 0 or 1"), "1"),
                                              Optional(Param("select_last", "int 0 or 1"), "0")};
  return {
      // --- Indexing: tiles, gathers, arg-reductions, top-k, scans.
      {.name = "Tile",
       .group = G::kIndexing,
       .doc = "repeats x multiples[i] times along each dim i",
       .operands = {Data("x"), Ints("multiples", "ints >= 0, one per dim")},
       .results = "dims[i] * multiples[i]",
       .shape_fn = InferTile,
       .onnx = "Tile Expand"},
      {.name = "Gather",
       .group = G::kIndexing,
       .doc = "takes the slices of data along axis that indices name",
       .operands = {Data("data", "rank >= 1"), Data("indices", "Int32 or Int64, in [-dim, dim)"),
                    Optional(Param("axis", "int"), "0")},
       .results = "data.dims[:axis] + indices.dims + data.dims[axis+1:]",
       .shape_fn = InferGather,
       .onnx = "Gather"},
      {.name = "Argmax",
       .group = G::kIndexing,
       .doc = "the index of the largest element along axis (the first, or the last, of equals)",
       .operands = arg_reduce,
       .results = "Int32 (or declared Int64), x with dim axis 1 (or removed)",
       .shape_fn = InferArgReduce,
       .onnx = "ArgMax"},
      {.name = "Argmin",
       .group = G::kIndexing,
       .doc = "the index of the smallest element along axis (the first, or the last, of equals)",
       .operands = arg_reduce,
       .results = "Int32 (or declared Int64), x with dim axis 1 (or removed)",
       .shape_fn = InferArgReduce,
       .onnx = "ArgMin"},
      {.name = "TopK",
       .group = G::kIndexing,
       .doc = "the k largest (or smallest) elements along axis, sorted, and their indices",
       .operands = {Data("x", "rank >= 1"), Param("k", "int in [0, dims[axis]]"),
                    Optional(Param("axis", "int"), "-1"),
                    Optional(Param("largest", "int 0 or 1"), "1")},
       .num_results = 2,
       .results = "values (like x), indices (Int32 or declared Int64); dim axis is k",
       .shape_fn = InferTopK,
       .onnx = "TopK"},
      {.name = "CumulativeSum",
       .group = G::kIndexing,
       .doc = "running sums along axis (exclusive: without the element; reverse: from the end)",
       .operands = {Data("x", "rank >= 1"), Param("axis", "int"),
                    Optional(Param("exclusive", "int 0 or 1"), "0"),
                    Optional(Param("reverse", "int 0 or 1"), "0")},
       .results = "like x",
       .shape_fn = InferCumulativeSum,
       .onnx = "CumSum"},
  };
}

}  // namespace egret::shape_internal
