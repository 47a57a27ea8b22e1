// The VTCM capacity option.
#include "egret/cost/vtcm.h"

#include <cstdint>
#include <string>

#include "egret/cost/hvx_cost_model.h"
#include "egret/graph/graph.h"
#include "gtest/gtest.h"

namespace egret::cost {
namespace {

TEST(CostModelTest, VtcmCapacityComesFromTheTilingOption) {
  Options o;
  EXPECT_EQ(VtcmBytesOf(o), kDefaultVtcmBytes);
  o[std::string(kVtcmBytesOption)] = int64_t{4096};
  EXPECT_EQ(VtcmBytesOf(o), 4096);
  o[std::string(kVtcmBytesOption)] = 2048.0;
  EXPECT_EQ(VtcmBytesOf(o), 2048);
  o[std::string(kVtcmBytesOption)] = int64_t{0};
  EXPECT_EQ(VtcmBytesOf(o), kDefaultVtcmBytes);
}

}  // namespace
}  // namespace egret::cost
