// Data movement and shape ops: Reshape, Transpose, Concat, Slice, Split, Pad,
// Cast, Gather, Shape, constants, Resize, reductions.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

absl::Status Importer::DoReshape() {
  const std::string& t = cur_->op_type();
  const Value& x = In(0);
  const Dims& in = x.type.dims;
  const int rank = x.type.rank();
  Dims out;
  if (t == "Reshape") {
    std::vector<int64_t> shape;
    if (opset_ < 5) {
      shape = AttrInts("shape").value_or(std::vector<int64_t>{});
    } else {
      EGRET_ASSIGN_OR_RETURN(auto s, ConstInts(1, "shape"));
      shape = std::move(s);
    }
    const bool allow_zero = AttrInt("allowzero", 0) != 0;
    int infer = -1;
    int64_t known = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t s = shape[i];
      if (s == 0 && !allow_zero) {
        if (static_cast<int>(i) >= rank) {
          return absl::InvalidArgumentError("shape copies a dim the input lacks");
        }
        s = in[i];
      } else if (s == -1) {
        if (infer >= 0) return absl::InvalidArgumentError("shape has more than one -1");
        infer = static_cast<int>(i);
        s = 1;
      } else if (s < 0) {
        return absl::InvalidArgumentError(absl::StrCat("shape has a negative size ", s));
      }
      out.push_back(s);
      known = SaturatingMul(known, s);
    }
    if (infer >= 0) {
      if (known == 0 || x.type.num_elements() % known != 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("cannot reshape %s to [%s]", DimsStr(in), absl::StrJoin(shape, ",")));
      }
      out[infer] = x.type.num_elements() / known;
    }
  } else if (t == "Flatten") {
    int64_t axis = AttrInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) return absl::InvalidArgumentError("axis out of range");
    out = {Product(in, 0, axis), Product(in, axis, rank)};
  } else if (t == "Squeeze") {
    std::optional<std::vector<int64_t>> axes;
    if (opset_ < 13) {
      axes = AttrInts("axes");
    } else if (Has(1)) {
      EGRET_ASSIGN_OR_RETURN(auto a, ConstInts(1, "axes"));
      axes = std::move(a);
    }
    std::vector<bool> drop(rank, false);
    if (!axes) {
      for (int i = 0; i < rank; ++i) drop[i] = in[i] == 1;
    } else {
      for (int64_t a : *axes) {
        EGRET_ASSIGN_OR_RETURN(auto ax, NormalizeAxis(a, rank, "axis"));
        if (in[ax] != 1) return absl::InvalidArgumentError("squeezes a dim that is not 1");
        drop[ax] = true;
      }
    }
    for (int i = 0; i < rank; ++i) {
      if (!drop[i]) out.push_back(in[i]);
    }
  } else {  // Unsqueeze
    std::vector<int64_t> axes;
    if (opset_ < 13) {
      axes = AttrInts("axes").value_or(std::vector<int64_t>{});
    } else {
      EGRET_ASSIGN_OR_RETURN(auto a, ConstInts(1, "axes"));
      axes = std::move(a);
    }
    if (axes.size() > static_cast<size_t>(kMaxRank)) {
      return absl::InvalidArgumentError(absl::StrCat("unsqueezes ", axes.size(), " axes"));
    }
    const int out_rank = rank + static_cast<int>(axes.size());
    std::vector<bool> one(out_rank, false);
    for (int64_t a : axes) {
      EGRET_ASSIGN_OR_RETURN(auto ax, NormalizeAxis(a, out_rank, "axis"));
      if (one[ax]) return absl::InvalidArgumentError("repeated axis");
      one[ax] = true;
    }
    for (int i = 0, j = 0; i < out_rank; ++i) out.push_back(one[i] ? 1 : in[j++]);
  }
  return ReshapeTo(InName(0), out, Out());
}

