// Op implementations registered by DEF_PACKAGE_OP* forms: for each op name,
// the implementations (C++ expression as written), their cost and flags.
#ifndef EGRET_RULES_OP_REGISTRY_H_
#define EGRET_RULES_OP_REGISTRY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

// Standard costs, in cycles.
inline constexpr double kCostGlacial = 281474976710656.0;   // 2^48
inline constexpr double kCostSnail = 4294967296.0;          // 2^32
inline constexpr double kCostFast = 256.0;                  // 2^8
inline constexpr double kCostFree = 5.421010862427522e-20;  // 2^-64
inline constexpr double kCostDisable = 1125899906842624.0;  // 2^50

// The value of GLACIAL, SNAIL, FAST, FREE or DISABLE; nullopt otherwise.
std::optional<double> NamedCost(std::string_view name);

// A cost as written. Costs that depend on the op (COST_OF, COST_OF_F, a cost
// function) stay symbolic; cost/cost_expr.h evaluates the rest to a number of
// cycles (evaluation is the cost model's business, not the front end's).
struct CostExpr {
  enum class Kind : uint8_t {
    kNumber,  // value
    kNamed,   // GLACIAL ...: name, value
    kAdd,     // args[0] + args[1]
    kSub,
    kMul,
    kDiv,
    kNeg,       // -args[0]
    kCostOf,    // COST_OF(name, args[0]): name scales the base cost args[0]
    kCostOfF,   // COST_OF_F(name): the cost function `name`
    kFunction,  // a cost function named directly (DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS)
  };
  Kind kind = Kind::kNumber;
  double value = 0;
  std::string name;
  std::vector<CostExpr> args;

  // As written, normalized: "SNAIL/128", "COST_OF(f,FAST)", "2.5".
  std::string ToString() const;

  static CostExpr Number(double v);
  static CostExpr Named(std::string_view name);  // name must be a NamedCost
};

// Op flags (bit values are egret's).
enum OpFlag : uint32_t {
  kIsConst = 1u << 0,
  kInhibitConstProp = 1u << 1,
  kResourceHvx = 1u << 2,
  kResourceHmx = 1u << 3,
  kResourceHlx = 1u << 4,
  kIsDma = 1u << 5,
  kNullExec = 1u << 6,
  kInplaceNop = 1u << 7,
  kIsCopy = 1u << 8,
};
// The bit of a known flag (IS_CONST, ..., IS_COPY), or 0.
uint32_t OpFlagBit(std::string_view name);

struct OpImplementation {
  std::string op_name;
  std::string impl;  // implementation expression as written, e.g. "(reluImpl<PlainFloatTensor>)"
  CostExpr cost;
  uint32_t flag_bits = 0;          // OpFlag bits of the known flags
  std::vector<std::string> flags;  // every flag as written (known or not), without "Flags::"
  std::string form;                // DEF_PACKAGE_OP, DEF_PACKAGE_OP_AND_COST_AND_FLAGS, ...
  SourceLocation loc;
};

// Op name -> implementations, in registration order.
class OpRegistry {
 public:
  void Add(OpImplementation impl);
  // The implementations of `op_name` (empty if none).
  std::vector<const OpImplementation*> Find(std::string_view op_name) const;
  bool Contains(std::string_view op_name) const;
  const std::vector<OpImplementation>& all() const { return impls_; }
  size_t size() const { return impls_.size(); }

 private:
  std::vector<OpImplementation> impls_;
  absl::flat_hash_map<std::string, std::vector<size_t>> by_name_;
};

}  // namespace egret::rules

#endif  // EGRET_RULES_OP_REGISTRY_H_
