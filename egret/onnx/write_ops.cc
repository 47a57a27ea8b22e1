// The writer's op mapping (docs/onnx-export.md): elementwise, normalization,
// types and quantization, logic and indexing ops. NHWC ops are in
// write_nhwc.cc, data movement in write_data_movement.cc.
#include <cmath>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/writer_internal.h"
#include "egret/support/status_macros.h"

namespace egret::onnx_export {

namespace {

using onnx_internal::OnnxFromDType;

// One ONNX op on the real values of inputs [0, n_data), result into output 0.
absl::StatusOr<onnx::NodeProto*> RealOp(Writer& w, std::string_view op, int n_data) {
  const DType dt = w.ComputeDType();
  std::vector<std::string> ins;
  for (int i = 0; i < n_data; ++i) ins.push_back(w.RealIn(i));
  std::string out = w.RealOutName(0, dt, false);
  onnx::NodeProto* n = w.Add(op, ins, {out});
  EGRET_RETURN_IF_ERROR(w.FinishReal(0, out, dt));
  return n;
}

absl::Status ClampOp(Writer& w, double lo, double hi) {
  const DType dt = w.ComputeDType();
  return w.FinishReal(0, w.Clamp(w.RealIn(0), dt, lo, hi), dt);
}

absl::Status Gelu(Writer& w) {
  // 0.5 * x * (1 + erf(x / sqrt 2)), or with approximate 1
  // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))): Gelu is opset 20.
  int64_t approximate = 0;
  if (w.NumIn() > 1) {
    EGRET_ASSIGN_OR_RETURN(approximate, w.Int(1));
  }
  const DType dt = w.ComputeDType();
  std::string x = w.RealIn(0);
  std::string a = w.Temp("div"), b = w.Temp("erf"), c = w.Temp("add"), d = w.Temp("mul");
  if (approximate == 1) {
    std::string sq = w.Temp("square"), cube = w.Temp("cube"), k = w.Temp("cubic"),
                inner = w.Temp("inner");
    w.Add("Mul", {x, x}, {sq});
    w.Add("Mul", {sq, x}, {cube});
    w.Add("Mul", {cube, w.FloatScalar(0.044715, dt)}, {k});
    w.Add("Add", {x, k}, {inner});
    w.Add("Mul", {inner, w.FloatScalar(std::sqrt(2.0 / M_PI), dt)}, {a});
    w.Add("Tanh", {a}, {b});
  } else {
    w.Add("Div", {x, w.FloatScalar(std::sqrt(2.0), dt)}, {a});
    w.Add("Erf", {a}, {b});
  }
  w.Add("Add", {b, w.FloatScalar(1.0, dt)}, {c});
  w.Add("Mul", {x, c}, {d});
  std::string out = w.RealOutName(0, dt, false);
  w.Add("Mul", {d, w.FloatScalar(0.5, dt)}, {out});
  return w.FinishReal(0, out, dt);
}

absl::Status Compare(Writer& w, std::string_view op, bool negate) {
  const DType dt = w.ComputeDType();
  std::string a = w.RealIn(0), b = w.RealIn(1);
  if (!negate) {
    w.Add(op, {a, b}, {w.OutName()});
  } else {
    std::string t = w.Temp("eq");
    w.Add(op, {a, b}, {t});
    w.Add("Not", {t}, {w.OutName()});
  }
  (void)dt;
  w.types_[w.OutName()] = w.OutType();
  return absl::OkStatus();
}

// An index output ONNX gives as Int64, cast when egret's is Int32.
void IndexOut(Writer& w, onnx::NodeProto* n, int onnx_output, const std::string& name,
              const TensorType& t) {
  if (t.dtype == DType::kInt64) {
    n->set_output(onnx_output, name);
  } else {
    std::string tmp = w.Temp("i64");
    n->set_output(onnx_output, tmp);
    Writer::AttrInt(w.Add("Cast", {tmp}, {name}), "to", *OnnxFromDType(t.dtype));
  }
  w.types_[name] = t;
}

absl::Status ArgExtreme(Writer& w, std::string_view op) {
  EGRET_ASSIGN_OR_RETURN(int64_t axis, w.Int(1));
  int64_t keep = 1, last = 0;
  if (w.NumIn() > 2) {
    EGRET_ASSIGN_OR_RETURN(keep, w.Int(2));
  }
  if (w.NumIn() > 3) {
    EGRET_ASSIGN_OR_RETURN(last, w.Int(3));
  }
  onnx::NodeProto* n = w.Add(op, {w.RealIn(0)}, {""});
  Writer::AttrInt(n, "axis", axis);
  Writer::AttrInt(n, "keepdims", keep);
  Writer::AttrInt(n, "select_last_index", last);
  IndexOut(w, n, 0, w.OutName(), w.OutType());
  return absl::OkStatus();
}

absl::Status TopK(Writer& w) {
  EGRET_ASSIGN_OR_RETURN(int64_t k, w.Int(1));
  int64_t axis = -1, largest = 1;
  if (w.NumIn() > 2) {
    EGRET_ASSIGN_OR_RETURN(axis, w.Int(2));
  }
  if (w.NumIn() > 3) {
    EGRET_ASSIGN_OR_RETURN(largest, w.Int(3));
  }
  const bool multi = w.OutType().dtype == DType::kMulti;
  const TensorType& x = w.InType(0);
  std::string values, indices;
  TensorType vtype = multi ? x : w.OutType(0);
  TensorType itype = multi ? TensorType(DType::kInt32, x.dims) : w.OutType(1);
  if (multi) {
    if (IsQuantized(x.dtype)) return w.NonStandard("a Multi TopK of quantized values");
    values = w.PieceName(w.Out(), 0);
    indices = w.PieceName(w.Out(), 1);
    // A $Out reader declares the index type; Int32 unless one says Int64.
    for (NodeId id = 0; id < w.g_.num_nodes(); ++id) {
      const Node& n = w.g_.node(id);
      if (n.op == kOutOp && n.inputs[0] == w.Out() && n.outputs[0].dtype == DType::kInt64) {
        itype.dtype = DType::kInt64;
      }
    }
    vtype.dims[(axis % x.rank() + x.rank()) % x.rank()] = k;
    itype.dims = vtype.dims;
  } else {
    values = w.OutName(0);
    indices = w.OutName(1);
  }
  const DType dt = IsQuantized(x.dtype) ? DType::kFloat32 : DType::kUnknown;
  std::string vout = multi ? values : w.RealOutName(0, dt, false);
  onnx::NodeProto* n = w.Add("TopK", {w.Real(w.In(0), dt), w.Int64s({k})}, {vout, ""});
  Writer::AttrInt(n, "axis", axis);
  Writer::AttrInt(n, "largest", largest);
  Writer::AttrInt(n, "sorted", 1);
  IndexOut(w, n, 1, indices, itype);
  if (multi) {
    w.types_[values] = vtype;
    return absl::OkStatus();
  }
  return w.FinishReal(0, vout, dt);
}

absl::Status CastOp(Writer& w) {
  // Stored numbers to stored numbers.
  Writer::AttrInt(w.Add("Cast", {w.Name(w.In(0))}, {w.OutName()}), "to",
                  *OnnxFromDType(w.OutType().dtype));
  w.types_[w.OutName()] = w.OutType();
  return absl::OkStatus();
}

absl::Status QnnCast(Writer& w) {
  const TensorType& t = w.OutType();
  if (IsQuantized(t.dtype) || IsFloat(t.dtype)) {
    const DType dt = IsFloat(t.dtype) ? t.dtype : DType::kFloat32;
    return w.FinishReal(0, w.Real(w.In(0), dt), dt);
  }
  std::string x = w.Real(w.In(0), DType::kFloat32);
  std::string r = x;
  if (IsFloat(w.types_.at(x).dtype)) {
    r = w.Temp("round");
    w.Add("Round", {x}, {r});
  }
  Writer::AttrInt(w.Add("Cast", {r}, {w.OutName()}), "to", *OnnxFromDType(t.dtype));
  w.types_[w.OutName()] = t;
  return absl::OkStatus();
}

absl::Status LayerNorm(Writer& w) {
  EGRET_ASSIGN_OR_RETURN(double eps, w.Float(3));
  int64_t axis = -1;
  if (w.NumIn() > 4) {
    EGRET_ASSIGN_OR_RETURN(axis, w.Int(4));
  }
  const TensorType& x = w.InType(0);
  const int a = static_cast<int>((axis % x.rank() + x.rank()) % x.rank());
  std::vector<int64_t> norm(x.dims.begin() + a, x.dims.end());
  const DType dt = w.ComputeDType();
  std::vector<std::string> ins = {w.RealIn(0)};
  for (int i = 1; i <= 2; ++i) {
    std::string p = w.RealIn(i);
    const Dims& d = w.InType(i).dims;
    if (std::vector<int64_t>(d.begin(), d.end()) != norm) {
      std::string e = w.Temp(i == 1 ? "scale" : "bias");
      w.Add("Expand", {p, w.Int64s(norm)}, {e});
      p = e;
    }
    ins.push_back(p);
  }
  std::string out = w.RealOutName(0, dt, false);
  onnx::NodeProto* n = w.Add("LayerNormalization", ins, {out});
  Writer::AttrInt(n, "axis", axis);
  Writer::AttrFloat(n, "epsilon", eps);
  return w.FinishReal(0, out, dt);
}

// x / sqrt(mean(x^2 over axis..end) + epsilon) * gamma + beta, spelled out
// (ONNX's RMSNormalization is opset 23).
absl::Status RmsNorm(Writer& w) {
  EGRET_ASSIGN_OR_RETURN(double eps, w.Float(3));
  int64_t axis = -1;
  if (w.NumIn() > 4) {
    EGRET_ASSIGN_OR_RETURN(axis, w.Int(4));
  }
  const TensorType& t = w.InType(0);
  const int a = static_cast<int>((axis % t.rank() + t.rank()) % t.rank());
  std::vector<int64_t> axes;
  for (int i = a; i < t.rank(); ++i) axes.push_back(i);
  const DType dt = w.ComputeDType();
  std::string x = w.RealIn(0);
  std::string sq = w.Temp("square"), mean = w.Temp("mean"), var = w.Temp("plus_eps"),
              root = w.Temp("root"), n = w.Temp("normalized"), scaled = w.Temp("scaled");
  w.Add("Mul", {x, x}, {sq});
  onnx::NodeProto* r = w.Add("ReduceMean", {sq}, {mean});
  Writer::AttrInts(r, "axes", axes);
  Writer::AttrInt(r, "keepdims", 1);
  w.Add("Add", {mean, w.FloatScalar(eps, dt)}, {var});
  w.Add("Sqrt", {var}, {root});
  w.Add("Div", {x, root}, {n});
  w.Add("Mul", {n, w.RealIn(1)}, {scaled});
  std::string out = w.RealOutName(0, dt, false);
  w.Add("Add", {scaled, w.RealIn(2)}, {out});
  return w.FinishReal(0, out, dt);
}

absl::Status Reduce(Writer& w, std::string_view op) {
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> axes, w.Ints(1));
  int64_t keep = 1;
  if (w.NumIn() > 2) {
    EGRET_ASSIGN_OR_RETURN(keep, w.Int(2));
  }
  const DType dt = w.ComputeDType();
  std::vector<std::string> ins = {w.RealIn(0)};
  const bool axes_input = op == "ReduceSum";  // an input from opset 13 (the others: 18)
  if (axes_input && !axes.empty()) ins.push_back(w.Int64s(axes));
  std::string out = w.RealOutName(0, dt, false);
  onnx::NodeProto* n = w.Add(op, ins, {out});
  if (!axes_input && !axes.empty()) Writer::AttrInts(n, "axes", axes);
  Writer::AttrInt(n, "keepdims", keep);
  return w.FinishReal(0, out, dt);
}

}  // namespace