absl::Status Importer::DoTranspose() {
  Value& x = In(0);
  const int rank = x.type.rank();
  std::vector<int64_t> perm;
  if (auto p = AttrInts("perm")) {
    perm = *p;
  } else {
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  std::vector<bool> seen(rank, false);
  if (static_cast<int>(perm.size()) != rank) return absl::InvalidArgumentError("bad perm");
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) return absl::InvalidArgumentError("bad perm");
    seen[p] = true;
  }
  auto identity = [](const std::vector<int64_t>& q) {
    for (size_t i = 0; i < q.size(); ++i) {
      if (q[i] != static_cast<int64_t>(i)) return false;
    }
    return true;
  };
  Layout in_layout = NativeLayout(InName(0));
  std::vector<int64_t> q = perm;  // perm applied to the native layout, plain result
  if (in_layout == kNhwc) {
    for (int i = 0; i < 4; ++i) q[i] = kPos[perm[i]];
  }
  Layout out_layout = kPlain;
  if (rank == 4 && options_.nhwc && !identity(q)) {
    // The result in NHWC: out_nhwc[j] = out[kToNhwc[j]].
    std::vector<int64_t> q2(4);
    for (int j = 0; j < 4; ++j) q2[j] = q[kToNhwc[j]];
    if (identity(q2) || in_layout == kNhwc) {
      q = q2;
      out_layout = kNhwc;
    }
  }
  if (identity(q)) {
    EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), in_layout));
    Value v;
    v.type = x.type;
    for (int i = 0; i < rank; ++i) v.type.dims[i] = x.type.dims[perm[i]];
    v.native = out_layout;
    v.ref[out_layout] = xin;
    values_[Out()] = std::move(v);
    return absl::OkStatus();
  }
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), in_layout));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Transpose", {xin, ShapeParam(q)}, Out()));
  SetValue(Out(), r, out_layout);
  return absl::OkStatus();
}

absl::Status Importer::DoConcat() {
  const int n = cur_->input_size();
  if (n == 0) return absl::InvalidArgumentError("has no inputs");
  const int rank = In(0).type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis,
                         NormalizeAxis(AttrInt("axis", opset_ < 4 ? 1 : 0), rank, "axis"));
  bool any_nhwc = false;
  for (int i = 0; i < n; ++i) {
    any_nhwc = any_nhwc || IsNhwcActivation(In(i));
    if (In(i).type.rank() != rank) return absl::InvalidArgumentError("inputs differ in rank");
  }
  if (n == 1) {
    Alias(Out(), InName(0));
    return absl::OkStatus();
  }
  const Layout l = rank == 4 && any_nhwc ? kNhwc : kPlain;
  std::vector<ValueRef> ins = {IntConst(l == kNhwc ? kPos[axis] : axis)};
  for (int i = 0; i < n; ++i) {
    EGRET_ASSIGN_OR_RETURN(auto r, Get(InName(i), l));
    ins.push_back(r);
  }
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Concat", ins, Out()));
  SetValue(Out(), r, l);
  return absl::OkStatus();
}

