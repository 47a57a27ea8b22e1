// The writer's mapping of convolutions, matrix products, pools, Resize and
// LRN. egret's NHWC ops become their NCHW ONNX op between Transposes
// (constant operands are transposed at write time); a fused clamp becomes a
// following Relu or Clip.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "egret/graph/op_table.h"
#include "egret/onnx/writer_internal.h"
#include "egret/support/status_macros.h"

namespace egret::onnx_export {

namespace {

// The current node's input 0 as real NCHW numbers in `dt`.
std::string NchwIn(Writer& w, DType dt) {
  return w.RealOfName(w.Permuted(w.In(0), kNhwcToNchw), dt);
}

// The fused clamp at inputs (lo, lo + 1), applied to `x`; `x` when absent.
absl::StatusOr<std::string> FusedClamp(Writer& w, const std::string& x, DType dt, int lo) {
  if (w.NumIn() <= lo + 1) return x;
  EGRET_ASSIGN_OR_RETURN(double a, w.Float(lo));
  EGRET_ASSIGN_OR_RETURN(double b, w.Float(lo + 1));
  if (std::isinf(a) && a < 0 && std::isinf(b) && b > 0) return x;
  return w.Clamp(x, dt, a, b);
}

absl::Status Conv(Writer& w, bool transpose) {
  const TensorType& x = w.InType(0);
  const TensorType& f = w.InType(1);
  if (x.rank() != 4 || f.rank() != 4) return w.NonStandard("convolution of rank other than 4");
  const int64_t groups = x.dims[3] / f.dims[2];
  const bool depthwise = BaseOpName(w.Cur().op) == "DepthWiseConv2d";
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> stride, w.Ints(3));
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> pads, w.Ints(4));
  std::vector<int64_t> dil = {1, 1, 1, 1};
  if (w.NumIn() > 5) {
    EGRET_ASSIGN_OR_RETURN(dil, w.Ints(5));
  }
  if (stride.size() != 4 || pads.size() != 4 || dil.size() != 4) {
    return w.NodeError(absl::StatusCode::kInvalidArgument, "bad stride, pads or dilation");
  }
  if (transpose && groups != 1) return w.NonStandard("grouped TransposeConv2d");
  const DType dt = w.ComputeDType();
  std::string xin = NchwIn(w, dt);
  // Conv: [cout, cin/g, fh, fw]; ConvTranspose (g = 1): [cin, cout, fh, fw].
  std::string win = w.RealOfName(
      w.Permuted(w.In(1), transpose ? std::vector<int>{2, 3, 0, 1} : std::vector<int>{3, 2, 0, 1}),
      dt);
  std::vector<std::string> ins = {xin, win};
  if (w.NumIn() > 2) ins.push_back(w.RealIn(2));
  std::string out = w.Temp("nchw");
  onnx::NodeProto* n = w.Add(transpose ? "ConvTranspose" : "Conv", ins, {out});
  Writer::AttrInts(n, "kernel_shape", {f.dims[0], f.dims[1]});
  Writer::AttrInts(n, "strides", {stride[1], stride[2]});
  Writer::AttrInts(n, "pads", {pads[0], pads[2], pads[1], pads[3]});
  Writer::AttrInts(n, "dilations", {dil[1], dil[2]});
  Writer::AttrInt(n, "group", depthwise ? x.dims[3] : groups);
  std::string result = out;
  if (transpose) {
    if (w.NumIn() > 6) {
      EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> op, w.Ints(6));
      if (op.size() == 4) Writer::AttrInts(n, "output_padding", {op[1], op[2]});
    }
  } else {
    EGRET_ASSIGN_OR_RETURN(result, FusedClamp(w, out, dt, 6));
  }
  return w.FinishReal(0, result, dt, kNchwToNhwc);
}

absl::Status FullyConnected(Writer& w) {
  EGRET_ASSIGN_OR_RETURN(bool nbits, WriteMatMulNBits(w));
  if (nbits) return absl::OkStatus();
  const TensorType& x = w.InType(0);
  const DType dt = w.ComputeDType();
  const bool bias = w.NumIn() > 2;
  std::string result;
  if (x.rank() == 2) {
    std::vector<std::string> ins = {w.RealIn(0), w.RealIn(1)};
    if (bias) ins.push_back(w.RealIn(2));
    result = w.Temp("gemm");
    Writer::AttrInt(w.Add("Gemm", ins, {result}), "transB", 1);
  } else {
    std::string wt = w.RealOfName(w.Permuted(w.In(1), {1, 0}), dt);
    result = w.Temp("matmul");
    w.Add("MatMul", {w.RealIn(0), wt}, {result});
    if (bias) {
      std::string b = w.Temp("bias");
      w.Add("Add", {result, w.RealIn(2)}, {b});
      result = b;
    }
  }
  EGRET_ASSIGN_OR_RETURN(result, FusedClamp(w, result, dt, 3));
  return w.FinishReal(0, result, dt);
}

