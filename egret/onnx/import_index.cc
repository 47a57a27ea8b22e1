// Indexing and scan ONNX ops: Expand, Tile, Range, CumSum, ArgMax, ArgMin,
// TopK, and the Gather op for what DoGather cannot fold or slice. Axes on a
// 4-D NHWC activation are remapped (kPos) so the layout is kept.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {
namespace {

bool AllOnes(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
}

// `out` = `in` repeated multiples[i] times along dim i (ONNX layout).
absl::Status TileTo(Importer& im, const std::string& in, const std::vector<int64_t>& multiples,
                    const std::string& out) {
  const Value& x = im.values_.at(in);
  const int rank = x.type.rank();
  if (static_cast<int>(multiples.size()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrFormat("repeats has %d values for a rank-%d input", multiples.size(), rank));
  }
  for (int64_t m : multiples) {
    if (m < 0) return absl::InvalidArgumentError("repeats must not be negative");
  }
  if (AllOnes(multiples)) {
    im.Alias(out, in);
    return absl::OkStatus();
  }
  const Layout l = im.NativeLayout(in);
  std::vector<int64_t> m = multiples;
  if (l == kNhwc) {
    for (int j = 0; j < 4; ++j) m[j] = multiples[kToNhwc[j]];
  }
  EGRET_ASSIGN_OR_RETURN(auto xin, im.Get(in, l));
  EGRET_ASSIGN_OR_RETURN(auto r, im.Emit("Tile", {xin, im.ShapeParam(m)}, out));
  im.SetValue(out, r, l);
  return absl::OkStatus();
}

absl::Status DoTile(Importer& im) {
  EGRET_ASSIGN_OR_RETURN(auto repeats, im.ConstInts(1, "repeats"));
  return TileTo(im, im.InName(0), repeats, im.Out());
}

// Expand: numpy broadcasting of x and `shape`, as a Reshape that adds the
// leading 1s and a Tile of the dims that grow.
absl::Status DoExpand(Importer& im) {
  EGRET_ASSIGN_OR_RETURN(auto shape, im.ConstInts(1, "shape"));
  const Value& x = im.In(0);
  for (int64_t s : shape) {
    if (s < 0) return absl::InvalidArgumentError("shape has a negative size");
  }
  EGRET_ASSIGN_OR_RETURN(auto dims, BroadcastDims(x.type.dims, Dims(shape.begin(), shape.end())));
  if (static_cast<int>(dims.size()) > kMaxRank) return Unmapped("result rank exceeds 8");
  const int rank = static_cast<int>(dims.size());
  if (x.constant && x.type.num_elements() == 1) {
    TensorType t(x.type.dtype, dims, x.type.zero_offset, x.type.stepsize);
    if (t.byte_size() <= static_cast<int64_t>(im.options_.max_file_bytes) * 4) {
      im.SetConst(im.Out(), SplatTensor(*x.constant, std::move(t)), /*splat=*/true);
      return absl::OkStatus();
    }
  }
  Dims padded(rank - x.type.rank(), 1);
  padded.insert(padded.end(), x.type.dims.begin(), x.type.dims.end());
  std::string xr = im.InName(0);
  if (padded != x.type.dims) {
    xr = im.Temp(im.Out(), "rank");
    EGRET_RETURN_IF_ERROR(im.ReshapeTo(im.InName(0), padded, xr));
  }
  std::vector<int64_t> multiples(rank);
  for (int i = 0; i < rank; ++i) multiples[i] = padded[i] == dims[i] ? 1 : dims[i];
  return TileTo(im, xr, multiples, im.Out());
}

// Range(start, limit, delta)[i] = start + i * delta, for
// n = max(ceil((limit - start) / delta), 0) elements: start + delta * [0, 1,
// ..., n-1], with n from constant bounds, else the length the model declares
// for the output. Constant bounds fold like any node (import_folding.cc).
absl::Status DoRange(Importer& im) {
  const Value& start = im.In(0);
  const Value& limit = im.In(1);
  const Value& delta = im.In(2);
  for (const Value* v : {&start, &limit, &delta}) {
    if (v->type.num_elements() != 1) {
      return absl::InvalidArgumentError("start, limit and delta must be scalars");
    }
  }
  const DType dt = start.type.dtype;
  if (!IsPlainInteger(dt) && !IsFloat(dt)) {
    return Unmapped(absl::StrCat("Range of ", std::string(DTypeName(dt))));
  }
  constexpr int64_t kMaxRange = int64_t{1} << 20;  // elements of the index constant
  int64_t n = -1;
  if (start.constant && limit.constant && delta.constant) {
    if (IsPlainInteger(dt)) {
      const int64_t s = TensorInts(*start.constant)[0], l = TensorInts(*limit.constant)[0],
                    d = TensorInts(*delta.constant)[0];
      if (d == 0) return absl::InvalidArgumentError("delta is 0");
      const int64_t diff = l - s;
      n = d > 0 ? (diff > 0 ? (diff + d - 1) / d : 0) : (diff < 0 ? (diff + d + 1) / d : 0);
    } else {
      const double s = start.constant->GetReal(0), l = limit.constant->GetReal(0),
                   d = delta.constant->GetReal(0);
      if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
        return absl::InvalidArgumentError("delta is 0 or a bound is not finite");
      }
      const double count = std::max(std::ceil((l - s) / d), 0.0);
      if (count > static_cast<double>(kMaxRange)) return Unmapped("the range is too long");
      n = static_cast<int64_t>(count);
    }
  } else {
    auto declared = im.declared_types_.find(im.Out());
    absl::StatusOr<TensorType> t = declared == im.declared_types_.end()
                                       ? absl::StatusOr<TensorType>(absl::NotFoundError(""))
                                       : im.TypeFromValueInfo(*declared->second, "output", false);
    if (!t.ok() || t->rank() != 1 || t->dtype != dt) {
      return Unmapped("start, limit or delta is not a constant and the output length is unknown");
    }
    n = t->dims[0];
  }
  if (n > kMaxRange) return Unmapped("the range is too long");
  std::vector<double> iota(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) iota[i] = static_cast<double>(i);
  const std::string steps = im.Temp(im.Out(), "steps");
  if (delta.constant && IsFloat(dt)) {
    const double d = delta.constant->GetReal(0);
    for (double& v : iota) v *= d;
    im.SetConst(steps, Tensor::FromValues(TensorType(dt, {n}), iota));
  } else {
    const std::string index = im.Temp(im.Out(), "index");
    im.SetConst(index, Tensor::FromValues(TensorType(dt, {n}), iota));
    EGRET_RETURN_IF_ERROR(im.Binary("Mul", im.InName(2), index, steps));
  }
  return im.Binary("Add", im.InName(0), steps, im.Out());
}

