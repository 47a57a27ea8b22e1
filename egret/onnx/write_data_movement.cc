// The writer's mapping of data movement: Reshape, Transpose, Concat, slices,
// Split, Pad, Tile, Gather and "$Out". When the output has the encoding of
// the data inputs the stored numbers move as they are (exact, no QDQ);
// otherwise the op moves real values and the result is requantized.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/writer_internal.h"
#include "egret/support/status_macros.h"

namespace egret::onnx_export {

namespace {

// The data inputs [first, last) have the output's dtype and encoding.
bool SameStorage(Writer& w, int first, int last) {
  const TensorType& out = w.OutType();
  for (int i = first; i < last; ++i) {
    const TensorType& t = w.InType(i);
    if (t.dtype != out.dtype || !t.SameEncoding(out)) return false;
  }
  return true;
}

// The data inputs [first, last) ready for the op, the dtype they are in
// (kUnknown: stored), and the name to write the result to.
struct Operands {
  std::vector<std::string> names;
  DType dt = DType::kUnknown;
  std::string out;
};

Operands Prepare(Writer& w, int first, int last) {
  Operands o;
  if (SameStorage(w, first, last)) {
    for (int i = first; i < last; ++i) o.names.push_back(w.Name(w.In(i)));
    o.out = w.OutName();
  } else {
    o.dt = w.ComputeDType();
    if (o.dt == DType::kUnknown) o.dt = DType::kFloat32;
    for (int i = first; i < last; ++i) o.names.push_back(w.Real(w.In(i), o.dt));
    o.out = w.RealOutName(0, o.dt, false);
  }
  return o;
}

absl::Status Finish(Writer& w, const Operands& o) {
  if (o.dt == DType::kUnknown) {
    w.types_[w.OutName()] = w.OutType();
    return absl::OkStatus();
  }
  return w.FinishReal(0, o.out, o.dt);
}

absl::Status Split(Writer& w) {
  EGRET_ASSIGN_OR_RETURN(int64_t axis, w.Int(1));
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, w.Ints(2));
  const bool multi = w.OutType().dtype == DType::kMulti;
  std::vector<std::string> outs;
  std::string in = w.Name(w.In(0));
  DType dt = DType::kUnknown;
  if (multi) {
    for (size_t k = 0; k < sizes.size(); ++k) {
      outs.push_back(w.PieceName(w.Out(), static_cast<int>(k)));
      TensorType t = w.InType(0);
      t.dims[(axis % t.rank() + t.rank()) % t.rank()] = sizes[k];
      w.types_[outs.back()] = t;
    }
  } else {
    bool same = true;
    for (size_t k = 0; k < w.Cur().outputs.size(); ++k) {
      const TensorType& t = w.OutType(static_cast<int>(k));
      same = same && t.dtype == w.InType(0).dtype && t.SameEncoding(w.InType(0));
    }
    if (!same) {
      dt = IsFloat(w.OutType().dtype) ? w.OutType().dtype : DType::kFloat32;
      in = w.Real(w.In(0), dt);
    }
    for (size_t k = 0; k < w.Cur().outputs.size(); ++k) {
      outs.push_back(same ? w.OutName(static_cast<int>(k)) : w.Temp("piece"));
      if (same) w.types_[outs.back()] = w.OutType(static_cast<int>(k));
    }
  }
  Writer::AttrInt(w.Add("Split", {in, w.Int64s(sizes)}, outs), "axis", axis);
  if (dt != DType::kUnknown) {
    for (size_t k = 0; k < outs.size(); ++k) {
      EGRET_RETURN_IF_ERROR(w.FinishReal(static_cast<int>(k), outs[k], dt));
    }
  }
  return absl::OkStatus();
}

absl::Status Pad(Writer& w) {
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> pads, w.Ints(1));
  int64_t mode = 0;
  double value = 0;
  if (w.NumIn() > 2) {
    EGRET_ASSIGN_OR_RETURN(mode, w.Int(2));
  }
  if (w.NumIn() > 3) {
    EGRET_ASSIGN_OR_RETURN(value, w.Float(3));
  }
  if (mode == 1) return w.NonStandard("Pad mode 1 (symmetric)");
  static constexpr const char* kModes[] = {"constant", "", "reflect", "edge"};
  if (mode < 0 || mode > 3) return w.NodeError(absl::StatusCode::kInvalidArgument, "bad mode");
  // egret: [before0, after0, before1, ...]; ONNX: [before..., after...].
  std::vector<int64_t> onnx_pads(pads.size());
  const size_t r = pads.size() / 2;
  for (size_t i = 0; i < r; ++i) {
    onnx_pads[i] = pads[2 * i];
    onnx_pads[r + i] = pads[2 * i + 1];
  }
  DType dt = w.ComputeDType();
  if (!IsFloat(dt)) dt = DType::kUnknown;
  std::vector<std::string> ins = {w.Real(w.In(0), dt), w.Int64s(onnx_pads)};
  if (mode == 0 && value != 0) {
    if (dt == DType::kUnknown) {
      TensorType vt = w.InType(0);
      vt.dims.clear();
      Tensor v(vt);
      v.SetReal(0, value);
      ins.push_back(w.Initializer(v, "pad_value"));
    } else {
      ins.push_back(w.FloatScalar(value, dt));
    }
  }
  std::string out = w.RealOutName(0, dt, false);
  Writer::AttrStr(w.Add("Pad", ins, {out}), "mode", kModes[mode]);
  return w.FinishReal(0, out, dt);
}

}  // namespace