absl::Status Importer::DoSlice() {
  const Value& x = In(0);
  const int rank = x.type.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset_ < 10) {
    starts = AttrInts("starts").value_or(std::vector<int64_t>{});
    ends = AttrInts("ends").value_or(std::vector<int64_t>{});
    axes = AttrInts("axes").value_or(std::vector<int64_t>{});
  } else {
    EGRET_ASSIGN_OR_RETURN(auto s, ConstInts(1, "starts"));
    EGRET_ASSIGN_OR_RETURN(auto e, ConstInts(2, "ends"));
    starts = s, ends = e;
    if (Has(3)) {
      EGRET_ASSIGN_OR_RETURN(auto a, ConstInts(3, "axes"));
      axes = a;
    }
    if (Has(4)) {
      EGRET_ASSIGN_OR_RETURN(auto st, ConstInts(4, "steps"));
      steps = st;
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return absl::InvalidArgumentError("starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> begin(rank, 0), end(rank, std::numeric_limits<int64_t>::max()),
      stride(rank, 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    EGRET_ASSIGN_OR_RETURN(auto ax, NormalizeAxis(axes[i], rank, "axis"));
    if (steps[i] == 0) return absl::InvalidArgumentError("step 0");
    begin[ax] = starts[i];
    end[ax] = ends[i];
    stride[ax] = steps[i];
  }
  return SliceTo(InName(0), begin, end, stride, Out());
}

absl::Status Importer::DoSplit() {
  const Value& x = In(0);
  const int rank = x.type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(AttrInt("axis", 0), rank, "axis"));
  std::vector<int64_t> sizes;
  if (opset_ < 13) {
    sizes = AttrInts("split").value_or(std::vector<int64_t>{});
  } else if (Has(1)) {
    EGRET_ASSIGN_OR_RETURN(auto s, ConstInts(1, "split"));
    sizes = s;
  }
  const int n = cur_->output_size();
  if (sizes.empty()) {
    const int64_t d = x.type.dims[axis];
    if (n == 0 || d % n != 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("dim %d (%d) does not split into %d equal parts", axis, d, n));
    }
    sizes.assign(n, d / n);
  }
  if (static_cast<int>(sizes.size()) != n) {
    return absl::InvalidArgumentError("split sizes and outputs differ in number");
  }
  Layout l = NativeLayout(InName(0));
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), l));
  std::string name;
  for (int k = 0; k < n && name.empty(); ++k) name = Out(k);
  EGRET_ASSIGN_OR_RETURN(
      auto id,
      EmitNode("Split", {xin, IntConst(l == kNhwc ? kPos[axis] : axis), ShapeParam(sizes)}, name));
  for (int k = 0; k < n; ++k) {
    if (OutputUsed(k)) SetValue(Out(k), ValueRef{id, static_cast<uint32_t>(k)}, l);
  }
  return absl::OkStatus();
}

absl::Status Importer::DoPad() {
  const Value& x = In(0);
  const int rank = x.type.rank();
  std::vector<int64_t> pads;
  double value = 0;
  std::string mode = AttrStr("mode", "constant");
  if (opset_ < 11) {
    pads = AttrInts(opset_ < 2 ? "paddings" : "pads").value_or(std::vector<int64_t>{});
    value = AttrFloat("value", 0);
  } else {
    EGRET_ASSIGN_OR_RETURN(auto p, ConstInts(1, "pads"));
    pads = p;
    if (Has(2)) {
      EGRET_ASSIGN_OR_RETURN(auto v, ConstFloats(2, "constant_value"));
      if (v.size() != 1) return absl::InvalidArgumentError("constant_value must be a scalar");
      value = v[0];
    }
    if (Has(3)) return Unmapped("axes input");
  }
  if (static_cast<int>(pads.size()) != 2 * rank) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pads has %d values, input rank %d needs %d", pads.size(), rank, 2 * rank));
  }
  for (int64_t p : pads) {
    if (p < 0) return Unmapped("negative pads (cropping)");
  }
  int64_t m;
  if (mode == "constant") {
    m = 0;
  } else if (mode == "reflect") {
    m = 2;
  } else if (mode == "edge") {
    m = 3;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "'"));
  }
  Layout l = NativeLayout(InName(0));
  std::vector<int64_t> ep(2 * rank);
  for (int j = 0; j < rank; ++j) {
    int d = l == kNhwc ? kToNhwc[j] : j;
    ep[2 * j] = pads[d];
    ep[2 * j + 1] = pads[rank + d];
  }
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), l));
  std::vector<ValueRef> ins = {xin, ShapeParam(ep), IntConst(m)};
  if (m == 0) ins.push_back(FloatConst(value));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Pad", ins, Out()));
  SetValue(Out(), r, l);
  return absl::OkStatus();
}

