// The HVX cost model: cheapest implementation, HVX vector scaling, DISABLE,
// saturation, the VTCM spill term and overrides.
#include "egret/cost/hvx_cost_model.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "egret/cost/cost_table.h"
#include "egret/rules/op_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost/node_profile.h"

namespace egret::cost {
namespace {

using testing::P;

TEST(CostModelTest, CheapestImplementationScaledByHvxVectors) {
  CostTable t;
  t.ops["Relu"] = {{"slow", 10, true, false}, {"fast", 3, true, false}};
  t.ops["Flat"] = {{"flat", 50, false, false}};
  t.ops["Reshape"] = {{"nop", 100, false, true}};
  HvxCostModel m(t);
  EXPECT_EQ(m.Cost("Relu", P(DType::kQUInt8, 128)).cost, 3);
  EXPECT_EQ(m.Cost("Relu", P(DType::kQUInt8, 129)).cost, 6);  // two vectors
  EXPECT_EQ(m.Cost("Relu", P(DType::kQUInt8, 1024)).cost, 24);
  EXPECT_EQ(m.Cost("Relu", P(DType::kQUInt8, 1024)).impl, "fast");
  EXPECT_EQ(m.Cost("Flat", P(DType::kFloat32, 4096)).cost, 50);     // not HVX: not scaled
  EXPECT_EQ(m.Cost("Relu.fp16", P(DType::kFloat16, 128)).cost, 3);  // falls back to the base op
  EXPECT_LT(m.Cost("$Const", P(DType::kInt32, 1 << 20)).cost, 1e-10);
  EXPECT_LT(m.Cost("Reshape", P(DType::kInt32, 1 << 20)).cost, 1e-10);
  CostTable o = t;
  ASSERT_TRUE(
      AddCostOverrides(R"({"Relu": {"QUInt8": 1, "*": 7}, "Mystery": 2})", "c.json", &o).ok());
  HvxCostModel mo(o);
  EXPECT_EQ(mo.Cost("Relu", P(DType::kQUInt8, 256)).cost, 2);
  EXPECT_EQ(mo.Cost("Relu", P(DType::kFloat32, 128)).cost, 7);
  EXPECT_TRUE(mo.Cost("Mystery", P(DType::kQUInt8, 128)).computable);
  absl::Status bad = AddCostOverrides(R"({"Relu": "x"})", "c.json", &o);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("c.json"), std::string::npos);
}

// An op with no implementation runs off the HTP: a fixed split cost plus a
// per-vector cost of its inputs and outputs, dearer than any HVX op.
TEST(CostModelTest, OpWithoutImplementationIsPricedAsCpuFallback) {
  CostTable t;
  t.ops["Relu"] = {{"fast", 3, true, false}};
  HvxCostModel m(t);
  NodeCost c = m.Cost("onnx.LSTM", P(DType::kFloat32, /*output_bytes=*/256, /*input_bytes=*/256));
  ASSERT_TRUE(c.computable);
  EXPECT_TRUE(c.off_htp);
  EXPECT_EQ(c.impl, "off-HTP");
  EXPECT_EQ(c.no_htp, NoHtpImpl::kNotRegistered);
  EXPECT_EQ(c.reason, "no implementation of onnx.LSTM is registered");
  EXPECT_EQ(NoHtpImplementationText(c), "has no registered implementation");
  EXPECT_EQ(c.cost, kOffHtpFixedCost + 4 * kOffHtpCyclesPerVector);  // 512 bytes: 4 vectors
  EXPECT_FALSE(m.Cost("Relu", P(DType::kFloat32, 256)).off_htp);
  EXPECT_GT(c.cost, 1000 * m.Cost("Relu", P(DType::kFloat32, 256)).cost);
  // Without the fallback the op cannot be chosen.
  m.set_cpu_fallback(false);
  c = m.Cost("onnx.LSTM", P(DType::kFloat32, 256, 256));
  EXPECT_FALSE(c.computable);
  EXPECT_FALSE(c.off_htp);
  EXPECT_EQ(c.reason, "no implementation of onnx.LSTM is registered");
  EXPECT_EQ(m.Cost("Relu", P(DType::kFloat32, 256)).no_htp, NoHtpImpl::kNone);
  EXPECT_EQ(m.Cost("Relu", P(DType::kFloat32, 256)).reason, "");
}

TEST(CostModelTest, DisableIsATierNoScaledCostReaches) {
  CostTable t;
  t.ops["Slow"] = {{"glacial", rules::kCostGlacial, true, false}};
  t.ops["Off"] = {{"off", 1, true, false, /*disabled=*/true}};
  HvxCostModel m(t);
  const double disabled = m.Cost("Off", P(DType::kQUInt8, 128)).cost;
  EXPECT_EQ(disabled, kDisabledCost);
  EXPECT_EQ(m.Cost("Off", P(DType::kQUInt8, int64_t{1} << 40)).cost, disabled);  // not scaled
  // GLACIAL per vector on 2^33 vectors is 2^81: saturated, still below DISABLE.
  const double huge = m.Cost("Slow", P(DType::kQUInt8, int64_t{1} << 40)).cost;
  EXPECT_EQ(huge, kMaxComputeCost);
  EXPECT_LT(huge, disabled);
  EXPECT_LE(huge * (1 << 22), disabled);  // even summed over 2^22 nodes
  EXPECT_EQ(m.Cost("Slow", P(DType::kQUInt8, 1 << 20)).cost, rules::kCostGlacial * 8192);
  EXPECT_GT(m.Cost("Slow", P(DType::kQUInt8, 1 << 20)).cost,
            rules::kCostDisable);  // the old pitfall
  // An override saturates too.
  CostTable o = t;
  ASSERT_TRUE(AddCostOverrides(R"({"Slow": 1e300})", "c.json", &o).ok());
  EXPECT_EQ(HvxCostModel(o).Cost("Slow", P(DType::kQUInt8, 1 << 20)).cost, kMaxComputeCost);
}

TEST(CostModelTest, WorkingSetOverVtcmCapacityPaysSpill) {
  CostTable t;
  t.ops["Conv2d"] = {{"conv", 100, true, false}};
  t.ops["Concat"] = {{"concat", 2, true, false, false, /*copy=*/true}};
  t.ops["Flat"] = {{"flat", 50, false, false}};
  const HvxCostModel m(t, /*vtcm_bytes=*/1024);
  EXPECT_EQ(m.vtcm_bytes(), 1024);
  // 512 + 512 bytes fit exactly: 4 vectors of output, no spill.
  EXPECT_EQ(m.Cost("Conv2d", P(DType::kQUInt8, 512, 512)).cost, 400);
  // 1 byte over: one vector spilled.
  EXPECT_EQ(m.Cost("Conv2d", P(DType::kQUInt8, 512, 513)).cost, 400 + kSpillCyclesPerVector);
  // 512 + 2048 = 1536 bytes over: 12 vectors.
  EXPECT_EQ(m.Cost("Conv2d", P(DType::kQUInt8, 512, 2048)).cost, 400 + 12 * kSpillCyclesPerVector);
  // Copies and non-HVX implementations pay no spill; free ops stay free.
  EXPECT_EQ(m.Cost("Concat", P(DType::kQUInt8, 4096, 4096)).cost, 64);
  EXPECT_EQ(m.Cost("Flat", P(DType::kQUInt8, 4096, 4096)).cost, 50);
  EXPECT_LT(m.Cost("$Const", P(DType::kQUInt8, 1 << 20, 0)).cost, 1e-10);
  // An override of a computing op spills, of a copy op does not.
  CostTable o = t;
  ASSERT_TRUE(AddCostOverrides(R"({"Conv2d": 1, "Concat": 1})", "c.json", &o).ok());
  const HvxCostModel mo(o, 1024);
  EXPECT_EQ(mo.Cost("Conv2d", P(DType::kQUInt8, 128, 1024)).cost, 1 + kSpillCyclesPerVector);
  EXPECT_EQ(mo.Cost("Concat", P(DType::kQUInt8, 128, 1024)).cost, 1);
  // The default capacity is 8 MiB; huge working sets neither overflow nor
  // pass the saturation.
  EXPECT_EQ(HvxCostModel(t).vtcm_bytes(), kDefaultVtcmBytes);
  EXPECT_EQ(HvxCostModel(t, 0).vtcm_bytes(), kDefaultVtcmBytes);
  const double huge = m.Cost("Conv2d", P(DType::kQUInt8, int64_t{1} << 62, int64_t{1} << 62)).cost;
  EXPECT_TRUE(std::isfinite(huge));
  EXPECT_GT(huge, 100.0 * static_cast<double>(int64_t{1} << 55));  // no overflow to negative
  EXPECT_LE(huge, kMaxComputeCost);
}

}  // namespace
}  // namespace egret::cost
