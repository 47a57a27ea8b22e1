// The HVX cost model: what one e-node costs, from the implementations
// registered for its op (DEF_PACKAGE_OP* in rule files) given as plain data,
// so that this stage does not depend on the rule front end. docs/cost-model.md
// describes it; in short:
//
//   - An op's cost is that of its cheapest implementation. An HVX
//     implementation's cost is per 128-byte vector of output: it is
//     multiplied by max(1, ceil(output bytes / 128)). The product saturates
//     at kMaxComputeCost.
//   - A DISABLE implementation costs kDisabledCost, a tier above anything the
//     scaling can reach (even summed over 2^22 nodes at kMaxComputeCost), so
//     a DISABLE node is chosen only when nothing else computes the class.
//   - "$Const", "$Shape", "$Out", graph inputs (volatile "*" ops) and ops
//     whose every implementation is a no-op (NULL_EXEC / INPLACE_NOP) cost
//     FREE (2^-64).
//   - An op with no implementation cannot be chosen (Cost() says so).
//   - Overrides (e.g. from `--costs FILE`) replace the registry's cost of an
//     op, for one dtype or all; an override is a cost per HVX vector.
//   - An op name with a dotted implementation suffix ("Relu.fp16") falls back
//     to the base op's implementations when it has none of its own.
#ifndef EGRET_EXTRACT_HVX_COST_MODEL_H_
#define EGRET_EXTRACT_HVX_COST_MODEL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace egret::extract {

inline constexpr double kFreeCost = 5.421010862427522e-20;  // 2^-64
inline constexpr int64_t kHvxVectorBytes = 128;
// Every cost that is not DISABLE is at most this (2^70; GLACIAL is 2^48).
inline constexpr double kMaxComputeCost = 1180591620717411303424.0;
// The cost of a DISABLE implementation (2^92), whatever the output's size.
// Kept below 1e30, which LP solvers treat as infinity.
inline constexpr double kDisabledCost = 4951760157141521099596496896.0;
static_assert(kMaxComputeCost * (1 << 22) <= kDisabledCost);

// One registered implementation of an op.
struct ImplCost {
  std::string impl;       // the implementation as written, e.g. "(reluImpl<QUint8>)"
  double cost = 0;        // cycles (per HVX vector when `hvx`)
  bool hvx = false;       // RESOURCE_HVX: scaled by the output's vector count
  bool no_op = false;     // NULL_EXEC or INPLACE_NOP: computes nothing
  bool disabled = false;  // DISABLE: costs kDisabledCost (`cost` is ignored)
};

// Op name -> implementations; dtype-specific overrides.
struct CostTable {
  absl::flat_hash_map<std::string, std::vector<ImplCost>> ops;
  // op -> dtype name ("QUInt8", ...; "*" = every dtype) -> cost per vector.
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, double>> overrides;
};

struct NodeCost {
  bool computable = false;  // false: the op has no implementation
  double cost = 0;          // when computable
  std::string impl;         // the chosen implementation ("free", "override", or as written)
};

class HvxCostModel {
 public:
  explicit HvxCostModel(CostTable table) : table_(std::move(table)) {}

  // The cost of a node of `op` whose output has dtype `dtype` (its QNN name)
  // and `output_bytes` bytes.
  NodeCost Cost(std::string_view op, std::string_view dtype, int64_t output_bytes) const;

  // max(1, ceil(bytes / 128)).
  static int64_t Vectors(int64_t output_bytes);
  // `cost` (per vector when `hvx`) for `vectors` vectors, saturated at
  // kMaxComputeCost.
  static double Scaled(double cost, bool hvx, double vectors);

  const CostTable& table() const { return table_; }

 private:
  CostTable table_;
};

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_HVX_COST_MODEL_H_
