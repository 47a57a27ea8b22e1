// The op histogram of a graph's computing nodes, for optimize's report
// ("ops": before and after) and the comparison strategies (ops added and
// removed).
#ifndef EGRET_PIPELINE_OP_COUNTS_H_
#define EGRET_PIPELINE_OP_COUNTS_H_

#include <cstdint>
#include <map>
#include <string>

#include "egret/graph/graph.h"

namespace egret {

// How many nodes of each computing op (not "*Input", "$Const", "$Shape") `g` has.
std::map<std::string, int64_t> ComputingOpCounts(const Graph& g);

// How many nodes of each op of `g`, annotated by lowering (kImplAttr), run
// off the HTP (implementation "off-HTP": no HTP implementation, a CPU
// fallback).
std::map<std::string, int64_t> OffHtpOpCounts(const Graph& g);

// "3 ops: onnx.If x1, onnx.LSTM x2" for `counts`; "" when empty.
std::string DescribeOpCounts(const std::map<std::string, int64_t>& counts);

}  // namespace egret

#endif  // EGRET_PIPELINE_OP_COUNTS_H_
