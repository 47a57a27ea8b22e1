#include "egret/cost/hvx_cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace egret::cost {
namespace {

bool IsFreeOp(std::string_view op) {
  return op == "$Const" || op == "$Shape" || op == "$Out" || (!op.empty() && op.front() == '*');
}

std::string_view BaseName(std::string_view op) {
  if (op.empty() || op.front() == '$' || op.front() == '*') return op;
  size_t dot = op.find('.');
  return dot == std::string_view::npos ? op : op.substr(0, dot);
}

}  // namespace

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

NodeCost HvxCostModel::Cost(std::string_view op, std::string_view dtype, int64_t output_bytes,
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
  for (std::string_view name : {op, BaseName(op)}) {
    auto ov = table_.overrides.find(std::string(name));
    if (ov != table_.overrides.end()) {
      auto it = ov->second.find(std::string(dtype));
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
    for (const ImplCost& c : impls->second) {
      all_no_op &= c.no_op;
      const double v = c.disabled         ? kDisabledCost
                       : c.hvx && !c.copy ? hvx_cost(c.cost, vectors)
                                          : Scaled(c.cost, c.hvx, vectors);
      if (v < best) {
        best = v;
        best_impl = &c;
      }
    }
    out.computable = true;
    if (all_no_op) {
      out.cost = kFreeCost;
      out.impl = impls->second.front().impl;
    } else {
      out.cost = best;
      out.impl = best_impl->impl;
    }
    return out;
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
