// The HVX cost model a job prices with: the rule set's cost table with the
// job's overrides (cost/cost_table.h) and the VTCM capacity of its graph
// options (cost/vtcm.h). Every stage that prices nodes builds its model here,
// so that optimize, the comparison strategies and the benches agree.
#ifndef EGRET_COST_MAKE_COST_MODEL_H_
#define EGRET_COST_MAKE_COST_MODEL_H_

#include <memory>

#include "egret/cost/device_params.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/graph/graph.h"
#include "egret/rules/op_registry.h"
#include "egret/support/diagnostic.h"

namespace egret::cost {

// The model of CostTableWithOverrides(registry, overrides, diags) with
// VtcmBytesOf(options) (`options`: the graph's options with any overrides
// applied), pricing in predicted time on `device` when it is not null
// (cost/latency_model.h). Cost functions egret cannot run are warnings in
// `diags`.
HvxCostModel MakeCostModel(const rules::OpRegistry& registry, const CostOverrides& overrides,
                           const Options& options, DiagnosticList* diags = nullptr,
                           std::shared_ptr<const DeviceParams> device = nullptr);

}  // namespace egret::cost

#endif  // EGRET_COST_MAKE_COST_MODEL_H_
