// The latency model: the work ProfileOf reads off convolutions and matrix
// products (tile padding, groups, depthwise), a node's time as max(compute,
// memory) + dispatch, the matrix unit against HVX, DDR traffic from weights
// and VTCM spills, the CPU fallback, fp16 pricing of Float32, the HVX cost
// model pricing in ns with a device, and device files.
#include "egret/cost/latency_model.h"

#include <memory>
#include <string>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/hvx_cost_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::cost {
namespace {

DeviceParams TestDevice() {
  DeviceParams d = PublicPrior("test", "Test");
  d.fitted = {/*matrix8=*/1000,  /*matrix16=*/500, /*hvx=*/1,
              /*ddr=*/10,        /*dispatch=*/100,
              /*inference=*/5000};
  d.vtcm_bytes = 1 << 20;
  return d;
}

CostTable Table() {
  CostTable t;
  t.ops["Relu"] = {{"relu", 2, /*hvx=*/true}};
  t.ops["Conv2d"] = {{"conv", 16, /*hvx=*/true}};
  t.ops["DepthWiseConv2d"] = {{"dw", 16, /*hvx=*/true}};
  t.ops["Reshape"] = {{"reshape", 0, /*hvx=*/false, /*no_op=*/true}};
  t.ops["Slice_shape"] = {{"slice", 1, /*hvx=*/true}};
  return t;
}

TEST(LatencyModelTest, ProfileOfAConvolutionCountsMacsAndTilePaddedMatrixMacs) {
  const TensorType in(DType::kQUInt8, {1, 8, 8, 48}), w(DType::kQInt8, {3, 3, 48, 40}),
      b(DType::kInt32, {40}), out(DType::kQUInt8, {1, 8, 8, 40});
  const std::vector<NodeInput> ins = {{&in}, {&w, false, true}, {&b, false, true}};
  const NodeProfile p = ProfileOf("Conv2d", {out}, ins);
  EXPECT_DOUBLE_EQ(p.macs, 64.0 * 40 * 9 * 48);
  // 48 input and 40 output channels take two 32-wide tiles each.
  EXPECT_DOUBLE_EQ(p.matrix_macs, 64.0 * 9 * 64 * 64);
  EXPECT_EQ(p.const_bytes, w.byte_size() + b.byte_size());
  EXPECT_EQ(p.input_dtype, DType::kQUInt8);
  EXPECT_THAT(p.output_activation_bytes, ::testing::ElementsAre(out.byte_size()));
  EXPECT_THAT(p.input_activation_bytes, ::testing::ElementsAre(in.byte_size()));
  EXPECT_FALSE(p.constant_inputs);
  EXPECT_TRUE(ProfileOf("Slice_shape", {w}, {{&w, false, true}}).constant_inputs);
}

TEST(LatencyModelTest, GroupedAndDepthwiseConvolutionsAndMatrixProducts) {
  // 4 groups of 8 input and 8 output channels: each group pads to 32 x 32;
  // the 4 x 4 output to one 8 x 8 crouton block.
  const TensorType in(DType::kQUInt8, {1, 4, 4, 32}), w(DType::kQInt8, {1, 1, 8, 32}),
      out(DType::kQUInt8, {1, 4, 4, 32});
  const NodeProfile g = ProfileOf("Conv2d", {out}, {{&in}, {&w, false, true}});
  EXPECT_DOUBLE_EQ(g.macs, 16.0 * 32 * 8);
  EXPECT_DOUBLE_EQ(g.matrix_macs, 64.0 * 4 * 32 * 32);
  const TensorType dw(DType::kQInt8, {3, 3, 1, 32});
  const NodeProfile d = ProfileOf("DepthWiseConv2d", {out}, {{&in}, {&dw, false, true}});
  EXPECT_DOUBLE_EQ(d.macs, 16.0 * 32 * 9);
  EXPECT_EQ(d.matrix_macs, 0);
  const TensorType a(DType::kFloat32, {2, 10, 64}), bm(DType::kFloat32, {2, 64, 20}),
      c(DType::kFloat32, {2, 10, 20});
  const NodeProfile m = ProfileOf("MatMul", {c}, {{&a}, {&bm}});
  EXPECT_DOUBLE_EQ(m.macs, 400.0 * 64);
  EXPECT_DOUBLE_EQ(m.matrix_macs, 20.0 * 32 * 64);
  EXPECT_EQ(ProfileOf("Relu", {c}, {{&a}}).macs, 0);
}

TEST(LatencyModelTest, NodeTimeIsTheLargerOfComputeAndMemoryPlusDispatch) {
  const DeviceParams d = TestDevice();
  NodeWork w;
  w.dispatched = true;
  w.matrix8_macs = 100000;  // 100 ns on the matrix unit
  w.vector_cycles = 1e6;    // HVX would take 1 ms: the matrix unit is chosen
  w.ddr_bytes = 500;        // 50 ns
  EXPECT_DOUBLE_EQ(NodeTimeNs(d, w), 100 + 100);
  w.ddr_bytes = 5000;  // 500 ns: memory-bound
  EXPECT_DOUBLE_EQ(NodeTimeNs(d, w), 500 + 100);
  w.vector_cycles = 20;  // HVX is faster than the padded matrix work
  w.ddr_bytes = 0;
  EXPECT_DOUBLE_EQ(NodeTimeNs(d, w), 20 + 100);
  NodeWork cpu;
  cpu.off_htp = true;
  cpu.off_htp_bytes = 400;
  EXPECT_DOUBLE_EQ(NodeTimeNs(d, cpu), d.off_htp_fixed_ns + 400 / d.off_htp_bytes_per_ns);
  EXPECT_EQ(NodeTimeNs(d, NodeWork{}), 0);
  EXPECT_DOUBLE_EQ(PredictMs(d, {w, w}), (5000 + 2 * 120) / 1e6);
}

TEST(LatencyModelTest, WorkOfNodesReadsRuleCostsWeightsSpillsAndPrecision) {
  const HvxCostModel rules(Table());
  NodeProfile relu;
  relu.dtype = DType::kQUInt8;
  relu.output_bytes = relu.input_bytes = 1280;
  relu.data_dtypes = {DType::kQUInt8};
  NodeWork w = NodeWorkOf(rules, "Relu", relu, 1 << 20);
  EXPECT_TRUE(w.dispatched);
  EXPECT_DOUBLE_EQ(w.vector_cycles, 2 * 10);  // the rule cost: 2 per vector
  EXPECT_EQ(w.ddr_bytes, 0);
  // Float32 runs as fp16: half the vectors.
  NodeProfile f = relu;
  f.dtype = DType::kFloat32;
  f.data_dtypes = {DType::kFloat32};
  EXPECT_DOUBLE_EQ(NodeWorkOf(rules, "Relu", f, 1 << 20).vector_cycles, 2 * 5);
  // Each activation over half of VTCM goes through DDR; smaller ones do not.
  NodeProfile big = relu;
  big.output_bytes = (1 << 19) + 1;
  big.input_bytes = 1 << 19;
  big.output_activation_bytes = {(1 << 19) + 1};
  big.input_activation_bytes = {1 << 19};
  EXPECT_DOUBLE_EQ(NodeWorkOf(rules, "Relu", big, 1 << 20).ddr_bytes, (1 << 19) + 1);
  // A node computed from constants alone costs nothing (done while the
  // graph is prepared).
  NodeProfile folded = relu;
  folded.constant_inputs = true;
  EXPECT_FALSE(NodeWorkOf(rules, "Relu", folded, 1 << 20).dispatched);
  // A slice of a tensor in DDR reads only its part.
  NodeProfile slice = relu;
  slice.output_bytes = 1000;
  slice.output_activation_bytes = {1000};
  slice.input_activation_bytes = {1 << 20};
  EXPECT_DOUBLE_EQ(NodeWorkOf(rules, "Slice_shape", slice, 1 << 20).ddr_bytes, 1000);
  EXPECT_DOUBLE_EQ(NodeWorkOf(rules, "Relu", slice, 1 << 20).ddr_bytes, 1 << 20);
  // A no-op is not dispatched; a convolution's weights are read from DDR and
  // its work goes to the matrix unit at its activation precision.
  EXPECT_FALSE(NodeWorkOf(rules, "Reshape", relu, 1 << 20).dispatched);
  NodeProfile conv = relu;
  conv.macs = 1000;
  conv.matrix_macs = 4096;
  conv.const_bytes = 300;
  conv.input_bytes += 300;
  conv.input_dtype = DType::kQUInt8;
  w = NodeWorkOf(rules, "Conv2d", conv, 1 << 20);
  EXPECT_DOUBLE_EQ(w.matrix8_macs, 4096);
  EXPECT_EQ(w.matrix16_macs, 0);
  EXPECT_DOUBLE_EQ(w.vector_cycles, 1000.0 / 128);
  EXPECT_DOUBLE_EQ(w.ddr_bytes, 300);
  conv.input_dtype = DType::kFloat32;
  conv.dtype = DType::kFloat32;
  w = NodeWorkOf(rules, "Conv2d", conv, 1 << 20);
  EXPECT_DOUBLE_EQ(w.matrix16_macs, 4096);
  EXPECT_DOUBLE_EQ(w.ddr_bytes, 150);  // fp16 weights
  // An op with no implementation runs on the CPU.
  EXPECT_TRUE(NodeWorkOf(rules, "onnx.Mystery", relu, 1 << 20).off_htp);
}

TEST(LatencyModelTest, AModelWithADevicePricesInNanosecondsAndKeepsItsChoices) {
  HvxCostModel m(Table());
  NodeProfile relu;
  relu.dtype = DType::kQUInt8;
  relu.output_bytes = relu.input_bytes = 1280;
  relu.data_dtypes = {DType::kQUInt8};
  const NodeCost cycles = m.Cost("Relu", relu);
  m.set_device(std::make_shared<const DeviceParams>(TestDevice()));
  const NodeCost ns = m.Cost("Relu", relu);
  EXPECT_EQ(ns.impl, cycles.impl);
  EXPECT_DOUBLE_EQ(ns.cost, 20 + 100);  // 20 cycles at 1 per ns, plus dispatch
  EXPECT_DOUBLE_EQ(m.RuleCost("Relu", relu).cost, cycles.cost);
  EXPECT_EQ(m.Cost("$Const", relu).cost, kFreeCost);
  EXPECT_EQ(m.Cost("Reshape", relu).cost, kFreeCost);
}

TEST(LatencyModelTest, TimeByOpSumsByOpWithoutImplementationSuffixesMostFirst) {
  const DeviceParams d = TestDevice();
  NodeWork small, large;
  small.dispatched = large.dispatched = true;
  small.vector_cycles = 10;
  large.vector_cycles = 1000;
  GraphWork g{{"Relu", "Conv2d.opt", "Conv2d", "Reshape", "onnx.DepthToSpace"},
              {small, large, small, NodeWork{}, small}};
  const std::vector<OpTime> t = TimeByOp(d, g);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].op, "Conv2d");
  EXPECT_EQ(t[0].nodes, 2);
  EXPECT_DOUBLE_EQ(t[0].ms, (1100 + 110) / 1e6);
  // Equal times are listed by name; an unknown op keeps its dotted name.
  EXPECT_EQ(t[1].op, "Relu");
  EXPECT_EQ(t[2].op, "onnx.DepthToSpace");
}

