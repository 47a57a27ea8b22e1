// The HVX cost model: what one e-node costs, from the implementations
// registered for its op (DEF_PACKAGE_OP* in rule files) given as plain data
// (a CostTable: cost/cost_table.h fills one from the rule registry), so that
// the model is built and tested without rule files. docs/cost-model.md
// describes it; in short:
//
//   - An op's cost is that of its cheapest implementation eligible for the
//     node's tensor types (cost/impl_types.h: an implementation declaring
//     dtypes D, e.g. <QUint8CroutonTensor>, computes a node whose output
//     dtype is in D and whose data operands supply the rest of D; a
//     crouton one only ranks <= 4; a generic <Tensor> one every node). An
//     op with implementations none of which is eligible runs off the HTP as
//     below, and NodeCost::reason says why. An HVX
//     implementation's cost is per 128-byte vector of output: it is
//     multiplied by max(1, ceil(output bytes / 128)). The product saturates
//     at kMaxComputeCost.
//   - A DISABLE implementation costs kDisabledCost, a tier above anything the
//     scaling can reach (even summed over 2^22 nodes at kMaxComputeCost), so
//     a DISABLE node is chosen only when nothing else computes the class.
//   - HMX: an implementation flagged RESOURCE_HMX runs on the matrix unit.
//     Its cost is written in the same unit as an HVX one (cycles per 128-byte
//     vector of output, as HVX would take) and is divided by
//     kHmxThroughputFactor, then scaled by the output's vectors and given the
//     VTCM spill term like an HVX implementation (HMX reads and writes VTCM
//     too). So an HMX convolution registered with the same figure as its HVX
//     twin is chosen over it, at an eighth of its cost.
//   - "$Const", "$Shape", "$Out", graph inputs (volatile "*" ops) and ops
//     whose every implementation is a no-op (NULL_EXEC / INPLACE_NOP) cost
//     FREE (2^-64). So does an IS_CONST implementation: its output never
//     changes, so the HTP computes it while preparing the graph (constant
//     propagation) and never runs it; egret folds it when it can
//     (pipeline/constant_fold.h) and prices what it cannot fold as free.
//   - VTCM capacity: an HVX implementation whose working set (output bytes
//     plus the bytes of all its inputs, weights included) exceeds the
//     model's VTCM capacity also pays kSpillCyclesPerVector for every
//     128-byte vector over the capacity (the excess goes to DDR and back).
//     Copies (IS_COPY / IS_DMA implementations) stream their data and do
//     not pay it.
//   - An op with no implementation (an ONNX op egret keeps opaque, or an op
//     the rule files register no implementation for) runs off the HTP: the
//     graph is split around it and the CPU computes it. It costs
//     kOffHtpFixedCost for the split plus kOffHtpCyclesPerVector for every
//     128-byte vector of its inputs and outputs, which cross DDR to the CPU
//     and back: 4x the dearest HVX per-vector cost in the shipped library
//     and a fixed term no single HVX op reaches, so an HTP implementation is
//     always preferred. With set_cpu_fallback(false) such an op cannot be
//     chosen instead (Cost() says so).
//   - Overrides (e.g. from `--costs FILE`) replace the registry's cost of an
//     op, for one dtype (the node's output dtype) or all, whatever the
//     implementations' declared types; an override is a cost per HVX
//     vector.
//   - A node with a Float64, UInt32, UInt64 or BFloat16 output or data
//     operand (types the HTP has no tensors of, impl_types.h HtpHasDType)
//     runs off the HTP whatever is registered or overridden for its op:
//     NodeCost::no_htp is kNotForTypes, the reason "the HTP has no Float64
//     tensors".
//   - An op name with a dotted implementation suffix ("Relu.fp16") falls back
//     to the base op's implementations when it has none of its own.
#ifndef EGRET_COST_HVX_COST_MODEL_H_
#define EGRET_COST_HVX_COST_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "egret/cost/impl_types.h"
#include "egret/graph/dtype.h"

