// Private to the backend: reference kernels for ONNX ops that egret keeps
// opaque ("onnx.<Op>" nodes, docs/onnx-import.md), so that `egret run` and
// `--verify` execute them instead of stopping.
//
// Such a node has ONNX semantics, not egret's: its operands and results are
// in ONNX layout (NCHW), its attributes are the ONNX node's (node.attrs), and
// its output types are the ones the importer declared (there is no shape
// function). The importer drops absent optional inputs and lists their ONNX
// positions in the "onnx.absent_inputs" attribute; OnnxArgs maps positions
// back. Kernels compute in double (ReadReals), like every reference kernel
// that does not run on oneDNN (kernels_internal.h).
#ifndef EGRET_EXECUTOR_KERNELS_ONNX_ONNX_KERNELS_INTERNAL_H_
#define EGRET_EXECUTOR_KERNELS_ONNX_ONNX_KERNELS_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "egret/executor/kernels/kernels_internal.h"

namespace egret::backend_internal {

// The operands and attributes of one opaque ONNX node, by ONNX position and
// attribute name.
class OnnxArgs {
 public:
  explicit OnnxArgs(const KernelContext& c);

  // ONNX input `k`, or nullptr when it is absent (omitted or empty name).
  const Tensor* Input(int k) const;
  bool Has(int k) const { return Input(k) != nullptr; }
  // ONNX input `k`, or an error naming the op when it is absent.
  absl::StatusOr<const Tensor*> Required(int k) const;
  // Number of ONNX input positions (absent ones included).
  int num_inputs() const { return static_cast<int>(position_.size()); }

  bool HasAttr(std::string_view name) const;
  int64_t Int(std::string_view name, int64_t def) const;
  double Float(std::string_view name, double def) const;
  std::string Str(std::string_view name, std::string def) const;
  std::optional<std::vector<int64_t>> Ints(std::string_view name) const;
  // An INTS attribute that must hold `length` values (a per-spatial-axis
  // list such as strides): `length` copies of `def` when absent, an error
  // naming the op and the attribute when it has another length.
  absl::StatusOr<std::vector<int64_t>> IntsOfLength(std::string_view name, size_t length,
                                                    int64_t def) const;
  std::optional<std::vector<double>> Floats(std::string_view name) const;
  // A STRINGS attribute, as the importer keeps it (graph/string_list.h).
  std::optional<std::vector<std::string>> Strings(std::string_view name) const;
  // The default-domain opset of the model (attribute "onnx.opset", set by the
  // importer), or `def` when the node does not say.
  int64_t Opset(int64_t def) const { return Int("onnx.opset", def); }

