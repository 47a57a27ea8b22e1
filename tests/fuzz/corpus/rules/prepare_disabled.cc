#ifndef PREPARE_DISABLED
// :::EXTERNAL_SHAPEFN::: { OpRef my_split(Replacement &, OpRef); }
OpRef my_split(Replacement &rpx, OpRef x) { return x; }
#endif
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(TILING, relaxed_precision_flag,
  Op("Conv2d", "in", "w"), SHOULD_TILE(GT(DIM_DEPTH("in"), 64)),
  AUTOSPLIT(1, "I", TILE_HEIGHT, Op("Conv2d", TYPICAL_CONV_SLICE("in", "I", 1, 3), "w")))
