// An op package source as real packages write it: SDK includes (absent here),
// local helper macros, #ifndef PREPARE_DISABLED, templates in DEF_PACKAGE_OP.
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"

BEGIN_PKG_OP_DEFINITION(PKG_Relu);

template <typename T>
GraphStatus reluImpl(T &out, const T &in);

#define IS_RELU_QUANT(x) AND(IS_QUINT8(x), EQ(ZERO_OFFSET_OF(x), 0))
#define RELU_RULE(prio, opname) \
  DEF_PACKAGE_OPTIMIZATION(prio, Op(opname, "X"), IS_RELU_QUANT("X"), Op("Relu.opt", "X"))

DEF_PACKAGE_OP((reluImpl<PlainFloatTensor>), "Relu")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<QuantUint8Tensor>), "Relu.tcm", SNAIL / 128,
                                  Flags::RESOURCE_HVX, Flags::IS_CONST)

RELU_RULE(EARLY, "Relu")
RELU_RULE(LATE + 2, "ReluX")

#ifndef PREPARE_DISABLED
// :::EXTERNAL_SHAPEFN::: { OpRef split_weights(Replacement &, OpRef, int); }
OpRef split_weights(Replacement &rpx, OpRef w, int n) { return w; }
#endif

DEF_PACKAGE_OPTIMIZATION(QUANT_FIXES,
  Op("Relu", OPCONST("c")),
  AND(IS_QUANT_TYPE("c"),
      IS_SCALAR("c")),   // multi-line, with comments
  CONST_ZERO_OFF("c"))

#if 0
DEF_PACKAGE_OPTIMIZATION(BEGIN, Op("Disabled"), OK, "*")
#endif

DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(TILING, relaxed_precision_flag,
  Op("Conv2d", "in", "w"),
  GT(DIM_HEIGHT("*"), TILE_HEIGHT),
  AUTOSPLIT(1, "I", TILE_HEIGHT,
            Op("Conv2d", TYPICAL_CONV_SLICE("in", "I", 1, DIM_FILTHEIGHT("w")), "w")))

END_PKG_OP_DEFINITION(PKG_Relu);
