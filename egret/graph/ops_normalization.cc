// The normalization and reduction family of the op table (Softmax,
// LayerNorm, RmsNorm, Batchnorm, LRN, the Reduce* ops): its rows, and the
// shape functions those rows name, beside them.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/op_rows_internal.h"
#include "egret/graph/shape_functions_internal.h"
#include "egret/support/status_macros.h"

namespace egret::shape_internal {

ShapeResult InferSoftmax(const ShapeContext& c) {
  int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis, c.IntOr(1, -1));
  EGRET_RETURN_IF_ERROR(NormalizeAxis(axis, rank, c.What(1)).status());
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferLayerNorm(const ShapeContext& c) {
  int rank = c.T(0).rank();
  if (rank < 1) return c.Error("x must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis_raw, c.IntOr(4, -1));
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_raw, rank, c.What(4)));
  EGRET_ASSIGN_OR_RETURN(auto eps, c.Float(3));
  if (!(eps >= 0)) return c.Error("epsilon must not be negative");
  Dims norm(c.D(0).begin() + axis, c.D(0).end());
  for (int i = 1; i <= 2; ++i) {
    auto b = BroadcastDims(c.D(i), norm);
    if (!b.ok() || *b != norm || c.T(i).rank() > static_cast<int>(norm.size())) {
      return c.Error(absl::StrFormat("%s %s does not broadcast to the normalized dims %s",
                                     c.def.InputName(i), DimsStr(c.D(i)), DimsStr(norm)));
    }
  }
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferBatchnorm(const ShapeContext& c) {
  if (c.T(0).rank() < 1) return c.Error("x must have rank >= 1");
  int64_t ch = c.D(0).back();
  for (int i = 1; i <= 2; ++i) {
    if (c.T(i).rank() != 1 || c.D(i)[0] != ch) {
      return c.Error(absl::StrFormat("%s must be [%d] (the channel depth), got %s",
                                     c.def.InputName(i), ch, c.T(i).ToString()));
    }
  }
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferLrn(const ShapeContext& c) {
  EGRET_RETURN_IF_ERROR(c.RequireRank(0, 4));
  EGRET_ASSIGN_OR_RETURN(auto size, c.Int(1));
  if (size < 1) return c.Error(absl::StrCat("size ", size, " must be positive"));
  for (int i = 2; i <= 4; ++i) EGRET_RETURN_IF_ERROR(c.Float(i).status());
  return One(c.Out(c.D(0), 0));
}

ShapeResult InferReduce(const ShapeContext& c) {
  int rank = c.T(0).rank();
  EGRET_ASSIGN_OR_RETURN(auto axes, c.Ints(1));
  EGRET_ASSIGN_OR_RETURN(auto keep, c.IntOr(2, 1));
  if (keep != 0 && keep != 1) return c.Error("keep_dims must be 0 or 1");
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    EGRET_ASSIGN_OR_RETURN(auto n, NormalizeAxis(a, rank, c.What(1)));
    if (reduced[n]) return c.Error(absl::StrCat("axis ", a, " is listed twice"));
    reduced[n] = true;
  }
  Dims out;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      out.push_back(c.D(0)[i]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  return One(c.Out(std::move(out), 0));
}

// Normalization and reductions (OpGroup::kNormalization).
std::vector<OpDef> NormalizationRows() {
  using G = OpGroup;
  const std::vector<OperandDef> reduce = {Data("x"),
                                          Axes("axes", "ints, distinct; empty: every axis"),
                                          Optional(Param("keep_dims", "int 0 or 1"), "1")};
  return {
      // --- Normalization and reductions.
      {.name = "Softmax",
       .group = G::kNormalization,
       .doc = "exp(x - max) / sum exp(x - max) along axis",
       .operands = {Data("x", "rank >= 1"), Optional(Param("axis", "int"), "-1")},
       .results = "like x",
       .shape_fn = InferSoftmax,
       .onnx = "Softmax LogSoftmax"},
      {.name = "LayerNorm",
       .group = G::kNormalization,
       .doc = "(x - mean) / sqrt(var + epsilon) * gamma + beta over dims axis..end",
       .operands = {Data("x", "rank >= 1"), Data("gamma", "broadcasts to x.dims[axis:]"),
                    Data("beta", "broadcasts to x.dims[axis:]"), Param("epsilon", "float"),
                    Optional(Param("axis", "int"), "-1")},
       .results = "like x",
       .shape_fn = InferLayerNorm,
       .onnx = "LayerNormalization"},
      {.name = "RmsNorm",
       .group = G::kNormalization,
       .doc = "x / sqrt(mean(x^2) + epsilon) * gamma + beta over dims axis..end (QNN's RmsNorm "
              "over the axes axis..end)",
       .operands = {Data("x", "rank >= 1"), Data("gamma", "broadcasts to x.dims[axis:]"),
                    Data("beta", "broadcasts to x.dims[axis:]"), Param("epsilon", "float"),
                    Optional(Param("axis", "int"), "-1")},
       .results = "like x",
       .shape_fn = InferLayerNorm,
       .onnx = "RMSNormalization"},
      {.name = "Batchnorm",
       .group = G::kNormalization,
       .doc = "x * scale[c] + offset[c] over the last dim (QNN's folded form)",
       .operands = {Data("x", "[..., c]"), Data("scale", "[c]"), Data("offset", "[c]")},
       .results = "like x",
       .shape_fn = InferBatchnorm,
       .onnx = "BatchNormalization"},
      {.name = "LRN",
       .group = G::kNormalization,
       .doc = "local response normalization across channels",
       .operands = {Data("x", "[b,h,w,c]"), Param("size", "int"), Param("alpha", "float"),
                    Param("beta", "float"), Param("bias", "float")},
       .results = "like x",
       .shape_fn = InferLrn,
       .onnx = "LRN"},
      {.name = "ReduceMean",
       .group = G::kNormalization,
       .doc = "mean over axes",
       .operands = reduce,
       .results = "x without (or with 1 on) the reduced axes",
       .shape_fn = InferReduce,
       .onnx = "ReduceMean"},
      {.name = "ReduceSum",
       .group = G::kNormalization,
       .doc = "sum over axes",
       .operands = reduce,
       .results = "x without (or with 1 on) the reduced axes",
       .shape_fn = InferReduce,
       .onnx = "ReduceSum Einsum"},
      {.name = "ReduceMax",
       .group = G::kNormalization,
       .doc = "maximum over axes",
       .operands = reduce,
       .results = "x without (or with 1 on) the reduced axes",
       .shape_fn = InferReduce,
       .onnx = "ReduceMax"},
  };
}

}  // namespace egret::shape_internal
