/* The C ABI of egret function plugins: a shared library that supplies the
 * external functions rules call by name (SHAPEFN_APPLY, EXTERNAL_CONSTRAINT,
 * AUTOSPLIT_SHAPEFN_APPLY, EXTERNAL_REPLACE) to an egret that was not built
 * with them:
 *
 *   egret optimize graph.json --rules my_ops.cpp --plugin ./libmyfns.so
 *
 * This header is plain C (C99 or C++), has no egret dependency and is stable:
 * a change that breaks a compiled plugin increments EGRET_PLUGIN_ABI_VERSION,
 * and egret refuses a plugin built for another version. docs/plugins.md
 * describes the contract; examples/plugin/ is a complete plugin.
 *
 * A plugin exports two functions (declared below; EGRET_PLUGIN_EXPORT gives
 * them C linkage and default visibility):
 *
 *   uint32_t egret_plugin_abi_version(void);
 *       returns EGRET_PLUGIN_ABI_VERSION as the plugin saw it when compiled.
 *   int egret_plugin_register(const egret_plugin_host* host, char* error, size_t error_size);
 *       registers the plugin's functions through `host`; returns 0, or
 *       non-zero after writing a one-line reason into `error`.
 *
 * egret calls egret_plugin_abi_version first and egret_plugin_register only
 * when the versions agree. Every callback below runs on egret's thread,
 * possibly many times per rule and in any order; it must not keep state that
 * changes its answer. Pointers egret passes are valid only during the call.
 */
#ifndef EGRET_RULES_COMPILE_PLUGIN_ABI_H_
#define EGRET_RULES_COMPILE_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#define EGRET_PLUGIN_ABI_VERSION 1u

/* The most dims a tensor (and a shape result) has. */
#define EGRET_PLUGIN_MAX_RANK 8

#ifdef __cplusplus
#define EGRET_PLUGIN_EXTERN_C extern "C"
#else
#define EGRET_PLUGIN_EXTERN_C
#endif
#define EGRET_PLUGIN_EXPORT EGRET_PLUGIN_EXTERN_C __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/* What an operand's values are (egret_tensor_info.value_kind). */
enum {
  EGRET_VALUE_NONE = 0,  /* computed at run time: only the type is known */
  EGRET_VALUE_CONST = 1, /* a "$Const": `values` are its elements' storage values */
  EGRET_VALUE_SHAPE = 2  /* a "$Shape" parameter: `values` are its dims (its value) */
};

/* One operand of the graph being rewritten. */
typedef struct egret_tensor_info {
  /* The dtype's name as in docs/graph-format.md ("QUInt8", "Float32", "Int32", ...). */
  const char* dtype;
  int32_t rank; /* 0..EGRET_PLUGIN_MAX_RANK */
  const int64_t* dims;
  /* The quantization encoding: real value = stepsize * (q - zero_offset).
   * For a per-axis encoding, the largest stepsize and channel 0's offset. */
  double stepsize;
  int32_t zero_offset;
  int32_t value_kind; /* EGRET_VALUE_* */
  /* The values when value_kind is not NONE (NULL and 0 otherwise), row-major:
   * a constant's storage values (the integers q of a quantized type), exact
   * for every integer dtype; a shape's dims. */
  const double* values;
  int64_t num_values;
} egret_tensor_info;

/* One argument of a SHAPEFN_APPLY / AUTOSPLIT_SHAPEFN_APPLY call: an operand
 * (a quoted tag or a construction in the rule) or a scalar expression. */
typedef struct egret_arg {
  int32_t is_operand;
  egret_tensor_info operand; /* when is_operand */
  double scalar;             /* otherwise: ints, bools as 0/1, dtypes as their QNN number */
} egret_arg;

/* The piece an AUTOSPLIT / OP_ITER iteration builds. */
typedef struct egret_split {
  int32_t dim;
  int64_t start;
  int64_t size;
} egret_split;

