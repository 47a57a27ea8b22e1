// Compiled constraint expressions: every scalar and operand-reference form of
// the rule language (rules/ast.h) turned, once per rule, into a tree of
// closures over pre-resolved slots (match variables, matched e-nodes, split
// contexts, option values), evaluated per match on e-class data. The rule
// compiler (compiler.h) builds guards from constraints with this; the
// replacement builder (replacement.h) uses it for the scalar operands of
// replacements.
//
// Semantics (docs/rewrite-semantics.md has the full list):
//  - An operand tag bound by LET (or "*", the root) denotes the class and the
//    matched e-node; a plain operand tag denotes only its class.
//  - INPUT_OF / INPUTS_OF / IS_OP on a class without a matched node read the
//    class's representative node (RepresentativeNode below).
//  - OUTPUT_OF(x, k) of a Multi-typed class is the class of its "$Out" node
//    selecting output k; OUTPUT_OF(x, 0) of any other class is x.
//  - CONSTVAL_INT(x, i[, j]) reads element i (or row i, column j of the last
//    two dims) of x's "$Const" (storage values) or of x's "$Shape" dims; it
//    returns MIN_INT (-2^31) when x holds no constant, the index is out of
//    range or the value is not an integer that fits in int32. CONSTVAL_FLOAT
//    reads the real value (stepsize * (q - zero_offset)) and returns NaN on
//    failure. The _VALID forms say whether the read succeeds.
//  - OPTION_* read the options given to the compiler (graph options and
//    `--option name=value`) when the rule is compiled; a missing option is 0.
//  - REM(a, b) has the sign of a, MOD(a, b) the sign of b. AND/OR
//    short-circuit. Integer division or remainder by zero, or a reference
//    that does not exist (INPUT_OF past the inputs, OUTPUT_OF of a missing
//    output), makes the whole constraint false for that match.
//  - SAME_OP(a, b) is true when a and b are the same e-class.
#ifndef EGRET_RULES_COMPILE_GUARD_H_
#define EGRET_RULES_COMPILE_GUARD_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/matcher.h"
#include "egret/egraph/pattern.h"
#include "egret/egraph/rewrite.h"
#include "egret/graph/graph.h"
#include "egret/rules/ast.h"
#include "egret/rules_compile/shape_functions.h"

namespace egret::rules {

inline constexpr NodeIdx kNoNodeIdx = ~NodeIdx{0};
inline constexpr int64_t kConstValIntFailure = -2147483648LL;  // MIN_INT

// Where a match puts each operand tag: its index in the match's substitution
// (-1 for the root "*") and the slot of the matched e-node (-1 for a plain
// operand tag, which binds no node).
struct TagSlot {
  int var = -1;
  int node = -1;
};
using Bindings = absl::flat_hash_map<std::string, TagSlot>;

// An operand reference evaluated on a match: a class and, when known, the
// e-node the match bound for it.
struct OperandRef {
  Id cls = kNoId;
  NodeIdx node = kNoNodeIdx;
};

struct EvalState {
  const EGraph* g = nullptr;
  const MatchView* m = nullptr;
  const SplitContext* splits = nullptr;  // indexed by split slot
  bool failed = false;                   // a reference or arithmetic failed
};

using ScalarFn = std::function<Scalar(EvalState&)>;
using RefFn = std::function<OperandRef(EvalState&)>;

// What compiled expressions may refer to; everything must outlive them.
struct ExprEnv {
  const Bindings* bindings = nullptr;
  const Options* options = nullptr;  // may be null: every option is 0
  const FunctionLibrary* functions = nullptr;
  // Split tag -> slot in EvalState::splits (filled by the replacement
  // compiler before it compiles an AUTOSPLIT/OP_ITER body).
  const absl::flat_hash_map<std::string, int>* split_slots = nullptr;
  // ANDs and comparisons of type properties compiled flat (guard_flat.h);
  // false compiles every form as its closure (the reference the flat
  // evaluators are tested against).
  bool flat = true;
};

// Compiles a scalar-typed expression (bool, int, size, float, dtype).
// Errors (an unbound tag, an unknown external function, a form that is not a
// scalar) are kInvalidArgument "file:line:col: error: ..." messages.
absl::StatusOr<ScalarFn> CompileScalar(const Expr& e, const ExprEnv& env);
// Compiles an operand reference (a tag, INPUT_OF, OUTPUT_OF, SELECT of those,
// ITER_INPUT_OF).
absl::StatusOr<RefFn> CompileRef(const Expr& e, const ExprEnv& env);

// A guard for the rewrite: the compiled constraint, false when evaluation
// fails. A constraint that is the constant true gives a null guard.
absl::StatusOr<Guard> CompileGuard(const Expr& constraint, const ExprEnv& env);

// How many INPUT_OF/OUTPUT_OF steps the deepest navigation in `e` takes (the
// incremental search's look-ahead must cover them).
int NavigationDepth(const Expr& e);

// The node INPUT_OF and friends read for a class with no matched node: the
// earliest-added live node of the class that is not a "$Const" or "$Shape"
// (the node the graph originally had there), else the earliest-added node.
NodeIdx RepresentativeNode(const EGraph& g, Id cls);

// The class of output k of the value of class `multi` (see the file comment),
// or kNoId.
Id OutputClass(const EGraph& g, Id multi, int64_t k);
// The number of outputs of class `c`: 1 unless it is Multi-typed, then the
// number its "$Out" selectors give.
int64_t OutputCount(const EGraph& g, Id c);

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_GUARD_H_
