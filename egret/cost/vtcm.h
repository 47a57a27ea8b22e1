// The VTCM capacity of a graph: the graph option "tcm_size_for_tiling", which
// the rules read as TCM_MAXTENSOR_SIZE, so that tiling rules (AUTOSPLIT) and
// the HVX cost model's spill term agree on it.
#ifndef EGRET_COST_VTCM_H_
#define EGRET_COST_VTCM_H_

#include <cstdint>
#include <string_view>

#include "egret/graph/graph.h"

namespace egret::cost {

// The graph option that gives the VTCM capacity in bytes.
inline constexpr std::string_view kVtcmBytesOption = "tcm_size_for_tiling";

// The VTCM capacity `options` give (kVtcmBytesOption, an integer or a number;
// kDefaultVtcmBytes of cost/hvx_cost_model.h when absent or not positive).
int64_t VtcmBytesOf(const Options& options);

}  // namespace egret::cost

#endif  // EGRET_COST_VTCM_H_
