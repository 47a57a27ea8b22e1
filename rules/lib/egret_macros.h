// Helper macros shared by egret's shipped rule files (rules/lib/*.rules).
#ifndef EGRET_RULES_LIB_EGRET_MACROS_H_
#define EGRET_RULES_LIB_EGRET_MACROS_H_

// SAME_SHAPE compares the four NHWC dims (a missing dim reads as 1); with the
// ranks equal too, the two tensors have the same dims (up to rank 4).
#define SAME_DIMS(a, b) AND(EQ(RANK_OF(a), RANK_OF(b)), SAME_SHAPE(a, b))

#endif  // EGRET_RULES_LIB_EGRET_MACROS_H_