absl::Status Importer::DoCast() {
  EGRET_ASSIGN_OR_RETURN(auto dt, DTypeFromOnnx(static_cast<int32_t>(AttrInt("to", 0))));
  Layout l = NativeLayout(InName(0));
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), l));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Cast", {xin}, Out(), {ScalarType(dt)}));
  SetValue(Out(), r, l);
  return absl::OkStatus();
}

absl::Status Importer::DoGather() {
  const Value& x = In(0);
  const Value& idx = In(1);
  const int rank = x.type.rank();
  if (rank == 0) return absl::InvalidArgumentError("data must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(AttrInt("axis", 0), rank, "axis"));
  if (!idx.constant) return EmitGather(*this, axis);
  std::vector<int64_t> ind = TensorInts(*idx.constant);
  const int64_t dim = x.type.dims[axis];
  for (int64_t& i : ind) {
    if (i < -dim || i >= dim) return absl::InvalidArgumentError("index out of range");
    if (i < 0) i += dim;
  }
  Dims out = Dims(x.type.dims.begin(), x.type.dims.begin() + axis);
  out.insert(out.end(), idx.type.dims.begin(), idx.type.dims.end());
  out.insert(out.end(), x.type.dims.begin() + axis + 1, x.type.dims.end());
  // A run of consecutive indices is a slice; other indices, the Gather op.
  for (size_t i = 1; i < ind.size(); ++i) {
    if (ind[i] != ind[0] + static_cast<int64_t>(i)) return EmitGather(*this, axis);
  }
  if (ind.empty()) return EmitGather(*this, axis);
  std::vector<int64_t> begin(rank, 0), end(rank, std::numeric_limits<int32_t>::max()),
      stride(rank, 1);
  begin[axis] = ind[0];
  end[axis] = ind[0] + static_cast<int64_t>(ind.size());
  std::string sliced = idx.type.rank() == 1 ? Out() : Temp(Out(), "slice");
  EGRET_RETURN_IF_ERROR(SliceTo(InName(0), begin, end, stride, sliced));
  if (sliced != Out()) return ReshapeTo(sliced, out, Out());
  return absl::OkStatus();
}

absl::Status Importer::DoShape() {
  const Value& x = In(0);
  const std::string& t = cur_->op_type();
  if (t == "Size") {
    int64_t n = x.type.num_elements();
    Tensor s(ScalarType(DType::kInt64));
    std::memcpy(const_cast<uint8_t*>(s.bytes().data()), &n, 8);
    SetConst(Out(), std::move(s));
    return absl::OkStatus();
  }
  const int rank = x.type.rank();
  int64_t start = AttrInt("start", 0), end = AttrInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<uint8_t> bytes;
  for (int64_t i = start; i < end; ++i) {
    int64_t d = x.type.dims[i];
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&d);
    bytes.insert(bytes.end(), p, p + 8);
  }
  SetConst(Out(), *Tensor::FromBytes(TensorType(DType::kInt64, {end - start}), bytes));
  return absl::OkStatus();
}

absl::Status Importer::DoConstant() {
  const onnx::AttributeProto* a = nullptr;
  for (const auto& at : cur_->attribute()) a = &at;
  if (a == nullptr) return absl::InvalidArgumentError("has no value attribute");
  const std::string& n = a->name();
  if (n == "value") {
    EGRET_ASSIGN_OR_RETURN(auto t, TensorFromProto(a->t()));
    SetConst(Out(), std::move(t));
  } else if (n == "value_float" || n == "value_floats") {
    std::vector<double> v;
    if (n == "value_float") {
      v.push_back(a->f());
    } else {
      v.assign(a->floats().begin(), a->floats().end());
    }
    Dims d;
    if (n == "value_floats") d.push_back(static_cast<int64_t>(v.size()));
    SetConst(Out(), Tensor::FromValues(TensorType(DType::kFloat32, d), v));
  } else if (n == "value_int" || n == "value_ints") {
    std::vector<int64_t> v;
    if (n == "value_int") {
      v.push_back(a->i());
    } else {
      v.assign(a->ints().begin(), a->ints().end());
    }
    Dims d;
    if (n == "value_ints") d.push_back(static_cast<int64_t>(v.size()));
    std::vector<uint8_t> bytes(v.size() * 8);
    if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
    SetConst(Out(), *Tensor::FromBytes(TensorType(DType::kInt64, d), bytes));
  } else {
    return absl::UnimplementedError(absl::StrCat("Constant attribute '", n, "' is not supported"));
  }
  return absl::OkStatus();
}

