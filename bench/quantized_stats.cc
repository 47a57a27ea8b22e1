#include "bench/quantized_stats.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "egret/executor/verify.h"
#include "egret/graph/dtype.h"
#include "egret/graph/op_table.h"

namespace egret {
namespace {

bool IsSpecial(std::string_view op) {
  return op == kConstOp || op == kShapeOp || op == kOutOp || op == kInputOp;
}

// Special ops and types/quantization ops: never a float compute op or an
// island's op.
bool IsBookkeeping(std::string_view op) {
  if (IsSpecial(op)) return true;
  const OpDef* def = FindOpDef(op);
  return def != nullptr && (def->group == OpGroup::kSpecial || def->group == OpGroup::kTypes);
}

bool HasFloatOutput(const Node& n) {
  return std::any_of(n.outputs.begin(), n.outputs.end(),
                     [](const TensorType& t) { return IsFloat(t.dtype); });
}

// The producer of `v`, looking through data movement with one data operand
// (Transpose, Reshape, a slice): the importer puts NCHW <-> NHWC Transposes
// between a Dequantize and the op reading it.
const Node& ThroughDataMovement(const Graph& g, ValueRef v) {
  for (;;) {
    const Node& n = g.node(v.node);
    const OpDef* def = FindOpDef(n.op);
    if (def == nullptr || def->group != OpGroup::kDataMovement) return n;
    int data = 0;
    ValueRef next;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (def->IsParam(static_cast<int>(i))) continue;
      ++data;
      next = n.inputs[i];
    }
    if (data != 1) return n;
    v = next;
  }
}

bool IsIsland(const Graph& g, const Node& op) {
  const OpDef* def = FindOpDef(op.op);
  bool any = false;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (def != nullptr && def->IsParam(static_cast<int>(i))) continue;
    const Node& direct = g.node(op.inputs[i].node);
    if (direct.op == kConstOp || direct.op == kShapeOp) continue;
    if (ThroughDataMovement(g, op.inputs[i]).op != "Dequantize") return false;
    any = true;
  }
  return any;
}

}  // namespace

bool IsQuantizedNetwork(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(),
                     [](const Node& n) { return n.op == "Quantize" || n.op == "Dequantize"; });
}

int64_t QuantizedStats::num_float_ops() const {
  int64_t n = 0;
  for (const auto& [op, k] : float_ops) n += k;
  return n;
}

int64_t QuantizedStats::num_islands() const {
  int64_t n = 0;
  for (const auto& [op, k] : islands) n += k;
  return n;
}

QuantizedStats CountQuantizedStats(const Graph& g) {
  QuantizedStats s;
  for (const Node& n : g.nodes()) {
    s.quantize += n.op == "Quantize";
    s.dequantize += n.op == "Dequantize";
    if (IsBookkeeping(n.op)) continue;
    const OpDef* def = FindOpDef(n.op);
    if (def != nullptr && def->group == OpGroup::kDataMovement) continue;
    if (HasFloatOutput(n)) ++s.float_ops[std::string(BaseOpName(n.op))];
  }
  for (const Node& q : g.nodes()) {
    if (q.op != "Quantize" || q.inputs.empty()) continue;
    const Node& op = g.node(q.inputs[0].node);
    if (IsBookkeeping(op.op) || !IsIsland(g, op)) continue;
    ++s.islands[std::string(BaseOpName(op.op))];
  }
  return s;
}

std::vector<double> OutputSteps(const Graph& g) {
  std::vector<double> steps;
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    const bool dequantized = g.node(g.outputs()[k].value.node).op == "Dequantize";
    steps.push_back(dequantized ? QuantizationStep(g, k) : 0.0);
  }
  return steps;
}

std::string TopKinds(const std::map<std::string, int64_t>& counts, int top) {
  std::vector<std::pair<std::string, int64_t>> v(counts.begin(), counts.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (int i = 0; i < static_cast<int>(v.size()) && i < top; ++i) {
    absl::StrAppendFormat(&out, "%s%s x%d", out.empty() ? "" : ", ", v[i].first, v[i].second);
  }
  if (static_cast<int>(v.size()) > top) {
    absl::StrAppendFormat(&out, " (+%d more)", static_cast<int>(v.size()) - top);
  }
  return out.empty() ? "none" : out;
}

}  // namespace egret
