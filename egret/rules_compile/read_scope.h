// What a compiled rule reads of the e-graph when its guard runs and its
// replacement is built, beyond the e-nodes the match bound: the incremental
// search (Rewrite::lookahead, Rewrite::reads) must revisit a match when what
// it read changed, and may skip it when nothing did.
//
// The scopes, from the narrowest:
//  - kMatch: the matched e-nodes (their ops, payloads and operand classes),
//    the types of classes (a class's type never changes: also that of
//    INPUT_OF a matched e-node, e.g. INPUT_OF("*", 0)), class identity of
//    the match's own classes, options and literals. Such a rule is
//    semi-naive (lookahead 0).
//  - kConstants: also whether the match's classes (its root class and the
//    classes bound to its tags) hold a "$Const" or "$Shape" node, and its
//    value: CONSTVAL_* of a tag, and the shape check of every new node
//    (replacement.cc: CheckShape reads its operands' constants and "$Shape"
//    nodes).
//  - kClassNodes: also any node of the match's classes (IS_OP, INPUTS_OF of
//    a tag that bound no node, WrapOp's test, SAME_OP, OP_ITER of a class).
//  - kAnything: anything else: classes reached by INPUT_OF (but for their
//    types, above) / OUTPUT_OF / ITER_INPUT_OF, parents (OUTPUTS_OF),
//    external functions, and the rule log's provenance entries
//    (WITH_SAME_ID, WITH_SPLIT_HISTORY), which every application appends to.
// Forms not listed in read_scope.cc count as kAnything.
#ifndef EGRET_RULES_COMPILE_READ_SCOPE_H_
#define EGRET_RULES_COMPILE_READ_SCOPE_H_

#include "egret/egraph/rewrite.h"
#include "egret/rules/ast.h"
#include "egret/rules_compile/guard.h"

namespace egret::rules {

using Reads = Rewrite::Reads;

// What evaluating the constraint `e` reads; `bindings` as for CompileGuard.
Reads ConstraintReads(const Expr& e, const Bindings& bindings);
// What building the replacement `e` reads (its scalar operands included).
Reads ReplacementReads(const Expr& e, const Bindings& bindings);

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_READ_SCOPE_H_
