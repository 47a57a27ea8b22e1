#include "egret/cost/cost_expr.h"

namespace egret::cost {
namespace {

using Kind = rules::CostExpr::Kind;

std::optional<double> Evaluate(const rules::CostExpr& e, bool cost_of_as_base,
                               std::string* function) {
  switch (e.kind) {
    case Kind::kNumber:
    case Kind::kNamed:
      return e.value;
    case Kind::kNeg: {
      std::optional<double> a = Evaluate(e.args[0], cost_of_as_base, function);
      if (!a) return std::nullopt;
      return -*a;
    }
    case Kind::kAdd:
    case Kind::kSub:
    case Kind::kMul:
    case Kind::kDiv: {
      std::optional<double> a = Evaluate(e.args[0], cost_of_as_base, function);
      std::optional<double> b = Evaluate(e.args[1], cost_of_as_base, function);
      if (!a || !b) return std::nullopt;
      if (e.kind == Kind::kAdd) return *a + *b;
      if (e.kind == Kind::kSub) return *a - *b;
      if (e.kind == Kind::kMul) return *a * *b;
      return *a / *b;
    }
    case Kind::kCostOf:
      if (cost_of_as_base && !e.args.empty()) {
        return Evaluate(e.args[0], cost_of_as_base, function);
      }
      break;
    case Kind::kCostOfF:
    case Kind::kFunction:
      break;
  }
  if (function != nullptr && function->empty()) *function = e.name;
  return std::nullopt;
}

}  // namespace

std::optional<double> EvaluateCost(const rules::CostExpr& cost) {
  return Evaluate(cost, /*cost_of_as_base=*/false, nullptr);
}

std::optional<double> EstimateCost(const rules::CostExpr& cost, std::string* function) {
  return Evaluate(cost, /*cost_of_as_base=*/true, function);
}

}  // namespace egret::cost