 private:
  const KernelContext& c_;
  std::vector<int> position_;  // ONNX position -> index into c.inputs, or -1
};

// Normalizes an ONNX axis (negative counts from the end) into [0, rank), or
// fails naming the op (always for rank 0, which has no axis).
absl::StatusOr<int> OnnxAxis(const KernelContext& c, int64_t axis, int rank);

// Checks that the node has at least `n` inputs and that every input holds
// data (not a "$Shape"), so that a kernel may read c.In(0) .. c.In(n - 1); a
// malformed node is an error naming the op, not a crash.
absl::Status NeedInputs(const KernelContext& c, int n);

// The elements of an integer (or any numeric) tensor as int64, truncated.
std::vector<int64_t> ReadInts(const Tensor& t);

// Whether ONNX sees `type` as an integer type: Int32, Int64, or a quantized
// dtype with the plain encoding (stepsize 1, zero 0) the importer gives
// ONNX's uint8/int8/uint16/int16.
bool IsOnnxInteger(const TensorType& type);

// A tensor of `type` holding `reals` converted as ONNX converts a computed
// value to its element type: truncated toward zero for an integer type
// (see IsOnnxInteger) and saturated, "not zero" for Bool, otherwise as
// MakeTensor.
Tensor MakeOnnxTensor(const TensorType& type, absl::Span<const double> reals);

// For each element of a tensor of dims `d` (row-major), the index of its
// group when the axes marked in `reduced` are reduced away; groups are
// numbered in row-major order of the kept axes and `groups` receives their
// number (1 when every axis is reduced).
std::vector<int64_t> ReductionGroups(const Dims& d, const std::vector<bool>& reduced,
                                     int64_t* groups);

// Checks that output `k`, whose dims the importer declared, holds `n`
// elements: an op whose output shape depends on its data (NonZero, Unique,
// Compress) must agree with the declaration. An output nothing reads (the
// importer types it Float32[0] and sets "onnx.untyped_outputs") accepts
// anything.
absl::Status CheckOutputCount(const KernelContext& c, int k, int64_t n);

// The single output `values`: checked against the declared output 0
// (CheckOutputCount) and stored by MakeOnnxTensor.
absl::StatusOr<std::vector<Tensor>> OnnxResult(const KernelContext& c,
                                               absl::Span<const double> values);

// Output `k` of an opaque node, holding `values` in row-major order over
// `dims`, in the type the importer declared. Fails naming the op when the
// node declares other dims (or fewer outputs); an output nothing reads, which
// the importer declares as an empty placeholder ("onnx.untyped_outputs"),
// comes back empty.
absl::StatusOr<Tensor> OnnxOutput(const KernelContext& c, int k, const Dims& dims,
                                  absl::Span<const double> values);
// The check OnnxOutput makes, for kernels whose output size comes from
// operand values: making it before computing bounds the work by the
// declared types (which the executor's memory limit has seen).
absl::Status CheckOnnxOutput(const KernelContext& c, int k, const Dims& dims);

// Random draws (onnx_random.cc). A random op's draws are a function of its
// key and the draw's index alone. The key comes from the node's "seed"
// attribute (its float bits), or is kUnseededRandomKey, a fixed default, when
// the node has none, so that every run of a graph draws the same values
// (verification does not compare outputs that depend on an unseeded draw:
// DrawsWithoutSeed, executor.h).
inline constexpr uint64_t kUnseededRandomKey = 0x6567726574233334;  // "egret#34"
uint64_t RandomKey(const KernelContext& c);
// 64 random bits, draw `i` of `key` (SplitMix64's finalizer of a counter).
uint64_t RandomBits(uint64_t key, uint64_t i);
// Draw `i` of `key` as a double uniform in [0, 1) (53 random bits).
double RandomUniform01(uint64_t key, uint64_t i);

// Registration, one function per family (onnx/*.cc).
void RegisterOnnxMathKernels(KernelTable& t);           // unary and binary math
void RegisterOnnxActivationKernels(KernelTable& t);     // Elu .. Hardmax, MVN
void RegisterOnnxReduceKernels(KernelTable& t);         // ReduceMin .. ReduceLogSumExp
void RegisterOnnxIndexKernels(KernelTable& t);          // gather, scatter, Trilu, OneHot, ...
void RegisterOnnxTensorKernels(KernelTable& t);         // DepthToSpace .. Dropout
void RegisterOnnxShapeKernels(KernelTable& t);          // Reshape .. CumSum (run-time parameters)
void RegisterOnnxRandomKernels(KernelTable& t);         // RandomNormal .. Multinomial
void RegisterOnnxTextKernels(KernelTable& t);           // TfIdfVectorizer
void RegisterOnnxRnnKernels(KernelTable& t);            // RNN, GRU, LSTM
void RegisterOnnxLossKernels(KernelTable& t);           // NegativeLogLikelihoodLoss, ...
void RegisterOnnxPoolKernels(KernelTable& t);           // MaxPool, AveragePool, MaxUnpool
void RegisterOnnxSamplingKernels(KernelTable& t);       // Resize, GridSample
void RegisterOnnxDetectionKernels(KernelTable& t);      // RoiAlign, NonMaxSuppression
void RegisterOnnxConvTransposeKernels(KernelTable& t);  // ConvTranspose
void RegisterOnnxBatchNormKernels(KernelTable& t);      // BatchNormalization
void RegisterOnnxNormKernels(KernelTable& t);           // Layer-, Instance-, GroupNormalization
void RegisterOnnxSignalKernels(KernelTable& t);         // DFT, STFT, windows, MelWeightMatrix
void RegisterOnnxTrainingKernels(KernelTable& t);       // Momentum, Adam, Adagrad
void RegisterOnnxQuantizeKernels(KernelTable& t);       // QuantizeLinear, ConvInteger, QLinear*
void RegisterOnnxControlFlowKernels(KernelTable& t);    // If, Loop, Scan (subgraph bodies)
void RegisterOnnxSequenceKernels(KernelTable& t);       // Sequence*, Optional*, SequenceMap
void RegisterOnnxStringKernels(KernelTable& t);         // Cast, StringNormalizer

// Cast or CastLike whose input or output is a String tensor (onnx_string.cc).
absl::StatusOr<std::vector<Tensor>> CastStrings(const KernelContext& c);
// Whether kernel `op` takes String tensors (the executor refuses any other
// on them).
bool TakesStrings(std::string_view op);

}  // namespace egret::backend_internal

#endif  // EGRET_EXECUTOR_KERNELS_ONNX_ONNX_KERNELS_INTERNAL_H_
