// egret test data: an op-package source read with and without the SDK-like
// headers.
#include <cmath>
#include "core/passes.h"

namespace {
template <typename Tout>
int ref_impl(Tout& out, const Tout& in) {
  return static_cast<int>(in.size()) + out.size();
}
}  // namespace

DEF_PACKAGE_OPTIMIZATION(EARLY,
                         Op(FROM_DEFAULT_PACKAGE("Mul"), "a", Op(FROM_DEFAULT_PACKAGE("Cast"), "c")),
                         IS_BINARY_FP32("a", "c", "*"),
                         Op("MyMul", "a", "c"))

DEF_PACKAGE_OPTIMIZATION(EARLY + 1,
                         Op("MyMul", "a", "c"),
                         GT(DIM_DEPTH("*"), size_t(CHANNEL_SPLIT_SIZE)),
                         AUTOSPLIT(3, "I", CHANNEL_SPLIT_SIZE, Op("MyMul", TYPICAL_SLICE("a", "I"), "c")))

DEF_PACKAGE_OPTIMIZATION(LATE + 10,
                         Op("MyMul", "a", "c"),
                         LT(DIM_WIDTH("a"), MUL(MIN_WIDTH, (int)4)),
                         MAKE_OP_FP16_AND_INSERT_CAST(Op("MyMul", "a", "c")))

DEF_PACKAGE_OPTIMIZATION(QNN + 2 * 3,
                         Op("Beta", "x", "b"),
                         GT(MUL(2, 3), 4 * 1024),
                         Op("Beta", "x", WITH_SAME_OUTPUT("b", gen_ConstScalar_f32(2.0f))))
