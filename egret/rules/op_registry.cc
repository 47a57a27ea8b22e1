#include "egret/rules/op_registry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace egret::rules {

std::optional<double> NamedCost(std::string_view name) {
  if (name == "GLACIAL") return kCostGlacial;
  if (name == "SNAIL") return kCostSnail;
  if (name == "FAST") return kCostFast;
  if (name == "FREE") return kCostFree;
  if (name == "DISABLE") return kCostDisable;
  return std::nullopt;
}

CostExpr CostExpr::Number(double v) {
  CostExpr c;
  c.kind = Kind::kNumber;
  c.value = v;
  return c;
}

CostExpr CostExpr::Named(std::string_view name) {
  CostExpr c;
  c.kind = Kind::kNamed;
  c.name = std::string(name);
  c.value = NamedCost(name).value_or(0);
  return c;
}

std::string CostExpr::ToString() const {
  switch (kind) {
    case Kind::kNumber:
      return absl::StrFormat("%g", value);
    case Kind::kNamed:
    case Kind::kFunction:
      return name;
    case Kind::kNeg:
      return absl::StrCat("-", args[0].ToString());
    case Kind::kAdd:
    case Kind::kSub:
    case Kind::kMul:
    case Kind::kDiv: {
      const char* op = kind == Kind::kAdd   ? "+"
                       : kind == Kind::kSub ? "-"
                       : kind == Kind::kMul ? "*"
                                            : "/";
      auto wrap = [](const CostExpr& c) {
        bool compound = c.kind == Kind::kAdd || c.kind == Kind::kSub || c.kind == Kind::kMul ||
                        c.kind == Kind::kDiv;
        return compound ? absl::StrCat("(", c.ToString(), ")") : c.ToString();
      };
      return absl::StrCat(wrap(args[0]), op, wrap(args[1]));
    }
    case Kind::kCostOf:
      return absl::StrCat("COST_OF(", name, ",", args[0].ToString(), ")");
    case Kind::kCostOfF:
      return absl::StrCat("COST_OF_F(", name, ")");
  }
  return "";
}

uint32_t OpFlagBit(std::string_view name) {
  static constexpr std::pair<std::string_view, uint32_t> kFlags[] = {
      {"IS_CONST", kIsConst},         {"INHIBIT_CONST_PROP", kInhibitConstProp},
      {"RESOURCE_HVX", kResourceHvx}, {"RESOURCE_HMX", kResourceHmx},
      {"RESOURCE_HLX", kResourceHlx}, {"IS_DMA", kIsDma},
      {"NULL_EXEC", kNullExec},       {"INPLACE_NOP", kInplaceNop},
      {"IS_COPY", kIsCopy},
  };
  for (const auto& [n, bit] : kFlags) {
    if (n == name) return bit;
  }
  return 0;
}

void OpRegistry::Add(OpImplementation impl) {
  by_name_[impl.op_name].push_back(impls_.size());
  impls_.push_back(std::move(impl));
}

std::vector<const OpImplementation*> OpRegistry::Find(std::string_view op_name) const {
  std::vector<const OpImplementation*> out;
  auto it = by_name_.find(std::string(op_name));
  if (it == by_name_.end()) return out;
  for (size_t i : it->second) out.push_back(&impls_[i]);
  return out;
}

bool OpRegistry::Contains(std::string_view op_name) const {
  return by_name_.contains(std::string(op_name));
}

}  // namespace egret::rules