absl::Status Importer::DoConstantOfShape() {
  EGRET_ASSIGN_OR_RETURN(auto shape, ConstInts(0, "shape"));
  Dims d;
  for (int64_t s : shape) {
    if (s < 0) return absl::InvalidArgumentError("shape has a negative size");
    d.push_back(s);
  }
  if (static_cast<int>(d.size()) > kMaxRank) return Unmapped("rank exceeds 8");
  Tensor value(TensorType(DType::kFloat32, {1}));
  if (const auto* a = Attr("value")) {
    EGRET_ASSIGN_OR_RETURN(auto t, TensorFromProto(a->t()));
    if (t.num_elements() != 1) return absl::InvalidArgumentError("value must have one element");
    value = std::move(t);
  }
  TensorType type(value.type().dtype, d);
  if (type.byte_size() > static_cast<int64_t>(options_.max_file_bytes) * 4) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("constant %s is too large", type.ToString()));
  }
  SetConst(Out(), SplatTensor(value, type), /*splat=*/true);
  return absl::OkStatus();
}

absl::Status Importer::DoResize() {
  if (!options_.nhwc) return Unmapped("Resize needs the NHWC layout");
  const std::string& t = cur_->op_type();
  const Value& x = In(0);
  if (x.type.rank() != 4) return Unmapped("only 4-D resizing is mapped");
  const Dims& in = x.type.dims;
  std::vector<double> scales;
  Dims out;
  std::string transform = "asymmetric", nearest = "floor";
  if (t == "Upsample" && opset_ < 9) {
    scales = AttrFloats("scales").value_or(std::vector<double>{});
  } else if (t == "Upsample" || opset_ < 11) {
    EGRET_ASSIGN_OR_RETURN(auto s, ConstFloats(1, "scales"));
    scales = s;
  } else {
    transform = AttrStr("coordinate_transformation_mode", "half_pixel");
    nearest = AttrStr("nearest_mode", "round_prefer_floor");
    if (Has(3)) {
      EGRET_ASSIGN_OR_RETURN(auto s, ConstInts(3, "sizes"));
      out.assign(s.begin(), s.end());
    } else if (Has(2)) {
      EGRET_ASSIGN_OR_RETURN(auto s, ConstFloats(2, "scales"));
      scales = s;
    }
    if (AttrInt("exclude_outside", 0) != 0) return Unmapped("exclude_outside");
    // Opset 18's antialiasing, axes and aspect-ratio policy: the opaque
    // Resize's ONNX kernel has them, egret's Resize does not.
    if (AttrInt("antialias", 0) != 0) return Unmapped("antialias");
    if (AttrInts("axes")) return Unmapped("axes");
    if (AttrStr("keep_aspect_ratio_policy", "stretch") != "stretch") {
      return Unmapped("keep_aspect_ratio_policy");
    }
  }
  if (out.empty()) {
    if (scales.size() != 4) return absl::InvalidArgumentError("scales must have 4 values");
    for (int i = 0; i < 4; ++i) {
      std::optional<int64_t> size =
          DoubleToInt64(std::floor(static_cast<double>(in[i]) * scales[i]), 0, kMaxElements);
      if (!size.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("scale %g of dim %d (%d) gives no valid size", scales[i], i, in[i]));
      }
      out.push_back(*size);
      // egret maps coordinates with out/in: the given scale must be that ratio.
      double ratio = in[i] == 0 ? 1 : static_cast<double>(out[i]) / static_cast<double>(in[i]);
      if (std::fabs(ratio - scales[i]) > 1e-6 * std::max(1.0, scales[i])) {
        return Unmapped("scale is not out/in");
      }
    }
  }
  if (out.size() != 4) return absl::InvalidArgumentError("sizes must have 4 values");
  if (out[0] != in[0] || out[1] != in[1]) return Unmapped("resizes batch or channel");
  std::string mode = AttrStr("mode", "nearest");
  int64_t m;
  if (mode == "nearest") {
    m = 0;
  } else if (mode == "linear" || mode == "bilinear") {
    m = 1;
  } else {
    return Unmapped(absl::StrCat("mode ", mode));
  }
  static const absl::flat_hash_map<std::string, int64_t> kTransform = {
      {"half_pixel", 0}, {"align_corners", 1}, {"asymmetric", 2}, {"pytorch_half_pixel", 3}};
  static const absl::flat_hash_map<std::string, int64_t> kNearest = {
      {"round_prefer_floor", 0}, {"round_prefer_ceil", 1}, {"floor", 2}, {"ceil", 3}};
  auto tr = kTransform.find(transform);
  if (tr == kTransform.end()) return Unmapped(absl::StrCat("coordinate transform ", transform));
  auto nm = kNearest.find(nearest);
  if (nm == kNearest.end()) return absl::InvalidArgumentError("unknown nearest_mode");
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Resize",
                                      {xin, ShapeParam({out[0], out[2], out[3], out[1]}),
                                       IntConst(m), IntConst(tr->second), IntConst(nm->second)},
                                      Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoReduce() {
  const std::string& t = cur_->op_type();
  const Value& x = In(0);
  const int rank = x.type.rank();
  const bool keep = AttrInt("keepdims", 1) != 0;
  std::optional<std::vector<int64_t>> axes = AttrInts("axes");
  // ReduceSum takes its axes as an input from opset 13, the other reductions
  // from opset 18.
  if ((t == "ReduceSum" && opset_ >= 13) || opset_ >= 18) {
    axes.reset();
    if (Has(1)) {
      EGRET_ASSIGN_OR_RETURN(auto a, ConstInts(1, "axes"));
      axes = a;
    }
  }
  std::vector<int64_t> ax;
  if (axes && !axes->empty()) {
    for (int64_t a : *axes) {
      EGRET_ASSIGN_OR_RETURN(auto n, NormalizeAxis(a, rank, "axis"));
      ax.push_back(n);
    }
  } else if (AttrInt("noop_with_empty_axes", 0) != 0) {
    Alias(Out(), InName(0));
    return absl::OkStatus();
  } else {
    for (int i = 0; i < rank; ++i) ax.push_back(i);
  }
  std::sort(ax.begin(), ax.end());
  ax.erase(std::unique(ax.begin(), ax.end()), ax.end());
  Layout l = NativeLayout(InName(0));
  std::vector<int64_t> eax = ax;
  if (l == kNhwc) {
    for (int64_t& a : eax) a = kPos[a];
    std::sort(eax.begin(), eax.end());
  }
  const bool direct = keep || l == kPlain;
  std::string dst = direct ? Out() : Temp(Out(), "keep");
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), l));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(t, {xin, ShapeParam(eax), IntConst(direct ? keep : 1)}, dst));
  SetValue(dst, r, l);
  if (direct) return absl::OkStatus();
  Dims out;
  for (int i = 0; i < rank; ++i) {
    if (!std::binary_search(ax.begin(), ax.end(), i)) out.push_back(x.type.dims[i]);
  }
  return ReshapeTo(dst, out, Out());
}