TEST(DeviceParamsTest, JsonRoundTripsAndBadFilesNameTheProblem) {
  DeviceParams d = TestDevice();
  d.notes = {"a note"};
  absl::StatusOr<DeviceParams> back = ParseDeviceParams(DeviceParamsJson(d), "d.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->fitted, d.fitted);
  EXPECT_EQ(back->origin, d.origin);
  EXPECT_EQ(back->vtcm_bytes, d.vtcm_bytes);
  EXPECT_EQ(back->notes, d.notes);
  EXPECT_EQ(back->name, "test");
  std::string bad = DeviceParamsJson(d);
  bad.replace(bad.find("\"value\": 100.0"), 14, "\"value\": -1.0");
  absl::StatusOr<DeviceParams> neg = ParseDeviceParams(bad, "d.json");
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.status().message().find("d.json: error: parameter \"dispatch_ns\""),
            std::string::npos)
      << neg.status();
  EXPECT_FALSE(ParseDeviceParams("{", "x.json").ok());
  EXPECT_NE(ParseDeviceParams("{}", "x.json").status().message().find("egret_device_format"),
            std::string::npos);
}

TEST(DeviceParamsTest, ShippedDevicesLoadAndUnknownNamesListThem) {
  const std::string dir = EGRET_DEVICES_DIR;
  const std::vector<std::string> names = ShippedDevices(dir);
  for (const char* want : {"snapdragon-8-elite", "snapdragon-8-gen-3", "snapdragon-x-elite"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  for (const std::string& n : names) {
    absl::StatusOr<DeviceParams> d = LoadDevice(n, dir);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->name, n);
    for (int j = 0; j < kNumFitParams; ++j) EXPECT_GT(d->fitted[j], 0) << n;
  }
  absl::StatusOr<DeviceParams> unknown = LoadDevice("snapdragon-1", dir);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("snapdragon-8-gen-3"), std::string::npos);
}

}  // namespace
}  // namespace egret::cost
