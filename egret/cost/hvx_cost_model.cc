#include "egret/cost/hvx_cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/cost/latency_model.h"
#include "egret/graph/op_table.h"

namespace egret::cost {
namespace {

bool IsFreeOp(std::string_view op) {
  return op == "$Const" || op == "$Shape" || op == "$Out" || (!op.empty() && op.front() == '*');
}

}  // namespace

std::string NoHtpImplementationText(const NodeCost& c) {
  if (c.no_htp == NoHtpImpl::kNotForTypes) {
    return absl::StrCat("has no implementation for its types: ", c.reason);
  }
  return "has no registered implementation";
}

int64_t HvxCostModel::Vectors(int64_t output_bytes) {
  if (output_bytes <= kHvxVectorBytes) return 1;
  return (output_bytes + kHvxVectorBytes - 1) / kHvxVectorBytes;
}

double HvxCostModel::Scaled(double cost, bool hvx, double vectors) {
  const double v = hvx ? cost * vectors : cost;
  return std::isnan(v) ? kMaxComputeCost : std::min(v, kMaxComputeCost);
}

double HvxCostModel::SpillCost(int64_t working_set_bytes, int64_t vtcm_bytes) {
  if (working_set_bytes <= vtcm_bytes) return 0;
  const double over = static_cast<double>(working_set_bytes - vtcm_bytes);
  return kSpillCyclesPerVector * std::ceil(over / static_cast<double>(kHvxVectorBytes));
}

HvxCostModel::HvxCostModel(CostTable table, int64_t vtcm_bytes)
    : table_(std::move(table)), vtcm_bytes_(vtcm_bytes > 0 ? vtcm_bytes : kDefaultVtcmBytes) {
  for (auto& [op, impls] : table_.ops) {
    for (ImplCost& c : impls) c.types = ImplTypesOf(c.impl);
  }
}

NodeCost HvxCostModel::Cost(std::string_view op, const NodeProfile& node) const {
  NodeCost c = RuleCost(op, node);
  if (device_ == nullptr || !c.computable || c.cost <= kFreeCost || c.cost >= kDisabledCost) {
    return c;
  }
  // The rule cost at the HTP's precision (Float32 runs as fp16: half the
  // bytes), which only a Float32 node needs priced again.
  const NodeCost htp = node.dtype == DType::kFloat32
                           ? RuleCost(op, node, node.output_bytes / 2, node.input_bytes / 2)
                           : c;
  const double ns = NodeTimeNs(*device_, NodeWorkFrom(htp, op, node, device_->vtcm_bytes));
  c.cost = std::isfinite(ns) ? std::clamp(ns, kFreeCost, kMaxComputeCost) : kMaxComputeCost;
  return c;
}

NodeCost HvxCostModel::RuleCost(std::string_view op, const NodeProfile& node) const {
  return RuleCost(op, node, node.output_bytes, node.input_bytes);
}

NodeCost HvxCostModel::RuleCost(std::string_view op, const NodeProfile& node, int64_t output_bytes,
                                int64_t input_bytes) const {
  NodeCost out;
  if (IsFreeOp(op)) {
    out.computable = true;
    out.cost = kFreeCost;
    out.impl = "free";
    return out;
  }
  const double vectors = static_cast<double>(Vectors(output_bytes));
  // Saturating: the working set of a huge tensor must not overflow.
  const int64_t working_set = output_bytes > std::numeric_limits<int64_t>::max() - input_bytes
                                  ? std::numeric_limits<int64_t>::max()
                                  : output_bytes + input_bytes;
  const double spill = SpillCost(working_set, vtcm_bytes_);
  // An HVX cost plus the spill term, saturated like the scaled cost.
  auto hvx_cost = [spill](double cost, double vectors) {
    const double v = Scaled(cost, /*hvx=*/true, vectors) + spill;
    return std::isnan(v) ? kMaxComputeCost : std::min(v, kMaxComputeCost);
  };
  const NodeTypes types{node.multi_output ? DType::kMulti : node.dtype, node.data_dtypes,
                        node.max_rank};
  if (const std::optional<DType> d = NonHtpDType(types)) {
    // No HTP implementation, generic or overridden, computes these types.
    out.no_htp = NoHtpImpl::kNotForTypes;
    out.reason = absl::StrCat("the HTP has no ", std::string(DTypeName(*d)), " tensors");
  }
  for (std::string_view name : {op, BaseOpName(op)}) {
    if (out.no_htp != NoHtpImpl::kNone) break;
    auto ov = table_.overrides.find(std::string(name));
    if (ov != table_.overrides.end()) {
      auto it = ov->second.find(std::string(DTypeName(node.dtype)));
      if (it == ov->second.end()) it = ov->second.find("*");
      if (it != ov->second.end()) {
        out.computable = true;
        // An override prices the op's work; a copy op stays a copy.
        auto reg = table_.ops.find(std::string(name));
        const bool copy = reg != table_.ops.end() && !reg->second.empty() &&
                          std::all_of(reg->second.begin(), reg->second.end(),
                                      [](const ImplCost& c) { return c.copy; });
        out.cost = copy ? Scaled(it->second, /*hvx=*/true, vectors) : hvx_cost(it->second, vectors);
        out.impl = "override";
        return out;
      }
    }
    auto impls = table_.ops.find(std::string(name));
    if (impls == table_.ops.end() || impls->second.empty()) continue;
    bool all_no_op = true;
    double best = std::numeric_limits<double>::infinity();
    const ImplCost* best_impl = nullptr;
    const ImplCost* first_eligible = nullptr;
    for (const ImplCost& c : impls->second) {
      if (!IsEligible(c.types, types)) continue;
      if (first_eligible == nullptr) first_eligible = &c;
      all_no_op &= c.no_op;
      const double v = c.disabled         ? kDisabledCost
                       : c.is_const       ? kFreeCost
                       : c.hmx            ? hvx_cost(c.cost / kHmxThroughputFactor, vectors)
                       : c.hvx && !c.copy ? hvx_cost(c.cost, vectors)
                                          : Scaled(c.cost, c.hvx, vectors);
      if (v < best) {
        best = v;
        best_impl = &c;
      }
    }
    if (first_eligible == nullptr) {
      // Registered, but not for these types: the node runs off the HTP (a
      // suffixed op's own implementations decide; the base op's are not
      // consulted).
      std::vector<const ImplTypes*> registered;
      for (const ImplCost& c : impls->second) registered.push_back(&c.types);
      out.no_htp = NoHtpImpl::kNotForTypes;
      out.reason = IneligibleReason(name, registered, types);
      break;
    }
    out.computable = true;
    if (all_no_op) {
      out.cost = kFreeCost;
      out.impl = first_eligible->impl;
    } else {
      out.cost = best;
      out.impl = best_impl->impl;
    }
    return out;
  }
  if (out.no_htp == NoHtpImpl::kNone) {
    out.no_htp = NoHtpImpl::kNotRegistered;
    out.reason = "no implementation of " + std::string(op) + " is registered";
  }
  if (cpu_fallback_) {
    out.computable = true;
    out.off_htp = true;
    out.impl = std::string(kOffHtpImpl);
    const double v =
        kOffHtpFixedCost + kOffHtpCyclesPerVector * static_cast<double>(Vectors(working_set));
    out.cost = std::isnan(v) ? kMaxComputeCost : std::min(v, kMaxComputeCost);
  }
  return out;
}

}  // namespace egret::cost