absl::Status WriteNode(Writer& w) {
  bool handled = false;
  EGRET_RETURN_IF_ERROR(WriteNhwcNode(w, &handled));
  if (handled) return absl::OkStatus();
  EGRET_RETURN_IF_ERROR(WriteLayoutNode(w, &handled));
  if (handled) return absl::OkStatus();

  static const auto* kBinary = new absl::flat_hash_map<std::string_view, std::string_view>{
      {"ElementWiseAdd", "Add"},    {"ElementWiseSubtract", "Sub"}, {"ElementWiseMultiply", "Mul"},
      {"ElementWiseDivide", "Div"}, {"ElementWiseMaximum", "Max"},  {"ElementWiseMinimum", "Min"},
      {"ElementWisePower", "Pow"},  {"ElementWiseAnd", "And"},      {"ElementWiseOr", "Or"},
      {"ElementWiseXor", "Xor"},    {"ElementWiseSelect", "Where"}};
  static const auto* kUnary =
      new absl::flat_hash_map<std::string_view, std::string_view>{{"Relu", "Relu"},
                                                                  {"Sigmoid", "Sigmoid"},
                                                                  {"Tanh", "Tanh"},
                                                                  {"Erf", "Erf"},
                                                                  {"Exp", "Exp"},
                                                                  {"Log", "Log"},
                                                                  {"Sqrt", "Sqrt"},
                                                                  {"Neg", "Neg"},
                                                                  {"Abs", "Abs"},
                                                                  {"HardSwish", "HardSwish"},
                                                                  {"ElementWiseSin", "Sin"},
                                                                  {"ElementWiseCos", "Cos"},
                                                                  {"ElementWiseNot", "Not"}};
  static const auto* kCompare = new absl::flat_hash_map<std::string_view, std::string_view>{
      {"ElementWiseEqual", "Equal"},
      {"ElementWiseLess", "Less"},
      {"ElementWiseLessEqual", "LessOrEqual"},
      {"ElementWiseGreater", "Greater"},
      {"ElementWiseGreaterEqual", "GreaterOrEqual"}};

  const std::string_view op = BaseOpName(w.Cur().op);
  if (op == "ElementWiseSelect") {
    const DType dt = w.ComputeDType();
    std::string out = w.RealOutName(0, dt, false);
    w.Add("Where", {w.Name(w.In(0)), w.Real(w.In(1), dt), w.Real(w.In(2), dt)}, {out});
    return w.FinishReal(0, out, dt);
  }
  if (auto it = kBinary->find(op); it != kBinary->end()) return RealOp(w, it->second, 2).status();
  if (auto it = kUnary->find(op); it != kUnary->end()) return RealOp(w, it->second, 1).status();
  if (auto it = kCompare->find(op); it != kCompare->end()) return Compare(w, it->second, false);
  if (op == "ElementWiseNotEqual") return Compare(w, "Equal", true);
  if (op == "Relu1") return ClampOp(w, -1, 1);
  if (op == "Relu6") return ClampOp(w, 0, 6);
  if (op == "ReluX") {
    EGRET_ASSIGN_OR_RETURN(double hi, w.Float(1));
    return ClampOp(w, 0, hi);
  }
  if (op == "ReluMinMax") {
    EGRET_ASSIGN_OR_RETURN(double lo, w.Float(1));
    EGRET_ASSIGN_OR_RETURN(double hi, w.Float(2));
    return ClampOp(w, lo, hi);
  }
  if (op == "HardSigmoid") {
    EGRET_ASSIGN_OR_RETURN(double alpha, w.Float(1));
    EGRET_ASSIGN_OR_RETURN(double beta, w.Float(2));
    EGRET_ASSIGN_OR_RETURN(onnx::NodeProto * n, RealOp(w, "HardSigmoid", 1));
    Writer::AttrFloat(n, "alpha", alpha);
    Writer::AttrFloat(n, "beta", beta);
    return absl::OkStatus();
  }
  if (op == "Gelu") return Gelu(w);
  if (op == "Softmax") {
    int64_t axis = -1;
    if (w.NumIn() > 1) {
      EGRET_ASSIGN_OR_RETURN(axis, w.Int(1));
    }
    EGRET_ASSIGN_OR_RETURN(onnx::NodeProto * n, RealOp(w, "Softmax", 1));
    Writer::AttrInt(n, "axis", axis);
    return absl::OkStatus();
  }
  if (op == "LayerNorm") return LayerNorm(w);
  if (op == "RmsNorm") return RmsNorm(w);
  if (op == "Swish") {
    const DType dt = w.ComputeDType();
    std::string x = w.RealIn(0), sig = w.Temp("sigmoid");
    w.Add("Sigmoid", {x}, {sig});
    std::string out = w.RealOutName(0, dt, false);
    w.Add("Mul", {x, sig}, {out});
    return w.FinishReal(0, out, dt);
  }
  if (op == "ElementWiseRsqrt") {
    const DType dt = w.ComputeDType();
    std::string root = w.Temp("sqrt");
    w.Add("Sqrt", {w.RealIn(0)}, {root});
    std::string out = w.RealOutName(0, dt, false);
    w.Add("Reciprocal", {root}, {out});
    return w.FinishReal(0, out, dt);
  }
  if (op == "Batchnorm") {
    const DType dt = w.ComputeDType();
    std::string m = w.Temp("scale");
    w.Add("Mul", {w.RealIn(0), w.RealIn(1)}, {m});
    std::string out = w.RealOutName(0, dt, false);
    w.Add("Add", {m, w.RealIn(2)}, {out});
    return w.FinishReal(0, out, dt);
  }
  if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax") return Reduce(w, op);
  if (op == "Cast") return CastOp(w);
  if (op == "QNN_Cast") return QnnCast(w);
  if (op == "Quantize") {
    if (!IsQuantized(w.OutType().dtype)) return w.NonStandard("Quantize to a non-quantized type");
    return w.FinishReal(0, w.Real(w.In(0), DType::kFloat32), DType::kFloat32);
  }
  if (op == "Dequantize") {
    bool blocked = false;
    EGRET_RETURN_IF_ERROR(WriteBlockedDequantize(w, &blocked));
    if (blocked) return absl::OkStatus();
    const DType dt = w.OutType().dtype;
    return w.FinishReal(0, w.Real(w.In(0), dt), dt);
  }
  if (op == "Argmax") return ArgExtreme(w, "ArgMax");
  if (op == "Argmin") return ArgExtreme(w, "ArgMin");
  if (op == "TopK") return TopK(w);
  if (op == "CumulativeSum") {
    EGRET_ASSIGN_OR_RETURN(int64_t axis, w.Int(1));
    int64_t exclusive = 0, reverse = 0;
    if (w.NumIn() > 2) {
      EGRET_ASSIGN_OR_RETURN(exclusive, w.Int(2));
    }
    if (w.NumIn() > 3) {
      EGRET_ASSIGN_OR_RETURN(reverse, w.Int(3));
    }
    const DType dt = w.ComputeDType();
    TensorType at;
    at.dtype = DType::kInt64;
    Tensor a = Tensor::FromValues(at, std::vector<double>{static_cast<double>(axis)});
    std::string out = w.RealOutName(0, dt, false);
    onnx::NodeProto* n = w.Add("CumSum", {w.RealIn(0), w.Initializer(a, "axis")}, {out});
    Writer::AttrInt(n, "exclusive", exclusive);
    Writer::AttrInt(n, "reverse", reverse);
    return w.FinishReal(0, out, dt);
  }
  return w.NonStandard("no ONNX mapping is written for this op yet");
}

}  // namespace egret::onnx_export
