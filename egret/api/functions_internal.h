// What a Functions set is inside egret: the declarations the rule checker
// reads and the implementations the rule compiler binds.
#ifndef EGRET_API_FUNCTIONS_INTERNAL_H_
#define EGRET_API_FUNCTIONS_INTERNAL_H_

#include "egret/api/functions.h"
#include "egret/rules/external_functions.h"
#include "egret/rules_compile/shape_functions.h"

namespace egret::api {

struct Functions::Impl {
  rules::ExternalFunctionRegistry declared = rules::ExternalFunctionRegistry::WithBuiltins();
  rules::FunctionLibrary library = rules::FunctionLibrary::WithBuiltins();
};

}  // namespace egret::api

#endif  // EGRET_API_FUNCTIONS_INTERNAL_H_