namespace egret::cost {

inline constexpr double kFreeCost = 5.421010862427522e-20;  // 2^-64
inline constexpr int64_t kHvxVectorBytes = 128;
// Every cost that is not DISABLE is at most this (2^70; GLACIAL is 2^48).
inline constexpr double kMaxComputeCost = 1180591620717411303424.0;
// The cost of a DISABLE implementation (2^92), whatever the output's size.
// Kept below 1e30, which LP solvers treat as infinity.
inline constexpr double kDisabledCost = 4951760157141521099596496896.0;
static_assert(kMaxComputeCost * (1 << 22) <= kDisabledCost);
// The VTCM capacity assumed when none is given: 8 MiB, the VTCM of the HTP
// v73 (Snapdragon 8 Gen 2); docs/cost-model.md.
inline constexpr int64_t kDefaultVtcmBytes = int64_t{8} << 20;
// The CPU fallback of an op with no HTP implementation (docs/cost-model.md):
// the HTP graph is split around the op and synchronized with the CPU (about
// a millisecond at HTP clocks: 2^20 cycles), and every 128-byte vector of
// its inputs and outputs goes through DDR to the CPU and back and is
// computed there (4096 cycles, 4x the dearest HVX op per vector).
inline constexpr double kOffHtpFixedCost = 1048576.0;  // 2^20
inline constexpr double kOffHtpCyclesPerVector = 4096;
// How many times fewer cycles an HMX implementation takes than the cost
// written for it in HVX terms. HMX is the HTP's matrix unit, used for
// convolutions and matrix products: it accumulates whole tiles of 8- or
// 16-bit products per step where HVX does one 128-byte vector of
// multiply-accumulates per instruction, roughly an order of magnitude more
// multiply-accumulates per cycle for these ops. egret takes 8, a documented
// estimate (docs/cost-model.md), not a measurement: `--costs FILE` replaces
// an op's cost with a measured one.
inline constexpr double kHmxThroughputFactor = 8;
// Cycles an HVX op pays per 128-byte vector of working set over the VTCM
// capacity: the vector is written to DDR and read back by DMA, at about 32
// bytes per cycle each way (docs/cost-model.md).
inline constexpr double kSpillCyclesPerVector = 8;

// One registered implementation of an op.
struct ImplCost {
  std::string impl;       // the implementation as written, e.g. "(reluImpl<QUint8CroutonTensor>)"
  double cost = 0;        // cycles (per HVX vector when `hvx`)
  bool hvx = false;       // RESOURCE_HVX: scaled by the output's vector count
  bool no_op = false;     // NULL_EXEC or INPLACE_NOP: computes nothing
  bool disabled = false;  // DISABLE: costs kDisabledCost (`cost` is ignored)
  bool copy = false;      // IS_COPY or IS_DMA: streams its data, pays no spill term
  bool hmx = false;       // RESOURCE_HMX: as hvx, divided by kHmxThroughputFactor
  bool is_const = false;  // IS_CONST: computed while preparing the graph, costs FREE
  // The tensor types `impl` declares: set by HvxCostModel's constructor
  // (ImplTypesOf(impl)); whatever is here before is replaced.
  ImplTypes types = {};
};

// Cost overrides: op -> dtype name ("QUInt8", ...; "*" = every dtype) -> cost
// per HVX vector.
using CostOverrides = absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, double>>;

// Op name -> implementations; dtype-specific overrides.
struct CostTable {
  absl::flat_hash_map<std::string, std::vector<ImplCost>> ops;
  CostOverrides overrides;
};

// Why a node has no HTP implementation.
enum class NoHtpImpl : uint8_t {
  kNone,           // it has one (or is free, or overridden)
  kNotRegistered,  // its op has no implementation at all
  kNotForTypes,    // its op has implementations, none eligible for its types
};

struct NodeCost {
  bool computable = false;  // false: no eligible implementation and no CPU fallback
  bool off_htp = false;     // computed by the CPU fallback (impl "off-HTP")
  double cost = 0;          // when computable
  std::string impl;  // the chosen implementation ("free", "override", "off-HTP", or as written)
  // Set when the node has no HTP implementation (then off_htp, or not
  // computable without the CPU fallback): which case, and a sentence for
  // reports and errors: "no implementation of onnx.LSTM is registered", "no
  // Float32 implementation of Conv2d (registered: QUInt8 crouton)"
  // (cost/impl_types.h: IneligibleReason).
  NoHtpImpl no_htp = NoHtpImpl::kNone;
  std::string reason;
};

// What the model reads of a node besides its op.
struct NodeProfile {
  // The output's dtype (the first output's, for a node with several): it
  // selects overrides and, with data_dtypes and max_rank, the eligible
  // implementations. Not concrete (Unknown; Multi, the type of a
  // multi-output e-class) means unknown: every implementation is eligible.
  DType dtype = DType::kUnknown;
  // A node with several outputs. Its implementations are not matched against
  // types (every one is eligible), as for its e-class, whose type is Multi,
  // so that extraction and the graph price it alike.
  bool multi_output = false;
  int64_t output_bytes = 0;  // summed over the outputs
  // Bytes of the inputs, weights and other constants included ("$Shape"
  // values excluded; a Gather's data at most its output's bytes, the slices
  // it reads): with output_bytes, the VTCM working set.
  int64_t input_bytes = 0;
  // The dtypes of the data (non-parameter) operands, with repeats.
  std::vector<DType> data_dtypes;
  int max_rank = 0;  // the largest rank of the outputs and data operands
  // The work the latency model (cost/latency_model.h) reads; ProfileOf
  // fills it from the op table's convolution and matrix ops (0 for others).
  // Multiply-accumulates of a convolution or matrix product.
  double macs = 0;
  // The same with the channel (or k and n) dims rounded up to the matrix
  // unit's 32-wide tiles, per group, and a convolution's output height and
  // width to the 8-pixel crouton blocks the HTP lays activations out in; 0
  // for an op the matrix unit does not run (DepthWiseConv2d, every non-matrix
  // op).
  double matrix_macs = 0;
  // Bytes of the inputs that are constants (weights): read from DDR.
  int64_t const_bytes = 0;
  // Bytes of the weights kept quantized (NodeInput::stored), at their stored
  // width (two 4-bit elements to a byte): read from DDR as they are. Not in
  // const_bytes.
  int64_t stored_weight_bytes = 0;
  // The dtype of the first data operand (a matrix op's activation dtype).
  DType input_dtype = DType::kUnknown;
  // Every input is a constant or a "$Shape" value: the HTP computes the node
  // while preparing the graph (a slice of a weight a tiling rule made).
  bool constant_inputs = false;
  // An elementwise op computed from one matrix op's output alone (and
  // constants): the HTP applies it in that op's output pass, so the latency
  // model gives it no time of its own (docs/cost-model.md, "Epilogues").
  // ProfileOf sets it from NodeInput::matrix_source.
  bool epilogue = false;
  // The bytes of each activation the node writes (its outputs) and reads (its
  // inputs other than constants and "$Shape" values): one that does not fit
  // in VTCM goes through DDR.
  absl::InlinedVector<int64_t, 4> output_activation_bytes, input_activation_bytes;
};

// The end of an error about a node priced `c`, which has no HTP
// implementation, after "op 'Conv2d' (...) ": "has no registered
// implementation" (kNotRegistered), or "has no implementation for its types:
// <reason>" (kNotForTypes).
std::string NoHtpImplementationText(const NodeCost& c);

// The implementation name of a node priced by the CPU fallback.
inline constexpr std::string_view kOffHtpImpl = "off-HTP";

struct DeviceParams;  // cost/device_params.h

class HvxCostModel {
 public:
  // `vtcm_bytes` <= 0 means kDefaultVtcmBytes.
  // Reads the declared tensor types of every implementation of `table`.
  explicit HvxCostModel(CostTable table, int64_t vtcm_bytes = kDefaultVtcmBytes);

