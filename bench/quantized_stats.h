// What a quantized network's graph still computes in float, for the quantized
// table of docs/results.md (bench/model_results): the float compute ops, the
// "Dequantize -> op -> Quantize" islands the quantization rules
// (rules/lib/quantization.rules) did not turn into quantized ops, and the
// quantization step of each graph output.
#ifndef EGRET_BENCH_QUANTIZED_STATS_H_
#define EGRET_BENCH_QUANTIZED_STATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "egret/graph/graph.h"

namespace egret {

// True when `g` has a Quantize or Dequantize node: a quantized network in the
// sense of the quantized table (QDQ, QLinear and integer ONNX ops all import
// onto Quantize and Dequantize; a dynamically quantized network whose
// DynamicQuantizeLinear stays opaque has only Dequantize nodes).
bool IsQuantizedNetwork(const Graph& g);

struct QuantizedStats {
  int64_t quantize = 0;    // Quantize nodes
  int64_t dequantize = 0;  // Dequantize nodes
  // Op -> nodes that compute in float: every op except the special ones
  // ($Const, $Shape, *Input, $Out), types and quantization (Cast, Quantize,
  // Dequantize) and data movement (Reshape, Transpose, Concat, slices, Split,
  // Pad), with a Float32 or Float16 output. Ops without an op table row
  // (opaque imported ops) count when their output is float. Keyed by base
  // op name ("Conv2d", not "Conv2d.opt").
  std::map<std::string, int64_t> float_ops;
  // Op -> "Quantize(op(Dequantize(a), Dequantize(b), ...))" islands: a
  // Quantize whose producer's data operands are all Dequantize nodes
  // (parameters, $Const and $Shape operands aside; at least one
  // Dequantize), also when reached through data movement with one data
  // operand (Quantize(Conv2d(Transpose(Dequantize(x)), ...)): the
  // importer's layout Transposes). The op is neither a special op nor Cast,
  // Quantize or Dequantize.
  std::map<std::string, int64_t> islands;

  int64_t num_float_ops() const;
  int64_t num_islands() const;
};

QuantizedStats CountQuantizedStats(const Graph& g);

// One entry per graph output (g.outputs() order): the stepsize of the
// quantized tensor read by the Dequantize that produces the output (its
// largest stepsize when per axis), or 0 when the output is not produced by
// a Dequantize.
std::vector<double> OutputSteps(const Graph& g);

// "Conv2d x3, Sigmoid x2 (+4 more)": the `top` most frequent ops, most
// frequent first (ties by name), "none" when `counts` is empty.
std::string TopKinds(const std::map<std::string, int64_t>& counts, int top);

}  // namespace egret

#endif  // EGRET_BENCH_QUANTIZED_STATS_H_
