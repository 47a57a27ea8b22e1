// The e-graph's op traits: per op name, its arity and the algebraic traits
// from which the e-graph derives its built-in equivalences (see
// builtin_rewrites.h). The defaults are derived from the rows of egret's op
// table (graph/op_table.h); users add or override entries with Set() or
// Parse(), e.g. for ops egret does not know.
#ifndef EGRET_EGRAPH_OP_TRAITS_H_
#define EGRET_EGRAPH_OP_TRAITS_H_

#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "egret/egraph/symbol.h"

namespace egret {

struct OpTraits {
  int arity = -1;            // number of inputs; -1 = variadic or unknown
  bool commutative = false;  // f(a, b) = f(b, a)            (binary ops)
  bool associative = false;  // f(a, f(b, c)) = f(f(a, b), c) (binary ops)
  // Associative also when a, b and c broadcast (differ in dims); needs
  // `associative` (see graph/op_table.h: OpAlgebra for why Add is not).
  bool broadcast_associative = false;
  bool idempotent = false;      // f(a, a) = a                  (binary ops)
  bool involution = false;      // f(f(a)) = a                  (unary ops)
  bool side_effecting = false;  // never hash-consed (like volatile '*' ops)

  friend bool operator==(const OpTraits&, const OpTraits&) = default;
};

class OpTable {
 public:
  // An empty table.
  OpTable() = default;
  // The built-in table: one entry per op-table row with algebraic traits
  // (OpDef::algebra), with the row's operand count as arity. Today:
  // ElementWiseAdd and ElementWiseMultiply are commutative and associative;
  // ElementWiseMaximum and ElementWiseMinimum are commutative, associative and
  // idempotent; Multiply, Maximum and Minimum are associative across
  // broadcasting too; Neg is an involution.
  static OpTable Default();

  // Parses one entry per line: `OpName arity=N commutative associative
  // broadcast_associative idempotent involution side_effecting` (any subset
  // of the flags; broadcast_associative needs associative; `#`
  // starts a comment). Entries override the table's existing ones. Errors
  // name `file` and the line.
  absl::Status Parse(std::string_view text, std::string_view file);

  void Set(std::string_view op, OpTraits traits);
  // Traits of `op`, or nullptr when the table has no entry.
  const OpTraits* Find(Symbol op) const;
  // Every entry, sorted by op name.
  std::vector<std::pair<Symbol, OpTraits>> Entries() const;

 private:
  absl::flat_hash_map<Symbol, OpTraits> traits_;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_OP_TRAITS_H_
