// Private to the backend: reference kernels for ONNX ops that egret keeps
// opaque ("onnx.<Op>" nodes, docs/onnx-import.md), so that `egret run` and
// `--verify` execute them instead of stopping.
//
// Such a node has ONNX semantics, not egret's: its operands and results are
// in ONNX layout (NCHW), its attributes are the ONNX node's (node.attrs), and
// its output types are the ones the importer declared (there is no shape
// function). The importer drops absent optional inputs and lists their ONNX
// positions in the "onnx.absent_inputs" attribute; OnnxArgs maps positions
// back. Kernels compute in double, like every reference kernel.
#ifndef EGRET_BACKEND_KERNELS_ONNX_ONNX_KERNELS_INTERNAL_H_
#define EGRET_BACKEND_KERNELS_ONNX_ONNX_KERNELS_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "egret/backend/kernels/kernels_internal.h"

namespace egret::backend_internal {

// The operands and attributes of one opaque ONNX node, by ONNX position and
// attribute name.
class OnnxArgs {
 public:
  explicit OnnxArgs(const KernelContext& c);

  // ONNX input `k`, or nullptr when it is absent (omitted or empty name).
  const Tensor* Input(int k) const;
  bool Has(int k) const { return Input(k) != nullptr; }
  // Number of ONNX input positions (absent ones included).
  int num_inputs() const { return static_cast<int>(position_.size()); }

  int64_t Int(std::string_view name, int64_t def) const;
  double Float(std::string_view name, double def) const;
  std::string Str(std::string_view name, std::string def) const;
  std::optional<std::vector<int64_t>> Ints(std::string_view name) const;
  std::optional<std::vector<double>> Floats(std::string_view name) const;

 private:
  const KernelContext& c_;
  std::vector<int> position_;  // ONNX position -> index into c.inputs, or -1
};

// Normalizes an ONNX axis (negative counts from the end) into [0, rank), or
// fails naming the op.
absl::StatusOr<int> OnnxAxis(const KernelContext& c, int64_t axis, int rank);

// Registration, one function per family (onnx/*.cc).
void RegisterOnnxMathKernels(KernelTable& t);  // unary math: trig, rounding, ...

}  // namespace egret::backend_internal

#endif  // EGRET_BACKEND_KERNELS_ONNX_ONNX_KERNELS_INTERNAL_H_
