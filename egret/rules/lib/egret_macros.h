// Helper macros shared by egret's shipped rule files (rules/lib/*.rules).
#ifndef EGRET_RULES_LIB_EGRET_MACROS_H_
#define EGRET_RULES_LIB_EGRET_MACROS_H_

// SAME_SHAPE compares the four NHWC dims (a missing dim reads as 1); with the
// ranks equal too, the two tensors have the same dims (up to rank 4).
#define SAME_DIMS(a, b) AND(EQ(RANK_OF(a), RANK_OF(b)), SAME_SHAPE(a, b))

// The VTCM capacity in bytes, as egret's HVX cost model sees it
// (docs/cost-model.md): option "tcm_size_for_tiling" (TCM_MAXTENSOR_SIZE)
// when set, else 8 MiB (the HTP v73's VTCM).
// A constant v of dims [1], of the dtype of the op it is built in (use it in
// Float32 rules): it broadcasts into any operand of rank >= 1 without
// changing its dims (gen_ConstScalar_f32 is rank 4).
#define EGRET_F32_1D(v) WITH_SIZE(gen_Shape(1), Op("Reshape", gen_ConstScalar_f32(v), gen_Shape(1)))

#define EGRET_VTCM_BYTES SELECT(GT(TCM_MAXTENSOR_SIZE, 0), TCM_MAXTENSOR_SIZE, 8388608)

#endif  // EGRET_RULES_LIB_EGRET_MACROS_H_
