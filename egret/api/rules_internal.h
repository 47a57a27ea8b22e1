// What a Rules object is inside egret: the checked rule set and the function
// implementations its rules were checked against.
#ifndef EGRET_API_RULES_INTERNAL_H_
#define EGRET_API_RULES_INTERNAL_H_

#include "egret/api/rules.h"
#include "egret/rules/rule_set.h"
#include "egret/rules_compile/shape_functions.h"

namespace egret::api {

struct Rules::Impl {
  rules::RuleSet set;
  rules::FunctionLibrary functions;
};

}  // namespace egret::api

#endif  // EGRET_API_RULES_INTERNAL_H_
