/* Broken function plugins for the CLI tests, one per define:
 *   BAD_NO_ENTRY         exports neither entry point
 *   BAD_VERSION          reports ABI version 999
 *   BAD_REGISTER         egret_plugin_register fails with a message
 *   BAD_NAME             registers a function whose name is not an identifier
 */
#include <stdio.h>

#include "egret/rules_compile/plugin_abi.h"

#if defined(BAD_NO_ENTRY)
EGRET_PLUGIN_EXPORT int not_an_entry_point(void) { return 0; }
#else
static int shape(void* user, const egret_arg* args, int32_t num_args, egret_result* result,
                 char* error, size_t error_size) {
  (void)user;
  (void)args;
  (void)num_args;
  (void)result;
  snprintf(error, error_size, "never called");
  return 1;
}

EGRET_PLUGIN_EXPORT uint32_t egret_plugin_abi_version(void) {
#if defined(BAD_VERSION)
  return 999;
#else
  return EGRET_PLUGIN_ABI_VERSION;
#endif
}

EGRET_PLUGIN_EXPORT int egret_plugin_register(const egret_plugin_host* host, char* error,
                                              size_t error_size) {
#if defined(BAD_REGISTER)
  (void)host;
  (void)shape;
  snprintf(error, error_size, "this plugin refuses to register\nsecond line");
  return 1;
#else
  (void)error;
  (void)error_size;
  host->register_shape_fn(host->context, "fine_name", 1, shape, NULL);
  host->register_shape_fn(host->context, "bad-name", 1, shape, NULL);
  return 0;
#endif
}
#endif