absl::Status DoCumSum(Importer& im) {
  EGRET_ASSIGN_OR_RETURN(auto axes, im.ConstInts(1, "axis"));
  if (axes.size() != 1) return absl::InvalidArgumentError("axis must hold one value");
  const int rank = im.In(0).type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axes[0], rank, "axis"));
  const int64_t exclusive = im.AttrInt("exclusive", 0) != 0;
  const int64_t reverse = im.AttrInt("reverse", 0) != 0;
  const Layout l = im.NativeLayout(im.InName(0));
  EGRET_ASSIGN_OR_RETURN(auto x, im.Get(im.InName(0), l));
  std::vector<ValueRef> ins = {x, im.IntConst(l == kNhwc ? kPos[axis] : axis)};
  if (exclusive || reverse) {
    ins.push_back(im.IntConst(exclusive));
    ins.push_back(im.IntConst(reverse));
  }
  EGRET_ASSIGN_OR_RETURN(auto r, im.Emit("CumulativeSum", std::move(ins), im.Out()));
  im.SetValue(im.Out(), r, l);
  return absl::OkStatus();
}

// ArgMax, ArgMin: Int64 indices. Without keepdims an NHWC input is reduced
// with the dim kept, then reshaped (as DoReduce does).
absl::Status DoArgReduce(Importer& im) {
  const std::string op = im.cur_->op_type() == "ArgMax" ? "Argmax" : "Argmin";
  const Value& x = im.In(0);
  const int rank = x.type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(im.AttrInt("axis", 0), rank, "axis"));
  const bool keep = im.AttrInt("keepdims", 1) != 0;
  const bool last = im.AttrInt("select_last_index", 0) != 0;
  const Layout l = im.NativeLayout(im.InName(0));
  const bool direct = keep || l == kPlain;
  const std::string dst = direct ? im.Out() : im.Temp(im.Out(), "keep");
  EGRET_ASSIGN_OR_RETURN(auto xin, im.Get(im.InName(0), l));
  std::vector<ValueRef> ins = {xin, im.IntConst(l == kNhwc ? kPos[axis] : axis),
                               im.IntConst(direct ? keep : 1)};
  if (last) ins.push_back(im.IntConst(1));
  EGRET_ASSIGN_OR_RETURN(auto r, im.Emit(op, std::move(ins), dst, {ScalarType(DType::kInt64)}));
  im.SetValue(dst, r, l);
  if (direct) return absl::OkStatus();
  Dims out = x.type.dims;
  out.erase(out.begin() + axis);
  return im.ReshapeTo(dst, out, im.Out());
}

