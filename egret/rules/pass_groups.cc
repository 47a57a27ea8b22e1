#include "egret/rules/pass_groups.h"

namespace egret::rules {

const std::vector<std::pair<std::string_view, int64_t>>& PassGroups() {
  static const auto* const kGroups = new std::vector<std::pair<std::string_view, int64_t>>{
      {"BEGIN", 0},
      {"GRAPH_CLEANUP", 50},
      {"CLEANUP_GRAPH", 100},
      {"PRE_TRANSLATE", 1000},
      {"PRE_QNN", 1050},
      {"TRANSLATE", 2000},
      {"QNN", 2050},
      {"ANALYSIS", 3000},
      {"EARLY", 3050},
      {"QUANT_FIXES", 4000},
      {"PRE_RESHAPE_OP_SIMPLIFY", 5000},
      {"SPATIAL_RESHAPE", 6000},
      {"SPACE_DEPTH", 7000},
      {"POST_RESHAPE_OP_SIMPLIFY", 8000},
      {"PRE_TILING", 10000},
      {"TILING", 11000},
      {"CENTRAL_TILING", 11900},
      {"TILE_CLEANUP", 12000},
      {"POST_TILING", 13000},
      {"HARD_OPS", 20000},
      {"MIDDLE", 20050},
      {"TCM_MIGRATION", 21000},
      {"LATE", 21050},
      {"LAYOUT_AND_PLACEMENT", 21100},
      {"POST_TCM", 22000},
      {"FINAL_CLEANUP", 23000},
      {"AUX_CLEANUP", 25000},
  };
  return *kGroups;
}

bool IsDeviceLoweringPass(int64_t priority) {
  const std::string_view g = PassGroupAt(priority);
  for (std::string_view name :
       {"PRE_TILING", "TILING", "CENTRAL_TILING", "TILE_CLEANUP", "POST_TILING", "TCM_MIGRATION",
        "LAYOUT_AND_PLACEMENT", "POST_TCM"}) {
    if (g == name) return true;
  }
  return false;
}

std::optional<int64_t> PassGroupValue(std::string_view name) {
  for (const auto& [n, v] : PassGroups()) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::string_view PassGroupAt(int64_t priority) {
  std::string_view best;
  for (const auto& [n, v] : PassGroups()) {
    if (v <= priority) best = n;
  }
  return best;
}

}  // namespace egret::rules
