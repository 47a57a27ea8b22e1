#include "egret/cost/vtcm.h"

#include <limits>
#include <variant>

#include "egret/cost/hvx_cost_model.h"

namespace egret::cost {

int64_t VtcmBytesOf(const Options& options) {
  auto it = options.find(kVtcmBytesOption);
  if (it == options.end()) return kDefaultVtcmBytes;
  int64_t v = 0;
  if (const int64_t* i = std::get_if<int64_t>(&it->second)) v = *i;
  if (const double* d = std::get_if<double>(&it->second)) {
    v = *d >= 9.0e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(*d);
  }
  return v > 0 ? v : kDefaultVtcmBytes;
}

}  // namespace egret::cost