absl::Status DoTopK(Importer& im) {
  int64_t k;
  if (im.opset_ < 10) {
    k = im.AttrInt("k", -1);
  } else {
    EGRET_ASSIGN_OR_RETURN(auto ks, im.ConstInts(1, "k"));
    if (ks.size() != 1) return absl::InvalidArgumentError("k must hold one value");
    k = ks[0];
  }
  const int rank = im.In(0).type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(im.AttrInt("axis", -1), rank, "axis"));
  const int64_t largest = im.AttrInt("largest", 1) != 0;
  // sorted = 0 leaves the order to the implementation: sorted is one.
  const Layout l = im.NativeLayout(im.InName(0));
  EGRET_ASSIGN_OR_RETURN(auto x, im.Get(im.InName(0), l));
  std::vector<ValueRef> ins = {x, im.IntConst(k), im.IntConst(l == kNhwc ? kPos[axis] : axis)};
  if (!largest) ins.push_back(im.IntConst(0));
  std::string name;
  for (int i = 0; i < im.cur_->output_size() && name.empty(); ++i) name = im.Out(i);
  EGRET_ASSIGN_OR_RETURN(auto id, im.EmitNode("TopK", std::move(ins), name,
                                              {TensorType(), ScalarType(DType::kInt64)}));
  for (int i = 0; i < 2; ++i) {
    if (im.OutputUsed(i)) im.SetValue(im.Out(i), ValueRef{id, static_cast<uint32_t>(i)}, l);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status EmitGather(Importer& im, int axis) {
  const Value& x = im.In(0);
  const Value& idx = im.In(1);
  if (idx.type.dtype != DType::kInt32 && idx.type.dtype != DType::kInt64) {
    return absl::InvalidArgumentError("indices must be int32 or int64");
  }
  // 1-D indices keep the rank: an NHWC input stays NHWC.
  const Layout l = IsNhwcActivation(x) && idx.type.rank() == 1 ? kNhwc : kPlain;
  EGRET_ASSIGN_OR_RETURN(auto data, im.Get(im.InName(0), l));
  EGRET_ASSIGN_OR_RETURN(auto indices, im.Get(im.InName(1), kPlain));
  EGRET_ASSIGN_OR_RETURN(
      auto r,
      im.Emit("Gather", {data, indices, im.IntConst(l == kNhwc ? kPos[axis] : axis)}, im.Out()));
  im.SetValue(im.Out(), r, l);
  return absl::OkStatus();
}

void RegisterIndexHandlers(HandlerTable& t) {
  t["Tile"] = DoTile;
  t["Expand"] = DoExpand;
  t["Range"] = DoRange;
  t["CumSum"] = DoCumSum;
  t["ArgMax"] = DoArgReduce;
  t["ArgMin"] = DoArgReduce;
  t["TopK"] = DoTopK;
}

}  // namespace egret::onnx_import
