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

std::vector<ParamRewrite> PlanCanonicalParams(const Graph& g) {
  std::vector<ParamRewrite> plan;
  const size_t n = g.num_nodes();
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = g.node(id);
    const OpDef* def = FindOpDef(node.op);
    if (def == nullptr) continue;
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const ParamForm form = def->FormOf(static_cast<int>(k));
      if (form == ParamForm::kScalar) continue;
      const ValueRef in = node.inputs[k];
      if (in.node >= n) continue;  // Validate reports it
      const Node& producer = g.node(in.node);
      std::optional<std::vector<int64_t>> value = IntsOf(producer);
      if (!value) continue;
      if (form == ParamForm::kAxes) {
        // Operand 0 is never a list the plan rewrites for an op with an
        // axes operand (canonical_params_test checks the op table), so its
        // type is the same before and after.
        const ValueRef x = node.inputs[0];
        if (x.node >= n || x.output >= g.node(x.node).outputs.size()) continue;
        value = CanonicalAxes(*std::move(value), g.TypeOf(x).rank());
        if (!value) continue;
      }
      if (!CheckShape(*value).ok() || static_cast<int>(value->size()) > kMaxRank) continue;
      if (producer.op == kShapeOp &&
          producer.outputs[0].dims == Dims(value->begin(), value->end())) {
        continue;  // already canonical
      }
      plan.push_back(ParamRewrite{id, static_cast<int>(k), *std::move(value)});
    }
  }
  return plan;
}

int ApplyCanonicalParams(const std::vector<ParamRewrite>& plan, Graph* g) {
  if (plan.empty()) return 0;
  absl::flat_hash_map<std::vector<int64_t>, NodeId> shapes;  // value -> "$Shape" node
  for (NodeId id = 0; id < g->num_nodes(); ++id) {
    if (g->node(id).op == kShapeOp) shapes.try_emplace(IntsOf(g->node(id)).value(), id);
  }
  for (const ParamRewrite& r : plan) {
    auto [it, inserted] = shapes.try_emplace(r.value, kNoNode);
    if (inserted) {
      Node shape;
      shape.op = std::string(kShapeOp);
      shape.outputs.push_back(TensorType(DType::kInt32, Dims(r.value.begin(), r.value.end())));
      it->second = g->AddNode(std::move(shape));
    }
    g->mutable_node(r.node).inputs[r.operand] = ValueRef{it->second, 0};
  }
  return static_cast<int>(plan.size());
}

int CanonicalizeParams(Graph* g) { return ApplyCanonicalParams(PlanCanonicalParams(*g), g); }

}  // namespace egret
