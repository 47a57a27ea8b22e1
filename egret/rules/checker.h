// The rule checker: static types and the well-formedness rules of the HTP
// optimization grammar, over a parsed Rule (parser.h).
//
// Checked (each violation is one error at the offending node):
//  - match: the root is Op/OpVarIn (parser); "*" is not used as a tag; a LET
//    tag does not appear inside its own operand and is bound by one LET only;
//  - every operand tag of the constraint and the replacement appears in the
//    match or is "*";
//  - types of every operator (see docs/rule-language.md); the constraint is
//    bool; the replacement is an operand or a construction;
//  - replacement forms are not used in the constraint;
//  - split tags: each AUTOSPLIT/OP_ITER has a distinct tag; SPLIT_*, ITER_VAR,
//    ITER_INPUT_OF and AUTOSPLIT_SHAPEFN_APPLY appear only in the last operand
//    of an AUTOSPLIT/OP_ITER with the same tag; an AUTOSPLIT uses its own tag
//    in its last operand;
//  - AUTOSPLIT and EXTERNAL_REPLACE only at the root or in root SELECTs;
//  - modifiers: the first operand is not an op construction (and is an
//    existing opref, or for WITH_SIZE a shape), the last one is one;
//    AUTOSPLIT_SLICE/TYPICAL_SLICE/CHANGEDIM_SLICE operands are existing
//    operands (or shapes); the first operand of OP_ITER is Op(...) or an opref;
//  - the replacement is not "*" and no root SELECT can yield "*";
//  - the 3-operand WITH_SPLIT_HISTORY has an integer constant second operand;
//    a constant second operand of ROUNDUP is a power of 2;
//  - calls of declared external functions (built in, registered, loaded from
//    a plugin or declared by an annotation) have the declared number of
//    operands. An undeclared function is not an error here: a rule calling a
//    function with no implementation is kept, and reported and skipped when
//    the rules are bound to a function library (function_binding.h).
// Warnings: gen_ShapeOf of a shape construction (redundant).
#ifndef EGRET_RULES_CHECKER_H_
#define EGRET_RULES_CHECKER_H_

#include "egret/rules/ast.h"
#include "egret/rules/external_functions.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

// Checks `rule` and sets Expr::type on every node of its constraint and
// replacement. Returns true when no error was found. Identical diagnostics
// (same place and text, e.g. from an operand a grammar macro duplicated) are
// reported once.
bool CheckRule(Rule& rule, const ExternalFunctionRegistry& externals, DiagnosticList* diags);

}  // namespace egret::rules

#endif  // EGRET_RULES_CHECKER_H_
