// Quantized graph I/O in the latency model (cost/latency_model.h). A
// quantized network can be deployed so that its caller passes the graph's
// inputs and receives its outputs as the quantized tensors the network
// computes on (AI Hub compiles every network with quantized activations with
// --quantize_io, so the published w8a8 latencies are measured that way).
// The Quantize of a graph input and the Dequantize of a graph output are then
// not run by the HTP, and the data movement between a graph output and its
// last Dequantize (a DepthToSpace written as Reshape and Transpose) moves the
// quantized tensor. docs/cost-model.md, "Quantized graph I/O".
#ifndef EGRET_COST_QUANTIZED_IO_H_
#define EGRET_COST_QUANTIZED_IO_H_

#include <cstdint>
#include <vector>

#include "egret/graph/graph.h"

namespace egret::cost {

enum class IoPricing : uint8_t {
  kAsIs,      // priced as the latency model prices it
  kOffGraph,  // a conversion at the graph's boundary that quantized I/O removes: no time
  kEightBit,  // data movement between the last Dequantize and a graph output: at 8-bit bytes
};

// One entry per node id of `g`:
//   - a Quantize whose data operand is a graph input is kOffGraph;
//   - walking back from each graph output through data-movement ops (the op
//     table's group) and Dequantize, each node the only reader of the next
//     and not itself a graph output: the Dequantize nodes are kOffGraph and
//     the data-movement nodes after the first Dequantize (nearer the output)
//     are kEightBit.
// Every other node is kAsIs; a graph without Quantize or Dequantize at its
// boundary is all kAsIs.
std::vector<IoPricing> QuantizedIoPricing(const Graph& g);

}  // namespace egret::cost

#endif  // EGRET_COST_QUANTIZED_IO_H_
