// A realistic op-package source: C++ code, SDK includes that egret does not
// have (a warning each, then skipped), helper macros from the prelude and from
// the package's own header, local #defines, #ifndef PREPARE_DISABLED blocks,
// templates in DEF_PACKAGE_OP arguments and multi-line rules.
// expected-rules: 5
// expected-ops: 4
#include "HTP/core/constraints.h"  // expected-warning@+0:10 {{cannot find include file "HTP/core/constraints.h"; skipped}}
#include "my_package_helpers.h"

#define LOCAL_MIN_DEPTH 16
#define IS_BIG_ENOUGH(x) GE(DIM_DEPTH(x), LOCAL_MIN_DEPTH)

BEGIN_PKG_OP_DEFINITION(PKG_Relu);

template <typename T, typename L>
int reluImpl(T& out, const T& in) {
  for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] > 0 ? in[i] : 0;
  return 0;  // DEF_PACKAGE_OPTIMIZATION(this is not a rule)
}

static float relu_cost(const Op* op) { return 1.0f; }

DEF_PACKAGE_OP(MY_RELU_IMPL(PlainFloatTensor), "Relu")
DEF_PACKAGE_OP((reluImpl<QUint8CroutonTensor, Crouton>), "Relu")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<Tensor, Flat>), "Relu.ref", GLACIAL,
                                  Flags::RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS((reluImpl<F16CroutonTensor, Crouton>), FROM_DEFAULT_PACKAGE("Relu.fp16"),
                                    relu_cost, Flags::RESOURCE_HVX, Flags::IS_CONST)

DEF_PACKAGE_OPTIMIZATION(
    GRAPH_CLEANUP + 0,
    Op(FROM_DEFAULT_PACKAGE("Relu"), Op(FROM_DEFAULT_PACKAGE("Relu"), "x")),
    OK,
    Op(FROM_DEFAULT_PACKAGE("Relu"), "x"))

DEF_PACKAGE_OPTIMIZATION(QNN,
                         Op("Relu", "x"),
                         AND(IS_QUANT_TYPE("x"), SAME_QUANT("x", "*"), IS_BIG_ENOUGH("x"),
                             IS_MY_SMALL("x"), GT(MAX_QU8("x"), MIN_QU8("x"))),
                         Op("Relu.q", "x"))

DEF_PACKAGE_OPTIMIZATION(LATE + 10, Op("Relu", "x"), IS_FLOAT32("x"),
                         MAKE_OP_FP16_AND_INSERT_CAST(Op("Relu.fp16", CAST_TO_FP16("x"))))

#ifndef PREPARE_DISABLED
// :::EXTERNAL_SHAPEFN::: { OpRef relu_tile_shape(Replacement &rpx, Split_Context const &splitinfo, OpRef in); }
OpRef relu_tile_shape(Replacement &rpx, Split_Context const &splitinfo, OpRef in) {
  return rpx.gen_Shape(1, splitinfo.size, 1, 1);
}
#endif

DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Relu", "x"),
    AND(IS_FLOAT16("x"), SHOULD_TILE(GT(DIM_HEIGHT("x"), 8))),
    MY_SPLIT("I", Op("Relu.tcm", TYPICAL_SLICE("x", "I"))))

#if 0
DEF_PACKAGE_OPTIMIZATION(BOGUS, this would not parse)
#endif

DEF_PACKAGE_OPTIMIZATION(TILING + 1,
    Op("Relu", OPCONST("c")),
    OK,
    WITH_SIZE(gen_ShapeOf("c"), Op("Relu", "c")))

DEF_TENSOR_PROPERTIES(Op("Relu", "in"), Flat("*", "in"), MainMemory("in"))
DEF_PACKAGE_PARAM_ORDER("Relu", "in", true, nullptr)

END_PKG_OP_DEFINITION(PKG_Relu);
