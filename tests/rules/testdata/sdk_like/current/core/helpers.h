// egret test data: helper macros as an SDK header would define them.
#ifndef SDK_LIKE_HELPERS_H
#define SDK_LIKE_HELPERS_H
#define CHANNEL_SPLIT_SIZE 128
#define TILE_HEIGHT OPTION_UINT("tile_height")
#define MIN_WIDTH 8
#define IS_BINARY_FP32(A, B, OUT) AND(IS_FLOAT32(A), IS_FLOAT32(B), IS_FLOAT32(OUT))
#define CAST_TO_DTYPE(X, DT) WITH_OUTPUT_TYPE(DT, 0, 1.0f, Op(FROM_DEFAULT_PACKAGE("QNN_Cast"), X))
#define CAST_TO_FP32(X) CAST_TO_DTYPE(X, DType::Float32)
#define MAKE_OP_FP16_AND_INSERT_CAST(OP) CAST_TO_FP32(WITH_SIZE("*", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, OP)))
struct HelperTable {
  int entries[4] = {1, 2, 3, 4};
  auto first() const { return [this] { return entries[0]; }(); }
};
#endif
