#include "egret/cost/latency_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/quantized_io.h"
#include "egret/graph/dtype.h"
#include "egret/graph/op_table.h"

namespace egret::cost {
namespace {

bool IsEightBit(DType t) { return t == DType::kQUInt8 || t == DType::kQInt8 || t == DType::kBool; }

// Bytes the HTP moves for `bytes` of a tensor of `t`: Float32 runs as fp16.
double HtpBytes(int64_t bytes, DType t) {
  return t == DType::kFloat32 ? static_cast<double>(bytes) / 2 : static_cast<double>(bytes);
}

}  // namespace

NodeWork NodeWorkOf(const HvxCostModel& rules, std::string_view op, const NodeProfile& node,
                    int64_t vtcm_bytes) {
  // The HTP computes Float32 in fp16: its rule cost is that of the halved
  // bytes (half the vectors).
  const bool fp32 = node.dtype == DType::kFloat32;
  return NodeWorkFrom(rules.RuleCost(op, node, fp32 ? node.output_bytes / 2 : node.output_bytes,
                                     fp32 ? node.input_bytes / 2 : node.input_bytes),
                      op, node, vtcm_bytes);
}

NodeWork NodeWorkFrom(const NodeCost& c, std::string_view op, const NodeProfile& node,
                      int64_t vtcm_bytes) {
  NodeWork w;
  w.rule_cost = c.computable ? c.cost : 0;
  if (!c.computable || c.cost <= kFreeCost || c.cost >= kDisabledCost) return w;
  // Computed from constants alone while the graph is prepared, or in a
  // matrix op's output pass (an epilogue).
  if ((node.constant_inputs || node.epilogue) && !c.off_htp) return w;
  const double out_bytes = HtpBytes(node.output_bytes, node.dtype);
  const double in_bytes = HtpBytes(node.input_bytes, node.dtype);
  const double const_bytes = HtpBytes(node.const_bytes, node.dtype);
  if (c.off_htp) {
    w.off_htp = true;
    w.off_htp_bytes = out_bytes + in_bytes;
    return w;
  }
  w.dispatched = true;
  const DType act = node.input_dtype != DType::kUnknown ? node.input_dtype : node.dtype;
  const double elem_bytes = IsEightBit(act) ? 1 : 2;
  if (node.macs > 0 || node.matrix_macs > 0) {
    // On HVX (a depthwise convolution's only way; a matrix op's
    // alternative): a 128-byte vector of multiply-accumulates a cycle.
    w.vector_cycles = node.macs * elem_bytes / static_cast<double>(kHvxVectorBytes);
    if (node.matrix_macs > 0)
      (IsEightBit(act) ? w.matrix8_macs : w.matrix16_macs) = node.matrix_macs;
  } else {
    w.vector_cycles = c.cost;
  }
  // An activation that does not fit in half of VTCM (the rest holds the op's
  // other operands and output tiles) is written to DDR by its producer and
  // read back by each reader: its bytes cross DDR at both ends.
  // A slice reads only its part of an input in DDR (the tiles of a tiled
  // convolution).
  const std::string_view base = BaseOpName(op);
  const bool slice = base == "Slice_shape" || base == "StridedSlice";
  const double half_vtcm = static_cast<double>(vtcm_bytes) / 2;
  w.ddr_bytes = const_bytes + static_cast<double>(node.stored_weight_bytes);
  for (int64_t b : node.output_activation_bytes) {
    const double bytes = HtpBytes(b, node.dtype);
    if (bytes > half_vtcm) w.ddr_bytes += bytes;
  }
  for (int64_t b : node.input_activation_bytes) {
    const double bytes = HtpBytes(b, node.dtype);
    if (bytes > half_vtcm) w.ddr_bytes += slice ? std::min(bytes, out_bytes) : bytes;
  }
  return w;
}

double NodeTimeNs(const DeviceParams& d, const NodeWork& w) {
  if (w.off_htp) return d.off_htp_fixed_ns + w.off_htp_bytes / d.off_htp_bytes_per_ns;
  if (!w.dispatched) return 0;
  const double vector = w.vector_cycles / d.at(FitParam::kHvxClock);
  double compute = vector;
  if (w.matrix8_macs > 0 || w.matrix16_macs > 0) {
    const double matrix =
        w.matrix8_macs / d.at(FitParam::kMatrix8) + w.matrix16_macs / d.at(FitParam::kMatrix16);
    compute = std::min(matrix, vector);
  }
  const double memory = w.ddr_bytes / d.at(FitParam::kDdr);
  return std::max(compute, memory) + d.at(FitParam::kDispatch);
}

GraphWork GraphWorkOf(const Graph& g, const HvxCostModel& rules, int64_t vtcm_bytes,
                      bool quantized_io) {
  const std::vector<IoPricing> io = quantized_io
                                        ? QuantizedIoPricing(g)
                                        : std::vector<IoPricing>(g.num_nodes(), IoPricing::kAsIs);
  GraphWork out;
  GraphProfiler profiler(g);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (n.op == kConstOp || n.op == kShapeOp || n.op == kInputOp) continue;
    out.ops.push_back(n.op);
    NodeWork w = NodeWorkOf(rules, n.op, profiler.Profile(id), vtcm_bytes);
    if (io[id] == IoPricing::kOffGraph) {
      NodeWork off;
      off.rule_cost = w.rule_cost;
      w = off;
    } else if (io[id] == IoPricing::kEightBit && !w.off_htp) {
      // Priced at fp16's 2 bytes an element; the quantized tensor has 1.
      w.vector_cycles /= 2;
      w.ddr_bytes /= 2;
    }
    out.work.push_back(w);
  }
  return out;
}

double PredictMs(const DeviceParams& d, const std::vector<NodeWork>& work) {
  double ns = d.at(FitParam::kInference);
  for (const NodeWork& w : work) ns += NodeTimeNs(d, w);
  return ns / 1e6;
}

std::vector<OpTime> TimeByOp(const DeviceParams& d, const GraphWork& g) {
  absl::flat_hash_map<std::string, OpTime> by;
  for (size_t i = 0; i < g.work.size(); ++i) {
    const double ns = NodeTimeNs(d, g.work[i]);
    if (ns <= 0) continue;
    // An op egret does not know ("onnx.DepthToSpace") keeps its dots: they
    // are not an implementation suffix.
    const std::string_view name = g.ops[i];
    std::string op(FindOpDef(name) == nullptr ? name : BaseOpName(name));
    OpTime& t = by[op];
    t.op = op;
    ++t.nodes;
    t.ms += ns / 1e6;
  }
  std::vector<OpTime> out;
  for (auto& [op, t] : by) out.push_back(std::move(t));
  std::sort(out.begin(), out.end(), [](const OpTime& a, const OpTime& b) {
    return a.ms != b.ms ? a.ms > b.ms : a.op < b.op;
  });
  return out;
}

}  // namespace egret::cost