// DepthToSpace and SpaceToDepth as the HTP runs them: a Reshape, a Transpose
// and a Reshape in NHWC, where the block offsets (i, j) become or leave
// their own axes. DepthToSpace, DCR: channel (i*b + j)*c' + k of pixel (h, w)
// goes to channel k of pixel (h*b + i, w*b + j); CRD: channel k*b*b + i*b + j.
// SpaceToDepth is DCR's inverse.
absl::Status Importer::DoDepthToSpace() {
  if (!options_.nhwc) return Unmapped("needs the NHWC layout");
  const bool to_space = cur_->op_type() == "DepthToSpace";
  const Value& x = In(0);
  if (x.type.rank() != 4) return Unmapped("only 4-D tensors are mapped");
  const int64_t b = AttrInt("blocksize", 0);
  const Dims& d = x.type.dims;  // N, C, H, W
  if (b < 1 || b > (int64_t{1} << 20)) return absl::InvalidArgumentError("bad blocksize");
  const bool crd = to_space && AttrStr("mode", "DCR") == "CRD";
  const int64_t n = d[0], c = d[1], h = d[2], w = d[3];
  Dims split, out;
  std::vector<int64_t> perm;
  if (to_space) {
    if (c % (b * b) != 0)
      return absl::InvalidArgumentError("channels not divisible by blocksize^2");
    const int64_t k = c / (b * b);
    // NHWC [n, h, w, c] -> [n, h, w, b, b, k] (DCR) or [n, h, w, k, b, b] (CRD).
    split = crd ? Dims{n, h, w, k, b, b} : Dims{n, h, w, b, b, k};
    perm = crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 1, 3, 2, 4, 5};
    out = {n, h * b, w * b, k};
  } else {
    if (h % b != 0 || w % b != 0)
      return absl::InvalidArgumentError("H or W not divisible by blocksize");
    // NHWC [n, h, w, c] -> [n, h/b, b, w/b, b, c] -> [n, h/b, w/b, b, b, c].
    split = {n, h / b, b, w / b, b, c};
    perm = {0, 1, 3, 2, 4, 5};
    out = {n, h / b, w / b, c * b * b};
  }
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(auto r1, Emit("Reshape", {xin, ShapeParam(split)}, Temp(Out(), "blocks")));
  EGRET_ASSIGN_OR_RETURN(auto r2, Emit("Transpose", {r1, ShapeParam(perm)}, Temp(Out(), "moved")));
  EGRET_ASSIGN_OR_RETURN(auto r3, Emit("Reshape", {r2, ShapeParam(out)}, Out()));
  SetValue(Out(), r3, kNhwc);
  return absl::OkStatus();
}

