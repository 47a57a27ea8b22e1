// The op histogram of a graph's computing nodes, for optimize's report
// ("ops": before and after) and the comparison strategies (ops added and
// removed).
#ifndef EGRET_PIPELINE_OP_COUNTS_H_
#define EGRET_PIPELINE_OP_COUNTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "egret/graph/graph.h"

namespace egret {

// How many nodes of each computing op (not "*Input", "$Const", "$Shape") `g` has.
std::map<std::string, int64_t> ComputingOpCounts(const Graph& g);

// The nodes of one op that run off the HTP, and why.
struct OffHtpOps {
  int64_t nodes = 0;
  // The distinct reasons of its nodes (cost/graph_cost.h: kOffHtpReasonAttr),
  // sorted: "no implementation of onnx.LSTM is registered", or "no Float32
  // implementation of Conv2d (registered: QUInt8 crouton)" when the op has
  // implementations but none for its nodes' types (docs/cost-model.md).
  std::vector<std::string> reasons;

  bool operator==(const OffHtpOps&) const = default;
};

// The nodes of each op of `g`, annotated by lowering (kImplAttr), that run
// off the HTP (implementation "off-HTP": no eligible HTP implementation, a
// CPU fallback), and why.
std::map<std::string, OffHtpOps> OffHtpOpsOf(const Graph& g);

// "3 ops: onnx.If x1, onnx.LSTM x2" for `counts`; "" when empty.
std::string DescribeOpCounts(const std::map<std::string, int64_t>& counts);
// DescribeOpCounts of the node counts of `ops`.
std::string DescribeOpCounts(const std::map<std::string, OffHtpOps>& ops);

}  // namespace egret

#endif  // EGRET_PIPELINE_OP_COUNTS_H_