absl::Status Pool(Writer& w, bool max) {
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> window, w.Ints(1));
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> stride, w.Ints(2));
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> pads, w.Ints(3));
  if (window.size() != 4 || stride.size() != 4 || pads.size() != 4) {
    return w.NodeError(absl::StatusCode::kInvalidArgument, "bad window, stride or pads");
  }
  int64_t count_pad = 0;
  if (!max && w.NumIn() > 4) {
    EGRET_ASSIGN_OR_RETURN(count_pad, w.Int(4));
  }
  const DType dt = w.ComputeDType();
  std::string out = w.Temp("nchw");
  onnx::NodeProto* n = w.Add(max ? "MaxPool" : "AveragePool", {NchwIn(w, dt)}, {out});
  Writer::AttrInts(n, "kernel_shape", {window[1], window[2]});
  Writer::AttrInts(n, "strides", {stride[1], stride[2]});
  Writer::AttrInts(n, "pads", {pads[0], pads[2], pads[1], pads[3]});
  if (!max) Writer::AttrInt(n, "count_include_pad", count_pad);
  return w.FinishReal(0, out, dt, kNchwToNhwc);
}

absl::Status Resize(Writer& w, int mode, int transform_input, int nearest_input) {
  EGRET_ASSIGN_OR_RETURN(std::vector<int64_t> size, w.Ints(1));
  if (mode < 0) {
    EGRET_ASSIGN_OR_RETURN(mode, w.Int(2));
  }
  int64_t transform = 0, nearest = 0;
  if (w.NumIn() > transform_input) {
    EGRET_ASSIGN_OR_RETURN(transform, w.Int(transform_input));
  }
  if (nearest_input > 0 && w.NumIn() > nearest_input) {
    EGRET_ASSIGN_OR_RETURN(nearest, w.Int(nearest_input));
  }
  static constexpr const char* kTransforms[] = {"half_pixel", "align_corners", "asymmetric",
                                                "pytorch_half_pixel"};
  static constexpr const char* kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                             "ceil"};
  if (size.size() != 4 || mode < 0 || mode > 1 || transform < 0 || transform > 3 || nearest < 0 ||
      nearest > 3) {
    return w.NodeError(absl::StatusCode::kInvalidArgument, "bad Resize parameters");
  }
  const DType dt = w.ComputeDType();
  std::string out = w.Temp("nchw");
  onnx::NodeProto* n = w.Add(
      "Resize", {NchwIn(w, dt), "", "", w.Int64s({size[0], size[3], size[1], size[2]})}, {out});
  Writer::AttrStr(n, "mode", mode == 0 ? "nearest" : "linear");
  Writer::AttrStr(n, "coordinate_transformation_mode", kTransforms[transform]);
  if (mode == 0) Writer::AttrStr(n, "nearest_mode", kNearest[nearest]);
  return w.FinishReal(0, out, dt, kNchwToNhwc);
}

absl::Status Lrn(Writer& w) {
  EGRET_ASSIGN_OR_RETURN(int64_t size, w.Int(1));
  EGRET_ASSIGN_OR_RETURN(double alpha, w.Float(2));
  EGRET_ASSIGN_OR_RETURN(double beta, w.Float(3));
  EGRET_ASSIGN_OR_RETURN(double bias, w.Float(4));
  const DType dt = w.ComputeDType();
  std::string out = w.Temp("nchw");
  onnx::NodeProto* n = w.Add("LRN", {NchwIn(w, dt)}, {out});
  Writer::AttrInt(n, "size", size);
  Writer::AttrFloat(n, "alpha", alpha);
  Writer::AttrFloat(n, "beta", beta);
  Writer::AttrFloat(n, "bias", bias);
  return w.FinishReal(0, out, dt, kNchwToNhwc);
}

}  // namespace

absl::Status WriteNhwcNode(Writer& w, bool* handled) {
  const std::string_view op = BaseOpName(w.Cur().op);
  *handled = true;
  if (op == "Conv2d" || op == "DepthWiseConv2d") return Conv(w, false);
  if (op == "TransposeConv2d") return Conv(w, true);
  if (op == "FullyConnected") return FullyConnected(w);
  if (op == "MatMul") {
    const DType dt = w.ComputeDType();
    std::string out = w.RealOutName(0, dt, false);
    w.Add("MatMul", {w.RealIn(0), w.RealIn(1)}, {out});
    return w.FinishReal(0, out, dt);
  }
  if (op == "PoolMax2d") return Pool(w, true);
  if (op == "PoolAvg2d") return Pool(w, false);
  if (op == "Resize") return Resize(w, -1, 3, 4);
  if (op == "ResizeBilinear") return Resize(w, 1, 2, 0);
  if (op == "ResizeNearestNeighbor") return Resize(w, 0, 2, 3);
  if (op == "LRN") return Lrn(w);
  *handled = false;
  return absl::OkStatus();
}

}  // namespace egret::onnx_export
