// Loading function plugins (rules/plugin_abi.h): a shared library's
// egret_plugin_register registers C callbacks by name; this adapts each to the
// FunctionLibrary's C++ function types and declares it to the rule checker.
//
//   rules::FunctionLibrary lib = rules::FunctionLibrary::WithBuiltins();
//   rules::ExternalFunctionRegistry decls = rules::ExternalFunctionRegistry::WithBuiltins();
//   absl::Status s = rules::LoadPlugin("./libmyfns.so", &lib, &decls);
//
// The library stays loaded while any function it registered is held (each
// function keeps a reference to it). docs/plugins.md describes the contract.
#ifndef EGRET_RULES_COMPILE_PLUGIN_LOADER_H_
#define EGRET_RULES_COMPILE_PLUGIN_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/rules/external_functions.h"
#include "egret/rules_compile/shape_functions.h"

namespace egret::rules {

// What one plugin registered: "<kind> <name>" per function, in order, kind
// one of "constraint", "shapefn", "autosplit_shapefn", "replace".
struct PluginInfo {
  std::string path;
  std::vector<std::string> functions;
};

// dlopens `path` and registers its functions into `library` (replacing those
// of the same name and kind) and `declared` (may be null). A path without a
// '/' is opened as given to dlopen's search (use "./x.so" for the current
// directory). Errors are one line "<path>: error: ..." (kInvalidArgument;
// kNotFound when the file does not exist): not a loadable shared library, no
// egret_plugin_abi_version / egret_plugin_register, another ABI version, the
// register function failing (its message), or a bad registration (an empty
// or non-identifier name, a null function, num_operands < -1). On an error
// nothing is registered.
absl::StatusOr<PluginInfo> LoadPlugin(const std::string& path, FunctionLibrary* library,
                                      ExternalFunctionRegistry* declared);

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_PLUGIN_LOADER_H_
