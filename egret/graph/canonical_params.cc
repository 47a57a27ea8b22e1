#include "egret/graph/canonical_params.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"

namespace egret {
namespace {

// The integers a "$Const" or "$Shape" parameter holds (ReadIntParam), or
// nullopt when it is neither or holds something else (floats, quantized
// data, rank > 1).
std::optional<std::vector<int64_t>> IntsOf(const Node& p) {
  const bool shape = p.op == kShapeOp;
  if (!shape) {
    if (p.op != kConstOp || p.constant == nullptr) return std::nullopt;
    const TensorType& t = p.constant->type();
    if (IsFloat(t.dtype) || IsQuantized(t.dtype) || t.dtype == DType::kBool || t.rank() > 1) {
      return std::nullopt;
    }
  }
  OperandInfo param;
  param.type = &p.outputs[0];
  param.value = p.constant.get();
  param.is_shape = shape;
  absl::StatusOr<std::vector<int64_t>> v = ReadIntParam(param, "");
  if (!v.ok()) return std::nullopt;
  return *std::move(v);
}

// `axes` of a rank-`rank` operand, counted from 0 and ascending, or nullopt
// when one is out of range or listed twice.
std::optional<std::vector<int64_t>> CanonicalAxes(std::vector<int64_t> axes, int rank) {
  for (int64_t& a : axes) {
    absl::StatusOr<int> n = NormalizeAxis(a, rank, "axis");
    if (!n.ok()) return std::nullopt;
    a = *n;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return std::nullopt;
  return axes;
}

}  // namespace

int CanonicalizeParams(Graph* g) {
  absl::flat_hash_map<std::vector<int64_t>, NodeId> shapes;  // value -> "$Shape" node
  for (NodeId id = 0; id < g->num_nodes(); ++id) {
    if (g->node(id).op == kShapeOp) shapes.try_emplace(IntsOf(g->node(id)).value(), id);
  }
  int rewritten = 0;
  const size_t n = g->num_nodes();
  for (NodeId id = 0; id < n; ++id) {
    const OpDef* def = FindOpDef(g->node(id).op);
    if (def == nullptr) continue;
    for (size_t k = 0; k < g->node(id).inputs.size(); ++k) {
      const ParamForm form = def->FormOf(static_cast<int>(k));
      if (form == ParamForm::kScalar) continue;
      const Node& node = g->node(id);
      const ValueRef in = node.inputs[k];
      if (in.node >= g->num_nodes()) continue;  // Validate reports it
      const Node& producer = g->node(in.node);
      std::optional<std::vector<int64_t>> value = IntsOf(producer);
      if (!value) continue;
      if (form == ParamForm::kAxes) {
        if (node.inputs.empty() || node.inputs[0].node >= g->num_nodes()) continue;
        const ValueRef x = node.inputs[0];
        if (x.output >= g->node(x.node).outputs.size()) continue;
        value = CanonicalAxes(*std::move(value), g->TypeOf(x).rank());
        if (!value) continue;
      }
      if (!CheckShape(*value).ok() || static_cast<int>(value->size()) > kMaxRank) continue;
      if (producer.op == kShapeOp &&
          producer.outputs[0].dims == Dims(value->begin(), value->end())) {
        continue;  // already canonical
      }
      auto [it, inserted] = shapes.try_emplace(*value, kNoNode);
      if (inserted) {
        Node shape;
        shape.op = std::string(kShapeOp);
        shape.outputs.push_back(TensorType(DType::kInt32, Dims(value->begin(), value->end())));
        it->second = g->AddNode(std::move(shape));
      }
      g->mutable_node(id).inputs[k] = ValueRef{it->second, 0};
      ++rewritten;
    }
  }
  return rewritten;
}

}  // namespace egret
