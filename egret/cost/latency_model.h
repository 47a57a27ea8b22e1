// The latency model: a node's predicted time on a device's HTP
// (cost/device_params.h), from its work. docs/cost-model.md describes it and
// its validation against measured Snapdragon latencies; in short, per node
//
//   time = max(compute, memory) + dispatch
//
//   - compute: a convolution or matrix product (NodeProfile::matrix_macs > 0)
//     runs on the matrix unit at the device's MACs per ns for its activation
//     precision (8-bit, or 16-bit: float networks run in fp16), its channels
//     padded to the unit's 32-wide tiles, or on HVX if that is faster (one
//     128-byte vector of multiply-accumulates per cycle: grouped convolutions
//     with few channels per group); a depthwise convolution runs on HVX the
//     same way; every other op takes its rule cost (HVX cycles, the op
//     package's DEF_PACKAGE_OP cost of its chosen implementation) at the
//     device's HVX clock. Float32 tensors are priced at fp16's 2 bytes.
//   - memory: bytes crossing DDR at the device's bandwidth: the constant
//     inputs (weights) every time, and each activation the node reads or
//     writes that is larger than half of VTCM (it is written to DDR by its
//     producer and read back by its readers).
//   - dispatch: a per-node constant for every node that computes (free ops,
//     no-op implementations, constants and nodes computed from constants
//     alone, which the HTP computes while preparing the graph, pay nothing).
//   - a node no HTP implementation computes runs on the CPU: a fixed time
//     for splitting the graph plus its data through DDR to the CPU and back.
// A network adds a per-inference constant (GraphLatency).
#ifndef EGRET_COST_LATENCY_MODEL_H_
#define EGRET_COST_LATENCY_MODEL_H_

#include <string>
#include <string_view>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/graph/graph.h"

namespace egret::cost {

// A node's work, independent of the device (so that a fit evaluates it under
// many parameter sets without re-reading the graph).
struct NodeWork {
  double matrix8_macs = 0;   // tile-padded MACs on the matrix unit, 8-bit activations
  double matrix16_macs = 0;  // the same, 16-bit (or fp16) activations
  // HVX cycles: the op's rule cost, or for a convolution the HVX alternative
  // (or a depthwise convolution's only way).
  double vector_cycles = 0;
  double ddr_bytes = 0;      // weights, and activations that spill out of VTCM
  bool dispatched = false;   // pays the per-node dispatch
  bool off_htp = false;      // computed by the CPU fallback
  double off_htp_bytes = 0;  // its inputs and outputs
  double rule_cost = 0;      // the rule-cost model's price (HVX cycles), for comparison
};

// The work of a node of `op` with profile `node` under `rules` (a model with
// or without a device: its RuleCost is used), with `vtcm_bytes` of VTCM.
NodeWork NodeWorkOf(const HvxCostModel& rules, std::string_view op, const NodeProfile& node,
                    int64_t vtcm_bytes);
// The same from `htp_cost`, the node's RuleCost at the HTP's precision (for
// a Float32 node, of half its output and input bytes).
NodeWork NodeWorkFrom(const NodeCost& htp_cost, std::string_view op, const NodeProfile& node,
                      int64_t vtcm_bytes);

// Predicted nanoseconds of a node with this work on `device`.
double NodeTimeNs(const DeviceParams& device, const NodeWork& work);

// Every node of `g` that is not a constant, shape or input, in order, with
// its op, priced by `rules`. With `quantized_io`, the graph's inputs and
// outputs are passed quantized (cost/quantized_io.h): the conversions at its
// boundary take no time (keeping their rule cost) and the data movement
// after its last Dequantize moves 8-bit bytes (half the fp16 ones).
struct GraphWork {
  std::vector<std::string> ops;
  std::vector<NodeWork> work;
};
GraphWork GraphWorkOf(const Graph& g, const HvxCostModel& rules, int64_t vtcm_bytes,
                      bool quantized_io = false);

// The predicted latency of a graph with this work: the per-inference time
// plus every node's time, in ms.
double PredictMs(const DeviceParams& device, const std::vector<NodeWork>& work);

// Predicted time by op (the op name without an implementation suffix; an op
// egret does not know, "onnx.X", by its whole name), most first.
struct OpTime {
  std::string op;
  int nodes = 0;
  double ms = 0;
};
std::vector<OpTime> TimeByOp(const DeviceParams& device, const GraphWork& g);

}  // namespace egret::cost

#endif  // EGRET_COST_LATENCY_MODEL_H_
