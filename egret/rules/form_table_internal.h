// The row lists the form registry (form_table.cc) is assembled from; each
// lives in the file of its category. Internal to the rules stage.
#ifndef EGRET_RULES_FORM_TABLE_INTERNAL_H_
#define EGRET_RULES_FORM_TABLE_INTERNAL_H_

#include "absl/types/span.h"
#include "egret/rules/form_table.h"

namespace egret::rules {

// Literals, constraint forms and operand references (forms_constraint.cc).
absl::Span<const FormRow> ConstraintFormRows();
// Replacement forms (forms_replacement.cc).
absl::Span<const FormRow> ReplacementFormRows();
// Grammar macros (forms_macro.cc).
absl::Span<const MacroRow> MacroRows();

}  // namespace egret::rules

#endif  // EGRET_RULES_FORM_TABLE_INTERNAL_H_