  // The cost of a node of `op` with the types and sizes of `node`
  // (graph_cost.h's NodeCostOf fills it from tensor types): RuleCost, or
  // with a device set its predicted time in nanoseconds
  // (cost/latency_model.h: NodeTimeNs of NodeWorkOf); eligibility, the
  // implementation chosen and the off-HTP decision are RuleCost's either way.
  NodeCost Cost(std::string_view op, const NodeProfile& node) const;
  // The rule-cost model's price of the node, in HVX cycles, whatever device
  // is set.
  NodeCost RuleCost(std::string_view op, const NodeProfile& node) const;
  // The same with these output and input bytes in place of the node's (the
  // latency model prices Float32 at fp16's two bytes).
  NodeCost RuleCost(std::string_view op, const NodeProfile& node, int64_t output_bytes,
                    int64_t input_bytes) const;

  // Prices nodes in predicted nanoseconds on `device` (null: HVX cycles, the
  // default).
  void set_device(std::shared_ptr<const DeviceParams> device) { device_ = std::move(device); }
  const DeviceParams* device() const { return device_.get(); }

  // max(1, ceil(bytes / 128)).
  static int64_t Vectors(int64_t output_bytes);
  // `cost` (per vector when `hvx`) for `vectors` vectors, saturated at
  // kMaxComputeCost.
  static double Scaled(double cost, bool hvx, double vectors);
  // The spill term of an HVX op with this working set: kSpillCyclesPerVector
  // per vector over `vtcm_bytes` (0 when it fits).
  static double SpillCost(int64_t working_set_bytes, int64_t vtcm_bytes);

  int64_t vtcm_bytes() const { return vtcm_bytes_; }

  // Whether an op with no implementation is priced as a CPU fallback (the
  // default) or cannot be chosen (`egret optimize --htp-only`).
  void set_cpu_fallback(bool on) { cpu_fallback_ = on; }
  bool cpu_fallback() const { return cpu_fallback_; }

  const CostTable& table() const { return table_; }

 private:
  CostTable table_;
  int64_t vtcm_bytes_;
  bool cpu_fallback_ = true;
  std::shared_ptr<const DeviceParams> device_;
};

}  // namespace egret::cost

#endif  // EGRET_COST_HVX_COST_MODEL_H_
