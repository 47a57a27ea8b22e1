#include "egret/cost/cost_table.h"

#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "egret/cost/cost_expr.h"
#include "egret/cost/impl_types.h"
#include "egret/graph/dtype.h"
#include "nlohmann/json.hpp"

namespace egret::cost {
namespace {

bool MentionsDisable(const rules::CostExpr& e) {
  if (e.kind == rules::CostExpr::Kind::kNamed && e.name == "DISABLE") return true;
  for (const rules::CostExpr& a : e.args) {
    if (MentionsDisable(a)) return true;
  }
  return false;
}

}  // namespace

CostTable CostTableFromRegistry(const rules::OpRegistry& registry, DiagnosticList* diags) {
  CostTable table;
  absl::flat_hash_set<std::string> unknown_types;  // warned about once each
  for (const rules::OpImplementation& impl : registry.all()) {
    ImplCost c;
    c.impl = impl.impl;
    if (diags != nullptr) {
      for (const std::string& type : ImplTypesOf(impl.impl).unknown) {
        if (!unknown_types.insert(type).second) continue;
        diags->Warning(impl.loc, absl::StrFormat("implementation '%s' of '%s' declares the tensor "
                                                 "type '%s', which egret does not know; it "
                                                 "matches every dtype",
                                                 impl.impl, impl.op_name, type));
      }
    }
    c.disabled = MentionsDisable(impl.cost);
    std::string function;
    std::optional<double> v = EstimateCost(impl.cost, &function);
    if (!v && !c.disabled && diags != nullptr) {
      diags->Warning(impl.loc,
                     absl::StrFormat("cost '%s' of '%s' depends on the cost function '%s', which "
                                     "egret cannot run; counted as GLACIAL",
                                     impl.cost.ToString(), impl.op_name, function));
    }
    c.cost = v.value_or(rules::kCostGlacial);
    c.hvx = (impl.flag_bits & rules::kResourceHvx) != 0;
    c.hmx = (impl.flag_bits & rules::kResourceHmx) != 0;
    c.is_const = (impl.flag_bits & rules::kIsConst) != 0;
    c.no_op = (impl.flag_bits & (rules::kNullExec | rules::kInplaceNop)) != 0;
    c.copy = (impl.flag_bits & (rules::kIsCopy | rules::kIsDma)) != 0;
    table.ops[impl.op_name].push_back(std::move(c));
  }
  return table;
}

absl::Status AddCostOverrides(std::string_view json_text, const std::string& file,
                              CostTable* table) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return BadInput(SourceLocation{file, 0, 0}, "malformed JSON cost table");
  if (!j.is_object()) {
    return BadInput(SourceLocation{file, 0, 0}, "the cost table must be a JSON object");
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    auto& per_op = table->overrides[it.key()];
    if (it.value().is_number()) {
      per_op["*"] = it.value().get<double>();
    } else if (it.value().is_object()) {
      for (auto d = it.value().begin(); d != it.value().end(); ++d) {
        if (!d.value().is_number()) {
          return BadInput(
              SourceLocation{file, 0, 0},
              absl::StrFormat("cost of '%s' for dtype '%s' is not a number", it.key(), d.key()));
        }
        if (d.key() != "*" && !ParseDType(d.key())) {
          return BadInput(
              SourceLocation{file, 0, 0},
              absl::StrFormat("unknown dtype '%s' in the cost of '%s'", d.key(), it.key()));
        }
        per_op[d.key()] = d.value().get<double>();
      }
    } else {
      return BadInput(SourceLocation{file, 0, 0},
                      absl::StrFormat("cost of '%s' must be a number or an object", it.key()));
    }
  }
  return absl::OkStatus();
}

CostTable CostTableWithOverrides(const rules::OpRegistry& registry, const CostOverrides& overrides,
                                 DiagnosticList* diags) {
  CostTable table = CostTableFromRegistry(registry, diags);
  for (const auto& [op, per] : overrides) {
    for (const auto& [dt, c] : per) table.overrides[op][dt] = c;
  }
  return table;
}

}  // namespace egret::cost
