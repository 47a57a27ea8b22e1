// Patterns for e-matching: a tree of ops and variables, compiled once into a
// small matching program (see matcher.h).
//
//   Var("a")                      any class, bound to a; a repeated variable
//                                 must bind the same class (nonlinear pattern)
//   Op("Add", {p, q})             a node "Add" with exactly these operands
//   OpVarIn("Concat", {p, q})     a node "Concat" whose first operands match
//                                 p, q and that may have more (OpVarIn)
//   Op(...).As("t")               also binds the class of this node to t (LET);
//                                 the name "*" denotes the matched root class
//   Op(...).WithPayload(k)        only nodes with payload k
//
// Text form (ParsePattern): `(ElementWiseAdd ?a (ElementWiseAdd ?b ?c))`,
// `(Concat ?a ?b ...)` for OpVarIn, `?t=(Relu ?x)` for a binding, a bare
// word `Op` for an op with no operands, `Op#3` for a payload.
#ifndef EGRET_EGRAPH_PATTERN_H_
#define EGRET_EGRAPH_PATTERN_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/egraph/enode.h"
#include "egret/egraph/symbol.h"

namespace egret {

class Pattern {
 public:
  enum class Kind { kVar, kOp };

  static Pattern Var(std::string name);
  static Pattern Op(std::string_view op, std::vector<Pattern> children = {});
  static Pattern OpVarIn(std::string_view op, std::vector<Pattern> children = {});
  // Binds the class of this op node to `name` (returns *this).
  Pattern& As(std::string name);
  Pattern& WithPayload(Payload payload);

  Kind kind() const { return kind_; }
  bool is_var() const { return kind_ == Kind::kVar; }
  // Variable name (kVar) or binding name of an op node ("" when none).
  const std::string& name() const { return name_; }
  Symbol op() const { return op_; }
  bool variadic() const { return variadic_; }
  const std::optional<Payload>& payload() const { return payload_; }
  const std::vector<Pattern>& children() const { return children_; }

  // The text form accepted by ParsePattern.
  std::string ToString() const;

 private:
  Kind kind_ = Kind::kVar;
  std::string name_;
  Symbol op_;
  bool variadic_ = false;
  std::optional<Payload> payload_;
  std::vector<Pattern> children_;
};

// Parses the text form; errors give the offset of the problem.
absl::StatusOr<Pattern> ParsePattern(std::string_view text);

// One instruction of a compiled pattern. Registers hold class ids; register 0
// is the root class.
struct MatchInstr {
  enum Kind : uint8_t { kBind, kCompare };
  Kind kind = kBind;
  bool variadic = false;       // kBind: arity is a minimum
  bool check_payload = false;  // kBind: only nodes with `payload`
  uint16_t in = 0;             // kBind: class register; kCompare: first register
  uint16_t out = 0;            // kBind: first operand register; kCompare: second
  uint16_t arity = 0;          // kBind: operands bound
  uint16_t slot = 0;           // kBind: node slot receiving the matched node
  Symbol op;                   // kBind
  Payload payload = kNoPayload;
};

// A pattern compiled into a matching program: for each op node a Bind that
// enumerates the class's nodes with that op (a contiguous range, found by
// binary search) and writes their operands to registers, with a Compare right
// after the Bind that produces the second occurrence of a variable.
class CompiledPattern {
 public:
  // Variables and bindings in order of first occurrence (the substitution
  // order of a match); "*" (the root) is not among them.
  const std::vector<std::string>& vars() const { return vars_; }
  // Index of a variable in vars(), or -1.
  int VarIndex(std::string_view name) const;
  // The root op (an empty Symbol when the pattern is a variable).
  Symbol root_op() const { return root_op_; }
  bool root_is_var() const { return root_is_var_; }
  // Number of op levels (1 for Op(?a, ?b), 2 for Op(?a, Op(?b, ?c))).
  int depth() const { return depth_; }
  // Number of op nodes (node slots of a match, in pre-order).
  int num_nodes() const { return num_nodes_; }
  int num_regs() const { return num_regs_; }
  const std::vector<MatchInstr>& program() const { return program_; }
  // The distinct ops of the pattern's op nodes, in program order (the root's
  // first). A match needs a node of each: when the e-graph has no class with
  // one of them, the pattern matches nowhere.
  const std::vector<Symbol>& ops() const { return ops_; }
  // Register of each variable, in vars() order.
  const std::vector<uint16_t>& var_regs() const { return var_regs_; }
  const std::string& source() const { return source_; }

 private:
  friend absl::StatusOr<CompiledPattern> CompilePattern(const Pattern& pattern);
  std::vector<std::string> vars_;
  std::vector<uint16_t> var_regs_;
  std::vector<MatchInstr> program_;
  std::vector<Symbol> ops_;
  Symbol root_op_;
  bool root_is_var_ = false;
  int depth_ = 0;
  int num_nodes_ = 0;
  int num_regs_ = 1;
  std::string source_;
};

// Fails for an empty op name, an empty variable name, or a pattern too large
// for 16-bit registers.
absl::StatusOr<CompiledPattern> CompilePattern(const Pattern& pattern);

}  // namespace egret

#endif  // EGRET_EGRAPH_PATTERN_H_
