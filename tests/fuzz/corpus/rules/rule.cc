#include "HTP/core/optimize.h"
#define MY_COND(x) AND(IS_QUANT_TYPE(x), IS_SCALAR(x))
DEF_PACKAGE_OPTIMIZATION(EARLY + 3,
  Op("Relu", LET("conv", Op("Conv2d", "in", OPCONST("w")))),
  MY_COND("in"),
  WITH_SIZE("*", Op("ReluConv", "in", "w")))

DEF_PACKAGE_OP((reluImpl<PlainFloatTensor>), "Relu")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<Tensor>), "Relu.tcm", SNAIL / 128, Flags::RESOURCE_HVX, Flags::IS_CONST)