void RegisterDataMovementHandlers(HandlerTable& t) {
  for (auto op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"})
    t[op] = [](Importer& im) { return im.DoReshape(); };
  for (auto op : {"ReduceMean", "ReduceSum", "ReduceMax"})
    t[op] = [](Importer& im) { return im.DoReduce(); };
  t["Transpose"] = [](Importer& im) { return im.DoTranspose(); };
  t["Concat"] = [](Importer& im) { return im.DoConcat(); };
  t["Slice"] = [](Importer& im) { return im.DoSlice(); };
  t["Split"] = [](Importer& im) { return im.DoSplit(); };
  t["Pad"] = [](Importer& im) { return im.DoPad(); };
  t["Cast"] = [](Importer& im) { return im.DoCast(); };
  t["Gather"] = [](Importer& im) { return im.DoGather(); };
  t["Shape"] = [](Importer& im) { return im.DoShape(); };
  t["Size"] = [](Importer& im) { return im.DoShape(); };
  t["Constant"] = [](Importer& im) { return im.DoConstant(); };
  t["ConstantOfShape"] = [](Importer& im) { return im.DoConstantOfShape(); };
  t["Resize"] = [](Importer& im) { return im.DoResize(); };
  t["Upsample"] = [](Importer& im) { return im.DoResize(); };
  t["DepthToSpace"] = [](Importer& im) { return im.DoDepthToSpace(); };
  t["SpaceToDepth"] = [](Importer& im) { return im.DoDepthToSpace(); };
}

}  // namespace egret::onnx_import
