// The number of cycles a cost as written in a rule file (rules::CostExpr,
// parsed by the rule front end) stands for. The front end keeps costs
// symbolic; turning them into numbers is the cost model's business.
#ifndef EGRET_COST_COST_EXPR_H_
#define EGRET_COST_COST_EXPR_H_

#include <optional>
#include <string>

#include "egret/rules/op_registry.h"

namespace egret::cost {

// The number of cycles of `cost`, or nullopt when it is symbolic (it mentions
// COST_OF, COST_OF_F or a cost function).
std::optional<double> EvaluateCost(const rules::CostExpr& cost);

// The number of cycles of `cost` with COST_OF(f, base) counted as `base`
// (also inside arithmetic: COST_OF(f, SNAIL)/2 is SNAIL/2); nullopt when a part
// needs a cost function (COST_OF_F or a named function), whose name then goes
// to *function (when not null and still empty).
std::optional<double> EstimateCost(const rules::CostExpr& cost, std::string* function);

}  // namespace egret::cost

#endif  // EGRET_COST_COST_EXPR_H_
