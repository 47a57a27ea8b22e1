/* An egret function plugin (egret/rules_compile/plugin_abi.h) in plain C: the shape
 * functions a QNN op package's MaxPool rules call to turn a padded pool into
 * an explicit pad followed by a "valid" (unpadded) pool. README.md says what
 * each computes; docs/plugins.md how to build and load it.
 *
 * The padding operand `pad_amount` holds four integers, top, bottom, left,
 * right: QNN's [2, 2] pad tensor [[top, bottom], [left, right]] as a $Const,
 * or egret's PoolMax2d form, a $Shape [top, bottom, left, right].
 */
#include <stdio.h>

#include "egret/rules_compile/plugin_abi.h"

/* Reads the four paddings of `p`; non-zero (and a message) when it has none. */
static int read_pads(const egret_tensor_info* p, int64_t pads[4], char* error, size_t error_size) {
  int i;
  if (p->value_kind == EGRET_VALUE_NONE || p->num_values != 4) {
    snprintf(error, error_size,
             "pad_amount must be a constant or shape of 4 values (top, bottom, left, right), "
             "got %lld values",
             (long long)p->num_values);
    return 1;
  }
  for (i = 0; i < 4; ++i) {
    pads[i] = (int64_t)p->values[i];
    if (pads[i] < 0 || (double)pads[i] != p->values[i]) {
      snprintf(error, error_size, "pad_amount value %g is not a non-negative integer",
               p->values[i]);
      return 1;
    }
  }
  return 0;
}

/* The activation (rank 4, NHWC) and the paddings of a (act, pad_amount) call. */
static int act_and_pads(const egret_arg* args, int32_t num_args, const int64_t** dims,
                        int64_t pads[4], char* error, size_t error_size) {
  if (num_args != 2 || !args[0].is_operand || !args[1].is_operand) {
    snprintf(error, error_size, "expected two operands (activation, pad_amount)");
    return 1;
  }
  if (args[0].operand.rank != 4) {
    snprintf(error, error_size, "the activation must have rank 4 (NHWC), not %d",
             args[0].operand.rank);
    return 1;
  }
  *dims = args[0].operand.dims;
  return read_pads(&args[1].operand, pads, error, error_size);
}

static void set_shape4(egret_result* r, int64_t a, int64_t b, int64_t c, int64_t d) {
  r->kind = EGRET_RESULT_SHAPE;
  r->rank = 4;
  r->dims[0] = a;
  r->dims[1] = b;
  r->dims[2] = c;
  r->dims[3] = d;
}

/* pad_total_for_qnn(act, pad_amount): the padded activation's shape,
 * [b, h + top + bottom, w + left + right, d]. */
static int pad_total_for_qnn(void* user, const egret_arg* args, int32_t num_args,
                             egret_result* result, char* error, size_t error_size) {
  const int64_t* d;
  int64_t p[4];
  (void)user;
  if (act_and_pads(args, num_args, &d, p, error, error_size) != 0) return 1;
  set_shape4(result, d[0], d[1] + p[0] + p[1], d[2] + p[2] + p[3], d[3]);
  return 0;
}

/* pad_before_for_qnn(act, pad_amount): where the activation starts in the
 * padded one, [0, top, left, 0]. */
static int pad_before_for_qnn(void* user, const egret_arg* args, int32_t num_args,
                              egret_result* result, char* error, size_t error_size) {
  const int64_t* d;
  int64_t p[4];
  (void)user;
  if (act_and_pads(args, num_args, &d, p, error, error_size) != 0) return 1;
  set_shape4(result, 0, p[0], p[2], 0);
  return 0;
}

/* reshape_hw_to_4d(hw): a QNN [height, width] parameter (filter size,
 * stride) as the 4-d [1, height, width, 1] egret's pools take; one already
 * in that form is returned as is. */
static int reshape_hw_to_4d(void* user, const egret_arg* args, int32_t num_args,
                            egret_result* result, char* error, size_t error_size) {
  const egret_tensor_info* p;
  (void)user;
  if (num_args != 1 || !args[0].is_operand) {
    snprintf(error, error_size, "expected one operand ([height, width])");
    return 1;
  }
  p = &args[0].operand;
  if (p->value_kind != EGRET_VALUE_NONE && p->num_values == 2) {
    set_shape4(result, 1, (int64_t)p->values[0], (int64_t)p->values[1], 1);
    return 0;
  }
  if (p->value_kind != EGRET_VALUE_NONE && p->num_values == 4 && p->values[0] == 1 &&
      p->values[3] == 1) {
    set_shape4(result, 1, (int64_t)p->values[1], (int64_t)p->values[2], 1);
    return 0;
  }
  snprintf(error, error_size, "expected a constant [height, width] (or [1, height, width, 1])");
  return 1;
}

/* EXTERNAL_CONSTRAINT(has_spatial_padding, "pad_amount"): any padding at all. */
static int has_spatial_padding(void* user, const egret_tensor_info* operand, const double* args,
                               int32_t num_args, int32_t* result, char* error, size_t error_size) {
  int64_t p[4];
  (void)user;
  (void)args;
  (void)num_args;
  if (read_pads(operand, p, error, error_size) != 0) return 1;
  *result = p[0] != 0 || p[1] != 0 || p[2] != 0 || p[3] != 0;
  return 0;
}

EGRET_PLUGIN_EXPORT uint32_t egret_plugin_abi_version(void) { return EGRET_PLUGIN_ABI_VERSION; }

EGRET_PLUGIN_EXPORT int egret_plugin_register(const egret_plugin_host* host, char* error,
                                              size_t error_size) {
  if (host->register_shape_fn(host->context, "pad_total_for_qnn", 2, pad_total_for_qnn, NULL) ||
      host->register_shape_fn(host->context, "pad_before_for_qnn", 2, pad_before_for_qnn, NULL) ||
      host->register_shape_fn(host->context, "reshape_hw_to_4d", 1, reshape_hw_to_4d, NULL) ||
      host->register_constraint(host->context, "has_spatial_padding", has_spatial_padding, NULL)) {
    snprintf(error, error_size, "a registration was refused");
    return 1;
  }
  return 0;
}
