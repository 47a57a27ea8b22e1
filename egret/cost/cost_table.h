// The cost table of a rule set: one entry per implementation registered by
// DEF_PACKAGE_OP* forms (rules::OpRegistry), plus overrides from a JSON cost
// file (`egret optimize --costs FILE`) or OptimizeOptions::cost_overrides.
// The HVX cost model (cost/hvx_cost_model.h) prices nodes from it.
#ifndef EGRET_COST_COST_TABLE_H_
#define EGRET_COST_COST_TABLE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/rules/op_registry.h"
#include "egret/support/diagnostic.h"

namespace egret::cost {

// One entry per registered implementation. A cost is evaluated as far as it
// can be (cost/cost_expr.h: EstimateCost): COST_OF(f, base) counts as its base
// cost, also inside arithmetic (COST_OF(f, SNAIL)/2 is SNAIL/2). A cost that
// needs a cost function (COST_OF_F, *_COST_F_*), which egret cannot run, counts
// as GLACIAL, with a warning at the implementation's location in `diags` (when
// given). A cost that mentions DISABLE marks the implementation disabled. A
// template argument naming a tensor type egret does not know (cost/
// impl_types.h; such an implementation matches every dtype) is a warning too,
// once per type name.
CostTable CostTableFromRegistry(const rules::OpRegistry& registry, DiagnosticList* diags = nullptr);

// Reads a JSON cost table into `table`'s overrides:
//   {"Conv2d": 4096, "Relu": {"QUInt8": 1, "*": 2}}
// (cost per 128-byte output vector; "*" = any dtype). Errors (malformed JSON,
// not an object, a cost that is not a number, an unknown dtype) are
// kInvalidArgument naming `file`.
absl::Status AddCostOverrides(std::string_view json_text, const std::string& file,
                              CostTable* table);

// CostTableFromRegistry plus `overrides`, which replace the registry's cost
// of an op for one dtype or all.
CostTable CostTableWithOverrides(const rules::OpRegistry& registry, const CostOverrides& overrides,
                                 DiagnosticList* diags = nullptr);

}  // namespace egret::cost

#endif  // EGRET_COST_COST_TABLE_H_
