// The writer's forms for block-quantized weights (TensorType's blocked
// encoding), which the written opset (kOnnxWriteOpset) has no
// DequantizeLinear for:
//   - a FullyConnected whose weights are Dequantize of a constant in blocks
//     along its depth (what MatMulNBits and blocked DequantizeLinear import
//     as) becomes ONNX Runtime's com.microsoft MatMulNBits, the weights
//     packed as it stores them, so a 4-bit model stays 4-bit;
//   - any other Dequantize of a blocked constant is written as its real
//     values (an initializer).
#include <cmath>
#include <string>
#include <vector>

#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/writer_internal.h"
#include "egret/support/status_macros.h"

namespace egret::onnx_export {
namespace {

// The blocked constant a Dequantize producing `v` reads, or null.
const Node* BlockedSource(const Graph& g, ValueRef v) {
  const Node& d = g.node(v.node);
  if (d.op != "Dequantize" || d.inputs.size() != 1) return nullptr;
  const Node& c = g.node(d.inputs[0].node);
  if (c.op != kConstOp || c.constant == nullptr || !c.constant->type().blocked()) return nullptr;
  return &c;
}

// Whether the FullyConnected `fc` reads its weights as MatMulNBits takes
// them: Dequantize of a constant [N, K] in blocks along K of 4 or 8 bits, a
// block a power of 2 of at least 16, float activations of the output's dtype.
bool MatMulNBitsForm(const Graph& g, const Node& fc) {
  if (fc.op != "FullyConnected" || fc.inputs.size() < 2 || fc.outputs.empty()) return false;
  const Node* src = BlockedSource(g, fc.inputs[1]);
  if (src == nullptr) return false;
  const TensorType& t = src->constant->type();
  const TensorType& x = g.TypeOf(fc.inputs[0]);
  const int bits = StorageBits(t.dtype);
  const int64_t block = t.per_axis->block_size;
  return t.rank() == 2 && t.per_axis->axis == 1 && (bits == 4 || bits == 8) && block >= 16 &&
         (block & (block - 1)) == 0 && x.rank() >= 1 && IsFloat(x.dtype) &&
         fc.outputs[0].dtype == x.dtype && (bits == 4 || t.dtype == DType::kQUInt8) &&
         (fc.inputs.size() < 3 || g.TypeOf(fc.inputs[2]).dtype == x.dtype);
}

// Whether every reader of `v` is a FullyConnected written as MatMulNBits
// (which reads the constant itself), and `v` is no graph output.
bool OnlyMatMulNBitsRead(const Graph& g, ValueRef v) {
  for (const GraphOutput& o : g.outputs()) {
    if (o.value == v) return false;
  }
  for (const Node& n : g.nodes()) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] == v && (i != 1 || !MatMulNBitsForm(g, n))) return false;
    }
  }
  return true;
}

}  // namespace

absl::Status WriteBlockedDequantize(Writer& w, bool* handled) {
  *handled = false;
  if (w.Cur().op != "Dequantize" || w.NumIn() != 1 || !w.InType(0).blocked()) {
    return absl::OkStatus();
  }
  *handled = true;
  const Node* src = &w.g_.node(w.In(0).node);
  if (src == nullptr || src->op != kConstOp || src->constant == nullptr) {
    return w.NonStandard("Dequantize of a computed tensor in a blocked encoding");
  }
  const DType dt = w.OutType().dtype;
  // Nothing is written for a weight only MatMulNBits nodes read: they pack
  // the constant themselves (its float values would be 8 times its bytes).
  if (OnlyMatMulNBitsRead(w.g_, w.Out())) {
    w.types_[w.OutName(0)] = w.OutType();
    return absl::OkStatus();
  }
  const Tensor& q = *src->constant;
  Tensor reals(TensorType(dt, q.type().dims));
  for (int64_t i = 0; i < q.num_elements(); ++i) reals.SetReal(i, q.GetReal(i));
  // The output itself is the initializer (dropped when only MatMulNBits
  // nodes read the weight).
  const std::string name = w.OutName(0);
  onnx::TensorProto* p = w.gp_->add_initializer();
  onnx_internal::TensorToProto(reals, p);
  p->set_name(name);
  return w.FinishReal(0, name, dt);
}

absl::StatusOr<bool> WriteMatMulNBits(Writer& w) {
  if (!MatMulNBitsForm(w.g_, w.Cur())) return false;
  const Node* src = BlockedSource(w.g_, w.In(1));
  const TensorType& t = src->constant->type();
  const int bits = StorageBits(t.dtype);
  const int64_t block = t.per_axis->block_size;
  const int64_t n = t.dims[0], k = t.dims[1];
  const int64_t blocks = (k + block - 1) / block, blob = block * bits / 8;
  // Signed 4-bit values are stored offset by 8, with their zero points:
  // q - zero is unchanged.
  const int offset = IsQuantizedSigned(t.dtype) ? 8 : 0;
  const Tensor& q = *src->constant;
  Tensor packed(TensorType(DType::kQUInt8, {n, blocks, blob}));
  uint8_t* p = packed.mutable_bytes().data();
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t j = 0; j < k; ++j) {
      const uint8_t stored = q.bytes()[r * k + j];
      const int v = (offset != 0 ? static_cast<int8_t>(stored) : stored) + offset;
      onnx_internal::PackBits(p + (r * blocks + j / block) * blob, j % block, bits,
                              static_cast<uint32_t>(v));
    }
  }
  const DType dt = w.InType(0).dtype;
  Tensor scales(TensorType(dt, {n * blocks}));
  const int64_t zrow = (blocks * bits + 7) / 8;
  Tensor zeros(TensorType(DType::kQUInt8, {n * zrow}));
  uint8_t* z = zeros.mutable_bytes().data();
  for (int64_t cell = 0; cell < n * blocks; ++cell) {
    scales.SetValue(cell, t.StepsizeAt(cell));
    const int zp = t.ZeroOffsetAt(cell) + offset;
    onnx_internal::PackBits(z + cell / blocks * zrow, cell % blocks, bits,
                            static_cast<uint32_t>(zp));
  }
  std::vector<std::string> ins = {w.Real(w.In(0), dt), w.Initializer(packed, "B"),
                                  w.Initializer(scales, "scales"),
                                  w.Initializer(zeros, "zero_points")};
  if (w.NumIn() > 2) {
    ins.push_back("");  // g_idx
    ins.push_back(w.Real(w.In(2), dt));
  }
  const bool clamp = w.NumIn() > 4;
  std::string out = clamp ? w.Temp("matmulnbits") : w.RealOutName(0, dt, false);
  onnx::NodeProto* node = w.Add("MatMulNBits", ins, {out}, "com.microsoft");
  Writer::AttrInt(node, "K", k);
  Writer::AttrInt(node, "N", n);
  Writer::AttrInt(node, "bits", bits);
  Writer::AttrInt(node, "block_size", block);
  std::string result = out;
  if (clamp) {
    EGRET_ASSIGN_OR_RETURN(double lo, w.Float(3));
    EGRET_ASSIGN_OR_RETURN(double hi, w.Float(4));
    if (!(std::isinf(lo) && lo < 0 && std::isinf(hi) && hi > 0)) result = w.Clamp(out, dt, lo, hi);
  }
  EGRET_RETURN_IF_ERROR(w.FinishReal(0, result, dt));
  return true;
}

}  // namespace egret::onnx_export
