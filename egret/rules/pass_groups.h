// The predefined pass groups of rule priorities (pass_spec names): each
// distinct numeric priority is one pass, run in ascending order.
#ifndef EGRET_RULES_PASS_GROUPS_H_
#define EGRET_RULES_PASS_GROUPS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace egret::rules {

// The value of a pass-group name (BEGIN = 0, ..., AUX_CLEANUP = 25000), or
// nullopt when `name` is not one.
std::optional<int64_t> PassGroupValue(std::string_view name);

// The pass-group name whose value is the largest not above `priority`, or ""
// when priority is negative ("TILING" for 11000, "TILING" for 11005).
std::string_view PassGroupAt(int64_t priority);

// Whether a rule of pass priority `priority` belongs to a pass group that
// lowers a graph onto the HTP's memory and tiles rather than changing what
// it computes: PRE_TILING, TILING, CENTRAL_TILING, TILE_CLEANUP,
// POST_TILING, TCM_MIGRATION, LAYOUT_AND_PLACEMENT, POST_TCM. A graph
// written for other runtimes (ONNX) leaves them out.
bool IsDeviceLoweringPass(int64_t priority);

// Every (name, value), in ascending value.
const std::vector<std::pair<std::string_view, int64_t>>& PassGroups();

}  // namespace egret::rules

#endif  // EGRET_RULES_PASS_GROUPS_H_
