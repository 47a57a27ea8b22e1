#include "egret/cost/quantized_io.h"

#include <optional>

#include "egret/graph/op_table.h"

namespace egret::cost {
namespace {

bool IsDataInput(const Graph& g, const ValueRef& v) {
  const std::string& op = g.node(v.node).op;
  return op != kConstOp && op != kShapeOp;
}

// The single data operand of `n` (constants and shape values aside), if it
// has exactly one.
std::optional<ValueRef> SingleDataInput(const Graph& g, const Node& n) {
  std::optional<ValueRef> out;
  for (const ValueRef& v : n.inputs) {
    if (!IsDataInput(g, v)) continue;
    if (out.has_value()) return std::nullopt;
    out = v;
  }
  return out;
}

bool IsDataMovement(std::string_view op) {
  const OpDef* def = FindOpDef(op);
  return def != nullptr && def->group == OpGroup::kDataMovement;
}

}  // namespace

std::vector<IoPricing> QuantizedIoPricing(const Graph& g) {
  std::vector<IoPricing> out(g.num_nodes(), IoPricing::kAsIs);
  std::vector<int> readers(g.num_nodes(), 0);
  std::vector<bool> is_output(g.num_nodes(), false);
  for (const Node& n : g.nodes()) {
    for (const ValueRef& v : n.inputs) ++readers[v.node];
  }
  for (const GraphOutput& o : g.outputs()) is_output[o.value.node] = true;

  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (BaseOpName(n.op) != "Quantize") continue;
    const std::optional<ValueRef> in = SingleDataInput(g, n);
    if (in.has_value() && g.node(in->node).op == kInputOp) out[id] = IoPricing::kOffGraph;
  }

  for (const GraphOutput& o : g.outputs()) {
    // The chain from the output back to the first node that is neither
    // Dequantize nor data movement, nearest the output first. An output that
    // another node also reads is computed on the HTP: no chain.
    std::vector<NodeId> chain;
    NodeId id = o.value.node;
    if (readers[id] != 0) continue;
    while (true) {
      const Node& n = g.node(id);
      const std::string_view base = BaseOpName(n.op);
      if (base != "Dequantize" && !IsDataMovement(base)) break;
      chain.push_back(id);
      const std::optional<ValueRef> in = SingleDataInput(g, n);
      if (!in.has_value() || readers[in->node] != 1 || is_output[in->node]) break;
      id = in->node;
    }
    bool seen_dequantize = false;
    // From the far end: data movement before the last Dequantize stays as it
    // is (it already moves quantized bytes); after it, it moves 8-bit ones.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (BaseOpName(g.node(*it).op) == "Dequantize") {
        out[*it] = IoPricing::kOffGraph;
        seen_dequantize = true;
      } else if (seen_dequantize) {
        out[*it] = IoPricing::kEightBit;
      }
    }
  }
  return out;
}

}  // namespace egret::cost