/* What a function returns (egret_result.kind). */
enum {
  EGRET_RESULT_SHAPE = 0,         /* a "$Shape" with dims dims[0..rank) (the default) */
  EGRET_RESULT_CONST_INT32 = 1,   /* an Int32 "$Const" of dims dims[0..rank) holding `values` */
  EGRET_RESULT_CONST_FLOAT32 = 2, /* a Float32 "$Const", the same */
  EGRET_RESULT_UNCHANGED = 3,     /* EXTERNAL_REPLACE only: leave the e-graph unchanged */
  EGRET_RESULT_CONST_ROOT = 4     /* EXTERNAL_REPLACE only: a "$Const" of the root's type holding
                                     `values` (storage values), one per element of the root */
};

/* The result a callback fills in. egret sets kind = EGRET_RESULT_SHAPE (or
 * UNCHANGED for a replace function) and rank = 0 before the call, and owns
 * `values`: room for `values_capacity` numbers. */
typedef struct egret_result {
  int32_t kind;
  int32_t rank;
  int64_t dims[EGRET_PLUGIN_MAX_RANK];
  double* values;
  int64_t values_capacity;
} egret_result;

/* Callbacks. Each returns 0 on success; on failure non-zero, after writing a
 * one-line, NUL-terminated reason into `error` (at most `error_size` bytes).
 * A failing shape or replace function makes that application of the rule
 * fail: egret reports it among the rule's issues and leaves the e-graph
 * unchanged. A failing constraint counts as false. `user` is the pointer the
 * function was registered with. */

/* EXTERNAL_CONSTRAINT(name, "tag", exprs...): sets *result to 0 or 1. */
typedef int (*egret_constraint_fn)(void* user, const egret_tensor_info* operand, const double* args,
                                   int32_t num_args, int32_t* result, char* error,
                                   size_t error_size);
/* SHAPEFN_APPLY(name, params...): the shape or constant to build. */
typedef int (*egret_shape_fn)(void* user, const egret_arg* args, int32_t num_args,
                              egret_result* result, char* error, size_t error_size);
/* AUTOSPLIT_SHAPEFN_APPLY(name, "tag", params...). */
typedef int (*egret_autosplit_shape_fn)(void* user, const egret_split* split, const egret_arg* args,
                                        int32_t num_args, egret_result* result, char* error,
                                        size_t error_size);
/* EXTERNAL_REPLACE(name): the matched root; result UNCHANGED or CONST_ROOT. */
typedef int (*egret_replace_fn)(void* user, const egret_tensor_info* root, egret_result* result,
                                char* error, size_t error_size);

/* What egret gives egret_plugin_register. Each register_* adds (or replaces)
 * the function `name` (a C identifier) of that kind and returns 0, or
 * non-zero for a bad name or a null function. `num_operands` is the number
 * of operands rules pass (the checker holds calls to it), or -1 for any. */
typedef struct egret_plugin_host {
  uint32_t abi_version; /* EGRET_PLUGIN_ABI_VERSION of the egret loading the plugin */
  void* context;        /* egret's; pass it back as the first argument */
  int (*register_constraint)(void* context, const char* name, egret_constraint_fn fn, void* user);
  int (*register_shape_fn)(void* context, const char* name, int32_t num_operands, egret_shape_fn fn,
                           void* user);
  int (*register_autosplit_shape_fn)(void* context, const char* name, int32_t num_operands,
                                     egret_autosplit_shape_fn fn, void* user);
  int (*register_replace)(void* context, const char* name, egret_replace_fn fn, void* user);
} egret_plugin_host;

/* The entry points a plugin defines (see the file comment). */
EGRET_PLUGIN_EXPORT uint32_t egret_plugin_abi_version(void);
EGRET_PLUGIN_EXPORT int egret_plugin_register(const egret_plugin_host* host, char* error,
                                              size_t error_size);

typedef uint32_t (*egret_plugin_abi_version_fn)(void);
typedef int (*egret_plugin_register_fn)(const egret_plugin_host* host, char* error,
                                        size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* EGRET_RULES_COMPILE_PLUGIN_ABI_H_ */
