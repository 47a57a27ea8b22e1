#include "egret/cost/make_cost_model.h"

#include "egret/cost/cost_table.h"
#include "egret/cost/vtcm.h"

namespace egret::cost {

HvxCostModel MakeCostModel(const rules::OpRegistry& registry, const CostOverrides& overrides,
                           const Options& options, DiagnosticList* diags) {
  return HvxCostModel(CostTableWithOverrides(registry, overrides, diags), VtcmBytesOf(options));
}

}  // namespace egret::cost
