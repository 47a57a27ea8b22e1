#include "egret/cost/make_cost_model.h"

#include <utility>

#include "egret/cost/cost_table.h"
#include "egret/cost/vtcm.h"

namespace egret::cost {

HvxCostModel MakeCostModel(const rules::OpRegistry& registry, const CostOverrides& overrides,
                           const Options& options, DiagnosticList* diags,
                           std::shared_ptr<const DeviceParams> device) {
  HvxCostModel m(CostTableWithOverrides(registry, overrides, diags), VtcmBytesOf(options));
  m.set_device(std::move(device));
  return m;
}

}  // namespace egret::cost