absl::Status WriteLayoutNode(Writer& w, bool* handled) {
  const std::string_view op = BaseOpName(w.Cur().op);
  *handled = true;
  if (op == kOutOp) {
    EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> sel, w.Ints(1));
    if (sel.empty()) return w.NodeError(absl::StatusCode::kInvalidArgument, "empty selector");
    const std::string piece = w.PieceName(w.In(0), static_cast<int>(sel.back()));
    const TensorType& pt = w.TypeOfName(piece);
    if (pt.dtype == w.OutType().dtype && pt.SameEncoding(w.OutType())) {
      w.Add("Identity", {piece}, {w.OutName()});
      w.types_[w.OutName()] = w.OutType();
      return absl::OkStatus();
    }
    const DType dt = IsFloat(w.OutType().dtype) ? w.OutType().dtype : DType::kFloat32;
    return w.FinishReal(0, w.RealOfName(piece, dt), dt);
  }
  if (op == "Reshape") {
    EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> shape, w.Ints(1));
    Operands o = Prepare(w, 0, 1);
    bool zero = false;
    for (int64_t d : shape) zero = zero || d == 0;
    onnx::NodeProto* n = w.Add("Reshape", {o.names[0], w.Int64s(shape)}, {o.out});
    if (zero) Writer::AttrInt(n, "allowzero", 1);
    return Finish(w, o);
  }
  if (op == "Transpose") {
    EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> perm, w.Ints(1));
    Operands o = Prepare(w, 0, 1);
    Writer::AttrInts(w.Add("Transpose", {o.names[0]}, {o.out}), "perm", perm);
    return Finish(w, o);
  }
  if (op == "Concat") {
    EGRET_ASSIGN_OR_RETURN(int64_t axis, w.Int(0));
    Operands o = Prepare(w, 1, w.NumIn());
    Writer::AttrInt(w.Add("Concat", o.names, {o.out}), "axis", axis);
    return Finish(w, o);
  }
  if (op == "Slice_shape" || op == "StridedSlice") {
    EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> begin, w.Ints(1));
    EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> end, w.Ints(2));
    std::vector<int64_t> axes, steps;
    for (size_t i = 0; i < begin.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (op == "Slice_shape") {
      for (size_t i = 0; i < begin.size() && i < end.size(); ++i) end[i] += begin[i];
      steps.assign(begin.size(), 1);
    } else {
      EGRET_ASSIGN_OR_RETURN(steps, w.Ints(3));
    }
    Operands o = Prepare(w, 0, 1);
    w.Add("Slice", {o.names[0], w.Int64s(begin), w.Int64s(end), w.Int64s(axes), w.Int64s(steps)},
          {o.out});
    return Finish(w, o);
  }
  if (op == "Split") return Split(w);
  if (op == "Pad") return Pad(w);
  if (op == "Tile") {
    EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> m, w.Ints(1));
    Operands o = Prepare(w, 0, 1);
    w.Add("Tile", {o.names[0], w.Int64s(m)}, {o.out});
    return Finish(w, o);
  }
  if (op == "Gather") {
    int64_t axis = 0;
    if (w.NumIn() > 2) {
      EGRET_ASSIGN_OR_RETURN(axis, w.Int(2));
    }
    Operands o = Prepare(w, 0, 1);
    Writer::AttrInt(w.Add("Gather", {o.names[0], w.Name(w.In(1))}, {o.out}), "axis", axis);
    return Finish(w, o);
  }
  *handled = false;
  return absl::OkStatus();
}

}  // namespace egret::onnx_export
